"""The server's key store: any `KeyStore`, with usage written in batches and found keys remembered.

A keyed request used to cost two database round trips, a key lookup and a usage write, about a
quarter of the time of a whole snapshot answer. Here:

- Usage is counted in memory and written in one transaction per `flush_seconds` (by a background
  thread), before any usage or key list is read, and on close. A write that fails is kept and
  tried again, so nothing counted is dropped; a process killed outright loses at most the last
  interval's counts (the database itself stays consistent: each batch is one transaction).
- A found key is remembered for `remember_seconds`, by its hash; `find` is awaited, and a key
  not remembered is looked up in a worker thread, so a database round trip (a PostgreSQL server
  away, or a burst of unknown keys) never holds the event loop. A revocation through this store
  takes effect at once; one made elsewhere (the `oracle keys` command, another server process)
  within `remember_seconds`. Unknown keys are never remembered, so a key made elsewhere works at
  once.
- Requests that miss the same key together share one lookup, and a key in use is looked up
  again in the background once half its time is gone, so a busy key never waits. Otherwise every
  request in flight when a key's second ran out would make a lookup of its own, all of them queued
  behind the interpreter at once, and the slowest cached answers would wait behind them
  (`bench/`, `docs/benchmarks.md`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from datetime import datetime

from serve.access.stores import KeyRecord, KeyStore, Usage, UsageBatch, key_hash, utc_moment
from serve.threads import Threads

log = logging.getLogger(__name__)

FLUSH_SECONDS = 1.0
REMEMBER_SECONDS = 1.0


class BatchedKeyStore:
    def __init__(self, store: KeyStore, flush_seconds: float = FLUSH_SECONDS,
                 remember_seconds: float = REMEMBER_SECONDS, clock: Callable[[], float] = time.monotonic):
        self.store, self.remember_seconds, self.clock = store, remember_seconds, clock
        self._pending = UsageBatch()  # uses folded in but not yet written; only a flush touches it
        self._uses: deque[tuple[str, str, datetime]] = deque()  # appended per request, folded in at flush
        self._flush_lock = threading.Lock()  # one flush at a time, so batches land in order
        self._found: dict[str, tuple[KeyRecord, float]] = {}  # key hash → (record, when its lookup began)
        self._lookups: dict[str, asyncio.Future] = {}  # key hash → the lookup in flight
        self._revocations = 0  # a lookup that began before a revocation here must not be remembered
        self._stop = threading.Event()
        self.threads = Threads.waiting()  # lookups and the key endpoints' calls wait on the database here
        self._flusher = threading.Thread(target=self._flush_periodically, args=(flush_seconds,),
                                         name="key-usage-flush", daemon=True)
        self._flusher.start()

    # --- keys ----------------------------------------------------------------------------------

    def create(self, name: str, tier: str, now: datetime) -> tuple[str, KeyRecord]:
        return self.store.create(name, tier, now)

    def remembered(self, key: str) -> KeyRecord | None:
        """The key's record if it is remembered still (found, revoked or not), at no await: what
        almost every keyed request needs; None when `find` must look it up."""
        digest = key_hash(key)
        remembered = self._found.get(digest)
        if remembered is not None:
            record, found_at = remembered
            now = self.clock()
            age = now - found_at
            if age < self.remember_seconds:
                if age >= self.remember_seconds / 2:
                    self._look_up(key, digest, now)  # ahead of time; this request does not wait for it
                return record
        return None

    async def find(self, key: str) -> KeyRecord | None:
        return self.remembered(key) or await self._look_up(key, key_hash(key), self.clock())

    def _look_up(self, key: str, digest: str, now: float) -> asyncio.Future:
        """The lookup of `key` in flight, or a new one: concurrent misses share it."""
        pending = self._lookups.get(digest)
        if pending is None:
            pending = asyncio.ensure_future(self._fetch(key, digest, now))
            self._lookups[digest] = pending
            pending.add_done_callback(lambda done: self._lookup_done(digest, done))
        return pending

    async def _fetch(self, key: str, digest: str, began: float) -> KeyRecord | None:
        revocations = self._revocations
        record = await self.threads.run(self.store.find, key)
        if record is None:
            self._found.pop(digest, None)
        elif revocations == self._revocations:
            if len(self._found) > 10_000:  # bounded whatever clients send
                self._found.clear()
            self._found[digest] = (record, began)
        return record

    def _lookup_done(self, digest: str, done: asyncio.Future) -> None:
        self._lookups.pop(digest, None)
        if not done.cancelled() and done.exception() is not None:
            # A lookup ahead of time has no one waiting; one that was awaited raised there too.
            log.warning("key lookup failed (%s)", type(done.exception()).__name__)

    def revoke(self, key_id: str, now: datetime) -> bool:
        revoked = self.store.revoke(key_id, now)
        self._revocations += 1
        for digest, (record, _) in list(self._found.items()):
            if record.key_id == key_id:
                self._found.pop(digest, None)
        return revoked

    def list_keys(self) -> list[KeyRecord]:
        self.flush()
        return self.store.list_keys()

    # --- usage ---------------------------------------------------------------------------------

    def record_use(self, key_id: str, endpoint: str, now: datetime) -> None:
        self._uses.append((key_id, endpoint, utc_moment(now)))  # deque appends are atomic: no lock on the request path

    def usage(self, key_id: str) -> Usage:
        self.flush()
        return self.store.usage(key_id)

    def flush(self) -> None:
        """Write what is pending in one transaction; on failure keep it for the next flush."""
        with self._flush_lock:
            # popleft is atomic too, so no use is ever missed
            self._pending.add_uses([self._uses.popleft() for _ in range(len(self._uses))])
            if self._pending:
                self.store.record_uses(self._pending)  # if this raises, the batch stays pending
                self._pending = UsageBatch()

    def _flush_periodically(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.flush()
            except Exception as error:  # noqa: BLE001 - the counts are kept and tried again
                log.warning("key usage not written yet (%s); retrying in %.0f s", type(error).__name__, every)

    def close(self) -> None:
        self._stop.set()
        self._flusher.join()
        try:
            self.flush()
        finally:
            self.store.close()
