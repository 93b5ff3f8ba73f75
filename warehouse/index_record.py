"""The index's published record, kept beside the snapshots and never pruned with them.

    <root>/record/ici_published.parquet   every level as first published (pipelines.ici_record)
    <root>/record/ici_revisions.parquet   every restatement of a recorded level

Both files are only ever appended to: a write that would change or drop a row already recorded
is refused. Each file is replaced whole (atomically on a local disk, one object written whole on
an object store); if a run stops between the two writes, the next run finds the level it could
not record still differing and records it then, so nothing is lost and nothing is doubled.
"""

from __future__ import annotations

import os

import pandas as pd
import pyarrow.parquet as pq

from warehouse.schemas import SCHEMAS
from warehouse.snapshot import cast_to_schema
from warehouse.storage import Storage

FOLDER = "record"
RECORD_TABLES = ("ici_published", "ici_revisions")


def canonical(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` as the record reads back (each column's type from the schema alone), so a record
    written again unchanged is written byte for byte as before (a replay republishes it so)."""
    return cast_to_schema(name, frame, SCHEMAS[name]).replace_schema_metadata(None).to_pandas()


class RecordRewritten(ValueError):
    """A write would change or drop rows already recorded."""


class IndexRecord:
    def __init__(self, root: str | os.PathLike | Storage):
        self.storage = Storage.of(root)

    def path(self, name: str) -> str:
        return self.storage.join(FOLDER, f"{name}.parquet")

    def read(self, name: str) -> pd.DataFrame:
        """A record table as written, or an empty one with its columns before the first write."""
        schema = SCHEMAS[name]
        if not self.storage.isfile(self.path(name)):
            return schema.empty_table().to_pandas()
        return self.storage.read_parquet(self.path(name)).replace_schema_metadata(None).to_pandas()

    def append(self, name: str, frame: pd.DataFrame) -> None:
        """Write `frame`, which must start with every row already recorded, unchanged."""
        old = self.read(name)
        table = cast_to_schema(name, frame, SCHEMAS[name])
        kept = table.slice(0, len(old))
        if len(frame) < len(old) or not kept.equals(cast_to_schema(name, old, SCHEMAS[name])):
            raise RecordRewritten(f"{name}: a write must keep the {len(old):,} rows already recorded, unchanged")
        if len(frame) == len(old):
            return
        self.storage.makedirs(self.storage.join(FOLDER))
        self.storage.write(self.path(name), lambda handle: pq.write_table(table, handle, compression="zstd"))
