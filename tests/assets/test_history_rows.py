"""Each product built from the part of the daily history it reads (`assets.history_rows`) is the
product built from the whole history, on the bundled data."""

from datetime import date

import pandas as pd
import pytest

from assets.history_rows import OBSERVED, observed_or_on, of_tickers_since, on_days, sync_on
from assets.resources import PriceSources
from pipelines.backtest import backtest_parts, run_backtest, scored_days
from pipelines.dynamics import fit_processes
from pipelines.events import build_events
from pipelines.evidence import compared, spot_evidence
from pipelines.ici import (
    HISTORY_START,
    basket_days,
    build_ici,
    build_ici_history,
    constituents_of,
    history_baskets,
    last_rebalance,
)
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
    assert len(history.read(where=OBSERVED)) < whole / 10
    assert len(history.read(where=on_days(TODAY))) < whole / 100


def test_spots_and_evidence_from_the_days_rows(history, tables):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    today = history.read(where=on_days(TODAY))
    pd.testing.assert_frame_equal(compared(observations, today, TODAY), compared(observations, whole, TODAY))
    evidence = spot_evidence(compared(observations, whole, TODAY), models["ticker"])
    pd.testing.assert_frame_equal(build_spots(today, models, TODAY, evidence),
                                  build_spots(whole, models, TODAY, evidence))


def test_fits_and_events_from_the_observed_rows(history, tables):
    whole, models = tables["price_history"], tables["models"]
    observed = history.read(where=OBSERVED)
    groups = models[["ticker", "family", "tier"]]
    pd.testing.assert_frame_equal(fit_processes(observed, groups, TODAY), fit_processes(whole, groups, TODAY))
    pd.testing.assert_frame_equal(build_events(observed, models, TODAY), build_events(whole, models, TODAY))


def test_the_index_from_the_observed_rows_and_its_days(history, tables):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    rows = history.read(where=observed_or_on(TODAY, last_rebalance(TODAY)))
    pd.testing.assert_frame_equal(build_ici(rows, models, observations, TODAY),
                                  build_ici(whole, models, observations, TODAY))
    baskets = history_baskets(history.read(where=observed_or_on(*basket_days(TODAY))), models, observations, TODAY)
    constituents = history.read(where=of_tickers_since(constituents_of(baskets), HISTORY_START))
    pd.testing.assert_frame_equal(build_ici_history(constituents, models, observations, TODAY, baskets=baskets),
                                  build_ici_history(whole, models, observations, TODAY))


def test_the_backtest_from_the_sync_rows_of_its_target_days_an_anchor_at_a_time(history, tables, tmp_path):
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    rules = Rules.from_frame(PriceSources().seed_table("model_rules"))
    realised = history.read(columns=["ticker", "mode", "date", "output"], where=sync_on(scored_days(TODAY)))
    expected = run_backtest(observations, whole, models, rules, TODAY)
    pd.testing.assert_frame_equal(run_backtest(observations, realised, models, rules, TODAY), expected)
    # Early anchors forecast nothing the data can score: their parts are empty, and still a table's.
    staging = SnapshotStore(tmp_path)
    staging.write_table("parts", "backtest", TableParts(backtest_parts(observations, realised, models, rules, TODAY)))
    staging.write_table("whole", "backtest", expected)
    pd.testing.assert_frame_equal(staging.read_staged("parts", "backtest"), staging.read_staged("whole", "backtest"))
