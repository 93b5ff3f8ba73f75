"""A table written a part at a time and read in parts (`warehouse.large_tables`), on a local
folder and on fsspec's in-memory filesystem: each part is one row group, and a filtered read
keeps the rows the filter names, in table order."""

import uuid
from datetime import date

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from warehouse.large_tables import TableParts
from warehouse.snapshot import SnapshotStore
from warehouse.storage import Storage

DAILY = pa.schema([
    pa.field("ticker", pa.string(), nullable=False),
    pa.field("mode", pa.string(), nullable=False),
    pa.field("date", pa.date32(), nullable=False),
    pa.field("output", pa.float64()),
    pa.field("note", pa.string()),
])


def series(ticker: str, mode: str, days: range, output: float) -> pd.DataFrame:
    return pd.DataFrame({"ticker": ticker, "mode": mode, "date": [date(2026, 1, d) for d in days],
                         "output": output, "note": None})


PARTS = [
    pd.concat([series("A", "batch", range(1, 4), 1.0), series("A", "sync", range(1, 5), 2.0)], ignore_index=True),
    series("B", "sync", range(2, 5), 3.0),
    series("C", "sync", range(4, 5), 4.0),
]
WHOLE = pd.concat(PARTS, ignore_index=True)


@pytest.fixture(params=["path", "memory"])
def store(request, tmp_path):
    if request.param == "path":
        yield SnapshotStore(tmp_path / "wh", schemas={"daily": DAILY})
    else:
        url = f"memory://warehouse-{uuid.uuid4().hex}"
        yield SnapshotStore(url, schemas={"daily": DAILY})
        Storage(url).remove(Storage(url).root)


def test_each_part_is_written_as_one_row_group_as_it_comes(store):
    given = []

    def parts():  # a generator: the writer takes each part once, in order
        for part in PARTS:
            given.append(len(part))
            yield part

    path, rows = store.write_table("run-1", "daily", TableParts(parts()))
    assert rows == len(WHOLE) and given == [7, 3, 1]
    with store.storage.parquet_file(path) as file:
        assert [file.metadata.row_group(i).num_rows for i in range(file.num_row_groups)] == [7, 3, 1]
    staged = store.staged_file("run-1", "daily")
    pd.testing.assert_frame_equal(staged.read(), store.read_staged("run-1", "daily"))
    assert [len(part) for part in staged.row_groups()] == [7, 3, 1]
    pd.testing.assert_frame_equal(pd.concat(staged.row_groups(), ignore_index=True), staged.read())


def test_a_table_in_parts_reads_back_as_the_table_written_whole(store):
    store.write_table("parts", "daily", TableParts(PARTS))
    store.write_table("whole", "daily", WHOLE)
    pd.testing.assert_frame_equal(store.read_staged("parts", "daily"), store.read_staged("whole", "daily"))


def test_a_part_that_fails_while_the_one_before_is_written_leaves_no_table(store):
    """The parts are made while the previous row group is written behind them: a failure in the
    making stops the write, with its own error, and no file is left half written."""
    def parts():
        yield from PARTS[:2]
        raise RuntimeError("the third part could not be made")

    with pytest.raises(RuntimeError, match="third part"):
        store.write_table("run-1", "daily", TableParts(parts()))
    assert store.staged_file("run-1", "daily") is None


def test_a_part_that_does_not_fit_the_schema_is_refused_and_leaves_no_table(store):
    bad = PARTS[1].assign(output="not a number")
    with pytest.raises((ValueError, TypeError, pa.ArrowException)):
        store.write_table("run-1", "daily", TableParts([PARTS[0], bad, PARTS[2]]))
    assert store.staged_file("run-1", "daily") is None


def test_no_part_at_all_is_an_empty_table_with_its_schema(store):
    path, rows = store.write_table("run-1", "daily", TableParts([]))
    assert rows == 0
    empty = store.staged_file("run-1", "daily").read()
    assert empty.empty and list(empty.columns) == DAILY.names
    with store.storage.parquet_file(path) as file:
        assert file.schema_arrow.remove_metadata().equals(DAILY)


@pytest.mark.parametrize("where, columns, expected", [
    ([("date", "==", date(2026, 1, 4))], ["ticker", "mode"], [("A", "sync"), ("B", "sync"), ("C", "sync")]),
    # a filter on columns not asked for
    ([("mode", "==", "sync"), ("date", "in", [date(2026, 1, 1), date(2026, 1, 3)])], ["ticker", "output"],
     [("A", 2.0), ("A", 2.0), ("B", 3.0)]),
    # one of several conditions: each row once, in table order
    ([[("ticker", "==", "C")], [("date", "==", date(2026, 1, 1))]], ["ticker", "mode"],
     [("A", "batch"), ("A", "sync"), ("C", "sync")]),
    ([("ticker", "==", "D")], ["ticker"], []),
    ([("ticker", "in", [])], ["ticker"], []),  # no value at all
    ([("ticker", "not in", ["A", "B"])], ["ticker"], [("C",)]),
])
def test_a_filtered_read_keeps_the_rows_named_with_the_columns_asked(store, where, columns, expected):
    store.write_table("run-1", "daily", TableParts(PARTS))
    read = store.staged_file("run-1", "daily").read(columns=columns, where=where)
    assert list(read.columns) == columns
    assert list(read.itertuples(index=False, name=None)) == expected


def test_a_filtered_read_of_every_column(store):
    store.write_table("run-1", "daily", TableParts(PARTS))
    read = store.staged_file("run-1", "daily").read(where=[("ticker", "==", "B")])
    assert list(read.columns) == DAILY.names
    assert read["date"].tolist() == [date(2026, 1, d) for d in (2, 3, 4)] and set(read["output"]) == {3.0}


def test_a_published_table_is_read_in_parts_too(tmp_path):
    store = SnapshotStore(tmp_path / "wh", schemas={"daily": DAILY})
    store.write_table("run-1", "daily", TableParts(PARTS))
    manifest = store.publish("run-1", pd.Timestamp("2026-01-05", tz="UTC").to_pydatetime(), ["daily"])
    published = store.table_file("daily")
    assert manifest.tables["daily"].rows == len(WHOLE)
    assert pq.ParquetFile(published.path).num_row_groups == 3
    assert published.read(columns=["ticker", "date"], where=[("ticker", "==", "B")])["date"].tolist() == [
        date(2026, 1, d) for d in (2, 3, 4)]


def _counting_reads(monkeypatch, storage) -> list:
    reads = []
    real = storage.read_parquet
    monkeypatch.setattr(storage, "read_parquet", lambda *a, **k: reads.append(a) or real(*a, **k))
    return reads


def test_the_same_question_of_the_same_local_file_is_answered_from_the_latest_reads(tmp_path, monkeypatch):
    store = SnapshotStore(tmp_path / "wh", schemas={"daily": DAILY})
    store.write_table("run-1", "daily", TableParts(PARTS))
    staged = store.staged_file("run-1", "daily")
    reads = _counting_reads(monkeypatch, staged.storage)
    sync = [("mode", "==", "sync")]
    first = staged.read(where=sync)
    expected = first.copy()
    assert first["ticker"].tolist() == ["A"] * 4 + ["B"] * 3 + ["C"]
    first.loc[0, "output"] = -1.0  # a reader's changes to its frame are its own
    again = store.staged_file("run-1", "daily").read(where=sync)
    assert len(reads) == 1
    pd.testing.assert_frame_equal(again, expected)
    staged.read(where=[("mode", "==", "batch")])  # another question is read from the file
    staged.read(columns=["ticker"], where=sync)
    assert len(reads) == 3


def test_a_replaced_file_is_read_again(tmp_path, monkeypatch):
    store = SnapshotStore(tmp_path / "wh", schemas={"daily": DAILY})
    store.write_table("run-1", "daily", TableParts(PARTS))
    assert len(store.staged_file("run-1", "daily").read()) == len(WHOLE)
    store.write_table("run-1", "daily", TableParts(PARTS[1:]))  # the same path, written anew
    assert store.staged_file("run-1", "daily").read()["ticker"].tolist() == ["B", "B", "B", "C"]


def test_the_latest_reads_hold_at_most_their_bytes_the_least_recent_let_go(tmp_path, monkeypatch):
    from warehouse import large_tables

    store = SnapshotStore(tmp_path / "wh", schemas={"daily": DAILY})
    store.write_table("run-1", "daily", TableParts(PARTS))
    staged = store.staged_file("run-1", "daily")
    size = {t: pq.read_table(staged.path, filters=[("ticker", "==", t)]).nbytes for t in "ABC"}
    bound = size["A"] + size["B"] + size["C"] - 1
    assert size["A"] + size["C"] <= bound
    monkeypatch.setattr(large_tables, "RECENT_READS", large_tables.RecentReads(bound))
    reads = _counting_reads(monkeypatch, staged.storage)
    for ticker in ("A", "B", "C", "A"):  # A, B and C do not fit together: A is let go for C
        staged.read(where=[("ticker", "==", ticker)])
    assert len(reads) == 4
    staged.read(where=[("ticker", "==", "C")])
    assert len(reads) == 4


def test_a_file_on_another_filesystem_is_read_every_time(monkeypatch):
    url = f"memory://warehouse-{uuid.uuid4().hex}"
    store = SnapshotStore(url, schemas={"daily": DAILY})
    try:
        store.write_table("run-1", "daily", TableParts(PARTS))
        staged = store.staged_file("run-1", "daily")
        reads = _counting_reads(monkeypatch, staged.storage)
        staged.read()
        staged.read()
        assert len(reads) == 2
    finally:
        Storage(url).remove(Storage(url).root)
