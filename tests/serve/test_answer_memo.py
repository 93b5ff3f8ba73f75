"""Computed POST answers are kept per snapshot and endpoint, by raw body: a repeat is the same
answer (its age aside) without computing anything; a refusal is never kept; the memo is bounded
by its bytes and starts over past them."""

import msgspec
import pytest

import serve.direct
from serve.answers import Answer, AnswerShelf

BODIES = {
    "/v1/price": {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6},
    "/v1/compare": {"n_in": 30000, "n_out": 800, "eta": 0.6},
    "/v1/providers": {"model": "SONNET-4", "n_in": 30000, "n_out": 800},
}


def _data(response) -> dict:
    assert response.status_code == 200, response.text
    body = response.json()
    assert isinstance(body.pop("cache_age_seconds"), int)
    return body


@pytest.mark.parametrize("path", BODIES)
def test_a_repeated_body_is_answered_from_memory(fresh_client, monkeypatch, path):
    raw = msgspec.json.encode(BODIES[path])
    first = fresh_client.post(path, content=raw, headers={"Content-Type": "application/json"})
    calls = []  # every computed answer is enveloped; a repeat is not
    real = serve.direct.computed_envelope
    monkeypatch.setattr(serve.direct, "computed_envelope", lambda *a: calls.append(a) or real(*a))
    again = fresh_client.post(path, content=raw, headers={"Content-Type": "application/json"})
    assert calls == [] and _data(again) == _data(first)
    other = fresh_client.post(path, json={**BODIES[path], "n_out": 801})  # computed: never a stale answer
    assert len(calls) == 1 and _data(other) != _data(first)


def test_a_different_body_is_a_different_answer(fresh_client):
    cheap = _data(fresh_client.post("/v1/price", json={**BODIES["/v1/price"], "n_out": 10}))
    dear = _data(fresh_client.post("/v1/price", json={**BODIES["/v1/price"], "n_out": 10_000}))
    assert cheap["data"]["spot_cost"] < dear["data"]["spot_cost"]
    again = _data(fresh_client.post("/v1/price", json={**BODIES["/v1/price"], "n_out": 10}))
    assert again == cheap


def test_a_refused_body_is_refused_again(fresh_client, monkeypatch):
    body = {**BODIES["/v1/price"], "model": "NO-SUCH-MODEL"}
    assert fresh_client.post("/v1/price", json=body).status_code == 404
    calls = []
    real = serve.direct.answer
    monkeypatch.setattr(serve.direct, "answer", lambda *a: calls.append(a) or real(*a))
    assert fresh_client.post("/v1/price", json=body).status_code == 404
    assert len(calls) == 1  # computed (and refused) again


def test_the_memo_keeps_at_most_its_count_the_least_recently_used_going_first():
    memo = AnswerShelf(budget=10**9, most=2)
    answer = Answer("", b"x", b'"t"', "")
    for raw in (b"a", b"b", b"c"):
        memo.keep(raw, answer)
    assert memo.get(b"a") is None and memo.get(b"c") is answer and len(memo) == 2
