"""What both clients share in sending a request: the base URL and key, retrying a short 429 after
its Retry-After, and turning a failed connection into `ConnectionFailed`. `SyncRunner` sends on
httpx's `Client`, `AsyncRunner` on its `AsyncClient`; the operations are bound to both
(`methods.py`)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, TypeVar

import httpx

from oracle_client.call import Call, read_answer
from oracle_client.errors import connection_failed, error_from, retry_after

T = TypeVar("T")
S = TypeVar("S", bound="SyncRunner")
A = TypeVar("A", bound="AsyncRunner")


class Settings:
    def __init__(self, base_url: str, key: str | None, retries: int, max_retry_wait: float, timeout: float):
        self.base_url, self.key = base_url.rstrip("/"), key
        self.retries, self.max_retry_wait, self.timeout = retries, max_retry_wait, timeout

    def headers(self) -> dict[str, str]:
        return {"X-API-Key": self.key} if self.key else {}

    def wait_before_retry(self, response: httpx.Response, attempt: int) -> float | None:
        """Seconds to wait before asking again, or None when the answer stands."""
        if response.status_code != 429 or attempt >= self.retries:
            return None
        wait = retry_after(response)
        return wait if wait is not None and wait <= self.max_retry_wait else None

    def url(self, path: str) -> str:
        return self.base_url + path


class SyncRunner:
    """Sends calls synchronously. Use as a context manager, or call `close()`."""

    def __init__(self, base_url: str, key: str | None = None, *, retries: int = 2, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, transport: httpx.BaseTransport | None = None):
        self.settings = Settings(base_url, key, retries, max_retry_wait, timeout)
        self._http = httpx.Client(base_url=self.settings.base_url, headers=self.settings.headers(), timeout=timeout,
                                  transport=transport)

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, method: str, path: str, arguments: dict[str, Any]) -> httpx.Response:
        for attempt in range(self.settings.retries + 1):
            try:
                response = self._http.request(method, path, **arguments)
            except httpx.TransportError as error:
                raise connection_failed(error, self.settings.url(path)) from error
            wait = self.settings.wait_before_retry(response, attempt)
            if wait is None:
                return response
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _run(self, call: Call[T]) -> T:
        return read_answer(call, self._send(call.method, call.path, call.arguments()))

    def request(self, method: str, path: str, **arguments: Any) -> Any:
        """The answer's JSON (bytes for a file), for any path; `arguments` are httpx's (params, json)."""
        return _raw_answer(self._send(method, path, arguments))

    def get(self, path: str, **params: Any) -> Any:
        return self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.request("POST", path, json=body)


class AsyncRunner:
    """Sends calls asynchronously. Use as an async context manager, or await `close()`."""

    def __init__(self, base_url: str, key: str | None = None, *, retries: int = 2, max_retry_wait: float = 30.0,
                 timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = Settings(base_url, key, retries, max_retry_wait, timeout)
        self._http = httpx.AsyncClient(base_url=self.settings.base_url, headers=self.settings.headers(),
                                       timeout=timeout, transport=transport)

    async def __aenter__(self: A) -> A:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, method: str, path: str, arguments: dict[str, Any]) -> httpx.Response:
        for attempt in range(self.settings.retries + 1):
            try:
                response = await self._http.request(method, path, **arguments)
            except httpx.TransportError as error:
                raise connection_failed(error, self.settings.url(path)) from error
            wait = self.settings.wait_before_retry(response, attempt)
            if wait is None:
                return response
            await asyncio.sleep(wait)
        raise AssertionError("unreachable")

    async def _run(self, call: Call[T]) -> T:
        return read_answer(call, await self._send(call.method, call.path, call.arguments()))

    async def request(self, method: str, path: str, **arguments: Any) -> Any:
        return _raw_answer(await self._send(method, path, arguments))

    async def get(self, path: str, **params: Any) -> Any:
        return await self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        return await self.request("POST", path, json=body)


def _raw_answer(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        raise error_from(response)
    return response.json() if "json" in response.headers.get("content-type", "") else response.content
