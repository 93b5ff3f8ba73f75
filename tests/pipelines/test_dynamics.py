"""The price process (contract §4): moves, prior strength, jump law, fit and quantiles, by hand."""

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.dynamics import (
    Process,
    decay_factor,
    fit_processes,
    jump_law,
    prior_strength,
    ratio_quantiles,
    series_moves,
)
from pipelines.montecarlo import simulate_ratios

EXACT = 1e-12
Z95 = 1.6448536269514722
MONTH = 30.4375
ANCHOR = date(2025, 5, 1)


def daily(ticker, points, end, mode="sync"):
    """Daily rows from the first observed point to `end`; days between points are carried forward."""
    rows, price, day = [], None, min(points)
    while day <= end:
        price = points.get(day, price)
        rows.append(dict(ticker=ticker, mode=mode, date=day, output=price,
                         provenance="published" if day in points else "carried_forward"))
        day += timedelta(days=1)
    return rows


def history(*series):
    return pd.DataFrame([row for rows in series for row in rows])


# --- prior_strength ------------------------------------------------------------------------------

@pytest.mark.parametrize(("n", "exposure", "m", "strength"), [
    # Rates 0.2 and 0.2: no spread at all, the strongest prior.
    ([2, 4], [10, 20], 0.2, 240.0),
    # m = 13/26; only the two 12-month series measure the spread: rates 0.25, 0.75,
    # spread = (12·0.0625 + 12·0.0625)/24 = 1/16, Poisson part m·2/24 = 1/24, between = 1/48, m/between = 24.
    # (Counting the 2-month series too would give between = 0 and 240.)
    ([3, 9, 1], [12, 12, 2], 0.5, 24.0),
    # Only one series has 6 months, so both count: m = 1/7, rates 0.1 and 1,
    # spread = (20·(3/70)² + 1·(6/7)²)/21 = 9/245, between = 9/245 − (1/7)·2/21 = 17/735, m/between = 105/17.
    ([2, 1], [20, 1], 1 / 7, 105 / 17),
    # Rates 0 and 1: spread 1/4, between = 1/4 − 0.5·2/24 = 5/24, m/between = 2.4, clipped to 6.
    ([0, 12, 1], [12, 12, 2], 0.5, 6.0),
    # No jumps anywhere.
    ([0, 0], [10, 20], 0.0, 240.0),
])
def test_prior_strength(n, exposure, m, strength):
    got = prior_strength(np.array(n, dtype=float), np.array(exposure, dtype=float))
    assert got == pytest.approx((m, strength), rel=1e-12)


# --- jump_law ------------------------------------------------------------------------------------

def test_jump_law_empty():
    assert jump_law(np.array([])) == (0.0, 0.0)


def test_jump_law_hand_computed_shrinkage():
    # Ratios 0.5, 0.5, 0.5, 0.8: mean 0.575, excess −17/40, unbiased variance 9/400, se² = 9/1600,
    # τ² = 1156/6400 − 36/6400 = 1120/6400, c = 280/289, m_J = 1 − (280/289)·(17/40) = 10/17.
    # Log sizes a, a, a, b have (population) variance 3/16·(b − a)² with b − a = ln 1.6.
    mean_jump, std_jump = jump_law(np.log([0.5, 0.5, 0.5, 0.8]))
    s2 = 3 / 16 * math.log(1.6) ** 2
    assert std_jump == pytest.approx(math.sqrt(s2), abs=EXACT)
    assert mean_jump == pytest.approx(math.log(10 / 17) - s2 / 2, abs=EXACT)
    assert math.exp(mean_jump + std_jump**2 / 2) == pytest.approx(10 / 17, abs=EXACT)
    assert (mean_jump, std_jump) == pytest.approx((-0.5513379458906856, 0.2035175413988449), abs=EXACT)


def test_a_single_jump_is_no_evidence_of_drift():
    mean_jump, std_jump = jump_law(np.log([0.2]))
    assert (mean_jump, std_jump) == (0.0, 0.0)


def test_jump_law_no_signal_means_no_expected_change():
    # Ratios 0.5 and 1.4: excess² = 0.0025 < se² = 0.2025/2, so τ² = 0 and E[e^J] = 1 exactly.
    mean_jump, std_jump = jump_law(np.log([0.5, 1.4]))
    assert std_jump == pytest.approx(math.log(2.8) / 2, abs=EXACT)
    assert mean_jump == -0.5 * std_jump**2
    assert Process(jump_rate=3.0, jump_mean=mean_jump, jump_std=std_jump, sigma=0.1).theta == 0.0


def test_process_theta_and_decay_factor():
    assert Process(0.5, -0.2, 0.1, 0.05).theta == pytest.approx(0.5 * (1 - math.exp(-0.195)), abs=EXACT)
    assert decay_factor(0.02, 6) == pytest.approx(math.exp(-0.12), abs=EXACT)
    assert decay_factor(np.array([0.1, -0.1]), 2).tolist() == pytest.approx([math.exp(-0.2), math.exp(0.2)])


# --- series_moves --------------------------------------------------------------------------------

def test_series_moves_counts_and_exposure():
    a = {date(2025, 1, 1): 10.0, date(2025, 2, 1): 9.0, date(2025, 3, 1): 9.2,
         date(2025, 3, 15): 7.0, date(2025, 4, 1): 9.2,  # a 17-day slip: a correction
         date(2025, 5, 10): 5.0}  # after the anchor
    b = {date(2025, 1, 1): 10.0, date(2025, 2, 1): 8.0, date(2025, 3, 13): 10.0}  # back after 40 days
    batch = {date(2025, 1, 15): 5.0, date(2025, 3, 15): 5.0}
    frame = history(daily("A", a, date(2025, 5, 10)), daily("B", b, ANCHOR), daily("A", batch, ANCHOR, "batch"))
    series, jumps = series_moves(frame, ANCHOR, with_jumps=True)
    rows = series.set_index(["ticker", "mode"])
    assert rows.index.tolist() == [("A", "batch"), ("A", "sync"), ("B", "sync")]
    assert rows["exposure_months"].tolist() == pytest.approx([106 / MONTH, 120 / MONTH, 120 / MONTH], abs=EXACT)
    assert rows["n_jumps"].tolist() == [0, 1, 2]
    assert rows["n_moves"].tolist() == [0, 1, 0]
    assert rows["sum_jump"].tolist() == pytest.approx([0.0, math.log(0.9), 0.0], abs=EXACT)
    assert rows["sum_jump_sq"].tolist() == pytest.approx(
        [0.0, math.log(0.9) ** 2, math.log(0.8) ** 2 + math.log(1.25) ** 2], abs=EXACT)
    assert rows["sum_move_sq"].tolist() == pytest.approx([0.0, math.log(9.2 / 9) ** 2, 0.0], abs=EXACT)
    assert jumps["ticker"].tolist() == ["A", "B", "B"]
    assert jumps["x"].tolist() == pytest.approx([math.log(0.9), math.log(0.8), math.log(1.25)], abs=EXACT)


@pytest.mark.parametrize(("slip_days", "n_jumps"), [(17, 0), (31, 0), (32, 2), (40, 2)])
def test_a_reversal_within_31_days_is_a_correction(slip_days, n_jumps):
    slip = date(2025, 2, 1)
    points = {date(2025, 1, 1): 10.0, slip: 8.0, slip + timedelta(days=slip_days): 10.0}
    rows = series_moves(history(daily("A", points, ANCHOR)), ANCHOR)
    assert rows["n_jumps"].tolist() == [n_jumps]
    assert rows["n_moves"].tolist() == [0]


def test_a_return_to_another_level_is_not_a_correction():
    points = {date(2025, 1, 1): 10.0, date(2025, 2, 1): 8.0, date(2025, 2, 10): 9.9}
    rows = series_moves(history(daily("A", points, ANCHOR)), ANCHOR)
    assert (rows["n_jumps"].tolist(), rows["n_moves"].tolist()) == ([2], [0])


@pytest.mark.parametrize(("log_ratio", "n_jumps", "n_moves"), [
    (0.049, 0, 1), (-0.049, 0, 1), (0.051, 1, 0), (-0.051, 1, 0), (0.0, 0, 0)])
def test_jump_threshold(log_ratio, n_jumps, n_moves):
    points = {date(2025, 1, 1): 10.0, date(2025, 3, 1): 10.0 * math.exp(log_ratio)}
    rows = series_moves(history(daily("A", points, ANCHOR)), ANCHOR)
    assert (rows["n_jumps"].iloc[0], rows["n_moves"].iloc[0]) == (n_jumps, n_moves)


# --- fit_processes -------------------------------------------------------------------------------

def test_fit_processes_two_tickers_by_hand():
    anchor = date(2025, 7, 1)
    a = {date(2025, 1, 1): 10.0, date(2025, 3, 1): 8.0, date(2025, 5, 1): 8.1}
    b = {date(2025, 1, 1): 5.0}
    groups = pd.DataFrame({"ticker": ["A", "B"], "family": ["fa", "fb"], "tier": ["t1", "t1"]})
    params = fit_processes(history(daily("A", a, anchor), daily("B", b, anchor)), groups, anchor)
    # Both series have T = 181 days; rates 1/T and 0 show no excess spread, so every strength is 240.
    # Mode and tier posteriors are then m = 1/(2T); each family (and ticker) is shrunk to it with 240.
    t, s, v = 181 / MONTH, 240.0, math.log(8.1 / 8) ** 2
    m, move = 1 / (2 * t), v / (2 * t)
    rate_a = (s * (s * m + 1) / (s + t) + 1) / (s + t)
    rate_b = s * (s * m) / (s + t) / (s + t)
    var_a = (s * (s * move + v) / (s + t) + v) / (s + t)
    var_b = s * (s * move) / (s + t) / (s + t)
    assert params["ticker"].tolist() == ["A", "B"]
    assert params["jump_rate"].tolist() == pytest.approx([rate_a, rate_b], abs=EXACT)
    assert params["sigma"].tolist() == pytest.approx([math.sqrt(var_a), math.sqrt(var_b)], abs=EXACT)
    # One jump of ln 0.8 in the pool is no evidence of drift: μ_J = 0, s_J = 0, so θ = 0.
    assert params["jump_mean"].tolist() == [0.0, 0.0]
    assert params["jump_std"].tolist() == [0.0, 0.0]
    assert params["theta"].tolist() == [0.0, 0.0]
    expected_theta = params["jump_rate"] * (1 - np.exp(params["jump_mean"] + params["jump_std"] ** 2 / 2))
    assert params["theta"].to_numpy() == pytest.approx(expected_theta.to_numpy(), abs=EXACT)
    assert params["prior_weight"].tolist() == pytest.approx([s / (s + t)] * 2, abs=EXACT)
    assert params["prior_weight"].between(0, 1).all()
    assert params["pool"].tolist() == ["family:fa", "family:fb"]
    assert params["n_jumps"].tolist() == [1, 0] and params["n_moves"].tolist() == [1, 0]
    # B never moved, yet its tier did: it carries a positive rate of price changes.
    assert rate_b > 0


# --- ratio_quantiles -----------------------------------------------------------------------------

def frame(jump_rate, jump_mean, jump_std, sigma):
    return pd.DataFrame({"jump_rate": [jump_rate], "jump_mean": [jump_mean], "jump_std": [jump_std],
                         "sigma": [sigma]})


@pytest.mark.parametrize(("sigma", "months"), [(0.05, 1.0), (0.1, 3.0), (0.2, 12.0)])
def test_ratio_quantiles_without_jumps_are_lognormal(sigma, months):
    got = ratio_quantiles(frame(0.0, -0.3, 0.1, sigma), months)[0]
    half, spread = -0.5 * sigma**2 * months, Z95 * sigma * math.sqrt(months)
    assert got == pytest.approx([math.exp(half - spread), math.exp(half + spread)], abs=1e-9)


def test_ratio_quantiles_of_a_still_price_are_one():
    assert ratio_quantiles(frame(1e-12, -0.3, 0.1, 0.0), 6.0)[0].tolist() == [1.0, 1.0]


def test_ratio_quantiles_agree_with_the_simulator():
    process = Process(jump_rate=2.0, jump_mean=-0.1, jump_std=0.05, sigma=0.05)
    got = ratio_quantiles(frame(2.0, -0.1, 0.05, 0.05), 3.0, probabilities=(0.05, 0.5, 0.95))[0]
    paths = simulate_ratios(process, [3.0], paths=400_000, seed=7)[:, 0]
    assert got == pytest.approx(np.quantile(paths, [0.05, 0.5, 0.95]), rel=4e-3)


def _shrunk_ratio(ratios, prior):
    """The documented formula, written out independently: m₀ + τ²/(τ² + se²)·(m̂ − m₀)."""
    ratios = np.asarray(ratios, dtype=float)
    excess = ratios.mean() - prior
    se2 = ratios.var(ddof=1) / len(ratios)
    tau2 = max(excess**2 - se2, 0.0)
    return prior + tau2 / (tau2 + se2) * excess


def test_each_tier_has_its_own_jump_law_shrunk_toward_the_modes():
    from pipelines.dynamics import _tier_jump_laws

    jumps = pd.DataFrame({
        "x": np.log([0.5, 0.5, 0.5, 0.8, 3.0, 4.0, 2.0]),
        "tier": ["frontier"] * 4 + ["efficient"] * 2 + ["mid"],
    })
    (mode_mu, mode_s), tiers = _tier_jump_laws(jumps)
    mode_ratio = _shrunk_ratio(np.exp(jumps["x"]), 1.0)
    assert math.exp(mode_mu + mode_s**2 / 2) == pytest.approx(mode_ratio, abs=EXACT)
    assert mode_s == pytest.approx(np.log([0.5, 0.5, 0.5, 0.8, 3.0, 4.0, 2.0]).std(), abs=EXACT)
    for tier, ratios in (("frontier", [0.5, 0.5, 0.5, 0.8]), ("efficient", [3.0, 4.0])):
        mu, s = tiers[tier]
        assert s == pytest.approx(np.log(ratios).std(), abs=EXACT)
        assert math.exp(mu + s**2 / 2) == pytest.approx(_shrunk_ratio(ratios, mode_ratio), abs=EXACT)
    # One jump cannot measure a spread: the tier keeps the mode's law.
    assert tiers["mid"] == pytest.approx((math.log(mode_ratio) - mode_s**2 / 2, mode_s), abs=EXACT)
    # Frontier changes are cuts, efficient ones rises: their laws sit on either side of the mode's.
    assert math.exp(tiers["frontier"][0] + tiers["frontier"][1] ** 2 / 2) < mode_ratio
    assert math.exp(tiers["efficient"][0] + tiers["efficient"][1] ** 2 / 2) > mode_ratio
