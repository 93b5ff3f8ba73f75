"""Answers kept per snapshot give exactly what the handlers give.

- `serve.answers`: a repeated snapshot GET is answered from the snapshot's shelf by the app's
  `before_request` hook, without running its handler, inside its route: still logged, counted
  and limited; the shelf is bounded in bytes;
- `serve.direct`: the pricing POSTs are answered from their raw body, a repeat from memory.
"""

import asyncio

import msgspec
import pytest
from litestar.testing import TestClient

import serve.deps
from serve.answers import SHELF, Answer, AnswerShelf
from serve.api import curves
from serve.app import create_app
from serve.direct import read_body
from serve.problems import Problem
from tests.serve.conftest import api_settings

SNAPSHOT_GETS = ["/v1/forwards/SONNET-4", "/v1/spots", "/v1/history/O3?from=2025-06-01&to=2025-06-20",
                 "/v1/ici?type=batch", "/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=3&paths=2000"]
PRICING = {
    "/v1/price": {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6, "horizon_months": 3},
    "/v1/compare": {"n_in": 30000, "n_out": 800, "eta": 0.6},
    "/v1/providers": {"model": "SONNET-4", "n_in": 30000, "n_out": 800},
}


def _without_age(response) -> dict:
    body = response.json()
    assert isinstance(body.pop("cache_age_seconds"), int)
    return body


def _headers(response) -> dict[str, str]:
    """The headers that must not differ between two answers to the same request."""
    return {k: v for k, v in response.headers.items() if "ratelimit-" not in k}  # they count down (both families)


@pytest.mark.parametrize("path", SNAPSHOT_GETS)
def test_a_repeated_snapshot_get_is_the_same_answer_without_running_the_handler(fresh_client, monkeypatch, path):
    first = fresh_client.get(path)
    assert first.status_code == 200, first.text
    calls = []  # every snapshot handler answers through snapshot_response
    monkeypatch.setattr(serve.deps, "snapshot_response", lambda *a: calls.append(a))
    again = fresh_client.get(path)
    assert again.status_code == 200 and calls == []
    assert _without_age(again) == _without_age(first)
    assert _headers(again) == _headers(first)
    assert int(again.headers["ratelimit-remaining"]) == int(first.headers["ratelimit-remaining"]) - 1  # counted


def test_a_kept_answer_honours_if_none_match(fresh_client):
    tag = fresh_client.get("/v1/forwards/SONNET-4").headers["etag"]
    again = fresh_client.get("/v1/forwards/SONNET-4", headers={"If-None-Match": f'"other", {tag}'})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == tag
    assert fresh_client.get("/v1/forwards/SONNET-4", headers={"If-None-Match": '"other"'}).status_code == 200


def test_refusals_are_never_kept(fresh_client, monkeypatch):
    assert fresh_client.get("/v1/forwards/NO-SUCH-MODEL").status_code == 404
    assert fresh_client.get("/v1/forwards/SONNET-4?mode=weekly").status_code == 400
    calls = []
    real = curves._model_and_mode
    monkeypatch.setattr(curves, "_model_and_mode", lambda *a: calls.append(a) or real(*a))
    assert fresh_client.get("/v1/forwards/NO-SUCH-MODEL").status_code == 404
    assert fresh_client.get("/v1/forwards/SONNET-4?mode=weekly").status_code == 400
    assert len(calls) == 2  # both ran their handler again


def test_a_different_query_is_a_different_answer(fresh_client):
    sync = fresh_client.get("/v1/forwards/SONNET-4").json()["data"]
    batch = fresh_client.get("/v1/forwards/SONNET-4?mode=batch").json()["data"]
    assert (sync["mode"], batch["mode"]) == ("sync", "batch") and sync["spot"] != batch["spot"]


@pytest.mark.parametrize("path", PRICING)
@pytest.mark.parametrize(("change", "field"), [({"n_in": "1000"}, "n_in"), ({"n_out": -1}, "n_out"),
                                               ({"eta": 1.5}, "eta"), ({"surplus": 1}, "body")])
def test_a_pricing_body_is_decoded_strictly_and_refused_with_its_field(fresh_client, path, change, field):
    refused = fresh_client.post(path, json={**PRICING[path], **change})
    assert refused.status_code == 400, refused.text
    assert refused.json()["errors"][0]["field"] == field
    assert "ratelimit-remaining" in refused.headers  # refused inside the middleware that counts


def _receive(messages):
    queue = list(messages)

    async def receive():
        return queue.pop(0)
    return receive


def test_a_body_in_chunks_is_read_whole_and_the_limit_counts_every_chunk():
    chunks = [{"type": "http.request", "body": b'{"n_in": ', "more_body": True},
              {"type": "http.request", "body": b"1000}", "more_body": False}]
    assert asyncio.run(read_body(_receive(chunks), 100)) == b'{"n_in": 1000}'
    with pytest.raises(Problem) as refused:
        asyncio.run(read_body(_receive(chunks), 10))
    assert refused.value.status == 413
    with pytest.raises(Problem) as gone:
        asyncio.run(read_body(_receive([{"type": "http.disconnect"}]), 100))
    assert gone.value.status == 400


def test_the_pricing_answers_carry_tidy_numbers(fresh_client):
    data = fresh_client.post("/v1/price", json=PRICING["/v1/price"]).json()["data"]
    # 30,000 in at 3 $/M, 800 out at 15 $/M, eta 0.6 of the input read from cache at 0.30 $/M.
    expected = (30_000 * 0.4 * 3 + 30_000 * 0.6 * 0.30 + 800 * 15) / 1e6
    assert data["spot_cost"] == pytest.approx(expected, rel=1e-12)
    assert msgspec.json.encode(data["spot_cost"]).decode() == repr(float(f"{expected:.15g}"))


def test_a_kept_answer_is_sent_inside_its_route_logged_counted_and_limited(built_warehouse, tmp_path, monkeypatch):
    log = tmp_path / "access.log"
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6, access_log=str(log),
                                  free_requests_per_hour=3))
    with TestClient(app) as client:
        first = client.get("/v1/forwards/SONNET-4")
        assert first.status_code == 200 and first.headers["ratelimit-remaining"] == "2"
        calls = []
        monkeypatch.setattr(serve.deps, "snapshot_response", lambda *a: calls.append(a))
        again = client.get("/v1/forwards/SONNET-4")
        assert again.status_code == 200 and calls == []
        assert _without_age(again) == _without_age(first) and _headers(again) == _headers(first)
        assert again.headers["ratelimit-remaining"] == "1"
        assert client.get("/v1/forwards/SONNET-4", headers={"If-None-Match": first.headers["etag"]}).status_code == 304
        limited = client.get("/v1/forwards/SONNET-4")
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert limited.headers["retry-after"] and limited.headers["ratelimit-remaining"] == "0"
    statuses = [line.split('"')[2].split()[0] for line in log.read_text().splitlines() if "/v1/forwards/" in line]
    assert statuses == ["200", "200", "304", "429"]


def _answer(size: int) -> Answer:
    return Answer('"t"', b"x" * size, b'"2026-11-22T00:00:00.000Z"', "public, max-age=60")


def test_the_shelf_keeps_at_most_its_budget_and_lets_the_least_recently_used_go_first():
    small = _answer(100)  # below compression's threshold: charged twice its size
    assert small.cost == 200
    shelf = AnswerShelf(budget=500)
    for page in "abc":
        shelf.keep((page, b""), small)
    assert len(shelf) == 2 and shelf.size == 400  # `a` went to make room for `c`
    assert shelf.get(("a", b"")) is None
    shelf.get(("b", b""))  # now `c` is the least recently used
    shelf.keep(("d", b""), small)
    assert shelf.get(("c", b"")) is None and shelf.get(("b", b"")) is small and shelf.size == 400
    shelf.keep(("huge", b""), _answer(10_000))  # more than the whole budget: not kept, nothing dropped
    assert shelf.get(("huge", b"")) is None and len(shelf) == 2
    large = _answer(2000)  # compressible: room for its two compressed forms and their aged copies too
    assert large.cost == 2000 * 6


def test_distinct_pages_keep_the_snapshots_answers_within_the_byte_budget(fresh_client):
    page = "/v1/backtest?limit=50&offset={}"
    assert fresh_client.get(page.format(0)).status_code == 200
    shelf = fresh_client.app.state.snapshots.current().cache[SHELF]
    budget = shelf.budget = 5 * shelf.size + 1  # room for five pages of about that size
    for offset in range(1, 40):
        assert fresh_client.get(page.format(offset)).status_code == 200
    assert 0 < shelf.size <= budget and 3 <= len(shelf) <= 6


def test_a_kept_answer_asked_from_another_origin_gets_its_cors_headers(built_warehouse):
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6,
                                  cors_origins="https://budget.example"))
    origin = {"Origin": "https://budget.example"}
    with TestClient(app) as client:
        first = client.get("/v1/forwards/SONNET-4", headers=origin)
        again = client.get("/v1/forwards/SONNET-4", headers=origin)
        assert first.status_code == again.status_code == 200
        assert again.headers["access-control-allow-origin"] == "https://budget.example"
        assert "ETag" in again.headers["access-control-expose-headers"]
        assert _without_age(again) == _without_age(first)


def test_a_failure_before_a_kept_answer_is_the_same_500_problem_as_the_routes(fresh_client, monkeypatch, caplog):
    fresh_client.get("/v1/forwards/SONNET-4")

    def down(*args, **kwargs):
        raise ConnectionError("the counter store is down")

    async def unreachable(*args, **kwargs):
        down()

    monkeypatch.setattr(fresh_client.app.state.counters, "hit", unreachable)
    monkeypatch.setattr(fresh_client.app.state.counters, "count", down)  # the in-process store's, not awaited
    kept = fresh_client.get("/v1/forwards/SONNET-4")
    computed = fresh_client.get("/v1/forwards/GPT-4O")
    assert kept.status_code == computed.status_code == 500
    assert kept.headers["content-type"] == computed.headers["content-type"] == "application/problem+json"
    assert kept.json() == computed.json() and kept.json()["code"] == "internal_error"
    assert "the counter store is down" not in kept.text
    assert "unhandled error on GET /v1/forwards/SONNET-4" in caplog.text
