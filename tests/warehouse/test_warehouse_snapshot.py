"""Atomic snapshot publication: staging, casting to explicit schemas, the pointer, pruning.

Each rule holds for a warehouse named by a local path, by a file:// URL and by a memory:// URL
(fsspec's in-memory filesystem, standing in for an object store).
"""

import hashlib
import json
import os
import time
import uuid
from datetime import UTC, date, datetime, timedelta

import pandas as pd
import pyarrow as pa
import pytest

from warehouse.snapshot import POINTER, Manifest, SnapshotStore, TableInfo
from warehouse.storage import Storage

PRICES = pa.schema(
    [
        pa.field("ticker", pa.string(), nullable=False),
        pa.field("day", pa.date32(), nullable=False),
        pa.field("input", pa.float64()),
        pa.field("hosts", pa.int64()),
        pa.field("aliases", pa.list_(pa.string())),
    ]
)
NOTES = pa.schema([pa.field("ticker", pa.string(), nullable=False), pa.field("note", pa.string())])
TEST_SCHEMAS = {"prices": PRICES, "notes": NOTES}

T0 = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)


def prices(input_price: float = 3.0) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "ticker": ["CLAUDE", "GPT"],
            "day": [date(2026, 11, 21), date(2026, 11, 22)],
            "input": [input_price, None],
            "hosts": [3, 1],
            "aliases": [["c", "claude"], []],
        }
    )


def notes(text: str = "first") -> pd.DataFrame:
    return pd.DataFrame({"ticker": ["CLAUDE"], "note": [text]})


@pytest.fixture(params=["path", "file-url", "memory"])
def store(request, tmp_path):
    if request.param == "path":
        yield SnapshotStore(tmp_path / "wh", keep=3, schemas=TEST_SCHEMAS)
    elif request.param == "file-url":
        yield SnapshotStore((tmp_path / "wh").as_uri(), keep=3, schemas=TEST_SCHEMAS)
    else:
        url = f"memory://warehouse-{uuid.uuid4().hex}"
        yield SnapshotStore(url, keep=3, schemas=TEST_SCHEMAS)
        Storage(url).remove(Storage(url).root)


@pytest.fixture
def local_store(tmp_path):
    return SnapshotStore(tmp_path / "wh", keep=3, schemas=TEST_SCHEMAS)


def names_in(store, *parts):
    return sorted(name for name, _ in store.storage.entries(store.storage.join(*parts)))


def publish_run(store, run_id, when, price=3.0, note="first"):
    store.write_table(run_id, "prices", prices(price))
    store.write_table(run_id, "notes", notes(note))
    return store.publish(run_id, when, ["prices", "notes"])


# -- writing to staging --------------------------------------------------------------------------


def test_write_and_read_staged_round_trips_values(store):
    path, rows = store.write_table("run-a", "prices", prices())
    assert rows == 2
    assert path == store.storage.join(".staging", "run-a", "prices.parquet")
    back = store.read_staged("run-a", "prices")
    assert list(back.columns) == PRICES.names
    assert back["ticker"].tolist() == ["CLAUDE", "GPT"]
    assert [pd.Timestamp(d).date() for d in back["day"]] == [date(2026, 11, 21), date(2026, 11, 22)]
    assert back["input"].iloc[0] == 3.0 and pd.isna(back["input"].iloc[1])
    assert back["hosts"].tolist() == [3, 1]
    assert [list(a) for a in back["aliases"]] == [["c", "claude"], []]
    assert names_in(store, ".staging", "run-a") == ["prices.parquet"]  # no temp file left behind


def test_datetime64_dates_become_utc_calendar_dates(store):
    frame = prices().assign(day=pd.to_datetime(["2026-11-21 23:30", "2026-11-22 01:00"]).tz_localize("UTC"))
    frame["day"] = frame["day"].dt.tz_convert("America/New_York")  # still the same instants
    store.write_table("run-a", "prices", frame)
    back = store.read_staged("run-a", "prices")
    assert [pd.Timestamp(d).date() for d in back["day"]] == [date(2026, 11, 21), date(2026, 11, 22)]


def test_columns_are_ordered_by_schema_and_missing_nullable_are_null(store):
    frame = prices()[["hosts", "day", "ticker"]]
    store.write_table("run-a", "prices", frame)
    back = store.read_staged("run-a", "prices")
    assert list(back.columns) == PRICES.names
    assert back["input"].isna().all() and back["aliases"].isna().all()


def test_missing_non_nullable_column_raises_naming_table_and_column(store):
    with pytest.raises(ValueError, match=r"prices.*'day'"):
        store.write_table("run-a", "prices", prices().drop(columns="day"))
    assert store.read_staged("run-a", "prices") is None


def test_extra_column_raises(store):
    with pytest.raises(ValueError, match=r"prices.*surprise"):
        store.write_table("run-a", "prices", prices().assign(surprise=1))


def test_uncastable_value_raises_naming_column(store):
    with pytest.raises(ValueError, match=r"prices.*'hosts'"):
        store.write_table("run-a", "prices", prices().assign(hosts=["three", "one"]))


def test_null_in_non_nullable_column_raises(store):
    with pytest.raises(ValueError, match=r"prices.*'ticker'"):
        store.write_table("run-a", "prices", prices().assign(ticker=["CLAUDE", None]))


def test_unknown_table_is_a_key_error(store):
    with pytest.raises(KeyError):
        store.write_table("run-a", "nope", notes())


def test_read_staged_returns_none_when_not_staged(store):
    store.write_table("run-a", "notes", notes())
    assert store.read_staged("run-a", "prices") is None
    assert store.read_staged("run-b", "notes") is None


def test_discard_removes_the_run_staging_folder(store):
    store.write_table("run-a", "notes", notes())
    store.discard("run-a")
    assert not store.storage.exists(store.storage.join(".staging", "run-a"))
    store.discard("run-a")  # idempotent


def test_run_id_cannot_escape_the_root(store):
    with pytest.raises(ValueError):
        store.write_table("../evil", "notes", notes())


# -- publishing ----------------------------------------------------------------------------------


def test_publish_writes_snapshot_pointer_and_hashes(store):
    manifest = publish_run(store, "abcdef123456", T0 + timedelta(microseconds=1500))
    assert manifest.snapshot_id == "20261122T060000001000Z-abcdef12"
    assert manifest.last_update == datetime(2026, 11, 22, 6, 0, 0, 1000, tzinfo=UTC)
    assert store.current() == manifest
    assert store.snapshots() == [manifest.snapshot_id]
    assert not store.storage.exists(store.storage.join(".staging", "abcdef123456"))

    pointer = json.loads(store.storage.read_text(store.storage.join("manifest.json")))
    assert pointer["last_update"] == "2026-11-22T06:00:00.001Z"
    assert pointer["snapshot_id"] == manifest.snapshot_id
    assert store.storage.read_text(store.storage.join(manifest.snapshot_id, "manifest.json")) == manifest.to_json()

    assert manifest.tables["prices"].rows == 2 and manifest.tables["notes"].rows == 1
    for name, info in manifest.tables.items():
        path = store.table_path(name)
        assert path == store.storage.join(manifest.snapshot_id, info.file)
        assert hashlib.sha256(store.storage.read_bytes(path)).hexdigest() == info.sha256
    assert names_in(store, manifest.snapshot_id) == [
        "manifest.json",
        "notes.parquet",
        "prices.parquet",
    ]
    assert store.read_table("notes")["note"].tolist() == ["first"]


def test_manifest_json_round_trip():
    manifest = Manifest("s1", T0, {"t": TableInfo("t.parquet", 4, "ab" * 32)}, {"as_of": "2026-11-22", "v": [1, 2]})
    text = manifest.to_json()
    assert '"2026-11-22T06:00:00.000Z"' in text
    assert Manifest.from_json(text) == manifest


def test_publish_rejects_naive_timestamp(store):
    store.write_table("run-a", "notes", notes())
    with pytest.raises(ValueError):
        store.publish("run-a", datetime(2026, 11, 22), ["notes"])


def test_pointer_is_written_last(store, monkeypatch):
    first = publish_run(store, "run-one", T0)
    real_write = store.storage.write

    seen_when_pointer_replaced = []

    def failing_write(path, writer):
        if path == store.storage.join(POINTER):
            # By now the new snapshot must be complete: the pointer is the last step.
            new_folders = [name for name in names_in(store) if name.endswith("-run-two")]
            seen_when_pointer_replaced.extend(names_in(store, new_folders[0]))
            raise OSError("disk full")
        return real_write(path, writer)

    monkeypatch.setattr(store.storage, "write", failing_write)
    store.write_table("run-two", "prices", prices(9.0))
    with pytest.raises(OSError, match="disk full"):
        store.publish("run-two", T0 + timedelta(days=1), ["prices", "notes"])

    assert seen_when_pointer_replaced == ["manifest.json", "notes.parquet", "prices.parquet"]
    assert store.current() == first
    assert store.snapshots() == [first.snapshot_id]
    assert store.read_table("prices")["input"].iloc[0] == 3.0
    assert store.read_table("notes")["note"].tolist() == ["first"]

    # The failed run went back to staging, so it can simply be published again.
    monkeypatch.setattr(store.storage, "write", real_write)
    second = store.publish("run-two", T0 + timedelta(days=1), ["prices", "notes"])
    assert store.current() == second
    assert store.read_table("prices")["input"].iloc[0] == 9.0


def test_reader_holding_old_manifest_still_reads_its_tables(store):
    old = publish_run(store, "run-one", T0, price=3.0)
    publish_run(store, "run-two", T0 + timedelta(days=1), price=4.0)
    assert store.read_table("prices", old)["input"].iloc[0] == 3.0
    assert store.read_table("prices")["input"].iloc[0] == 4.0


def test_partial_rerun_copies_unchanged_tables_from_current(store):
    first = publish_run(store, "run-one", T0, note="kept")
    store.write_table("run-two", "prices", prices(5.0))
    second = store.publish("run-two", T0 + timedelta(hours=1), ["prices", "notes"], extra={"as_of": "2026-11-22"})

    assert set(second.tables) == {"prices", "notes"}
    # The carried table keeps the day it was built for (the first snapshot's, which names none but its date).
    assert second.extra == {"as_of": "2026-11-22", "carried": {"notes": first.last_update.date().isoformat()}}
    assert second.tables["notes"].sha256 == first.tables["notes"].sha256
    assert store.table_path("notes").split("/")[-2] == second.snapshot_id
    assert store.read_table("notes")["note"].tolist() == ["kept"]
    assert store.read_table("prices")["input"].iloc[0] == 5.0


def test_publish_with_unknown_table_raises_and_keeps_current(store):
    first = publish_run(store, "run-one", T0)
    store.write_table("run-two", "prices", prices(7.0))
    with pytest.raises(ValueError, match="missing_table"):
        store.publish("run-two", T0 + timedelta(days=1), ["prices", "missing_table"])
    assert store.current() == first
    assert store.snapshots() == [first.snapshot_id]
    assert store.read_table("prices")["input"].iloc[0] == 3.0
    assert store.read_staged("run-two", "prices") is not None  # the run is left for a retry


def test_nothing_published(store):
    assert store.current() is None
    assert store.snapshots() == []
    with pytest.raises(LookupError):
        store.read_table("prices")
    with pytest.raises(ValueError):
        store.publish("run-a", T0, ["prices"])  # nothing staged, nothing to copy from


def test_table_absent_from_snapshot_is_a_lookup_error(store):
    store.write_table("run-a", "notes", notes())
    store.publish("run-a", T0, ["notes"])
    with pytest.raises(LookupError):
        store.read_table("prices")


# -- pruning -------------------------------------------------------------------------------------


def test_prune_keeps_newest_snapshots(store):
    ids = [publish_run(store, f"run-{i}", T0 + timedelta(days=i)).snapshot_id for i in range(5)]
    assert store.snapshots() == ids[-3:]
    assert store.current().snapshot_id == ids[-1]


def test_prune_never_deletes_the_current_snapshot(store):
    for i in range(1, 4):
        publish_run(store, f"run-{i}", T0 + timedelta(days=i))
    # A backfill published with an older last_update is the current one, though oldest by id.
    backfill = publish_run(store, "run-backfill", T0)
    assert store.current() == backfill
    assert backfill.snapshot_id in store.snapshots()
    assert store.read_table("notes")["note"].tolist() == ["first"]


def test_prune_removes_only_stale_staging_of_other_runs(local_store):
    store = local_store
    store.write_table("old-run", "notes", notes())
    store.write_table("fresh-run", "notes", notes())
    stale = time.time() - 2 * 24 * 3600
    os.utime(store.storage.join(".staging", "old-run"), (stale, stale))
    publish_run(store, "run-one", T0)
    assert not os.path.exists(store.storage.join(".staging", "old-run"))
    assert store.read_staged("fresh-run", "notes") is not None


def test_an_object_store_folder_is_as_old_as_its_newest_file(store):
    # Object stores keep no time for a folder; pruning judges a staged run by its files.
    store.write_table("a-run", "notes", notes())
    age = store.storage.age_seconds(store.storage.join(".staging", "a-run"))
    assert age is not None and 0 <= age < 60


def test_keep_must_be_positive(tmp_path):
    with pytest.raises(ValueError):
        SnapshotStore(tmp_path, keep=0)


def test_a_run_takes_over_what_an_earlier_run_staged_for_its_day_only(store):
    store.write_table("parent", "prices", prices(4.0))
    store.write_table("parent", "notes", notes("parent's"))
    store.stamp_as_of("parent", "2026-11-23")
    store.write_table("child", "notes", notes("child's"))
    assert store.take_over("child", "parent", "2026-11-24") == []  # another day's tables stay where they are
    assert store.take_over("child", "parent", "2026-11-23") == ["prices"]  # its own notes are kept
    assert store.read_staged("child", "prices")["input"].iloc[0] == 4.0
    assert store.read_staged("child", "notes")["note"].tolist() == ["child's"]
    assert store.take_over("other", "unstamped", "2026-11-23") == []
