"""The walk-forward backtest: anchors, the single-exponential baseline, and the scoring of each case."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.backtest import (
    PREDICTION_COLUMNS,
    anchor_dates,
    band_share,
    lognormal_crps,
    score,
    single_exp_params,
    target_date,
)
from pipelines.change_panel import Histories
from pipelines.forecast import ChangeLaw
from pipelines.registry import Rules

EXACT = 1e-12
MONTH = 30.4375
NAN = float("nan")


@pytest.mark.parametrize(("start", "as_of", "expected"), [
    (date(2024, 11, 15), date(2025, 2, 15), [date(2024, 11, 1), date(2024, 12, 1), date(2025, 1, 1)]),
    # 1 January + 30 days = 31 January: scored on the day itself, not the day before.
    (date(2024, 12, 1), date(2025, 1, 31), [date(2024, 12, 1), date(2025, 1, 1)]),
    (date(2024, 12, 1), date(2025, 1, 30), [date(2024, 12, 1)]),
    (date(2025, 1, 20), date(2025, 1, 30), []),
])
def test_anchor_dates(start, as_of, expected):
    assert anchor_dates(start, as_of) == expected


@pytest.mark.parametrize(("months", "days"), [(1, 30), (3, 91), (6, 183), (12, 365), (0.5, 15), (2, 61)])
def test_target_date(months, days):
    # round(1·30.4375) = 30, round(91.3125) = 91, round(182.625) = 183, round(365.25) = 365, round(60.875) = 61.
    assert (target_date(date(2025, 1, 1), months) - date(2025, 1, 1)).days == days


def prices(*rows):
    return pd.DataFrame([dict(ticker=t, date=d, output=p) for t, d, p in rows])


@pytest.mark.parametrize("rows", [
    [],
    [("A", date(2025, 1, 1), 10.0)],
    [("A", date(2025, 1, 1), 10.0), ("A", date(2025, 3, 1), 9.0)],  # one pair
    [("A", date(2025, 1, 1), 10.0), ("A", date(2025, 3, 1), 9.0), ("A", date(2025, 3, 10), 8.0)],  # one usable
])
def test_single_exp_defaults_below_two_usable_pairs(rows):
    frame = prices(*rows) if rows else pd.DataFrame(columns=["ticker", "date", "output"])
    assert single_exp_params(frame) == (0.05, 0.06)


def test_single_exp_by_hand():
    # Gaps 59, 61 and 92 days; the rows are given out of order and the lineage spans two tickers.
    frame = prices(("B", date(2025, 8, 1), 7.6), ("A", date(2025, 1, 1), 10.0),
                   ("B", date(2025, 5, 1), 8.4), ("A", date(2025, 3, 1), 8.5))
    thetas = [-math.log(8.5 / 10) / (59 / MONTH), -math.log(8.4 / 8.5) / (61 / MONTH),
              -math.log(7.6 / 8.4) / (92 / MONTH)]
    assert thetas == pytest.approx([0.08384186299302585, 0.005905103354600781, 0.033111850759001735], abs=EXACT)
    weights = [0.85**2, 0.85, 1.0]
    theta = sum(w * t for w, t in zip(weights, thetas)) / sum(weights)
    mean = sum(thetas) / 3
    sigma = math.sqrt(sum((t - mean) ** 2 for t in thetas) / 3)
    assert single_exp_params(frame) == pytest.approx((theta, sigma), abs=EXACT)
    assert (theta, sigma) == pytest.approx((0.03837004261336194, 0.03229702385416539), abs=EXACT)


@pytest.mark.parametrize(("rows", "expected"), [
    # Gaps of 61 days (g = 61/30.4375 months). Halving each time: θᵢ = ln 2/g ≈ 0.346, clamped to 0.15;
    # σ = 0, clamped to 0.02.
    ([(1, 1.0), (2, 0.5), (3, 0.25)], (0.15, 0.02)),
    # Doubling: θᵢ = −ln 2/g, clamped to 0.01.
    ([(1, 1.0), (2, 2.0), (3, 4.0)], (0.01, 0.02)),
    # θᵢ = 0 and ln 4/g ≈ 0.692: θ = 0.692/1.85 ≈ 0.374, clamped to 0.15; σ ≈ 0.346, clamped to 0.25.
    ([(1, 1.0), (2, 1.0), (3, 0.25)], (0.15, 0.25)),
])
def test_single_exp_clamps(rows, expected):
    days = {1: date(2025, 1, 1), 2: date(2025, 3, 3), 3: date(2025, 5, 3)}
    frame = prices(*[("A", days[k], p) for k, p in rows])
    assert single_exp_params(frame) == pytest.approx(expected, abs=EXACT)


def test_single_exp_skips_pairs_within_half_a_month():
    # Gaps 15 days (0.49 months: the halving is skipped), 61 and 16 days (0.53 months: used).
    frame = prices(("A", date(2025, 1, 1), 10.0), ("A", date(2025, 1, 16), 5.0),
                   ("A", date(2025, 3, 18), 4.9), ("A", date(2025, 4, 3), 4.5))
    thetas = [-math.log(4.9 / 5) / (61 / MONTH), -math.log(4.5 / 4.9) / (16 / MONTH)]
    theta = (0.85 * thetas[0] + thetas[1]) / 1.85
    sigma = abs(thetas[0] - thetas[1]) / 2
    assert 0.01 < theta < 0.15 and 0.02 < sigma < 0.25
    assert single_exp_params(frame) == pytest.approx((theta, sigma), abs=EXACT)


LAW = ChangeLaw(np.array([0.5, 0.8, 2.0]), np.array([0.5, 0.3, 0.2]))
MODELS = pd.DataFrame([dict(ticker=t, provider="p", model_id=t.lower(), family="f", is_reasoning=False)
                       for t in ("A", "B", "C")])
NO_RULES = Rules.from_frame(pd.DataFrame(columns=["kind", "pattern", "value"]))


def forecast(anchor, ticker, months, method, spot, value, median, **rest):
    return dict(anchor=anchor, ticker=ticker, family="f", tier="mid", fixed_name=True, tenor=f"{months}M",
                months=float(months), method=method, spot=spot, forecast=value, median=median, p05=rest.get("p05", NAN),
                p95=rest.get("p95", NAN), p_change=rest.get("p_change", 0.0), p_base=0.02,
                change_law=rest.get("change_law", NAN), mu=rest.get("mu", NAN), s=rest.get("s", NAN))


def revisions():
    """B's price switched source on 20 January: a revision in its January window."""
    changes = pd.DataFrame([("A", date(2024, 6, 1), 10.0, NAN, "first"), ("B", date(2024, 6, 1), 4.0, NAN, "first"),
                            ("B", date(2025, 1, 20), 4.4, 1.1, "switch")],
                           columns=["ticker", "date", "price", "ratio", "kind"])
    return Histories(changes, MODELS, NO_RULES)


def brute_crps(values, weights, x):
    """E|X − x| − ½E|X − X'| summed over the atoms."""
    return weights @ np.abs(values - x) - 0.5 * weights @ np.abs(values[:, None] - values[None, :]) @ weights


def test_score_by_hand():
    jan, feb = date(2025, 1, 1), date(2025, 2, 1)
    forecasts = pd.DataFrame([
        forecast(jan, "A", 1, "oracle", 10.0, 9.5, 10.0, p_change=0.4, change_law="law"),
        forecast(jan, "A", 1, "flat", 10.0, 10.0, 10.0),
        forecast(jan, "A", 1, "single_exp", 10.0, 9.6, 9.6, p_change=1.0, mu=math.log(0.96), s=0.1),
        forecast(jan, "A", 3, "oracle", 10.0, 9.0, 10.0, p_change=0.1, change_law="law"),  # target 2 April: too late
        forecast(jan, "B", 1, "flat", 4.0, 4.0, 4.0),  # realised 4.4 after a switch of source: a revision
        forecast(jan, "C", 1, "flat", 4.0, 4.0, 4.0),  # no realised price
        forecast(feb, "A", 1, "flat", 9.0, 9.0, 9.0),  # target 3 March = as_of, unchanged
    ])
    history = pd.DataFrame([
        dict(ticker="A", mode="sync", date=date(2025, 1, 31), output=9.0),
        dict(ticker="A", mode="batch", date=date(2025, 1, 31), output=4.0),
        dict(ticker="B", mode="sync", date=date(2025, 1, 31), output=4.4),
        dict(ticker="A", mode="sync", date=date(2025, 3, 3), output=9.0),
        dict(ticker="A", mode="sync", date=date(2025, 4, 2), output=7.0),
    ])
    scored = score(forecasts, {"law": LAW}, history, revisions(), as_of=date(2025, 3, 3))
    assert list(scored.columns) == PREDICTION_COLUMNS
    assert list(zip(scored["ticker"], scored["method"])) == [("A", "oracle"), ("A", "flat"), ("A", "single_exp"),
                                                             ("B", "flat"), ("A", "flat")]
    assert scored["realised"].tolist() == [9.0, 9.0, 9.0, 4.4, 9.0]
    assert scored["changed"].tolist() == [True, True, True, True, False]
    assert scored["revision"].tolist() == [False, False, False, True, False]
    assert scored["revision_kind"].fillna("").tolist() == ["", "", "", "switch", ""]
    assert scored["rel_error"].tolist() == pytest.approx([0.05, 0.1, 0.06, -0.1, 0.0], abs=EXACT)
    assert scored["log_error"].tolist() == pytest.approx(
        np.log([9.5 / 9, 10 / 9, 9.6 / 9, 4 / 4.4, 1.0]).tolist(), abs=EXACT)
    assert scored["ape"].tolist() == pytest.approx([100 / 9, 100 / 9, 60 / 9, 100 * 0.4 / 4.4, 0.0], abs=EXACT)
    # The oracle: atoms 1 (0.6), 0.5 (0.2), 0.8 (0.12), 2 (0.08); the outcome 0.9 of the spot.
    oracle = scored.iloc[0]
    assert oracle["crps"] == pytest.approx(brute_crps(np.array([1, 0.5, 0.8, 2]), np.array([0.6, 0.2, 0.12, 0.08]),
                                                      0.9), abs=EXACT)
    assert (oracle["pit_low"], oracle["pit_high"], oracle["covered"]) == pytest.approx((0.32, 0.32, 1.0), abs=EXACT)
    # Flat: all mass at the spot. A cut is below it (PIT 0, outside the band); no change is the whole atom
    # (PIT uniform on [0, 1]: 90% inside).
    assert scored["crps"].iloc[[1, 4]].tolist() == pytest.approx([0.1, 0.0], abs=EXACT)
    assert scored["covered"].iloc[[1, 3, 4]].tolist() == pytest.approx([0.0, 0.0, 0.9], abs=EXACT)
    assert (scored["pit_low"].iloc[3], scored["pit_high"].iloc[3]) == (1.0, 1.0)  # a rise: above the whole atom
    # Single-exp: ln(β/spot) ~ N(ln 0.96, 0.1²); the PIT at 0.9, and the CRPS by integration.
    single = scored.iloc[2]
    z = (math.log(0.9) - math.log(0.96)) / 0.1
    assert single["pit_low"] == single["pit_high"] == pytest.approx(0.5 * math.erfc(-z / math.sqrt(2)), abs=EXACT)
    grid = np.linspace(1e-6, 3.0, 300_001)
    cdf = 0.5 * np.vectorize(math.erfc)(-(np.log(grid) - math.log(0.96)) / 0.1 / math.sqrt(2))
    integral = np.sum((cdf - (grid >= 0.9)) ** 2) * (grid[1] - grid[0])
    assert single["crps"] == pytest.approx(integral, abs=1e-5)


@pytest.mark.parametrize(("low", "high", "share"), [
    (0.0, 1.0, 0.9), (0.5, 0.5, 1.0), (0.01, 0.01, 0.0), (0.97, 0.97, 0.0), (0.0, 0.1, 0.5), (0.9, 1.0, 0.5),
    (0.05, 0.05, 1.0), (0.95, 0.95, 1.0),
])
def test_band_share(low, high, share):
    assert band_share(np.array([low]), np.array([high]))[0] == pytest.approx(share, abs=EXACT)


def test_lognormal_crps_of_a_narrow_law_is_the_distance():
    assert lognormal_crps(np.array([0.0]), np.array([1e-9]), np.array([1.3]))[0] == pytest.approx(0.3, abs=1e-7)
