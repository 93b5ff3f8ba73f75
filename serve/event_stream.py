"""Server-sent events of price events, as snapshots are published.

A stream watches the snapshot the server serves (one look a second, the same `stat` a request
costs). When a new one is switched to, the events it has that the one before it had not
(`pipelines.events.new_events`) are sent, filtered, each with the id `<snapshot id>:<event id>`.
A client that reconnects with `Last-Event-ID` first gets what was published since that snapshot,
while the warehouse still keeps it (the newest five are kept); an id from a snapshot no longer
kept gets a `reset` message, so the client knows to read `/v1/events` again. A comment every
15 s keeps the connection and any proxy on it open.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import msgspec
import pandas as pd

from pipelines.events import new_events, with_original_names
from serve.respond import records
from serve.state import LoadedSnapshot, SnapshotState
from warehouse.snapshot import published_table

POLL_SECONDS = 1.0
KEEPALIVE_SECONDS = 15.0
RETRY_MILLISECONDS = 5000


def _chosen(events: pd.DataFrame, ticker: str | None, mode: str | None, kind: str | None) -> pd.DataFrame:
    keep = pd.Series(True, index=events.index)
    if ticker is not None:
        keep &= events["ticker"] == ticker
    if mode is not None:
        keep &= events["mode"] == mode
    if kind is not None:
        keep &= events["kind"] == kind
    return events[keep]


def messages(snapshot: LoadedSnapshot, events: pd.DataFrame) -> list[bytes]:
    """One SSE message per event: its id, the type `price_event` and the event as `/v1/events` gives it."""
    rows = records(with_original_names(events, snapshot.table("spots")))
    return [b"id: %s:%s\nevent: price_event\ndata: %s\n\n" % (snapshot.snapshot_id.encode(),
                                                              row["event_id"].encode(), msgspec.json.encode(row))
            for row in rows]


async def event_stream(state: SnapshotState, served: LoadedSnapshot, last_event_id: str | None,
                       ticker: str | None = None, mode: str | None = None, kind: str | None = None,
                       poll: float = POLL_SECONDS, keepalive: float = KEEPALIVE_SECONDS) -> AsyncIterator[bytes]:
    yield b"retry: %d\n\n" % RETRY_MILLISECONDS
    if last_event_id:
        since = last_event_id.split(":", 1)[0]
        if since != served.snapshot_id:
            before = await asyncio.to_thread(published_table, served.store, since, "events")
            if before is None:
                yield b"event: reset\ndata: {\"reason\": \"the snapshot of Last-Event-ID is no longer kept; " \
                      b"read /v1/events for what you missed\"}\n\n"
            else:
                for message in messages(served, _chosen(new_events(served.table("events"), before), ticker, mode,
                                                        kind)):
                    yield message
    quiet_since = time.monotonic()
    while True:
        await asyncio.sleep(poll)
        current = state.current()
        if current is not None and current.snapshot_id != served.snapshot_id:
            fresh = _chosen(new_events(current.table("events"), served.table("events")), ticker, mode, kind)
            served = current
            for message in messages(current, fresh):
                yield message
            quiet_since = time.monotonic()
        elif time.monotonic() - quiet_since >= keepalive:
            yield b": keepalive\n\n"
            quiet_since = time.monotonic()
