"""The two clients: `OracleClient` (sync) and `AsyncOracleClient`, the same methods, awaited in the
second. Every operation of the API is a method (`methods.py`, bound to `operations.py`); here are
what each client adds by hand: the event stream, and the names of the first version of this
client (`Oracle`, `AsyncOracle`, `spot`, `iter_list`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx

from oracle_client import operations
from oracle_client.errors import connection_failed, error_from
from oracle_client.methods import AsyncMethods, SyncMethods
from oracle_client.streams import MessageReader, StreamMessage, messages

# `iter_list`'s names for the lists of every model, and the iterator each is.
LISTS = {"spots": "list_spots", "greeks": "list_greeks", "forwards": "every_forward"}


def _list_iterator(name: str) -> str:
    if name not in LISTS:
        raise ValueError(f"{name!r} is not one of {', '.join(LISTS)}")
    return LISTS[name]


class OracleClient(SyncMethods):
    """The oracle's `/v1` API, synchronously: one method per operation (the API's `operationId` in
    snake case: `listSpots` is `list_spots`), answering the envelope's `data` as a TypedDict. Lists
    the API pages are iterators over every page (`list_spots`, `list_greeks`, `every_forward`,
    `events`, `backtest_predictions`); `<name>_page` asks for one page. A 429 is retried after its
    Retry-After when that is at most `max_retry_wait` seconds, at most `retries` times; every
    other refusal raises an `OracleError` subclass. Use as a context manager, or call `close()`.

        with OracleClient("http://localhost:8000", key="ipo_…") as oracle:
            oracle.price("SONNET-4", 30000, 800, eta=0.6)["spot_cost"]
    """

    spot = SyncMethods.one_spot

    def iter_list(self, name: str, page_size: int = 100, **filters: Any) -> Iterator[Any]:
        """Every record of a list of every model (`spots`, `greeks` or `forwards`), page by page."""
        pages: Iterator[Any] = getattr(self, _list_iterator(name))(limit=page_size, **filters)
        return pages

    def events_stream(self, *, ticker: str | None = None, kind: str | None = None,
                      last_event_id: str | None = None) -> Iterator[StreamMessage]:
        """Price events as they are published: each message of `GET /v1/events/stream`, until the
        stream ends or the loop stops (which closes it). Send the last `id` seen as
        `last_event_id` to resume."""
        call = operations.events_stream(ticker=ticker, kind=kind, last_event_id=last_event_id)
        try:
            with self._http.stream(call.method, call.path, **call.arguments()) as response:
                if response.status_code >= 400:
                    response.read()
                    raise error_from(response)
                yield from messages(response.iter_lines())
        except httpx.TransportError as error:
            raise connection_failed(error, self.settings.url(call.path)) from error


class AsyncOracleClient(AsyncMethods):
    """The same API and methods as `OracleClient`, each awaited; iterators are `async for`."""

    spot = AsyncMethods.one_spot

    def iter_list(self, name: str, page_size: int = 100, **filters: Any) -> AsyncIterator[Any]:
        """Every record of a list of every model (`spots`, `greeks` or `forwards`), page by page."""
        pages: AsyncIterator[Any] = getattr(self, _list_iterator(name))(limit=page_size, **filters)
        return pages

    async def events_stream(self, *, ticker: str | None = None, kind: str | None = None,
                            last_event_id: str | None = None) -> AsyncIterator[StreamMessage]:
        """Price events as they are published, as `OracleClient.events_stream`."""
        call = operations.events_stream(ticker=ticker, kind=kind, last_event_id=last_event_id)
        reader = MessageReader()
        try:
            async with self._http.stream(call.method, call.path, **call.arguments()) as response:
                if response.status_code >= 400:
                    await response.aread()
                    raise error_from(response)
                async for line in response.aiter_lines():
                    message = reader.feed(line)
                    if message is not None:
                        yield message
        except httpx.TransportError as error:
            raise connection_failed(error, self.settings.url(call.path)) from error


for _client in (OracleClient, AsyncOracleClient):  # and what the API's document says of the stream
    _client.events_stream.__doc__ = f"{_client.events_stream.__doc__}\n\n{operations.events_stream.__doc__}"

# The names of the first version of this client.
Oracle = OracleClient
AsyncOracle = AsyncOracleClient
