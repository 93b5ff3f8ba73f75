"""The snapshot the server answers from, swapped atomically when a new one is published.

Each request asks for `current()`. On a local disk that costs one `stat` of the manifest pointer;
on an object store (an fsspec URL) the pointer is read at most every `REMOTE_POLL_SECONDS`, since
each look is a network round trip. When the pointer changed, the new manifest is read and a new
`LoadedSnapshot` replaces the old in one assignment, so a request sees one snapshot or the other,
never a mix. A snapshot is switched to only once every table has been read and checked against
its manifest (checksum, rows; `SnapshotStore.read_verified`), so a damaged or missing file is found
before any request reads it. If the pointer cannot be read, or the snapshot it names fails the
check, the last good snapshot keeps serving and the reason is kept for `/` and `/health`; with no
good snapshot at all, there is nothing to serve.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path

import pandas as pd

from serve.lookup import ModelLookup
from warehouse.runs import last_run
from warehouse.snapshot import POINTER, Manifest, SnapshotDamaged, SnapshotStore

REMOTE_POLL_SECONDS = 5.0


class LoadedSnapshot:
    def __init__(self, store: SnapshotStore, manifest: Manifest, tables: dict[str, pd.DataFrame]):
        self.store, self.manifest = store, manifest
        self._tables = tables
        self.cache: dict[object, object] = {}  # per-snapshot memo of derived answers

    @property
    def snapshot_id(self) -> str:
        return self.manifest.snapshot_id

    @property
    def last_update(self) -> datetime:
        return self.manifest.last_update

    @property
    def as_of(self) -> str:
        return str(self.manifest.extra.get("as_of", self.last_update.date().isoformat()))

    def table(self, name: str) -> pd.DataFrame:
        frame = self._tables.get(name)  # every table was read and checked before the switch
        if frame is None:
            raise LookupError(f"table {name!r} is not in snapshot {self.snapshot_id!r}")
        return frame

    @cached_property
    def lookup(self) -> ModelLookup:
        return ModelLookup(self.table("models"))


@dataclass(frozen=True)
class Freshness:
    status: str  # "ok" or "degraded"
    reason: str
    last_update: datetime | None
    age_seconds: int | None
    stale: bool
    model_count: int


class SnapshotState:
    def __init__(self, root: str | Path, stale_after: timedelta, clock=lambda: datetime.now(UTC)):
        self.store = SnapshotStore(root)
        self.stale_after, self.clock = stale_after, clock
        self._loaded: LoadedSnapshot | None = None
        self._signature: object | None = None
        self.refused: str | None = None  # why the snapshot the pointer names is not served, if it is not
        self._lock = threading.Lock()
        storage = self.store.storage
        self._pointer = storage.join(POINTER)
        self._poll_seconds = 0.0 if storage.local else REMOTE_POLL_SECONDS
        self._polled_at, self._polled = float("-inf"), None

    def _pointer_signature(self) -> object | None:
        if self._poll_seconds:
            now = time.monotonic()
            if now - self._polled_at < self._poll_seconds:
                return self._polled
            self._polled_at = now
        self._polled = self.store.storage.signature(self._pointer)
        return self._polled

    def current(self) -> LoadedSnapshot | None:
        signature = self._pointer_signature()
        if signature is not None and signature != self._signature:
            with self._lock:
                if signature != self._signature:
                    try:
                        manifest = self.store.current()
                        tables = self.store.read_verified(manifest) if manifest is not None else None
                    except SnapshotDamaged as damage:  # judged once per pointer; a restart judges again
                        self._signature, self.refused = signature, str(damage)
                    except (OSError, ValueError, KeyError) as error:  # unreadable now: tried again next time
                        self.refused = f"the snapshot could not be read ({type(error).__name__})"
                    else:
                        if manifest is not None:
                            self._loaded, self.refused = LoadedSnapshot(self.store, manifest, tables), None
                            self._signature = signature
        return self._loaded

    def freshness(self) -> Freshness:
        snapshot = self.current()
        if snapshot is None:
            reason = (f"no good snapshot to serve: {self.refused}" if self.refused
                      else "no snapshot has been published yet")
            return Freshness("degraded", reason, None, None, True, 0)
        age = self.clock() - snapshot.last_update
        stale = age > self.stale_after
        reasons = []
        if self.refused:
            reasons.append(f"the newest snapshot is not served ({self.refused}); serving the last good one, "
                           f"{snapshot.snapshot_id}")
        if stale:
            reasons.append(f"data is {age.total_seconds() / 3600:.1f} h old, over the "
                           f"{self.stale_after.total_seconds() / 3600:g} h bound")
        for source, live in sorted(snapshot.manifest.extra.get("live", {}).items()):
            if live.get("state") == "fallback":
                used = live.get("used") or "the bundled data"
                reasons.append(f"live source {source} could not be read ({live.get('reason')}); its prices are "
                               f"from {used}")
        run = last_run(self.store.storage)
        if run is not None and run.status == "failed":
            reasons.append(f"the last pipeline run failed ({run.detail}); serving the last good snapshot")
        elif run is not None and run.interrupted(self.clock()):
            reasons.append(f"the last pipeline run ({run.run_id}) was cut short while {run.status}, at "
                           f"{run.finished:%Y-%m-%d %H:%M} UTC; serving the last good snapshot")
        model_count = snapshot.manifest.tables["models"].rows if "models" in snapshot.manifest.tables else 0
        return Freshness("degraded" if reasons else "ok", "; ".join(reasons), snapshot.last_update,
                         int(age.total_seconds()), stale, model_count)
