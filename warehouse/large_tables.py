"""Tables too large to hold whole (the daily price history of a large universe: a row per ticker,
mode and day): written a part at a time, and read in parts, by the rows a filter keeps or one row
group after another, so memory holds a part and never the table.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa

from warehouse.storage import Storage


@dataclass(frozen=True)
class TableParts:
    """A table given as its parts, in order, each a frame. `SnapshotStore.write_table` writes each
    part as one row group as it comes, so a part that holds whole series is read back whole
    (`TableFile.row_groups`)."""

    parts: Iterable[pd.DataFrame]

    def __iter__(self) -> Iterator[pd.DataFrame]:
        return iter(self.parts)


@dataclass(frozen=True)
class TableFile:
    """A staged or published table, read in parts."""

    storage: Storage
    path: str

    def read(self, columns: list[str] | None = None, where: list | None = None) -> pd.DataFrame:
        """The rows `where` keeps, in table order, with `columns` (all when None). `where` takes
        pyarrow's filter form: a list of (column, op, value) that must all hold, or a list of such
        lists of which one must (`[("date", "==", day)]`, `[[("mode", "==", "sync")], [("date", "in", days)]]`).
        Arrow filters as it reads, a batch at a time (skipping row groups whose statistics rule
        them out), so memory holds a batch and the rows kept."""
        signature = self.storage.signature(self.path) if self.storage.local else None
        key = (self.path, signature, repr((columns, where)))
        table = RECENT_READS.get(key) if signature is not None else None
        if table is None:
            filters = None
            if where:
                with self.storage.parquet_file(self.path) as file:
                    filters = _typed(where if isinstance(where[0], list) else [where], file.schema_arrow)
            table = self.storage.read_parquet(self.path, columns=columns, filters=filters)
            if signature is not None:
                RECENT_READS.keep(key, table)
        return table.to_pandas()

    def row_groups(self, columns: list[str] | None = None) -> Iterator[pd.DataFrame]:
        """The table one row group at a time, in order."""
        with self.storage.parquet_file(self.path) as file:
            for index in range(file.num_row_groups):
                yield file.read_row_group(index, columns=columns).to_pandas()


class RecentReads:
    """The Arrow tables of the latest reads, by (file, its signature, the question), up to
    `max_bytes` in all, the least recently read let go first. A refresh asks the same rows of its
    daily history for several products (the observed rows for four), and each read decodes the
    whole file: 18 million rows, four seconds, in the 100× universe. Only local files are kept,
    whose signature (`Storage.signature`: one stat) changes whenever the file is replaced."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self._tables: OrderedDict[tuple, pa.Table] = OrderedDict()
        self._bytes = 0  # of the tables kept
        self._lock = threading.Lock()

    def get(self, key: tuple) -> pa.Table | None:
        with self._lock:
            table = self._tables.get(key)
            if table is not None:
                self._tables.move_to_end(key)
            return table

    def keep(self, key: tuple, table: pa.Table) -> None:
        if table.nbytes > self.max_bytes:
            return
        with self._lock:
            if key in self._tables:  # asked twice at once: the first answer stays
                return
            self._tables[key] = table
            self._bytes += table.nbytes
            while self._bytes > self.max_bytes:
                self._bytes -= self._tables.popitem(last=False)[1].nbytes


RECENT_READS = RecentReads(768 * 2**20)


def _typed(clauses: list[list[tuple]], schema: pa.Schema) -> list[list[tuple]]:
    """The clauses with each set of values typed as its column: an empty list has no type, and
    Arrow will not compare a column with it."""
    return [[(column, op, pa.array(list(value), schema.field(column).type) if op in ("in", "not in") else value)
             for column, op, value in clause] for clause in clauses]
