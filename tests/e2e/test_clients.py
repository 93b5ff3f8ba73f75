"""Clients against a real `oracle serve`: the shipped one (clients/python) sync and async, and one
generated from the served OpenAPI document by a maintained generator (openapi-python-client);
each authenticates with a key and reads a list page by page. The shipped client's retry on a
429 is checked against a transport that answers as the server does."""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from oracle_client import AsyncOracle, Oracle, OracleError

from tests.e2e.conftest import stop_server
from tests.servers import start_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server(built_warehouse, tmp_path_factory):
    process, base = start_server(built_warehouse, tmp_path_factory.mktemp("client-data"))
    key = httpx.post(f"{base}/v1/keys", json={"name": "client tests"}).json()["api_key"]
    yield base, key
    stop_server(process)


@pytest.fixture(scope="module")
def openai_tickers(store):
    spots = store.read_table("spots")
    return list(spots["ticker"][spots["provider"] == "openai"])


def test_the_shipped_client_reads_prices_and_pages_with_a_key(server, openai_tickers):
    base, key = server
    with Oracle(base, key) as oracle:
        assert oracle.price("O3", 1000, 500)["spot_cost"] == pytest.approx((1000 * 2 + 500 * 8) / 1e6)
        assert [spot["ticker"] for spot in oracle.iter_list("spots", page_size=7, provider="openai")] == openai_tickers
        assert oracle.key_usage()["total_requests"] >= 1 + -(-len(openai_tickers) // 7)
        assert oracle.export("ici")[:4] == b"PAR1"
        with pytest.raises(OracleError) as refused:
            oracle.spot("NO-SUCH-MODEL")
    assert (refused.value.status, refused.value.code) == (404, "unknown_model")
    with Oracle(base, "ipo_not_a_key") as stranger, pytest.raises(OracleError) as unknown:
        stranger.spot("O3")
    assert (unknown.value.status, unknown.value.code) == (401, "invalid_key")


def test_the_async_client_reads_the_same(server, openai_tickers):
    base, key = server

    async def read():
        async with AsyncOracle(base, key) as oracle:
            price = await oracle.price("O3", 1000, 500)
            tickers = [spot["ticker"] async for spot in oracle.iter_list("greeks", page_size=10, provider="openai")]
            return price, tickers

    price, tickers = asyncio.run(read())
    assert price["spot_cost"] == pytest.approx(0.006) and tickers == openai_tickers


def _limited_then_ok(wait: str):
    """A transport that answers the first request 429 with Retry-After `wait`, then 200."""
    calls = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": wait, "content-type": "application/problem+json"},
                                  json={"code": "rate_limited", "detail": "the free tier limit is reached"})
        return httpx.Response(200, json={"data": {"ticker": "O3"}})

    return answer, calls


def test_a_short_429_is_retried_after_its_retry_after():
    answer, calls = _limited_then_ok("1")
    with Oracle("http://oracle.test", transport=httpx.MockTransport(answer)) as oracle:
        assert oracle.spot("O3") == {"ticker": "O3"}
    assert len(calls) == 2 and calls[1] - calls[0] >= 1.0


def test_a_long_429_is_an_error_that_says_how_long():
    answer, calls = _limited_then_ok("1800")
    with Oracle("http://oracle.test", transport=httpx.MockTransport(answer)) as oracle, \
            pytest.raises(OracleError) as refused:
        oracle.spot("O3")
    assert (refused.value.status, refused.value.code, refused.value.retry_after) == (429, "rate_limited", 1800.0)
    assert len(calls) == 1


def test_a_generated_client_authenticates_and_pages(server, tmp_path, openai_tickers):
    base, key = server
    document = tmp_path / "openapi.json"
    document.write_bytes(httpx.get(f"{base}/schema/openapi.json").content)
    generator = Path(sys.executable).parent / "openapi-python-client"
    run = subprocess.run([generator, "generate", "--path", str(document), "--meta", "none", "--output-path",
                          str(tmp_path / "generated")], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Unable to" not in run.stdout + run.stderr, (run.stdout + run.stderr)[-2000:]
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("generated")
        list_spots = importlib.import_module("generated.api.market.list_spots")
        client = package.AuthenticatedClient(base_url=base, token=key, prefix="", auth_header_name="X-API-Key")
        tickers, offset = [], 0
        while True:
            page = list_spots.sync_detailed(client=client, provider="openai", limit=5, offset=offset)
            assert page.status_code == 200 and page.headers["RateLimit-Limit"] != "60"  # the key's tier, not free
            tickers += [spot.ticker for spot in page.parsed.data]
            if not page.parsed.next_:
                break
            offset += 5
        assert tickers == openai_tickers
    finally:
        sys.path.remove(str(tmp_path))
        for name in [name for name in sys.modules if name == "generated" or name.startswith("generated.")]:
            del sys.modules[name]
