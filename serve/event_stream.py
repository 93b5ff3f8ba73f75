"""Server-sent events of price events, as snapshots are published.

A stream watches the snapshot the server serves (one look a second, the same `stat` a request
costs). When a new one is switched to, the events it has that the one before it had not
(`pipelines.events.new_events`) are sent, filtered, each with the id `<snapshot id>:<event id>`.
A client that reconnects with `Last-Event-ID` first gets what was published since that snapshot,
while the warehouse still keeps it (the newest five are kept); an id from a snapshot no longer
kept gets a `reset` message, so the client knows to read `/v1/events` again.

Each stream holds a connection for its life, so the streams are bounded (`StreamSlots`): at most
`Settings.stream_max_per_address` per client address (beyond: 429) and `stream_max_total` in all
(beyond: 503), both with Retry-After. The count is per server process: with several workers each
keeps its own. A stream ends after `stream_max_life_seconds` with an `end` message whose id
(`<snapshot id>:`) makes the client's reconnection resume from what it has; a comment every
`stream_heartbeat_seconds` keeps proxies from closing a quiet connection and makes one whose
client has gone fail on write. A stream's place is given back however it ends: at the end of its
life, when its client goes, when the server stops (uvicorn cancels it) or, were it never started,
when it is collected.
"""

from __future__ import annotations

import asyncio
import math
import sys
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable

import msgspec
import pandas as pd

from pipelines.events import chosen, new_events, with_original_names
from serve.problems import Problem
from serve.respond import records
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState
from warehouse.snapshot import published_table

POLL_SECONDS = 1.0
RETRY_MILLISECONDS = 5000
HEARTBEAT = b": keepalive\n\n"
# When every place is taken, streams end as their clients leave, which cannot be foreseen: a
# refused client is asked back after at most this, not after the oldest stream's whole life.
FULL_RETRY_SECONDS = 30


def descriptor_bound() -> int:
    """Half the process's open-file limit (none where it has none): each stream holds a socket, and
    the other half is left for other connections, the snapshot's files and the key database."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return sys.maxsize
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft // 2 if soft > 0 else sys.maxsize


class Slot:
    """One open stream's place: when its life ends, and its release (once, however often called)."""

    def __init__(self, slots: StreamSlots, address: str, ends_at: float):
        self._slots, self.address, self.ends_at = slots, address, ends_at
        self.held = True

    def release(self) -> None:
        self._slots.give_back(self)


class StreamSlots:
    """The event streams open in this process, per client address and in all."""

    def __init__(self, per_address: int, total: int, life_seconds: float,
                 clock: Callable[[], float] = time.monotonic):
        self.per_address, self.total, self.life_seconds, self.clock = per_address, total, life_seconds, clock
        self._open: dict[str, list[float]] = {}  # address -> when each of its streams ends
        self._count = 0
        self._lock = threading.Lock()  # a collected stream gives its place back on whichever thread collects it

    def open_count(self, address: str | None = None) -> int:
        return self._count if address is None else len(self._open.get(address, ()))

    def take(self, address: str) -> Slot:
        """A place for a new stream of `address`, or the 429 or 503 that says why not and when to retry."""
        with self._lock:
            now = self.clock()
            mine = self._open.get(address, [])
            if len(mine) >= self.per_address:
                wait = _seconds_until(min(mine, default=now + self.life_seconds), now)
                raise _refused(429, "too_many_streams", f"this address has {len(mine)} event streams open, the most "
                               f"one address may; close one, or retry after {wait} s, when the oldest reaches its "
                               "maximum life", self.per_address, wait)
            if self._count >= self.total:
                soonest = min((min(ends) for ends in self._open.values()), default=now + FULL_RETRY_SECONDS)
                wait = min(FULL_RETRY_SECONDS, _seconds_until(soonest, now))
                raise _refused(503, "streams_full", f"the server has {self._count} event streams open, the most it "
                               f"serves at once; retry after {wait} s", self.total, wait)
            slot = Slot(self, address, now + self.life_seconds)
            self._open.setdefault(address, []).append(slot.ends_at)
            self._count += 1
            return slot

    def give_back(self, slot: Slot) -> None:
        with self._lock:
            if not slot.held:
                return
            slot.held = False
            ends = self._open[slot.address]
            ends.remove(slot.ends_at)
            if not ends:
                del self._open[slot.address]  # no address is kept once its streams are gone
            self._count -= 1


SLOTS_STATE_KEY = "event_stream_slots"


def stream_slots(app_state, settings: Settings) -> StreamSlots:
    """The app's count of open streams (kept in its state), made on the first stream; no await
    between the look and the making, so the event loop cannot make two."""
    if SLOTS_STATE_KEY not in app_state:
        app_state[SLOTS_STATE_KEY] = StreamSlots(settings.stream_max_per_address,
                                                 min(settings.stream_max_total, descriptor_bound()),
                                                 settings.stream_max_life_seconds)
    return app_state[SLOTS_STATE_KEY]


def _seconds_until(moment: float, now: float) -> int:
    return max(1, math.ceil(moment - now))


def _refused(status: int, code: str, detail: str, limit: int, wait: int) -> Problem:
    return Problem(status, code, detail, headers={"Retry-After": str(wait)}, limit=limit, retry_after_seconds=wait)


def held_while_streaming(stream: AsyncIterator[bytes], slot: Slot) -> AsyncIterator[bytes]:
    """`stream`, giving `slot` back when it ends for any reason, or when it is collected unstarted
    (a generator never started runs no `finally`)."""
    async def sent() -> AsyncIterator[bytes]:
        try:
            async for message in stream:
                yield message
        finally:
            slot.release()

    body = sent()
    weakref.finalize(body, slot.release)
    return body


def messages(snapshot: LoadedSnapshot, events: pd.DataFrame) -> list[bytes]:
    """One SSE message per event: its id, the type `price_event` and the event as `/v1/events` gives it."""
    rows = records(with_original_names(events, snapshot.table("spots")))
    return [b"id: %s:%s\nevent: price_event\ndata: %s\n\n" % (snapshot.snapshot_id.encode(),
                                                              row["event_id"].encode(), msgspec.json.encode(row))
            for row in rows]


def end_message(served: LoadedSnapshot, life_seconds: float) -> bytes:
    """The last message of a stream whose life is over. Its id, `<snapshot id>:`, is what the client
    sends back as Last-Event-ID, so the next stream starts with what was published since."""
    data = msgspec.json.encode({"reason": f"this stream reached its maximum life of {life_seconds:g} s; reconnect "
                                          "with Last-Event-ID to go on", "max_life_seconds": life_seconds})
    return b"id: %s:\nevent: end\ndata: %s\n\n" % (served.snapshot_id.encode(), data)


async def _caught_up(served: LoadedSnapshot, last_event_id: str, ticker, mode, kind) -> list[bytes]:
    """What was published since the snapshot of `last_event_id`, or a `reset` when it is no longer kept."""
    since = last_event_id.split(":", 1)[0]
    if since == served.snapshot_id:
        return []
    before = await asyncio.to_thread(published_table, served.store, since, "events")
    if before is None:
        return [b"event: reset\ndata: {\"reason\": \"the snapshot of Last-Event-ID is no longer kept; "
                b"read /v1/events for what you missed\"}\n\n"]
    return messages(served, chosen(new_events(served.table("events"), before), ticker, mode, kind))


async def event_stream(state: SnapshotState, served: LoadedSnapshot, last_event_id: str | None, ticker: str | None,
                       mode: str | None, kind: str | None, heartbeat: float, life: float) -> AsyncIterator[bytes]:
    """The stream's messages for `life` seconds, then its `end` message."""
    clock = time.monotonic
    ends_at = clock() + life
    yield b"retry: %d\n\n" % RETRY_MILLISECONDS
    if last_event_id:
        for message in await _caught_up(served, last_event_id, ticker, mode, kind):
            yield message
    next_beat = clock() + heartbeat
    while (now := clock()) < ends_at:
        await asyncio.sleep(max(0.0, min(POLL_SECONDS, next_beat - now, ends_at - now)))
        current = state.current()
        if current is not None and current.snapshot_id != served.snapshot_id:
            fresh = chosen(new_events(current.table("events"), served.table("events")), ticker, mode, kind)
            served = current
            for message in messages(current, fresh):
                yield message
            next_beat = clock() + heartbeat
        elif clock() >= next_beat:
            yield HEARTBEAT
            next_beat = clock() + heartbeat
    yield end_message(served, life)
