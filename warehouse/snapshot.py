"""Atomic publication of Parquet tables as whole snapshots.

Layout under `root`:

    .staging/<run_id>/<table>.parquet     tables written by a run that has not published yet
    .staging/<run_id>/as_of               the day those tables were built for
    <snapshot_id>/<table>.parquet         a published snapshot (never modified after publish)
    <snapshot_id>/manifest.json           what that snapshot holds
    manifest.json                         the pointer: which snapshot is current

Readers go through the pointer, and the pointer is replaced last (one `os.replace` on a local
disk, one object written whole on an object store), so a reader sees the old snapshot or the new
one, never a mix. Snapshot folders are immutable, so a reader holding an old manifest keeps
reading consistent tables until that snapshot is pruned. `root` is a path or an fsspec URL
(warehouse/storage.py says what each gives). One writer at a time is assumed (the pipeline's
run queue serialises publishes).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from warehouse.large_tables import TableFile, TableParts
from warehouse.schemas import SCHEMAS
from warehouse.storage import Storage

POINTER = "manifest.json"
STAGING = ".staging"
STAGED_FOR = "as_of"  # in a run's staging folder: the day its tables stand for
# A staging folder untouched this long belongs to no running refresh (a refresh of the largest
# benchmark universe takes minutes): the next run removes it.
STALE_STAGING_SECONDS = 3600


class SnapshotDamaged(ValueError):
    """A published snapshot whose files do not match its manifest: it is never served."""


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
            "last_update": iso_utc(self.last_update),
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


def iso_utc(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def to_millis_utc(moment: datetime) -> datetime:
    # The JSON keeps milliseconds; truncating up front makes the manifest round-trip exactly.
    if moment.tzinfo is None:
        raise ValueError("last_update must be timezone-aware")
    moment = moment.astimezone(UTC)
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def _check_simple_name(value: str, what: str) -> None:
    # Run ids and table names become folder and file names; keep them from escaping `root`.
    if not value or value.startswith(".") or "/" in value or "\\" in value:
        raise ValueError(f"invalid {what}: {value!r}")


def cast_to_schema(name: str, frame: pd.DataFrame, schema: pa.Schema) -> pa.Table:
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
    def __init__(self, root: str | os.PathLike | Storage, keep: int = 5, schemas: Mapping[str, pa.Schema] = SCHEMAS):
        if keep < 1:
            raise ValueError("keep must be at least 1: the current snapshot is always kept")
        self.storage = Storage.of(root)
        self.keep = keep
        self.schemas = schemas

    @property
    def url(self) -> str:
        """The warehouse as it was named: a path or a URL."""
        return self.storage.url

    # -- writing -------------------------------------------------------------------------------

    def _staging_dir(self, run_id: str) -> str:
        _check_simple_name(run_id, "run id")
        return self.storage.join(STAGING, run_id)

    def write_table(self, run_id: str, name: str, frame: pd.DataFrame | TableParts) -> tuple[str, int]:
        """Stage a table: a frame, or its parts (`TableParts`), each cast and written as one row group
        as it comes."""
        schema = self.schemas[name]  # KeyError for an unknown table, by design
        folder = self._staging_dir(run_id)
        self.storage.makedirs(folder)
        path = f"{folder}/{name}.parquet"
        rows = 0

        def write(handle):
            nonlocal rows
            writer, writing = None, None
            # Each row group is encoded and compressed in a thread of its own (Arrow does it without
            # the interpreter's lock) while the next part is made and cast: a large table's parts
            # are computed as they are written. One at a time, in order; at most two parts are held.
            try:
                with ThreadPoolExecutor(max_workers=1, thread_name_prefix="parquet-row-group") as behind:
                    for part in [frame] if isinstance(frame, pd.DataFrame) else frame:
                        table = cast_to_schema(name, part, schema)
                        if writer is None:  # the first part's schema carries the pandas metadata of its columns
                            writer = pq.ParquetWriter(handle, table.schema, compression="zstd")
                        if table.num_rows:  # an empty part adds no row group
                            if writing is not None:
                                writing.result()
                            writing = behind.submit(writer.write_table, table, row_group_size=table.num_rows)
                        rows += table.num_rows
                    if writing is not None:
                        writing.result()
                if writer is None:  # no part at all: an empty table
                    writer = pq.ParquetWriter(handle, schema, compression="zstd")
            finally:  # closed even when a part failed (that file is discarded), while its handle is open
                if writer is not None:
                    writer.close()

        self.storage.write(path, write)
        return path, rows

    def read_staged(self, run_id: str, name: str) -> pd.DataFrame | None:
        staged = self.staged_file(run_id, name)
        return staged.read() if staged is not None else None

    def staged_file(self, run_id: str, name: str) -> TableFile | None:
        """A table this run staged, to read in parts; None when it staged none."""
        path = f"{self._staging_dir(run_id)}/{name}.parquet"
        return TableFile(self.storage, path) if self.storage.isfile(path) else None

    def staged_names(self, run_id: str) -> set[str]:
        """The tables this run has staged."""
        return {entry.removesuffix(".parquet") for entry, is_folder in self.storage.entries(self._staging_dir(run_id))
                if not is_folder and entry.endswith(".parquet")}

    def stamp_as_of(self, run_id: str, as_of: str) -> None:
        """Say which day this run's staged tables are built for (read by a run that takes them over)."""
        folder = self._staging_dir(run_id)
        self.storage.makedirs(folder)
        self.storage.write_bytes(f"{folder}/{STAGED_FOR}", as_of.encode())

    def staged_as_of(self, run_id: str) -> str | None:
        try:
            return self.storage.read_text(f"{self._staging_dir(run_id)}/{STAGED_FOR}").strip()
        except (FileNotFoundError, OSError):
            return None

    def take_over(self, run_id: str, earlier_run: str, as_of: str) -> list[str]:
        """Copy into this run's staging the tables `earlier_run` staged for the same day and this
        run has not staged itself (a re-execution builds on what its parent built); returns them.
        Nothing is taken from a run whose tables stand for another day, or say for none."""
        if earlier_run == run_id or self.staged_as_of(earlier_run) != as_of:
            return []
        taken = sorted(self.staged_names(earlier_run) - self.staged_names(run_id))
        folder = self._staging_dir(run_id)
        self.storage.makedirs(folder)
        for name in taken:
            self.storage.copy(f"{self._staging_dir(earlier_run)}/{name}.parquet", f"{folder}/{name}.parquet")
        return taken

    def discard(self, run_id: str) -> None:
        self.storage.remove(self._staging_dir(run_id))

    def clean_staging(self, keep: set[str] = frozenset(), older_than: float | None = None,
                      also: set[str] = frozenset()) -> list[str]:
        """Remove the staging folders of runs not in `keep`: those in `also`, and the rest when
        untouched for `older_than` seconds (all of them when None). Returns the runs removed."""
        storage, removed = self.storage, []
        for run, _ in sorted(storage.entries(storage.join(STAGING))):  # none when there is no staging
            if run in keep:
                continue
            if run in also or older_than is None or self._untouched_for(run, older_than):
                storage.remove(storage.join(STAGING, run))
                removed.append(run)
        return removed

    def _untouched_for(self, run: str, seconds: float) -> bool:
        """Asked last: on an object store, a folder's age lists every file in it."""
        age = self.storage.age_seconds(self.storage.join(STAGING, run))
        return age is not None and age > seconds

    @staticmethod
    def snapshot_id_for(run_id: str, last_update: datetime) -> str:
        """The id `publish(run_id, last_update, ...)` gives its snapshot, known ahead of it."""
        return to_millis_utc(last_update).strftime("%Y%m%dT%H%M%S%fZ") + "-" + run_id[:8]

    def publish(
        self, run_id: str, last_update: datetime, tables: Sequence[str], extra: dict | None = None
    ) -> Manifest:
        last_update = to_millis_utc(last_update)
        storage, staging = self.storage, self._staging_dir(run_id)
        current = self.current()

        # 1. Check every table before touching anything, so a refusal leaves no trace.
        carried = []
        for name in tables:
            _check_simple_name(name, "table name")
            if storage.isfile(f"{staging}/{name}.parquet"):
                continue
            if current is None or name not in current.tables:
                raise ValueError(f"table {name!r} is neither staged in run {run_id!r} nor in the current snapshot")
            carried.append(name)
        snapshot_id = self.snapshot_id_for(run_id, last_update)
        target = storage.join(snapshot_id)
        if storage.exists(target):
            raise ValueError(f"snapshot {snapshot_id!r} already exists")

        # A partial run still yields a complete snapshot: the tables it did not build come from the
        # current one, each under the day it was built for (`extra["carried"]`).
        storage.makedirs(staging)
        for name in carried:
            storage.copy(self.table_path(name, current), f"{staging}/{name}.parquet")

        # The snapshot folder holds exactly what its manifest lists (no unlisted or temp files).
        wanted = {f"{name}.parquet" for name in tables}
        for entry, _ in storage.entries(staging):
            if entry not in wanted:
                storage.remove(f"{staging}/{entry}")

        infos = {}
        for name in tables:
            path = f"{staging}/{name}.parquet"
            infos[name] = TableInfo(f"{name}.parquet", storage.parquet_rows(path), storage.sha256(path))
        extra = dict(extra or {})
        if carried:  # each carried table keeps the day it was built for, said beside the run's own
            before = current.extra.get("carried", {})
            day = current.extra.get("as_of", current.last_update.date().isoformat())
            extra["carried"] = {name: before.get(name, day) for name in carried}
        manifest = Manifest(snapshot_id, last_update, infos, extra)
        text = manifest.to_json().encode()  # fails here, before the rename, if `extra` is not JSON-able

        # 2. Written before the rename, so the snapshot folder appears already complete.
        storage.write_bytes(f"{staging}/{POINTER}", text)
        storage.rename(staging, target)

        # 3. The pointer last: until this write succeeds, readers still see the old snapshot.
        try:
            storage.write_bytes(storage.join(POINTER), text)
        except BaseException:
            # Put the run back in staging so it can be retried and no orphan counts as a snapshot
            # (unless the pointer did get replaced before the interruption).
            pointed = self.current()
            if pointed is None or pointed.snapshot_id != snapshot_id:
                storage.rename(target, staging)
            raise

        self._prune(keep_run=run_id, current_id=snapshot_id)
        return manifest

    def _prune(self, keep_run: str, current_id: str) -> None:
        # The publish has already succeeded; a folder that cannot go now is retried next time.
        storage = self.storage
        for snapshot_id in self.snapshots()[: -self.keep]:
            if snapshot_id != current_id:
                storage.remove(storage.join(snapshot_id))
        self.clean_staging(keep={keep_run}, older_than=STALE_STAGING_SECONDS)

    # -- reading -------------------------------------------------------------------------------

    def current(self) -> Manifest | None:
        try:
            return Manifest.from_json(self.storage.read_text(self.storage.join(POINTER)))
        except FileNotFoundError:
            return None

    def table_path(self, name: str, manifest: Manifest | None = None) -> str:
        manifest = manifest or self.current()
        if manifest is None:
            raise LookupError(f"no snapshot published under {self.url}")
        if name not in manifest.tables:
            raise LookupError(f"table {name!r} is not in snapshot {manifest.snapshot_id!r}")
        return self.storage.join(manifest.snapshot_id, manifest.tables[name].file)

    def read_table(self, name: str, manifest: Manifest | None = None) -> pd.DataFrame:
        manifest = manifest or self.current()
        try:
            return self.table_file(name, manifest).read()
        except FileNotFoundError as error:
            raise LookupError(f"table {name!r} is gone: its snapshot {manifest.snapshot_id!r} was pruned") from error

    def table_file(self, name: str, manifest: Manifest | None = None) -> TableFile:
        """A published table, to read in parts."""
        return TableFile(self.storage, self.table_path(name, manifest))

    def read_verified(self, manifest: Manifest) -> dict[str, pd.DataFrame]:
        """Every table of `manifest`, each checked against the manifest before it is trusted: its
        folder and file names stay inside the warehouse, its bytes match their checksum, it parses
        and has the rows the manifest records. SnapshotDamaged says what is wrong."""
        snapshot_id = manifest.snapshot_id
        try:
            _check_simple_name(snapshot_id, "snapshot id")
            for info in manifest.tables.values():
                _check_simple_name(info.file, "table file")
        except ValueError as error:
            raise SnapshotDamaged(f"the manifest names {error}") from None
        frames = {}
        for name, info in manifest.tables.items():
            try:
                data = self.storage.read_bytes(self.storage.join(snapshot_id, info.file))
            except FileNotFoundError:
                raise SnapshotDamaged(f"table {name} of snapshot {snapshot_id} is missing") from None
            if hashlib.sha256(data).hexdigest() != info.sha256:
                raise SnapshotDamaged(f"table {name} of snapshot {snapshot_id} does not match its checksum "
                                      f"({len(data):,} bytes)")
            try:
                table = pq.read_table(pa.BufferReader(data))
            except (pa.ArrowException, OSError) as error:
                raise SnapshotDamaged(f"table {name} of snapshot {snapshot_id} cannot be read: {error}") from None
            if table.num_rows != info.rows:
                raise SnapshotDamaged(f"table {name} of snapshot {snapshot_id} has {table.num_rows:,} rows, "
                                      f"not the {info.rows:,} its manifest records")
            schema = self.schemas.get(name)
            missing = [column for column in schema.names if column not in table.column_names] if schema else []
            if missing:  # written before a column was added: the server would read a field that is not there
                raise SnapshotDamaged(f"table {name} of snapshot {snapshot_id} lacks {', '.join(missing)}: it was "
                                      "written by an older version; run `oracle refresh` to build a current one")
            frames[name] = table.to_pandas()
        return frames

    def snapshots(self) -> list[str]:
        # Ids start with a fixed-width UTC timestamp, so name order is publication-time order.
        storage = self.storage
        return sorted(
            name
            for name, is_folder in storage.entries(storage.root)
            if is_folder and not name.startswith(".") and storage.isfile(storage.join(name, POINTER))
        )


def published_table(store: SnapshotStore, snapshot_id: str, name: str) -> pd.DataFrame | None:
    """Table `name` of an earlier snapshot still kept, or None when it is gone or never was (an id
    from a client is checked first: it never leaves the warehouse)."""
    try:
        _check_simple_name(snapshot_id, "snapshot id")
        manifest = Manifest.from_json(store.storage.read_text(store.storage.join(snapshot_id, POINTER)))
        return store.read_table(name, manifest)
    except (ValueError, LookupError, FileNotFoundError, OSError, KeyError):
        return None
