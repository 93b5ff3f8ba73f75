"""Each product built from the part of the daily history its asset reads (`assets.history_rows`)
is the product built from the whole history, on the bundled data."""

from datetime import date
from functools import partial

import pandas as pd
import pytest

from assets.history_rows import backtest_rows, observed_rows, spot_rows
from assets.resources import PriceSources
from assets.worker_processes import ordered_map
from pipelines.backtest import backtest_parts, run_backtest
from pipelines.change_panel import Histories, change_points
from pipelines.events import build_events, price_moves
from pipelines.evidence import compared, spot_evidence
from pipelines.forecast import FittedLaw, build_change_laws, build_processes
from pipelines.ici import (
    as_known,
    basket_on,
    build_ici,
    build_ici_constituents,
    build_ici_history,
    last_rebalance,
    levels_on,
)
from pipelines.registry import Rules
from pipelines.spots import build_spots
from tests.conftest import AS_OF
from warehouse.large_tables import TableParts
from warehouse.snapshot import SnapshotStore

pytestmark = pytest.mark.slow  # runs the backtest twice, among others

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
    evidence = spot_evidence(compared(observations, whole, TODAY), models["ticker"], TODAY)
    pd.testing.assert_frame_equal(build_spots(today, models, TODAY, evidence),
                                  build_spots(whole, models, TODAY, evidence))


def _law_tables(rows, models, rules, modes, moves):
    """The forecast law's two tables (`processes`, `change_laws`) fitted on `rows` of the history,
    `moves` the events' price moves."""
    histories = Histories(change_points(rows, TODAY, moves), models, rules)
    fitted = FittedLaw.fit(histories, TODAY)
    return build_processes(histories, fitted, modes, TODAY), build_change_laws(fitted)


def test_the_law_and_events_from_the_observed_rows(history, tables, store):
    whole, models = tables["price_history"], tables["models"]
    observed = observed_rows(history)
    rules = Rules.from_frame(PriceSources().seed_table("model_rules"))
    published = store.read_table("processes")
    modes = published[["ticker", "mode"]].drop_duplicates()
    moves = price_moves(store.read_table("events"))
    from_observed = _law_tables(observed, models, rules, modes, moves)
    for part, from_whole in zip(from_observed, _law_tables(whole, models, rules, modes, moves), strict=True):
        pd.testing.assert_frame_equal(part, from_whole)
    # And they are the published tables, fitted as the asset fits them.
    pd.testing.assert_frame_equal(from_observed[0], published, check_dtype=False)
    pd.testing.assert_frame_equal(from_observed[1], store.read_table("change_laws"), check_dtype=False)
    pd.testing.assert_frame_equal(build_events(observed, models, TODAY), build_events(whole, models, TODAY))


def test_the_index_today_from_the_days_rows_is_the_last_day_of_its_history_as_known(history, tables):
    """The `ici` asset reads today's rows and the last rebalance's basket back from
    `ici_constituents`; the history is built from what was known each day. Both give one level today."""
    observations, models = tables["price_observations"], tables["models"]
    rows, baskets = as_known(observations, models, TODAY)
    basket = basket_on(build_ici_constituents(rows, baskets), last_rebalance(TODAY))
    pd.testing.assert_frame_equal(basket, baskets[last_rebalance(TODAY)])
    daily = build_ici_history(rows, models, observations, TODAY, baskets=baskets)
    today = build_ici(spot_rows(history, TODAY), models, None, TODAY, basket=basket, levels=levels_on(daily, TODAY))
    assert set(today["type"]) == {"sync", "batch", "unified"}
    for variant, rows in today.groupby("type"):
        last = daily[(daily["type"] == variant) & (daily["date"] == TODAY)]
        assert last["value"].tolist() == [pytest.approx(rows["value"].iloc[0], rel=1e-12)], variant
        # Today's rows price the same constituents as the history's last day, and the chained
        # level is the link factor times their weighted average.
        assert last["constituents"].item() == len(rows), variant
        assert rows["contribution"].sum() == pytest.approx(rows["value"].iloc[0], rel=1e-12)
        assert (rows["link_factor"] * rows["weight"] * rows["price"]).sum() == pytest.approx(rows["value"].iloc[0],
                                                                                             rel=1e-12)


@pytest.fixture(scope="module")
def moves(store):
    return price_moves(store.read_table("events"))


@pytest.fixture(scope="module")
def backtests(history, tables, moves):
    """The backtest from the whole history, and from the parts of it its asset reads."""
    whole, observations, models = tables["price_history"], tables["price_observations"], tables["models"]
    rules = Rules.from_frame(PriceSources().seed_table("model_rules"))
    realised, observed = backtest_rows(history, TODAY), observed_rows(history)
    parts = list(backtest_parts(observations, realised, observed, models, rules, TODAY, moves=moves))
    return run_backtest(observations, whole, whole, models, rules, TODAY, moves=moves), parts


def test_the_backtest_from_the_sync_rows_of_its_target_days_an_anchor_at_a_time(backtests):
    expected, parts = backtests
    assert len(expected) > 1000
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), expected)
    # Early anchors forecast nothing the data can score: their parts are empty, and still a table's.
    assert len(parts[0]) == 0 and list(parts[0].columns) == list(expected.columns)


def test_the_backtest_written_an_anchor_at_a_time_reads_back_as_the_whole(backtests, tmp_path):
    expected, parts = backtests
    staging = SnapshotStore(tmp_path)
    staging.write_table("parts", "backtest", TableParts(iter(parts)))
    staging.write_table("whole", "backtest", expected)
    pd.testing.assert_frame_equal(staging.read_staged("parts", "backtest"), staging.read_staged("whole", "backtest"))


def test_the_backtest_with_its_anchors_shared_with_a_worker_process_is_the_same(history, tables, backtests, moves):
    expected, _ = backtests
    observations, models = tables["price_observations"], tables["models"]
    rules = Rules.from_frame(PriceSources().seed_table("model_rules"))
    shared = backtest_parts(observations, backtest_rows(history, TODAY), observed_rows(history), models, rules,
                            TODAY, map_anchors=partial(ordered_map, workers=1), moves=moves)
    pd.testing.assert_frame_equal(pd.concat(list(shared), ignore_index=True), expected)
