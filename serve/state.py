"""The snapshot the server answers from, swapped atomically when a new one is published.

Each request asks for `current()`, which looks at the manifest pointer at most every
`poll_seconds` (`Settings.snapshot_poll_seconds`, a second by default): on a local disk a look is
one `stat`, which took about a quarter of a kept answer's time in process; on an object store
(an fsspec URL) it is read at most every `REMOTE_POLL_SECONDS`, since each look is a network
round trip. When the pointer changed, the new manifest is read and a new
`LoadedSnapshot` replaces the old in one assignment, so a request sees one snapshot or the other,
never a mix.

A snapshot is switched to only once every table has been read and checked against its manifest
(checksum, rows; `SnapshotStore.read_verified`) and holds what the API needs (serve/servable.py),
so a damaged, missing or senseless table is found before any request reads it. A snapshot the
pointer names that fails is refused, the reason kept for `/` and `/health`, and the newest good
snapshot on disk serves instead: the one already serving, or, on a start or when a newer good one
was published in between, the newest older snapshot folder that passes the same checks (never one
newer than the refused one). A deleted pointer leaves the last loaded snapshot serving and says
so. With no good snapshot at all, there is nothing to serve.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import cached_property
from pathlib import Path

import pandas as pd

from serve.lookup import ModelLookup
from serve.servable import API, Servable
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

    @cached_property
    def published_at(self) -> float:
        """`last_update` as a Unix time, which every answer's age is counted from."""
        return self.last_update.timestamp()

    def age_seconds(self) -> int:
        """Whole seconds since the snapshot was published, now (an answer's `cache_age_seconds`)."""
        return max(0, int(time.time() - self.published_at))

    @property
    def as_of(self) -> str:
        return str(self.manifest.extra.get("as_of", self.last_update.date().isoformat()))

    @cached_property
    def as_of_day(self) -> date:
        """`as_of` as a date, read once per snapshot."""
        return date.fromisoformat(self.as_of)

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


# A pointer not looked at yet (None is taken: it means the pointer is missing).
_UNSEEN = object()


class SnapshotState:
    def __init__(self, root: str | Path, stale_after: timedelta, clock=lambda: datetime.now(UTC),
                 servable: Servable = API, poll_seconds: float = 0.0):
        self.store = SnapshotStore(root)
        self.stale_after, self.clock = stale_after, clock
        self.servable = servable
        self._loaded: LoadedSnapshot | None = None
        self._seen: object = _UNSEEN  # the pointer's signature last dealt with (None: it was missing)
        self._judged: object = _UNSEEN  # the signature whose snapshot was last judged, served or refused
        self._verdict: str | None = None  # why the snapshot the pointer names is not served, if it is not
        self._pointer_missing = False
        self._failed: dict[str, str] = {}  # snapshot folder -> why it cannot serve (folders never change)
        self._lock = threading.Lock()
        storage = self.store.storage
        self._pointer = storage.join(POINTER)
        self._poll_seconds = poll_seconds if storage.local else max(poll_seconds, REMOTE_POLL_SECONDS)
        self._polled_at, self._polled = float("-inf"), None

    @property
    def refused(self) -> str | None:
        """Why the snapshot the pointer names is not served, or that there is no pointer."""
        if self._pointer_missing:
            return f"the pointer {POINTER} cannot be found in the warehouse, so no snapshot is published"
        return self._verdict

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
        if signature != self._seen:
            with self._lock:
                if signature != self._seen:
                    self._look_at_pointer(signature)
        return self._loaded

    def _look_at_pointer(self, signature: object | None) -> None:
        if signature is None:
            self._seen = None
            self._lost_pointer()
            return
        self._pointer_missing = False
        if signature == self._judged:  # the pointer is back as it was: its verdict stands
            self._seen = signature
            return
        try:
            text = self.store.storage.read_text(self._pointer)
        except FileNotFoundError:  # deleted since it was looked at: the next look finds it missing
            return
        except OSError as error:  # unreadable now: tried again on the next request
            self._verdict = f"the pointer {POINTER} could not be read ({type(error).__name__})"
            return
        try:
            manifest = Manifest.from_json(text)
        except (ValueError, KeyError, TypeError) as error:
            self._refuse(signature, f"the pointer {POINTER} is not a manifest ({type(error).__name__}: {error})")
            self._fall_back(None)
            return
        self._switch_to(signature, manifest)

    def _switch_to(self, signature: object, manifest: Manifest) -> None:
        if self._loaded is not None and manifest == self._loaded.manifest:  # the one serving: nothing to read
            self._verdict = None
            self._seen = self._judged = signature
            return
        try:
            loaded = self._load(manifest)
        except OSError as error:  # unreadable now: tried again on the next request
            self._verdict = f"snapshot {manifest.snapshot_id} could not be read ({type(error).__name__})"
            return
        except (ValueError, KeyError, TypeError) as damage:  # SnapshotDamaged among them: judged once per pointer
            self._refuse(signature, str(damage))
            self._fall_back(manifest.snapshot_id)
            return
        self._loaded, self._verdict = loaded, None
        self._seen = self._judged = signature

    def _refuse(self, signature: object, reason: str) -> None:
        self._seen = self._judged = signature
        self._verdict = reason

    def _lost_pointer(self) -> None:
        # A warehouse nothing was ever published to has no pointer either; that is not a fault.
        listed = self.store.snapshots() if self._loaded is None else []
        self._pointer_missing = self._loaded is not None or bool(listed)
        if listed:
            self._fall_back(None)

    def _load(self, manifest: Manifest) -> LoadedSnapshot:
        return LoadedSnapshot(self.store, manifest, self.servable.read(self.store, manifest))

    def _fall_back(self, refused_id: str | None) -> None:
        """Serve the newest snapshot folder older than `refused_id` (any, when None) that passes the
        checks, unless the one serving is at least as new."""
        listed = self.store.snapshots()
        if refused_id in listed:
            listed = listed[: listed.index(refused_id)]
        serving = self._loaded.snapshot_id if self._loaded is not None else ""
        for snapshot_id in reversed(listed):
            if snapshot_id <= serving:
                return
            if snapshot_id in self._failed:
                continue
            try:
                self._loaded = self._load(self._folder_manifest(snapshot_id))
                return
            except OSError:  # unreadable now, not judged: a later fall-back tries it again
                continue
            except (ValueError, KeyError, TypeError) as damage:
                self._failed[snapshot_id] = str(damage)

    def _folder_manifest(self, snapshot_id: str) -> Manifest:
        storage = self.store.storage
        manifest = Manifest.from_json(storage.read_text(storage.join(snapshot_id, POINTER)))
        if manifest.snapshot_id != snapshot_id:  # its files would be read from another folder
            raise SnapshotDamaged(f"the manifest in folder {snapshot_id} names snapshot {manifest.snapshot_id}")
        return manifest

    def freshness(self) -> Freshness:
        snapshot = self.current()
        if snapshot is None:
            return Freshness("degraded", self._why_nothing_serves(), None, None, True, 0)
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

    def _why_nothing_serves(self) -> str:
        if not self.refused:
            return "no snapshot has been published yet"
        reason = f"no good snapshot to serve: {self.refused}"
        failed = dict(self._failed)  # a copy: a request on another thread may be adding to it
        if failed:
            newest = max(failed)
            reason += (f"; no older snapshot on disk passes the checks either ({len(failed)} tried; the newest, "
                       f"{newest}: {failed[newest]})")
        return reason
