"""Atomic publication of Parquet tables as whole snapshots.

Layout under `root`:

    .staging/<run_id>/<table>.parquet     tables written by a run that has not published yet
    <snapshot_id>/<table>.parquet         a published snapshot (never modified after publish)
    <snapshot_id>/manifest.json           what that snapshot holds
    manifest.json                         the pointer: which snapshot is current

Readers go through the pointer, and the pointer is replaced last with one `os.replace`, so a
reader sees the old snapshot or the new one, never a mix. Snapshot folders are immutable, so a
reader holding an old manifest keeps reading consistent tables until that snapshot is pruned.
One writer at a time is assumed (the pipeline's run queue serialises publishes).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.schemas import SCHEMAS

POINTER = "manifest.json"
STAGING = ".staging"
STALE_STAGING_SECONDS = 24 * 3600


@dataclass(frozen=True)
class TableInfo:
    file: str  # relative to the snapshot folder
    rows: int
    sha256: str  # of the parquet file bytes


@dataclass(frozen=True)
class Manifest:
    snapshot_id: str
    last_update: datetime  # tz-aware UTC
    tables: dict[str, TableInfo]
    extra: dict

    def to_json(self) -> str:
        payload = {
            "snapshot_id": self.snapshot_id,
            "last_update": _iso_utc(self.last_update),
            "tables": {name: vars(info) for name, info in sorted(self.tables.items())},
            "extra": self.extra,
        }
        return json.dumps(payload, indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Manifest:
        payload = json.loads(text)
        return cls(
            snapshot_id=payload["snapshot_id"],
            last_update=datetime.fromisoformat(payload["last_update"]).astimezone(UTC),
            tables={name: TableInfo(**info) for name, info in payload["tables"].items()},
            extra=payload.get("extra", {}),
        )


def _iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _to_millis_utc(moment: datetime) -> datetime:
    # The JSON keeps milliseconds; truncating up front makes the manifest round-trip exactly.
    if moment.tzinfo is None:
        raise ValueError("last_update must be timezone-aware")
    moment = moment.astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _fsync_dir(folder: Path) -> None:
    # Makes a rename durable after a power cut; only POSIX can (and needs to) fsync a directory.
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write(target: Path, write) -> None:
    """Write via a temp file in the target's folder (same filesystem, so os.replace is atomic)."""
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _copy_file(source: Path, target: Path) -> None:
    def copy(handle):
        with open(source, "rb") as original:
            shutil.copyfileobj(original, handle)

    _atomic_write(target, copy)


def _check_simple_name(value: str, what: str) -> None:
    # Run ids and table names become folder and file names; keep them from escaping `root`.
    if not value or value.startswith(".") or "/" in value or "\\" in value:
        raise ValueError(f"invalid {what}: {value!r}")


def _cast(name: str, frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
    extra = [column for column in frame.columns if column not in schema.names]
    if extra:
        raise ValueError(f"table {name!r}: columns not in the schema: {extra}")
    frame = frame.copy(deep=False)  # copy-on-write: the caller's frame is never changed
    for field in schema:
        if field.name not in frame.columns:
            if not field.nullable:
                raise ValueError(f"table {name!r}: missing non-nullable column {field.name!r}")
            frame[field.name] = None  # an optional column a source does not give
        elif pa.types.is_date32(field.type) and pd.api.types.is_datetime64_any_dtype(frame[field.name]):
            # Arrow will not cast timestamps to date32; dates are UTC calendar dates.
            column = frame[field.name]
            if column.dt.tz is not None:
                column = column.dt.tz_convert("UTC")
            frame[field.name] = column.dt.date
    try:
        return pa.Table.from_pandas(frame[schema.names], schema=schema, preserve_index=False)
    except (pa.ArrowException, ValueError, TypeError) as error:
        # Arrow's message does not always name the column; find it so the error is actionable.
        for field in schema:
            column = frame[field.name]
            if not field.nullable and column.isna().any():
                raise ValueError(f"table {name!r}, column {field.name!r}: nulls in a non-nullable column") from error
            try:
                pa.Array.from_pandas(column, type=field.type)
            except (pa.ArrowException, ValueError, TypeError) as column_error:
                raise ValueError(f"table {name!r}, column {field.name!r}: {column_error}") from error
        raise ValueError(f"table {name!r}: {error}") from error


class SnapshotStore:
    def __init__(self, root: str | os.PathLike, keep: int = 5, schemas: Mapping[str, pa.Schema] = SCHEMAS):
        if keep < 1:
            raise ValueError("keep must be at least 1: the current snapshot is always kept")
        self.root = Path(root)
        self.keep = keep
        self.schemas = schemas

    # -- writing -------------------------------------------------------------------------------

    def _staging_dir(self, run_id: str) -> Path:
        _check_simple_name(run_id, "run id")
        return self.root / STAGING / run_id

    def write_table(self, run_id: str, name: str, frame: pd.DataFrame) -> tuple[Path, int]:
        schema = self.schemas[name]  # KeyError for an unknown table, by design
        table = _cast(name, frame, schema)
        folder = self._staging_dir(run_id)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.parquet"
        _atomic_write(path, lambda handle: pq.write_table(table, handle, compression="zstd"))
        return path, table.num_rows

    def read_staged(self, run_id: str, name: str) -> pd.DataFrame | None:
        path = self._staging_dir(run_id) / f"{name}.parquet"
        return pq.read_table(path).to_pandas() if path.is_file() else None

    def discard(self, run_id: str) -> None:
        shutil.rmtree(self._staging_dir(run_id), ignore_errors=True)

    def publish(
        self, run_id: str, last_update: datetime, tables: Sequence[str], extra: dict | None = None
    ) -> Manifest:
        last_update = _to_millis_utc(last_update)
        staging = self._staging_dir(run_id)
        current = self.current()

        # 1. Check every table before touching anything, so a refusal leaves no trace.
        carried = []
        for name in tables:
            _check_simple_name(name, "table name")
            if (staging / f"{name}.parquet").is_file():
                continue
            if current is None or name not in current.tables:
                raise ValueError(f"table {name!r} is neither staged in run {run_id!r} nor in the current snapshot")
            carried.append(name)
        snapshot_id = last_update.strftime("%Y%m%dT%H%M%S%fZ") + "-" + run_id[:8]
        target = self.root / snapshot_id
        if target.exists():
            raise ValueError(f"snapshot {snapshot_id!r} already exists")

        # A partial re-run still yields a complete snapshot: unchanged tables come from the current one.
        staging.mkdir(parents=True, exist_ok=True)
        for name in carried:
            _copy_file(self.table_path(name, current), staging / f"{name}.parquet")

        # The snapshot folder holds exactly what its manifest lists (no unlisted or temp files).
        wanted = {f"{name}.parquet" for name in tables}
        for leftover in [entry for entry in staging.iterdir() if entry.name not in wanted]:
            if leftover.is_dir():
                shutil.rmtree(leftover)
            else:
                leftover.unlink()

        infos = {}
        for name in tables:
            path = staging / f"{name}.parquet"
            infos[name] = TableInfo(path.name, pq.read_metadata(path).num_rows, _sha256(path))
        manifest = Manifest(snapshot_id, last_update, infos, dict(extra or {}))
        text = manifest.to_json().encode()  # fails here, before the rename, if `extra` is not JSON-able

        # 2. Written before the rename, so the snapshot folder appears already complete.
        _atomic_write(staging / POINTER, lambda handle: handle.write(text))
        os.rename(staging, target)
        _fsync_dir(self.root)

        # 3. The pointer last: until this replace succeeds, readers still see the old snapshot.
        try:
            _atomic_write(self.root / POINTER, lambda handle: handle.write(text))
        except BaseException:
            # Put the run back in staging so it can be retried and no orphan counts as a snapshot
            # (unless the pointer did get replaced before the interruption).
            pointed = self.current()
            if pointed is None or pointed.snapshot_id != snapshot_id:
                os.rename(target, staging)
            raise
        _fsync_dir(self.root)

        self._prune(keep_run=run_id, current_id=snapshot_id)
        return manifest

    def _prune(self, keep_run: str, current_id: str) -> None:
        # The publish has already succeeded; a folder that cannot go now is retried next time.
        for snapshot_id in self.snapshots()[: -self.keep]:
            if snapshot_id != current_id:
                shutil.rmtree(self.root / snapshot_id, ignore_errors=True)
        staging_root = self.root / STAGING
        if staging_root.is_dir():
            cutoff = time.time() - STALE_STAGING_SECONDS
            for folder in staging_root.iterdir():
                if folder.name != keep_run and folder.stat().st_mtime < cutoff:
                    shutil.rmtree(folder, ignore_errors=True)

    # -- reading -------------------------------------------------------------------------------

    def current(self) -> Manifest | None:
        try:
            return Manifest.from_json((self.root / POINTER).read_text())
        except FileNotFoundError:
            return None

    def table_path(self, name: str, manifest: Manifest | None = None) -> Path:
        manifest = manifest or self.current()
        if manifest is None:
            raise LookupError(f"no snapshot published under {self.root}")
        if name not in manifest.tables:
            raise LookupError(f"table {name!r} is not in snapshot {manifest.snapshot_id!r}")
        return self.root / manifest.snapshot_id / manifest.tables[name].file

    def read_table(self, name: str, manifest: Manifest | None = None) -> pd.DataFrame:
        path = self.table_path(name, manifest)
        try:
            return pq.read_table(path).to_pandas()
        except FileNotFoundError as error:
            raise LookupError(f"table {name!r} is gone: its snapshot {path.parent.name!r} was pruned") from error

    def snapshots(self) -> list[str]:
        # Ids start with a fixed-width UTC timestamp, so name order is publication-time order.
        if not self.root.is_dir():
            return []
        return sorted(
            entry.name
            for entry in self.root.iterdir()
            if entry.is_dir() and not entry.name.startswith(".") and (entry / POINTER).is_file()
        )


RUN_STATUS_FILE = "last_run.json"
PUBLISHING = "publishing"
PUBLISH_TIMEOUT = timedelta(minutes=10)  # a publish takes seconds; a record this old was cut short


@dataclass(frozen=True)
class RunStatus:
    """The latest pipeline run: `publishing` while its snapshot asset publishes, then `ok` (it
    published) or `failed`, with the reason. `host` and `pid` name the publishing process, so a
    run killed while publishing can be told from one still at work."""

    status: str
    finished: datetime  # when the status was recorded
    detail: str = ""
    run_id: str = ""
    host: str = ""
    pid: int = 0

    def to_json(self) -> str:
        return json.dumps({"status": self.status, "finished": _iso_utc(self.finished), "detail": self.detail,
                           "run_id": self.run_id, "host": self.host, "pid": self.pid}, sort_keys=True)

    def interrupted(self, now: datetime, after: timedelta = PUBLISH_TIMEOUT) -> bool:
        """A `publishing` record whose process is gone (on this host), or older than `after`."""
        if self.status != PUBLISHING:
            return False
        if now - self.finished > after:
            return True
        return self.host == socket.gethostname() and self.pid > 0 and not _alive(self.pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def publishing(run_id: str, now: datetime) -> RunStatus:
    """The record a run leaves while it publishes."""
    return RunStatus(PUBLISHING, now, f"run {run_id} is publishing", run_id, socket.gethostname(), os.getpid())


def record_run(root: str | os.PathLike, status: RunStatus) -> None:
    """Write the latest run's outcome beside the manifest (atomically; readers see old or new)."""
    folder = Path(root)
    folder.mkdir(parents=True, exist_ok=True)
    _atomic_write(folder / RUN_STATUS_FILE, lambda handle: handle.write(status.to_json().encode()))


def last_run(root: str | os.PathLike) -> RunStatus | None:
    """The latest recorded run, or None when none was recorded (or the record is unreadable)."""
    try:
        raw = json.loads((Path(root) / RUN_STATUS_FILE).read_text(encoding="utf-8"))
        finished = datetime.fromisoformat(raw["finished"].replace("Z", "+00:00"))
        return RunStatus(raw["status"], finished, raw.get("detail", ""), raw.get("run_id", ""),
                         raw.get("host", ""), int(raw.get("pid", 0)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
