"""Price events on the real snapshot built from the bundled sources."""

from datetime import date

import pytest

from pipelines.events import EVENT_COLUMNS, EVENT_KINDS, build_events, recent_events
from tests.conftest import AS_OF


@pytest.fixture(scope="module")
def models(store):
    return store.read_table("models")


@pytest.fixture(scope="module")
def events(store, models):
    return build_events(store.read_table("price_history"), models, date.fromisoformat(AS_OF))


def test_o3_price_cut_of_june_2025(events):
    cut = events[(events["ticker"] == "O3") & (events["kind"] == "price_cut")
                 & (events["effective_date"] == date(2025, 6, 10))].set_index("field")
    assert sorted(cut.index) == ["input", "output"]
    assert (cut.loc["output", "before"], cut.loc["output", "after"]) == (40.0, 8.0)
    assert cut.loc["output", "pct_change"] == pytest.approx(-0.8)
    assert (cut.loc["input", "before"], cut.loc["input", "after"]) == (10.0, 2.0)
    assert cut.loc["input", "pct_change"] == pytest.approx(-0.8)
    assert set(cut["mode"]) == {"sync"}
    assert set(cut["provenance"]) == {"published"}
    assert set(cut["source"]) == {"genai-prices"}


def test_sonnet_4_is_a_new_model(events):
    new = events[(events["ticker"] == "SONNET-4") & (events["kind"] == "new_model")]
    assert len(new) == 1
    assert new["mode"].iloc[0] == "sync" and new["after"].iloc[0] > 0


def test_events_are_well_formed(events, models):
    assert list(events.columns) == EVENT_COLUMNS
    assert set(events["ticker"]) <= set(models["ticker"])
    assert set(events["kind"]) <= set(EVENT_KINDS)
    assert events["event_id"].is_unique
    assert (events["effective_date"] <= date.fromisoformat(AS_OF)).all()
    assert (events["provenance"] != "carried_forward").all()
    dates = list(events["effective_date"])
    assert dates == sorted(dates)


def test_one_new_model_per_ticker_and_one_deprecation_per_deprecated_model(events, models):
    new = events[events["kind"] == "new_model"]
    assert new["ticker"].is_unique
    deprecated = events[events["kind"] == "deprecated"]
    dated = models["deprecated_on"].notna() & models["status"].isin(["deprecated", "retired"])
    assert set(deprecated["ticker"]) == set(models.loc[dated, "ticker"])  # no event without a dated source
    assert deprecated["ticker"].is_unique


def test_recent_events_for_one_ticker(events):
    o3 = recent_events(events, date(2025, 1, 1), ticker="o3")
    assert set(o3["ticker"]) == {"O3"}
    assert list(o3["effective_date"]) == sorted(o3["effective_date"], reverse=True)
    assert "O3:sync:output:2025-06-10" in set(o3["event_id"])
