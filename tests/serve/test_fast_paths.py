"""The two short cuts of the request path give exactly what the handlers give.

- `serve.answers`: a repeated snapshot GET is sent from the snapshot's memo, without its handler,
  and in front of the routes (`KeptAnswers`), still logged, counted and limited;
- `serve.direct`: the pricing POSTs are answered from the raw body, without the framework's
  per-request parsing.
"""

import asyncio

import msgspec
import pytest
from litestar.testing import TestClient

import serve.app
import serve.respond
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


@pytest.fixture
def fresh_client(built_warehouse):
    """An app of its own, so its snapshot memo starts empty."""
    with TestClient(create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6))) as client:
        yield client


@pytest.mark.parametrize("path", SNAPSHOT_GETS)
def test_a_repeated_snapshot_get_is_the_same_answer_without_running_the_handler(fresh_client, monkeypatch, path):
    first = fresh_client.get(path)
    assert first.status_code == 200, first.text
    calls = []  # every snapshot handler answers through snapshot_response, which looks up the memo
    monkeypatch.setattr(serve.respond, "remembered", lambda *a: calls.append(a))
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


@pytest.fixture
def handler_client(built_warehouse, monkeypatch):
    """An app without the direct middleware, so the framework's handlers answer the POSTs."""
    monkeypatch.setattr(serve.app, "DirectAnswers", lambda app, **_: app)
    with TestClient(create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6))) as client:
        yield client


@pytest.mark.parametrize("path", PRICING)
def test_direct_answers_equal_the_handlers_answers(fresh_client, handler_client, path):
    direct, handled = fresh_client.post(path, json=PRICING[path]), handler_client.post(path, json=PRICING[path])
    assert direct.status_code == handled.status_code == 200, (direct.text, handled.text)
    assert _without_age(direct) == _without_age(handled)
    assert direct.headers["content-type"] == handled.headers["content-type"] == "application/json"


@pytest.mark.parametrize("path", PRICING)
@pytest.mark.parametrize("change", [{"n_in": "1000"}, {"n_out": -1}, {"eta": 1.5}, {"surplus": 1}])
def test_direct_and_handler_refuse_alike(fresh_client, handler_client, path, change):
    body = {**PRICING[path], **change}
    direct, handled = fresh_client.post(path, json=body), handler_client.post(path, json=body)
    assert direct.status_code == handled.status_code == 400, (direct.text, handled.text)
    assert direct.json() == handled.json()


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


class Framework:
    """Stands in for the routes once an answer is kept: what it is asked, it answers 418."""

    def __init__(self):
        self.paths = []

    async def __call__(self, scope, receive, send):
        self.paths.append(scope["path"])
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b""})


def test_a_kept_answer_is_sent_in_front_of_the_routes_logged_counted_and_limited(built_warehouse, tmp_path):
    log = tmp_path / "access.log"
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6, access_log=str(log),
                                  free_requests_per_hour=3))
    with TestClient(app) as client:
        first = client.get("/v1/forwards/SONNET-4")
        assert first.status_code == 200 and first.headers["ratelimit-remaining"] == "2"
        app.asgi_handler.app = routes = Framework()
        again = client.get("/v1/forwards/SONNET-4")
        assert again.status_code == 200 and routes.paths == []
        assert _without_age(again) == _without_age(first) and _headers(again) == _headers(first)
        assert again.headers["ratelimit-remaining"] == "1"
        assert client.get("/v1/forwards/GPT-4O").status_code == 418 and routes.paths == ["/v1/forwards/GPT-4O"]
        assert client.get("/v1/forwards/SONNET-4", headers={"If-None-Match": first.headers["etag"]}).status_code == 304
        limited = client.get("/v1/forwards/SONNET-4")
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert limited.headers["retry-after"] and limited.headers["ratelimit-remaining"] == "0"
    statuses = [line.split('"')[2].split()[0] for line in log.read_text().splitlines() if "/v1/forwards/" in line]
    assert statuses == ["200", "200", "304", "429"]  # the stand-in's 418 is not the app's to log


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

    async def unreachable(*args, **kwargs):
        raise ConnectionError("the counter store is down")

    monkeypatch.setattr(fresh_client.app.state.counters, "hit", unreachable)
    kept = fresh_client.get("/v1/forwards/SONNET-4")  # in front of the routes
    routed = fresh_client.get("/v1/forwards/GPT-4O")  # through them
    assert kept.status_code == routed.status_code == 500
    assert kept.headers["content-type"] == routed.headers["content-type"] == "application/problem+json"
    assert kept.json() == routed.json() and kept.json()["code"] == "internal_error"
    assert "the counter store is down" not in kept.text
    assert "unhandled error on GET /v1/forwards/SONNET-4" in caplog.text
