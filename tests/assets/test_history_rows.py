"""Each product built from the part of the daily history its asset reads (`assets.history_rows`)
is the product built from the whole history, on the bundled data."""

from datetime import date

import pandas as pd
import pytest

from assets.history_rows import backtest_rows, index_history_rows, index_rows, observed_rows, spot_rows
from assets.resources import PriceSources
from pipelines.backtest import backtest_parts, run_backtest
from pipelines.dynamics import fit_processes
from pipelines.events import build_events
from pipelines.evidence import compared, spot_evidence
from pipelines.ici import build_ici, build_ici_history
from pipelines.registry import Rules
from pipelines.spots import build_spots
from tests.conftest import AS_OF
from warehouse.large_tables import TableParts
from warehouse.snapshot import SnapshotStore

TODAY = date.fromisoformat(AS_OF)


@pytest.fixture(scope="module")
def tables(store):
    return {name: store.read_table(name) for name in ("price_history", "price_observations", "models")}


@pytest.fixture(scope="module")
def history(store):
    return store.table_file("price_history")


def test_the_parts_are_small(history, tables):
    whole = len(tables["price_history"])
    assert len(observed_rows(history)) < whole / 10
    assert len(spot_rows(history, TODAY)) < whole / 100


def test_spots_and_evidence_from_the_days_rows(history, tables):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    today = spot_rows(history, TODAY)
    pd.testing.assert_frame_equal(compared(observations, today, TODAY), compared(observations, whole, TODAY))
    evidence = spot_evidence(compared(observations, whole, TODAY), models["ticker"])
    pd.testing.assert_frame_equal(build_spots(today, models, TODAY, evidence),
                                  build_spots(whole, models, TODAY, evidence))


def test_fits_and_events_from_the_observed_rows(history, tables):
    whole, models = tables["price_history"], tables["models"]
    observed = observed_rows(history)
    groups = models[["ticker", "family", "tier"]]
    pd.testing.assert_frame_equal(fit_processes(observed, groups, TODAY), fit_processes(whole, groups, TODAY))
    pd.testing.assert_frame_equal(build_events(observed, models, TODAY), build_events(whole, models, TODAY))


def test_the_index_from_the_observed_rows_and_its_days(history, tables):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    pd.testing.assert_frame_equal(build_ici(index_rows(history, TODAY), models, observations, TODAY),
                                  build_ici(whole, models, observations, TODAY))
    constituents, baskets = index_history_rows(history, models, observations, TODAY)
    pd.testing.assert_frame_equal(build_ici_history(constituents, models, observations, TODAY, baskets=baskets),
                                  build_ici_history(whole, models, observations, TODAY))


def test_the_backtest_from_the_sync_rows_of_its_target_days_an_anchor_at_a_time(history, tables, tmp_path):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    rules = Rules.from_frame(PriceSources().seed_table("model_rules"))
    realised = backtest_rows(history, TODAY)
    expected = run_backtest(observations, whole, models, rules, TODAY)
    pd.testing.assert_frame_equal(run_backtest(observations, realised, models, rules, TODAY), expected)
    # Early anchors forecast nothing the data can score: their parts are empty, and still a table's.
    staging = SnapshotStore(tmp_path)
    staging.write_table("parts", "backtest", TableParts(backtest_parts(observations, realised, models, rules, TODAY)))
    staging.write_table("whole", "backtest", expected)
    pd.testing.assert_frame_equal(staging.read_staged("parts", "backtest"), staging.read_staged("whole", "backtest"))
