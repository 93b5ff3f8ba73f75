"""The index's record beside the snapshots: appended to, never rewritten."""

from datetime import UTC, date, datetime

import pandas as pd
import pytest

from warehouse.index_record import IndexRecord, RecordRewritten

AT = datetime(2026, 11, 23, 6, tzinfo=UTC)


def levels(*values):
    return pd.DataFrame({"date": [date(2026, 11, 20 + i) for i in range(len(values))], "type": "sync",
                         "level": list(values), "constituents": 20, "carried_forward": 3, "published_at": AT,
                         "snapshot_id": "s1", "methodology_version": "ici-2.0"})


def test_an_absent_record_reads_empty_with_its_columns(tmp_path):
    published = IndexRecord(tmp_path).read("ici_published")
    assert published.empty and "published_at" in published.columns


def test_appends_are_kept_and_a_rewrite_or_a_drop_is_refused(tmp_path):
    record = IndexRecord(tmp_path)
    record.append("ici_published", levels(2.0, 2.5))
    record.append("ici_published", levels(2.0, 2.5, 2.4))
    assert record.read("ici_published")["level"].tolist() == [2.0, 2.5, 2.4]
    with pytest.raises(RecordRewritten, match="keep the 3 rows already recorded"):
        record.append("ici_published", levels(2.0, 2.6, 2.4))  # a published level changed
    with pytest.raises(RecordRewritten):
        record.append("ici_published", levels(2.0, 2.5))  # one dropped
    assert record.read("ici_published")["level"].tolist() == [2.0, 2.5, 2.4]
    assert (tmp_path / "record" / "ici_published.parquet").is_file()
