"""The walk-forward backtest: anchors, the single-exponential baseline, scoring and the summary."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.backtest import (
    PREDICTION_COLUMNS,
    accuracy_table,
    anchor_dates,
    rmse_gap_se,
    score,
    single_exp_params,
    summarise,
    target_date,
)

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


def forecast(anchor, ticker, months, method, spot, value, p05=NAN, p95=NAN):
    return dict(anchor=anchor, ticker=ticker, family="f", tier="mid", tenor=f"{months}M", months=float(months),
                method=method, spot=spot, forecast=value, p05=p05, p95=p95)


def test_score_by_hand():
    jan, feb = date(2025, 1, 1), date(2025, 2, 1)
    forecasts = pd.DataFrame([
        forecast(jan, "A", 1, "oracle", 10.0, 9.5, 8.5, 9.8),
        forecast(jan, "A", 1, "flat", 10.0, 10.0),
        forecast(jan, "A", 1, "single_exp", 10.0, 9.6, 9.2, 9.9),
        forecast(jan, "A", 3, "oracle", 10.0, 9.0, 8.0, 9.9),  # target 2 April, after as_of
        forecast(jan, "B", 1, "oracle", 4.0, 3.9, 3.0, 4.5),  # realised 0
        forecast(jan, "C", 1, "oracle", 4.0, 3.9, 3.0, 4.5),  # no realised price
        forecast(feb, "A", 1, "flat", 9.0, 9.0),  # target 3 March = as_of
    ])
    history = pd.DataFrame([
        dict(ticker="A", mode="sync", date=date(2025, 1, 31), output=9.0),
        dict(ticker="A", mode="batch", date=date(2025, 1, 31), output=4.0),
        dict(ticker="B", mode="sync", date=date(2025, 1, 31), output=0.0),
        dict(ticker="A", mode="sync", date=date(2025, 3, 3), output=8.0),
        dict(ticker="A", mode="sync", date=date(2025, 4, 2), output=7.0),
    ])
    scored = score(forecasts, history, as_of=date(2025, 3, 3))
    assert list(scored.columns) == PREDICTION_COLUMNS
    assert list(zip(scored["anchor"], scored["method"])) == [
        (jan, "oracle"), (jan, "flat"), (jan, "single_exp"), (feb, "flat")]
    assert scored["target_date"].tolist() == [date(2025, 1, 31)] * 3 + [date(2025, 3, 3)]
    assert scored["realised"].tolist() == [9.0, 9.0, 9.0, 8.0]
    assert scored["rel_error"].tolist() == pytest.approx([0.05, 0.1, 0.06, 1 / 9], abs=EXACT)
    assert scored["ape"].tolist() == pytest.approx([50 / 9, 100 / 9, 20 / 3, 12.5], abs=EXACT)
    assert scored["covered"].iloc[[0, 2]].tolist() == [True, False]
    assert scored["covered"].iloc[[1, 3]].isna().all()


def predictions(rows):
    """rows: (anchor, ticker, tenor, method, spot, forecast, realised, p05, p95)."""
    frame = pd.DataFrame(rows, columns=["anchor", "ticker", "tenor", "method", "spot", "forecast", "realised",
                                        "p05", "p95"])
    frame["rel_error"] = (frame["forecast"] - frame["realised"]) / frame["spot"]
    frame["ape"] = (frame["forecast"] - frame["realised"]).abs() / frame["realised"] * 100
    inside = (frame["p05"] <= frame["realised"]) & (frame["realised"] <= frame["p95"])
    frame["covered"] = inside.where(frame["p05"].notna())
    return frame


def test_summarise_by_hand():
    frame = pd.DataFrame({
        "method": ["oracle"] * 3 + ["flat"] * 2,
        "rel_error": [0.1, -0.2, 0.05, 0.3, -0.1],
        "ape": [10.0, 20.0, 4.0, 30.0, 10.0],
        "covered": pd.Series([True, False, None, None, None], dtype=object),
    })
    summary = summarise(frame, ["method"]).set_index("method")
    oracle, flat = summary.loc["oracle"], summary.loc["flat"]
    assert summary["n"].tolist() == [2, 3] and summary.index.tolist() == ["flat", "oracle"]
    assert oracle["rel_rmse"] == pytest.approx(math.sqrt((0.01 + 0.04 + 0.0025) / 3), abs=EXACT)
    assert oracle["mape"] == pytest.approx(34 / 3, abs=EXACT)
    assert oracle["median_ape"] == 10.0
    assert oracle["bias"] == pytest.approx(-0.05 / 3 * 100, abs=EXACT)
    assert oracle["coverage"] == 0.5
    assert flat["rel_rmse"] == pytest.approx(math.sqrt(0.05), abs=EXACT)
    assert flat["bias"] == pytest.approx(10.0, abs=EXACT)
    assert np.isnan(flat["coverage"])


def gap_frame(per_anchor):
    """per_anchor: {anchor: (oracle rel_errors, flat rel_errors)}, one ticker per error."""
    rows = []
    for anchor, (oracle, flat) in per_anchor.items():
        for method, errors in (("oracle", oracle), ("flat", flat)):
            rows += [dict(anchor=anchor, ticker=f"T{i}", method=method, rel_error=e) for i, e in enumerate(errors)]
    return pd.DataFrame(rows)


def test_rmse_gap_se():
    same = gap_frame({1: ([0.1, -0.2], [0.1, -0.2]), 2: ([0.3, 0.0], [0.3, 0.0]), 3: ([0.05, 0.1], [0.05, 0.1])})
    assert rmse_gap_se(same) == 0.0
    # Oracle and flat differ, but by the same at every anchor: every resample has the same gap.
    alike = gap_frame({1: ([0.1], [0.2]), 2: ([0.1], [0.2])})
    assert rmse_gap_se(alike) == pytest.approx(0.0, abs=1e-15)
    assert np.isnan(rmse_gap_se(gap_frame({1: ([0.1], [0.2])})))
    # Two anchors, oracle errors 0.1 and 0, flat 0: resamples give gaps 0.1, √0.005, 0 with
    # probabilities 1/4, 1/2, 1/4, whose standard deviation is √(0.005 − 0.0603553²) = 0.036841.
    two = gap_frame({1: ([0.1], [0.0]), 2: ([0.0], [0.0])})
    assert rmse_gap_se(two) == pytest.approx(math.sqrt(0.005 - (0.025 + math.sqrt(0.005) / 2) ** 2), rel=0.1)


def test_accuracy_table():
    jan, feb = date(2025, 1, 1), date(2025, 2, 1)
    rows = []
    for anchor, ticker, spot, realised, oracle, single in [
        (jan, "A", 10.0, 10.0, 9.8, 9.7), (jan, "B", 4.0, 3.0, 3.5, 3.8),
        (feb, "A", 10.0, 9.0, 9.5, 9.6), (feb, "B", 3.0, 2.7, 2.9, 2.8),
    ]:
        rows += [(anchor, ticker, "1M", "oracle", spot, oracle, realised, 0.9 * oracle, 1.1 * oracle),
                 (anchor, ticker, "1M", "flat", spot, spot, realised, NAN, NAN),
                 (anchor, ticker, "1M", "single_exp", spot, single, realised, single - 0.1, single + 0.1)]
    rows += [(jan, "A", "6M", m, 10.0, 9.0, 10.0, 8.0, 9.5) for m in ("oracle", "flat", "single_exp")]
    table = accuracy_table(predictions(rows))
    assert list(table.columns) == [
        "tenor", "n", "rel_rmse", "rel_rmse_flat", "rel_rmse_single_exp", "rel_rmse_gap_se", "mape", "mape_flat",
        "mape_single_exp", "bias", "bias_flat", "bias_single_exp", "coverage", "coverage_single_exp",
        "no_change_share"]
    assert table["tenor"].tolist() == ["1M", "6M"] and table["n"].tolist() == [4, 1]
    one = table.iloc[0]
    oracle_errors = [-0.02, 0.125, 0.05, 0.2 / 3]
    assert one["rel_rmse"] == pytest.approx(math.sqrt(sum(e * e for e in oracle_errors) / 4), abs=EXACT)
    assert one["rel_rmse_flat"] == pytest.approx(math.sqrt((0 + 0.0625 + 0.01 + 0.01) / 4), abs=EXACT)
    assert one["bias"] == pytest.approx(sum(oracle_errors) / 4 * 100, abs=EXACT)
    assert one["mape_flat"] == pytest.approx((0 + 100 / 3 + 100 / 9 + 100 / 9) / 4, abs=EXACT)
    # Oracle bands 0.9·f to 1.1·f hold 10, 3, 9 and 2.7 except 3 (band 3.15 to 3.85): 3 of 4.
    assert one["coverage"] == 0.75
    # Single-exp bands ±0.1: only 2.7 in [2.7, 2.9]: 1 of 4.
    assert one["coverage_single_exp"] == 0.25
    # Only A on 1 January did not move at all.
    assert one["no_change_share"] == 0.25
    assert table.iloc[1]["no_change_share"] == 1.0
    assert np.isnan(table.iloc[1]["rel_rmse_gap_se"])  # a single anchor
