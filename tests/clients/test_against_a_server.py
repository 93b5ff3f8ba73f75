"""The shipped client (clients/python) against a real `oracle serve` on the small universe: typed
answers of every kind of operation, every list read through all its pages, and each refusal its
own error, sync and async."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest
from oracle_client import (
    AsyncOracleClient,
    BadRequest,
    ConnectionFailed,
    NotFound,
    OracleClient,
    OracleError,
    RateLimited,
    Unauthorized,
)

from tests.e2e.conftest import stop_server
from tests.servers import free_port, start_server

pytestmark = pytest.mark.slow


def test_single_answers_are_the_envelopes_data(server, store):
    base, key = server
    with OracleClient(base, key) as oracle:
        assert oracle.descriptor()["name"] == "Inference Pricing Oracle" and oracle.health()["status"] == "ok"
        spot = oracle.one_spot("o3")
        assert spot["ticker"] == "O3" and oracle.spot("O3") == spot  # `spot`: the first version's name
        assert oracle.one_greeks("O3")["ticker"] == "O3" and oracle.one_model("O3")["ticker"] == "O3"
        price = oracle.price("O3", 1000, 500)
        assert price["spot_cost"] == pytest.approx((1000 * 2 + 500 * 8) / 1e6)
        ranked = oracle.compare(2000, 500, models=["O3", "SONNET-4"])
        assert {model["ticker"] for model in ranked["models"]} == {"O3", "SONNET-4"}
        assert oracle.forwards("SONNET-4", mode="sync")["ticker"] == "SONNET-4"
        history = oracle.history("O3", from_=date(2025, 6, 1), to="2025-06-30")
        assert history["from"] == "2025-06-01" and history["count"] == len(history["prices"]) > 0
        assert oracle.ici(type="sync")["type"] == "sync"
        assert oracle.swap("SONNET-4", "3M", task_type="coding", notional_tokens=5e6)["tenorMonths"] == 3
        assert oracle.monte_carlo("O3", task_category="reasoning", horizon_months=3, paths=500, seed=1)
        assert oracle.task_types() and oracle.key_usage()["total_requests"] >= 1
        assert oracle.export("spots", format="csv").startswith(b"ticker,")
        assert oracle.export("ici")[:4] == b"PAR1"  # the first version's default: parquet


def test_every_list_is_read_through_all_its_pages(server, store):
    base, key = server
    spots = store.read_table("spots")
    openai = list(spots["ticker"][spots["provider"] == "openai"])
    with OracleClient(base, key) as oracle:
        assert [s["ticker"] for s in oracle.list_spots(provider="openai", limit=3)] == openai
        assert [s["ticker"] for s in oracle.list_greeks(provider="openai", limit=4)] == openai
        assert [s["ticker"] for s in oracle.iter_list("forwards", page_size=5, provider="openai")] == openai
        page = oracle.list_spots_page(provider="openai", limit=3)
        assert page["total"] == len(openai) and page["next"] and page["oracle_timestamp"]
        whole = oracle.events_page(since="2020-01-01", limit=1000)
        assert not whole["truncated"] and whole["next_cursor"] is None
        events = [e["event_id"] for e in oracle.events(since=date(2020, 1, 1), limit=7)]
        assert events == [e["event_id"] for e in whole["events"]] and len(events) > 7
        first = oracle.backtest(tenor="3M", limit=1000)
        predictions = [(p["anchor"], p["ticker"], p["method"]) for p in oracle.backtest_predictions(tenor="3M", limit=9)]
        assert len(predictions) == first["total"] > 9
        assert predictions[:len(first["predictions"])] == [(p["anchor"], p["ticker"], p["method"])
                                                           for p in first["predictions"]]


def test_keys_and_webhooks_round_trip(server):
    base, _ = server
    with OracleClient(base) as anyone:
        created = anyone.create_key("round trip")
    with OracleClient(base, created["key"]) as oracle:
        hook = oracle.create_webhook("http://127.0.0.1:9/hook", kind="price_cut")
        assert [h["id"] for h in oracle.list_webhooks()["webhooks"]] == [hook["id"]]
        oracle.remove_webhook(hook["id"])
        assert oracle.list_webhooks()["webhooks"] == []
        assert oracle.revoke_key()["revoked"]  # when it was revoked
        with pytest.raises(Unauthorized) as revoked:
            oracle.key_usage()
    assert revoked.value.status == 401 and revoked.value.code == "invalid_key"


def test_each_refusal_is_its_own_error(server):
    base, key = server
    with OracleClient(base, key) as oracle:
        with pytest.raises(NotFound) as unknown:
            oracle.one_spot("SONET-4")
        assert unknown.value.code == "unknown_model" and "SONNET-4" in unknown.value.suggestions
        with pytest.raises(BadRequest) as invalid:
            oracle.price("O3", -1, 1)
        assert invalid.value.status == 400 and [e["field"] for e in invalid.value.errors] == ["n_in"]
        with pytest.raises(BadRequest) as cursor:
            oracle.events_page(cursor="not-a-cursor")
        assert cursor.value.errors[0]["field"] == "cursor"
    with OracleClient(base, "ipo_not_a_key") as stranger, pytest.raises(Unauthorized):
        stranger.one_spot("O3")
    assert all(issubclass(kind, OracleError) for kind in (NotFound, BadRequest, Unauthorized, RateLimited))


def test_a_refused_connection_names_the_url():
    base = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with OracleClient(base, retries=0) as oracle, pytest.raises(ConnectionFailed) as failed:
        oracle.health()
    assert f"{base}/health" in str(failed.value) and failed.value.status is None
    assert isinstance(failed.value, OracleError) and failed.value.__cause__ is not None


def test_over_the_limit_is_rate_limited_with_retry_after(built_warehouse, tmp_path):
    process, base = start_server(built_warehouse, tmp_path, free_requests_per_hour="2")
    try:
        with OracleClient(base, retries=0) as oracle:
            oracle.one_spot("O3")
            oracle.one_spot("O3")
            with pytest.raises(RateLimited) as limited:
                oracle.one_spot("O3")
        assert limited.value.status == 429 and 0 < limited.value.retry_after <= 3600
    finally:
        stop_server(process)


def test_the_async_client_answers_the_same(server, store):
    base, key = server
    spots = store.read_table("spots")
    openai = list(spots["ticker"][spots["provider"] == "openai"])

    async def read():
        async with AsyncOracleClient(base, key) as oracle:
            price = await oracle.price("O3", 1000, 500)
            tickers = [spot["ticker"] async for spot in oracle.list_spots(provider="openai", limit=4)]
            events = [event["event_id"] async for event in oracle.events(since="2020-01-01", limit=9)]
            whole = await oracle.events_page(since="2020-01-01", limit=1000)
            try:
                await oracle.one_spot("SONET-4")
            except NotFound as missing:
                suggestions = missing.suggestions
            return price, tickers, events, whole, suggestions

    price, tickers, events, whole, suggestions = asyncio.run(read())
    assert price["spot_cost"] == pytest.approx(0.006) and tickers == openai and "SONNET-4" in suggestions
    assert events == [event["event_id"] for event in whole["events"]]
