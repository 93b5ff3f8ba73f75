"""The analytics tables of a real snapshot: forwards against the law's own sampler and against the
law recomputed by hand from the published tables (tests/forecast_by_hand.py), the Greek sheet's
summary of the law, the backtest's honesty about time, and the scorecard against the predictions
it summarises."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.backtest import forecasts_at
from pipelines.forecast import read_processes
from pipelines.forwards import TENORS
from pipelines.listings import known_on
from pipelines.registry import Rules
from warehouse.seed_files import read_seed_csv

CONTRACT_GREEKS = ["beta_sync", "beta_batch", "r_in", "r_cache", "r_think", "r_batch", "context_window", "theta",
                   "sigma", "jump_rate", "jump_mean", "prior_weight", "family", "tier", "is_reasoning"]

# A change is rare for most models (SONNET-4's chance within a month is about 0.3%) and the change
# law is wide (ratios from 0.1 to 10), so the sample mean converges slowly: the 3-standard-error
# criterion needs enough paths with a change for the central limit to hold.
PATHS = 2_000_000


def _mc_cases(store, by_hand):
    greeks = store.read_table("greeks").set_index("ticker")
    # The three whose law moves most over a year (the families that rose), then one with a price
    # announced from 2027-01-01, then two that never rose and a batch price.
    moving = greeks["theta"].abs().sort_values(ascending=False, kind="stable").index[:3].tolist()
    cases = [(t, "sync") for t in ["SONNET-4", "O3", "GEMINI-3.6-FLASH", *moving]] + [("SONNET-4", "batch")]
    assert {by_hand.law_name[case] for case in cases} == {"family_rose", "family_never_rose"}
    return cases


@pytest.mark.slow  # draws Monte Carlo paths for every model
def test_monte_carlo_mean_matches_the_published_forward_within_three_standard_errors(store, by_hand):
    """Paths of the law's own sampler (`Process.sample`, as the Monte Carlo and the budget draw
    them), read back from the published tables, from the published scheduled price."""
    processes = read_processes(store.read_table("processes"), store.read_table("change_laws"))
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])
    months = np.array(list(TENORS.values()), dtype=float)
    for ticker, mode in _mc_cases(store, by_hand):
        ratios = processes[(ticker, mode)].sample(months, PATHS, np.random.default_rng(11))
        for j, tenor in enumerate(TENORS):
            row = curves.loc[(ticker, mode, tenor)]
            paths = row["scheduled"] * ratios[:, j]
            standard_error = paths.std(ddof=1) / np.sqrt(len(paths))
            assert abs(paths.mean() - row["beta_forward"]) <= 3 * standard_error + 1e-12, (ticker, mode, tenor)
            # The share of paths that changed is the law's chance of a change by then.
            p = by_hand.p_change(ticker, mode, months[j])
            assert abs(np.mean(ratios[:, j] != 1.0) - p) <= 3 * np.sqrt(p * (1 - p) / PATHS) + 1e-12


@pytest.mark.slow  # draws Monte Carlo paths by hand
def test_paths_drawn_by_hand_match_the_published_forward_within_three_standard_errors(store, by_hand):
    """An independent sampler in numpy: a uniform u per path, a change by h where u ≤ P_h (one time
    of change per path), and a ratio drawn from the change law's weights."""
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])
    rng = np.random.default_rng(20261122)
    for ticker, mode in _mc_cases(store, by_hand):
        ratios, weights = by_hand.law(ticker, mode)
        u = rng.random(PATHS)
        drawn = rng.choice(ratios, size=PATHS, p=weights / weights.sum())
        for tenor, h in TENORS.items():
            row = curves.loc[(ticker, mode, tenor)]
            paths = by_hand.scheduled_beta(ticker, mode, h) * np.where(u <= by_hand.p_change(ticker, mode, h),
                                                                       drawn, 1.0)
            standard_error = paths.std(ddof=1) / np.sqrt(PATHS)
            assert abs(paths.mean() - row["beta_forward"]) <= 3 * standard_error + 1e-12, (ticker, mode, tenor)


def test_forward_is_the_known_level_times_the_mean_ratio_at_every_tenor(store, by_hand):
    """The level is the spot, or the output price a source announced for a day on or before the
    tenor's date (snapshot date + round(months·30.4375) days); the mean ratio E[R_h] = 1 + P_h·(m − 1)
    from the processes and change_laws rows, by hand."""
    curves = store.read_table("forward_curves")
    changes = store.read_table("scheduled_changes")
    announced = changes[changes["field"] == "output"]

    def level(row):
        day = by_hand.horizon_day(row["months"])
        due = announced[(announced["ticker"] == row["ticker"]) & (announced["mode"] == row["mode"])
                        & (announced["effective_date"] <= day)]
        return due.sort_values("effective_date")["after"].iloc[-1] if len(due) else row["spot"]

    levels = curves.apply(level, axis=1)
    assert (levels != curves["spot"]).sum() >= 20  # the announced Gemini prices move some curves
    np.testing.assert_array_equal(curves["scheduled"], levels)
    laws = store.read_table("change_laws")
    means = (laws["ratio"] * laws["weight"]).groupby(laws["change_law"]).sum() / laws.groupby("change_law")[
        "weight"].sum()
    processes = store.read_table("processes")
    chance = processes.set_index(["ticker", "mode", "months"])["p_change"]
    law_of = processes.drop_duplicates(["ticker", "mode"]).set_index(["ticker", "mode"])["change_law"]
    keys = list(zip(curves["ticker"], curves["mode"], curves["months"], strict=True))
    p = chance.reindex(pd.MultiIndex.from_tuples(keys)).to_numpy()  # every tenor is a whole month
    m = means.reindex(law_of.reindex(pd.MultiIndex.from_arrays([curves["ticker"], curves["mode"]]))).to_numpy()
    np.testing.assert_allclose(curves["p_change"], p, rtol=1e-12)
    np.testing.assert_allclose(curves["decay_factor"], 1 + p * (m - 1), rtol=1e-12)
    np.testing.assert_allclose(curves["beta_forward"], levels * (1 + p * (m - 1)), rtol=1e-12)
    assert curves.groupby(["ticker", "mode"]).size().eq(len(TENORS)).all()
    assert ((curves["p05"] <= curves["beta_median"]) & (curves["beta_median"] <= curves["p95"])).all()
    assert curves["p_change"].between(0, 1).all()
    # A law without evidence of a rise never lifts a forward above its level; a law whose mean is
    # above 1 (only a family whose maker raised a price can have one) lifts it.
    rose = m > 1 + 1e-12
    assert means["family_never_rose"] <= 1 + 1e-12
    assert set(law_of.reindex(pd.MultiIndex.from_arrays([curves.loc[rose, "ticker"], curves.loc[rose, "mode"]]))) \
        <= {"family_rose"}
    assert (curves.loc[~rose, "beta_forward"] <= levels[~rose] * (1 + 1e-15)).all()
    assert (curves.loc[rose, "beta_forward"] > levels[rose]).all()


def test_greek_sheet_carries_every_contract_field(store, by_hand):
    greeks = store.read_table("greeks").set_index("ticker")
    assert set(CONTRACT_GREEKS) <= set(greeks.columns)
    sonnet = greeks.loc["SONNET-4"]
    assert (sonnet["beta_sync"], sonnet["r_in"], sonnet["r_cache"], sonnet["r_think"]) == (15.0, 0.2, 0.02, 1.0)
    laws = store.read_table("change_laws")
    prior = laws.groupby("change_law")["prior_weight"].first()
    for ticker in ["SONNET-4", "O3", "LLAMA-3.2-1B", "GEMINI-3.6-FLASH"]:
        row = greeks.loc[ticker]
        for mode, suffix in (("sync", ""), ("batch", "_batch")):
            if (ticker, mode) not in by_hand.law_name:
                assert pd.isna(row[f"theta{suffix}"]), ticker
                continue
            ratios, weights = by_hand.law(ticker, mode)
            weights = weights / weights.sum()
            logs = np.log(ratios)
            # θ: the average decay per month the law implies over a year, −ln(E[R_12])/12.
            assert row[f"theta{suffix}"] == pytest.approx(-np.log(by_hand.expected_ratio(ticker, mode, 12)) / 12,
                                                          rel=1e-9, abs=1e-15), (ticker, mode)
            assert row[f"sigma{suffix}"] == 0.0  # no diffusion: between changes a price does not move
            assert row[f"jump_rate{suffix}"] == pytest.approx(-np.log(1 - by_hand.p_change(ticker, mode, 1)),
                                                              rel=1e-12)
            assert row[f"jump_mean{suffix}"] == pytest.approx(float(logs @ weights), rel=1e-12)
            assert row[f"jump_std{suffix}"] == pytest.approx(
                float(np.sqrt((logs - logs @ weights) ** 2 @ weights)), rel=1e-12)
            assert row[f"pool{suffix}"] == by_hand.law_name[(ticker, mode)]
            assert row[f"prior_weight{suffix}"] == prior[by_hand.law_name[(ticker, mode)]]
            assert 0 <= row[f"prior_weight{suffix}"] <= 1
            assert row[f"exposure_months{suffix}"] > 0 and row[f"n_jumps{suffix}"] >= 0
    assert greeks.loc["SONNET-4", "theta"] >= 0  # a family that never rose never rises
    # O3's sync price changed once (2025-06-10, 40 → 8) in the history, and it has been priced since 2025.
    assert greeks.loc["O3", "n_jumps"] >= 1 and greeks.loc["O3", "exposure_months"] > 12


ANCHOR = date(2025, 10, 1)


def _known_at_anchor(observations: pd.DataFrame) -> pd.DataFrame:
    """The statements in force and published by ANCHOR."""
    published = pd.to_datetime(known_on(observations)) <= pd.Timestamp(ANCHOR)
    return observations[(observations["effective_date"] <= ANCHOR) & published.to_numpy()]


def test_the_backtest_has_no_look_ahead(store):
    observations = store.read_table("price_observations")
    assert len(_known_at_anchor(observations)) < len(observations[observations["effective_date"] <= ANCHOR])
    models = store.read_table("models")
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    # Each side names its moves from its own statements (`moves_known_on`), as the events did then.
    with_future, laws = forecasts_at(observations, models, rules, ANCHOR)
    without_future, laws_without = forecasts_at(_known_at_anchor(observations), models, rules, ANCHOR)
    assert len(with_future) > 100
    pd.testing.assert_frame_equal(with_future, without_future)
    assert laws.keys() == laws_without.keys() == {"family_rose", "family_never_rose"}
    for name, law in laws.items():
        np.testing.assert_array_equal(law.ratios, laws_without[name].ratios)
        np.testing.assert_array_equal(law.weights, laws_without[name].weights)


def test_the_forecasts_published_for_an_anchor_are_those_recomputed_from_its_past(store):
    observations = store.read_table("price_observations")
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    recomputed, _ = forecasts_at(_known_at_anchor(observations), store.read_table("models"), rules, ANCHOR)
    published = store.read_table("backtest")
    published = published[published["anchor"] == ANCHOR].set_index(["ticker", "tenor", "method"])
    assert len(published) > 100
    recomputed = recomputed.set_index(["ticker", "tenor", "method"]).reindex(published.index)
    for column in ("forecast", "median", "p05", "p95", "p_change", "p_base"):
        np.testing.assert_allclose(published[column], recomputed[column], rtol=1e-12, err_msg=column)


def test_an_anchor_sees_neither_a_later_restatement_nor_a_model_first_published_later(store):
    """Two statements published after ANCHOR about days before it: a restatement of GPT-4.1's
    output at ten times its price, by its maker, and a model no one had listed by then. Neither
    reaches the anchor's forecasts; once published by the anchor, both do."""
    observations = store.read_table("price_observations")
    models = store.read_table("models")
    rules = Rules.from_frame(read_seed_csv("model_rules"))
    stated = observations[(observations["ticker"] == "GPT-4.1") & (observations["mode"] == "sync")
                          & observations["is_origin"] & ~observations["superseded"]
                          & (observations["effective_date"] <= ANCHOR)]
    restated = stated.tail(1).assign(output=stated["output"].iloc[-1] * 10, effective_date=date(2025, 9, 1),
                                     known_from=date(2025, 11, 1), source_released=date(2025, 11, 1))
    late_model = stated.assign(ticker="LATE-MODEL", provider_model_id="late-model", known_from=date(2025, 11, 1))
    late_models = pd.concat([models, models[models["ticker"] == "GPT-4.1"].assign(ticker="LATE-MODEL")])
    before, _ = forecasts_at(observations, late_models, rules, ANCHOR)
    later, _ = forecasts_at(pd.concat([observations, restated, late_model], ignore_index=True), late_models, rules,
                            ANCHOR)
    pd.testing.assert_frame_equal(before, later)
    assert "LATE-MODEL" not in set(later["ticker"])
    known, _ = forecasts_at(pd.concat([observations, restated.assign(known_from=ANCHOR),
                                       late_model.assign(known_from=ANCHOR)], ignore_index=True),
                            late_models, rules, ANCHOR)
    spots = known[known["method"] == "flat"].drop_duplicates("ticker").set_index("ticker")["spot"]
    assert spots["GPT-4.1"] == pytest.approx(stated["output"].iloc[-1] * 10, rel=1e-12)
    assert "LATE-MODEL" in spots.index


def _kept(predictions, scope):
    kept = predictions[~predictions["revision"]]
    return kept[kept["fixed_name"]] if scope == "fixed_name" else kept


def test_accuracy_recomputes_from_the_predictions(store):
    predictions = store.read_table("backtest")
    spot = predictions["spot"].astype(float)  # see test_curves.py: the column reads back as text
    predictions = predictions.assign(spot=spot, x=predictions["realised"] / spot)
    accuracy = store.read_table("accuracy").set_index(["scope", "tenor"])
    assert list(accuracy.index) == [(s, t) for s in ("all", "fixed_name", "line") for t in ("1M", "3M", "6M")]
    accuracy = accuracy.drop(index="line", level="scope")  # tests/pipelines/test_line_backtest_published.py
    for (scope, tenor), row in accuracy.iterrows():
        within = predictions[predictions["tenor"] == tenor]
        if scope == "fixed_name":
            within = within[within["fixed_name"]]
        kept = _kept(within, "all")
        by_method = {m: r for m, r in kept.groupby("method")}
        oracle, flat = by_method["oracle"], by_method["flat"]
        assert row["n"] == len(oracle) == len(flat) > 0
        assert row["revisions_excluded"] == within[within["method"] == "oracle"]["revision"].sum() > 0
        changed = (oracle["x"] - 1).abs() > 1e-9
        assert row["changed_share"] == pytest.approx(changed.mean(), rel=1e-12)
        for method, suffix in (("oracle", ""), ("flat", "_flat"), ("single_exp", "_single_exp")):
            rows = by_method[method]
            errors = (rows["forecast"] - rows["realised"]) / rows["spot"]
            assert row[f"rel_rmse{suffix}"] == pytest.approx(float(np.sqrt(np.mean(errors**2))), rel=1e-12)
            logs = np.log(rows["forecast"] / rows["realised"])
            assert row[f"log_rmse{suffix}"] == pytest.approx(float(np.sqrt(np.mean(logs**2))), rel=1e-12)
            ape = (rows["median"] - rows["realised"]).abs() / rows["realised"] * 100
            assert row[f"mape{suffix}"] == pytest.approx(ape.mean(), rel=1e-12, abs=1e-15)
            assert row[f"median_ape{suffix}"] == pytest.approx(ape.median(), rel=1e-12, abs=1e-15)
            assert row[f"bias{suffix}"] == pytest.approx(errors.mean() * 100, rel=1e-12)
            assert row[f"crps{suffix}"] == pytest.approx(rows["crps"].mean(), rel=1e-12)
            assert row[f"coverage{suffix}"] == pytest.approx(rows["covered"].mean(), rel=1e-12)
        # Flat by hand: its CRPS is |1 − y/spot|, and its randomised PIT lands in the 90% band with
        # chance 0.9 when nothing changed (F jumps from 0 to 1 at the spot) and never otherwise.
        flat_changed = (flat["x"] - 1).abs() > 1e-9
        assert row["crps_flat"] == pytest.approx(float(np.mean(np.abs(1 - flat["x"]))), rel=1e-12)
        assert row["coverage_flat"] == pytest.approx(0.9 * (1 - flat_changed.mean()), rel=1e-12)
        assert row["brier"] == pytest.approx(float(np.mean((oracle["p_change"] - changed) ** 2)), rel=1e-12)
        assert row["brier_base"] == pytest.approx(float(np.mean((oracle["p_base"] - changed) ** 2)), rel=1e-12)
        for se in ("rel_rmse_gap_se", "crps_gap_se", "brier_gap_se", "coverage_se"):
            assert 0 < row[se] < 0.05, se
        assert row["verdict"].startswith(f"At {tenor} the forecast ")


def test_the_summaries_recompute_from_the_predictions(store):
    predictions = store.read_table("backtest")
    kept = predictions[~predictions["revision"]]
    summary = store.read_table("backtest_summary").set_index(["tenor", "method"])
    assert len(summary) == 9
    for (tenor, method), rows in kept.groupby(["tenor", "method"]):
        row = summary.loc[(tenor, method)]
        assert row["n"] == len(rows)
        assert row["crps"] == pytest.approx(rows["crps"].mean(), rel=1e-12)
        assert row["coverage"] == pytest.approx(rows["covered"].mean(), rel=1e-12)
        assert row["brier"] == pytest.approx(float(np.mean((rows["p_change"] - rows["changed"]) ** 2)), rel=1e-12)
        assert row["changed_share"] == pytest.approx(rows["changed"].mean(), rel=1e-12)
    families = store.read_table("backtest_families")
    assert families.groupby(["tenor", "method"])["n"].sum().to_dict() == summary["n"].to_dict()


def test_the_oracle_beats_the_single_exponential_is_below_flat_and_its_band_is_calibrated(full_store):
    accuracy = full_store.read_table("accuracy")  # a claim about the whole bundled data
    accuracy = accuracy[accuracy["scope"] != "line"]  # the forecasts of a model; lines: methodology §9's table
    assert (accuracy["crps"] < accuracy["crps_single_exp"]).all()
    assert (accuracy["rel_rmse"] < accuracy["rel_rmse_single_exp"]).all()
    every = accuracy[accuracy["scope"] == "all"]
    assert (every["crps"] < every["crps_flat"]).all()  # lower at every tenor, though within one standard error
    # The randomised PIT: a calibrated 90% band holds 90% of outcomes, an atom counted fractionally.
    assert ((accuracy["coverage"] - 0.9).abs() <= 3 * accuracy["coverage_se"]).all()
    # The verdict says "beats" only beyond one standard error of the CRPS gap, "is level with" within it.
    for row in accuracy.itertuples():
        gap = row.crps - row.crps_flat
        word = "is level with" if abs(gap) <= row.crps_gap_se else "beats" if gap < 0 else "does worse than"
        assert row.verdict.startswith(f"At {row.tenor} the forecast {word} the flat forward"), row.verdict


def test_every_spot_says_when_its_statement_was_first_known_and_it_was_by_the_snapshot_date(store):
    spots, history = store.read_table("spots"), store.read_table("price_history")
    as_of = date.fromisoformat(store.current().extra["as_of"])
    for mode in ("sync", "batch"):
        today = history[(history["date"] == as_of) & (history["mode"] == mode)].set_index("ticker")["known_on"]
        priced = spots[spots[f"beta_{mode}"].notna()].set_index("ticker")
        assert len(priced) > 10
        assert priced[f"known_from_{mode}"].tolist() == today.reindex(priced.index).tolist()
        known = priced[f"known_from_{mode}"].dropna()
        assert len(known) > 0.9 * len(priced) and (known <= as_of).all()
    # A dated history point may be known long after the day it asserts (a later release restating it).
    assert (history["known_on"] >= history["observed_on"]).mean() > 0.5
