"""Through the pipeline: a rebuild on a later day appends to the index's record and never
rewrites a published level; a level that changed is a revision."""

from datetime import date

import pytest

from tests.small_universe import refresh_small_universe
from warehouse.index_record import IndexRecord
from warehouse.snapshot import SnapshotStore

pytestmark = pytest.mark.slow  # refreshes again


def test_a_later_rebuild_keeps_every_published_level_and_records_a_changed_one_as_a_revision(warehouse_copy):
    record = IndexRecord(warehouse_copy)
    first = record.read("ici_published")
    history = SnapshotStore(warehouse_copy).read_table("ici_history")
    assert len(first) == history["value"].notna().sum()  # the first build published every level it had
    assert set(first["snapshot_id"]) == {SnapshotStore(warehouse_copy).current().snapshot_id}
    # As if the level of 2026-11-20 had been published by an earlier build from other data.
    day = date(2026, 11, 20)
    tampered = first.copy()
    row = (tampered["date"] == day) & (tampered["type"] == "sync")
    tampered.loc[row, "level"] = 2.0
    (warehouse_copy / "record" / "ici_published.parquet").unlink()
    record.append("ici_published", tampered)

    refresh_small_universe(warehouse_copy, "2026-11-23")
    published, revisions = record.read("ici_published"), record.read("ici_revisions")
    assert published.iloc[:len(tampered)].equals(tampered)  # nothing published was rewritten
    added = published.iloc[len(tampered):]
    assert sorted(set(added["date"])) == [date(2026, 11, 23)] and len(added) == 3
    actual = SnapshotStore(warehouse_copy).read_table("ici_history")
    level = actual.loc[(actual["date"] == day) & (actual["type"] == "sync"), "value"].item()
    assert revisions[["date", "type", "old", "new"]].values.tolist() == [[day, "sync", 2.0, level]]
    assert revisions["reason"].tolist() == ["a constituent's price for the day was restated by newer data"]
    # The day of the rebuild is flagged: every constituent priced from an older statement.
    new_day = added[added["type"] == "sync"].iloc[0]
    day_level = actual[(actual["date"] == date(2026, 11, 23)) & (actual["type"] == "sync")].iloc[0]
    assert new_day["carried_forward"] == day_level["carried_forward"] == day_level["constituents"] > 0
    assert day_level["oldest_input_days"] >= 365  # a year-old statement or older among them
    # The snapshot serves the record as it stands after its build.
    snapshot = SnapshotStore(warehouse_copy)
    assert snapshot.read_table("ici_published").equals(published)
    assert snapshot.read_table("ici_revisions").equals(revisions)
