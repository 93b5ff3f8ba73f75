"""A small typed client for the Inference Pricing Oracle's `/v1` API (sync and async, on httpx).

Answers are the envelope's `data` as plain JSON values. Lists of every model (`spots`, `greeks`,
`forwards`) are read page by page with `iter_list`, which follows each page's `next` path. A 429
is retried after its Retry-After when that is short enough; every other refusal is an
`OracleError` with the problem details the server sent.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

__all__ = ["AsyncOracle", "Oracle", "OracleError"]

LISTS = ("spots", "greeks", "forwards")


class OracleError(Exception):
    """A refused request: its HTTP status, the problem's `code` and `detail`, and for a 429 how
    long to wait (`retry_after`, seconds)."""

    def __init__(self, status: int, code: str, detail: str, retry_after: float | None = None,
                 body: dict[str, Any] | None = None):
        super().__init__(f"{status} {code}: {detail}")
        self.status, self.code, self.detail, self.retry_after, self.body = status, code, detail, retry_after, body or {}


class _Settings:
    def __init__(self, base_url: str, key: str | None, retries: int, max_retry_wait: float, timeout: float):
        self.base_url, self.key = base_url.rstrip("/"), key
        self.retries, self.max_retry_wait, self.timeout = retries, max_retry_wait, timeout

    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key} if self.key else {}

    def wait_before_retry(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before asking again, or None when the answer stands."""
        if response.status_code != 429 or attempt >= self.retries:
            return None
        wait = _retry_after(response)
        return wait if wait is not None and wait <= self.max_retry_wait else None


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def _data(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            body = response.json()
        except ValueError:
            body = {}
        raise OracleError(response.status_code, body.get("code", "error"), body.get("detail", response.text[:200]),
                          _retry_after(response), body)
    if not response.headers.get("content-type", "").startswith("application/json"):
        return response.content  # an export: the file's bytes
    return response.json()


def _list_params(page_size: int, filters: dict[str, Any]) -> dict[str, Any]:
    return {**{name: value for name, value in filters.items() if value is not None}, "limit": page_size}


class Oracle:
    """The API, synchronously. Use as a context manager, or call `close()`."""

    def __init__(self, base_url: str, key: str | None = None, *, retries: int = 2, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, transport: httpx.BaseTransport | None = None):
        self.settings = _Settings(base_url, key, retries, max_retry_wait, timeout)
        self._http = httpx.Client(base_url=self.settings.base_url, headers=self.settings.headers(), timeout=timeout,
                                  transport=transport)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """The answer's JSON (or bytes for an export), after retrying a short 429."""
        for attempt in range(self.settings.retries + 1):
            response = self._http.request(method, path, **kwargs)
            wait = self.settings.wait_before_retry(response, attempt)
            if wait is None:
                return _data(response)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.request("POST", path, json=body)

    # -- endpoints --------------------------------------------------------------------------------

    def spot(self, ticker: str) -> dict[str, Any]:
        return self.get(f"/v1/spots/{ticker}")["data"]

    def price(self, model: str, n_in: float, n_out: float, **more: Any) -> dict[str, Any]:
        return self.post("/v1/price", {"model": model, "n_in": n_in, "n_out": n_out, **more})["data"]

    def compare(self, n_in: float, n_out: float, **more: Any) -> dict[str, Any]:
        return self.post("/v1/compare", {"n_in": n_in, "n_out": n_out, **more})["data"]

    def history(self, ticker: str, **params: Any) -> dict[str, Any]:
        return self.get(f"/v1/history/{ticker}", **params)["data"]

    def events(self, **params: Any) -> dict[str, Any]:
        return self.get("/v1/events", **params)["data"]

    def export(self, table: str, format: str = "parquet") -> bytes:  # noqa: A002 - the API's name
        return self.get(f"/v1/export/{table}", format=format)

    def key_usage(self) -> dict[str, Any]:
        return self.get("/v1/keys/usage")["data"]

    def iter_list(self, name: str, page_size: int = 100, **filters: Any) -> Iterator[dict[str, Any]]:
        """Every record of a list of every model (`spots`, `greeks` or `forwards`), page by page."""
        if name not in LISTS:
            raise ValueError(f"{name!r} is not one of {', '.join(LISTS)}")
        page = self.get(f"/v1/{name}", **_list_params(page_size, filters))
        while True:
            yield from page["data"]
            if page.get("next") is None:
                return
            page = self.request("GET", page["next"])  # the path carries its query: no params, which would replace it


class AsyncOracle:
    """The API, asynchronously: the same methods as `Oracle`, awaited."""

    def __init__(self, base_url: str, key: str | None = None, *, retries: int = 2, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = _Settings(base_url, key, retries, max_retry_wait, timeout)
        self._http = httpx.AsyncClient(base_url=self.settings.base_url, headers=self.settings.headers(),
                                       timeout=timeout, transport=transport)

    async def __aenter__(self) -> AsyncOracle:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def request(self, method: str, path: str, **kwargs: Any) -> Any:
        for attempt in range(self.settings.retries + 1):
            response = await self._http.request(method, path, **kwargs)
            wait = self.settings.wait_before_retry(response, attempt)
            if wait is None:
                return _data(response)
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def get(self, path: str, **params: Any) -> Any:
        return await self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        return await self.request("POST", path, json=body)

    async def spot(self, ticker: str) -> dict[str, Any]:
        return (await self.get(f"/v1/spots/{ticker}"))["data"]

    async def price(self, model: str, n_in: float, n_out: float, **more: Any) -> dict[str, Any]:
        return (await self.post("/v1/price", {"model": model, "n_in": n_in, "n_out": n_out, **more}))["data"]

    async def compare(self, n_in: float, n_out: float, **more: Any) -> dict[str, Any]:
        return (await self.post("/v1/compare", {"n_in": n_in, "n_out": n_out, **more}))["data"]

    async def history(self, ticker: str, **params: Any) -> dict[str, Any]:
        return (await self.get(f"/v1/history/{ticker}", **params))["data"]

    async def events(self, **params: Any) -> dict[str, Any]:
        return (await self.get("/v1/events", **params))["data"]

    async def export(self, table: str, format: str = "parquet") -> bytes:  # noqa: A002 - the API's name
        return await self.get(f"/v1/export/{table}", format=format)

    async def key_usage(self) -> dict[str, Any]:
        return (await self.get("/v1/keys/usage"))["data"]

    async def iter_list(self, name: str, page_size: int = 100, **filters: Any) -> AsyncIterator[dict[str, Any]]:
        if name not in LISTS:
            raise ValueError(f"{name!r} is not one of {', '.join(LISTS)}")
        page = await self.get(f"/v1/{name}", **_list_params(page_size, filters))
        while True:
            for record in page["data"]:
                yield record
            if page.get("next") is None:
                return
            page = await self.request("GET", page["next"])
