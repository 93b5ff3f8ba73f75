"""A bad print in a bundled source is held like a live one: a refresh of the small universe through
Dagster, with SONNET-3.7's 2025-04-03 archive row changed from 3/15 to 3000/15000, holds that row
`unconfirmed` with why, and publishes the same history and events as the undamaged build (`pipelines.guard`)."""

from datetime import date

import pandas as pd
import pytest

from tests.conftest import AS_OF
from tests.small_universe import FLOORS, SmallUniverse
from warehouse.snapshot import SnapshotStore

DAMAGED_DAY, DAMAGED_ID = date(2025, 4, 3), "anthropic/claude-3.7-sonnet"


class MisprintedArchive(SmallUniverse):
    """The small universe with one archive row a thousand times its price."""

    def price_archive(self):
        archive, meta = super().price_archive()
        row = (pd.to_datetime(archive["date"]).dt.date == DAMAGED_DAY) & (archive["model_id"] == DAMAGED_ID)
        assert row.sum() == 1 and archive.loc[row, ["input", "output"]].iloc[0].tolist() == [3.0, 15.0]
        archive = archive.copy()
        archive.loc[row, ["input", "output"]] = [3000.0, 15000.0]
        return archive, meta


@pytest.fixture(scope="module")
def misprinted(tmp_path_factory) -> SnapshotStore:
    from assets.refresh import refresh

    root = tmp_path_factory.mktemp("misprinted") / "warehouse"
    said: list[str] = []
    assert refresh(str(root), AS_OF, write=said.append, sources=MisprintedArchive(), floors=FLOORS), "\n".join(said)
    return SnapshotStore(root)


def _sonnet(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["ticker"] == "SONNET-3.7"].reset_index(drop=True)


def test_the_misprinted_row_is_held_unconfirmed_with_why(misprinted):
    observations = misprinted.read_table("price_observations")
    row = observations[(observations["provider_model_id"] == DAMAGED_ID)
                       & (observations["effective_date"] == DAMAGED_DAY)]
    assert row[["input", "output"]].iloc[0].tolist() == [3000.0, 15000.0]
    assert bool(row["superseded"].iloc[0])
    assert row["note"].iloc[0].startswith("unconfirmed: input 3000, output 15000 on model-price-radar-mcp is "
                                          "more than 100 times from every other price")


def test_prices_and_events_are_those_of_the_undamaged_build(misprinted, store):
    """The same prices every day and the same price changes; only the provenance of the days the
    held row would have spoken for differs (they cite the statement before it)."""
    prices = ["mode", "date", "input", "output", "cache_read", "cache_write"]
    history = _sonnet(misprinted.read_table("price_history"))[prices]
    assert history["output"].max() == 15.0
    pd.testing.assert_frame_equal(history, _sonnet(store.read_table("price_history"))[prices])
    changes = ["mode", "kind", "field", "before", "after", "effective_date"]
    events = _sonnet(misprinted.read_table("events"))[changes]
    assert not (events["after"] >= 3000).any()
    pd.testing.assert_frame_equal(events, _sonnet(store.read_table("events"))[changes])
