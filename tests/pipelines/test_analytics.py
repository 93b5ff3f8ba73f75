"""The analytics tables of a real snapshot: forwards against the simulator, the backtest's
honesty about time, and the accuracy figures against the predictions they summarise."""

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.backtest import forecasts_at
from pipelines.dynamics import Process
from pipelines.forwards import TENORS
from pipelines.montecarlo import simulate_ratios
from pipelines.registry import Rules
from warehouse.seed_files import read_seed_csv

CONTRACT_GREEKS = ["beta_sync", "beta_batch", "r_in", "r_cache", "r_think", "r_batch", "context_window", "theta",
                   "sigma", "jump_rate", "jump_mean", "prior_weight", "family", "tier", "is_reasoning"]


def _process(row, suffix=""):
    return Process(row[f"jump_rate{suffix}"], row[f"jump_mean{suffix}"], row[f"jump_std{suffix}"],
                   row[f"sigma{suffix}"])


# Jumps are rare (SONNET-4's batch process expects one in about 640 months) and lognormal, so
# the sample mean converges slowly: the 3-standard-error criterion needs enough paths with a
# jump for the central limit to hold (about 3,000 at 2 months here).
PATHS = 2_000_000


def _mc_cases(store):
    greeks = store.read_table("greeks").set_index("ticker")
    moving = greeks["theta"].abs().sort_values(ascending=False).index[:3].tolist()
    return greeks, [(t, "sync") for t in ["SONNET-4", "O3", *moving]] + [("SONNET-4", "batch")]


def test_monte_carlo_mean_matches_the_published_forward_within_three_standard_errors(store):
    greeks, cases = _mc_cases(store)
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])
    months = list(TENORS.values())
    for ticker, mode in cases:
        suffix = "_batch" if mode == "batch" else ""
        row = greeks.loc[ticker]
        spot = row["beta_batch" if mode == "batch" else "beta_sync"]
        paths = spot * simulate_ratios(_process(row, suffix), months, paths=PATHS, seed=11)
        for j, tenor in enumerate(TENORS):
            forward = curves.loc[(ticker, mode, tenor), "beta_forward"]
            standard_error = paths[:, j].std(ddof=1) / np.sqrt(len(paths))
            assert abs(paths[:, j].mean() - forward) <= 3 * standard_error + 1e-12, (ticker, mode, tenor)


def test_forward_is_the_known_level_times_the_decay_factor_at_every_tenor(store):
    """The level is the spot, or the output price a source announced for a day on or before the
    tenor's date (snapshot date + round(months·30.4375) days)."""
    curves = store.read_table("forward_curves")
    changes = store.read_table("scheduled_changes")
    announced = changes[changes["field"] == "output"]
    as_of = date(2026, 11, 22)

    def level(row):
        day = as_of + timedelta(days=round(row["months"] * 30.4375))
        due = announced[(announced["ticker"] == row["ticker"]) & (announced["mode"] == row["mode"])
                        & (announced["effective_date"] <= day)]
        return due.sort_values("effective_date")["after"].iloc[-1] if len(due) else row["spot"]

    levels = curves.apply(level, axis=1)
    assert (levels != curves["spot"]).sum() >= 20  # the announced Gemini prices move some curves
    np.testing.assert_allclose(curves["beta_forward"], levels * np.exp(-curves["theta"] * curves["months"]),
                               rtol=1e-12)
    assert curves.groupby(["ticker", "mode"]).size().eq(len(TENORS)).all()
    assert (curves["p05"] <= curves["p95"]).all()


def test_greek_sheet_carries_every_contract_field(store):
    greeks = store.read_table("greeks").set_index("ticker")
    assert set(CONTRACT_GREEKS) <= set(greeks.columns)
    sonnet = greeks.loc["SONNET-4"]
    assert (sonnet["beta_sync"], sonnet["r_in"], sonnet["r_cache"], sonnet["r_think"]) == (15.0, 0.2, 0.02, 1.0)
    assert 0 <= sonnet["prior_weight"] <= 1
    expected_theta = sonnet["jump_rate"] * (1 - np.exp(sonnet["jump_mean"] + sonnet["jump_std"] ** 2 / 2))
    assert sonnet["theta"] == pytest.approx(expected_theta, rel=1e-12)


ANCHOR = date(2025, 10, 1)


def test_the_backtest_has_no_look_ahead(store):
    observations = store.read_table("price_observations")
    models = store.read_table("models")
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    with_future = forecasts_at(observations, models, rules, ANCHOR)
    without_future = forecasts_at(observations[observations["effective_date"] <= ANCHOR], models, rules, ANCHOR)
    assert len(with_future) > 100
    pd.testing.assert_frame_equal(with_future, without_future)


def test_the_forecasts_published_for_an_anchor_are_those_recomputed_from_its_past(store):
    observations = store.read_table("price_observations")
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    recomputed = forecasts_at(observations[observations["effective_date"] <= ANCHOR], store.read_table("models"),
                              rules, ANCHOR).set_index(["ticker", "tenor", "method"])["forecast"]
    published = store.read_table("backtest")
    published = published[published["anchor"] == ANCHOR].set_index(["ticker", "tenor", "method"])["forecast"]
    np.testing.assert_allclose(published, recomputed.reindex(published.index), rtol=1e-12)


def test_accuracy_recomputes_from_the_predictions(store):
    predictions = store.read_table("backtest")
    accuracy = store.read_table("accuracy").set_index("tenor")
    for tenor, rows in predictions.groupby("tenor"):
        by_method = {m: r for m, r in rows.groupby("method")}
        oracle = by_method["oracle"]
        for method, column in (("oracle", "rel_rmse"), ("flat", "rel_rmse_flat"),
                               ("single_exp", "rel_rmse_single_exp")):
            errors = (by_method[method]["forecast"] - by_method[method]["realised"]) / by_method[method]["spot"]
            assert accuracy.loc[tenor, column] == pytest.approx(float(np.sqrt(np.mean(errors**2))), rel=1e-12)
        inside = (oracle["p05"] <= oracle["realised"]) & (oracle["realised"] <= oracle["p95"])
        assert accuracy.loc[tenor, "coverage"] == pytest.approx(inside.mean(), rel=1e-12)
        assert accuracy.loc[tenor, "n"] == len(oracle)


def test_the_oracle_beats_the_single_exponential_baseline_and_its_band_holds_unchanged_prices(store):
    accuracy = store.read_table("accuracy").set_index("tenor")
    assert list(accuracy.index) == ["1M", "3M", "6M"]
    assert (accuracy["rel_rmse"] < accuracy["rel_rmse_single_exp"]).all()
    assert (accuracy["coverage"] >= accuracy["no_change_share"]).all()
