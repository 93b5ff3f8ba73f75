"""The line backtest's scoring: an exact CRPS of a step CDF, the randomised PIT's bounds, one
anchor's cases worked by hand, the scorecard rows recomputed by hand with a naive bootstrap, and
the published cases and rows of the small universe."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.forecast import ChangeLaw
from pipelines.line_backtest import (
    CASE_COLUMNS,
    line_accuracy,
    line_cases,
    pit_bounds,
    product_atoms,
    step_crps,
    successor_chance,
)
from pipelines.scorecard import ACCURACY_COLUMNS, BOOTSTRAP_DRAWS

ANCHOR = date(2025, 1, 1)


def brute_crps(values, weights, x):
    """E|X − x| − ½ E|X − X'|, the CRPS's other form."""
    return float(np.dot(weights, np.abs(values - x))
                 - 0.5 * np.sum(np.outer(weights, weights) * np.abs(values[:, None] - values[None, :])))


def test_the_step_crps_is_the_pairwise_form():
    rng = np.random.default_rng(1)
    for _ in range(20):
        values = rng.lognormal(size=7)
        weights = rng.dirichlet(np.ones(7))
        for x in (0.3, 1.0, float(values[2]), 9.0):
            assert step_crps(values, weights, x) == pytest.approx(brute_crps(values, weights, x), abs=1e-12)
    assert step_crps(np.ones(1), np.ones(1), 1.0) == 0.0
    assert step_crps(np.ones(1), np.ones(1), 1.5) == pytest.approx(0.5)


def test_pit_bounds_count_an_atom_at_the_outcome_between_them():
    values, weights = np.array([0.5, 1.0, 2.0]), np.array([0.2, 0.5, 0.3])
    assert pit_bounds(values, weights, 1.0) == pytest.approx((0.2, 0.7))
    assert pit_bounds(values, weights, 1.5) == pytest.approx((0.7, 0.7))


def test_a_successor_is_forced_by_a_retirement_due_by_the_horizon():
    assert successor_chance(0.1, 3, None, ANCHOR) == pytest.approx(1 - np.exp(-0.3))
    assert successor_chance(0.1, 3, date(2025, 2, 1), ANCHOR) == 1.0
    assert successor_chance(0.1, 1, date(2025, 3, 1), ANCHOR) == pytest.approx(1 - np.exp(-0.1))


def test_one_anchor_by_hand():
    current = pd.DataFrame({"line": ["acme/x"], "maker": ["acme"], "ticker": ["X-1"], "retired_on": [None]})
    rates = pd.DataFrame({"successions": [1], "exposure_months": [4.0], "rate": [0.2]},
                         index=pd.Index(["acme/x"], name="line"))
    succession = ChangeLaw(np.array([2.0]), np.array([1.0]))  # a successor costs twice
    own = ChangeLaw(np.array([0.5]), np.array([1.0]))  # a change halves the price
    fixed = pd.DataFrame({"ticker": ["X-1"], "tenor": ["1M"], "spot": [10.0], "p_change": [0.1], "change_law": ["h"]})
    cases = line_cases(ANCHOR, current, rates, succession, fixed, {"h": own}, lambda line, day: ("X-2", 20.0))
    by = {case["method"]: case for case in cases}
    ps = 1 - np.exp(-0.2)
    # line: ratio 1 (0.9·(1−ps)), 0.5 (0.1·(1−ps)), 2 (0.9·ps), 1 (0.1·ps); the outcome is 2
    values, weights = product_atoms((np.array([1.0, 0.5]), np.array([0.9, 0.1])),
                                    (np.array([1.0, 2.0]), np.array([1 - ps, ps])))
    mean = float(np.dot(values, weights))
    assert by["line"]["forecast"] == pytest.approx(10 * mean)
    assert by["line"]["rel_error"] == pytest.approx(mean - 2.0)
    assert by["line"]["crps"] == pytest.approx(brute_crps(values, weights, 2.0))
    assert by["line"]["p_successor"] == pytest.approx(ps) and by["line"]["arrived"]
    assert by["fixed"]["forecast"] == pytest.approx(10 * 0.95) and by["fixed"]["p_successor"] == 0.0
    assert by["flat"]["crps"] == pytest.approx(1.0) and by["flat"]["covered"] == 0.0  # all mass at 1, outcome 2
    assert by["line"]["p_base"] == pytest.approx(1 - np.exp(-0.25))  # every line's 1 succession in 4 months
    assert by["line"]["median"] == 10.0 and by["line"]["ape"] == pytest.approx(50.0)  # median ratio 1 (0.9·(1−ps) > ½)
    assert by["line"]["log_error"] == pytest.approx(np.log(mean / 2.0))
    row = line_accuracy(pd.DataFrame(cases)).iloc[0]
    assert row["n"] == 1 and row["blocks"] == 1 and row["brier"] == pytest.approx((ps - 1) ** 2)
    assert np.isnan(row["crps_gap_se"])  # one line: no standard error


def _cases(seed: int = 3) -> pd.DataFrame:
    """Random cases of 1M on five lines, every method, as `line_cases` writes them."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(40):
        line, arrived = f"m/l{k % 5}", bool(rng.random() < 0.3)
        p_successor, p_base = rng.random() * 0.5, 0.2
        for method in ("line", "fixed", "flat"):
            rel, crps = rng.normal(0, 0.3), rng.random() * 0.2
            rows.append({"anchor": date(2025, 1 + k // 5, 1), "line": line, "maker": "m", "tenor": "1M", "months": 1.0,
                         "target_date": date(2025, 2, 1), "current": "A", "spot": 1.0, "successor": "B" if arrived
                         else "A", "arrived": arrived, "realised": 1.0, "method": method, "forecast": 1 + rel,
                         "median": 1.0, "p_successor": p_successor if method == "line" else 0.0, "p_base": p_base,
                         "rel_error": rel, "log_error": rel / 2, "ape": abs(rel) * 100, "crps": crps,
                         "covered": float(rng.random() < 0.9)})
    return pd.DataFrame(rows, columns=CASE_COLUMNS)


def test_the_scorecard_rows_by_hand_and_a_naive_bootstrap_over_lines():
    cases = _cases()
    row = line_accuracy(cases, seed=5).iloc[0]
    of = {m: cases[cases["method"] == m] for m in ("line", "fixed", "flat")}
    line = of["line"]
    assert list(line_accuracy(cases).columns) == ACCURACY_COLUMNS
    assert row["scope"] == "line" and row["n"] == 40 and row["blocks"] == 5 and row["revisions_excluded"] == 0
    assert row["changed_share"] == pytest.approx(line["arrived"].mean())
    for suffix, method in (("", "line"), ("_fixed", "fixed"), ("_flat", "flat")):
        assert row[f"rel_rmse{suffix}"] == pytest.approx(np.sqrt(np.mean(of[method]["rel_error"] ** 2)))
        assert row[f"crps{suffix}"] == pytest.approx(of[method]["crps"].mean())
        assert row[f"coverage{suffix}"] == pytest.approx(of[method]["covered"].mean())
    arrived = line["arrived"].astype(float)
    assert row["brier"] == pytest.approx(np.mean((line["p_successor"] - arrived) ** 2))
    assert row["brier_base"] == pytest.approx(np.mean((0.2 - arrived) ** 2))
    assert np.isnan(row["crps_single_exp"])
    # The bootstrap by hand: each draw picks five lines with replacement and pools their cases.
    lines = sorted(cases["line"].unique())
    picks = np.random.default_rng(5).integers(0, len(lines), size=(BOOTSTRAP_DRAWS, len(lines)))
    columns = ("rel_error", "crps", "arrived", "p_successor")
    by_line = {(m, line): {c: frame.loc[frame["line"] == line, c].to_numpy(float) for c in columns}
               for m, frame in of.items() for line in lines}
    gaps = {"crps_flat": [], "crps_fixed": [], "rmse_flat": [], "brier": []}
    for pick in picks:
        drawn = {m: {c: np.concatenate([by_line[(m, lines[i])][c] for i in pick]) for c in columns} for m in of}
        rmse = {m: np.sqrt(np.mean(frame["rel_error"] ** 2)) for m, frame in drawn.items()}
        gaps["crps_flat"].append(drawn["line"]["crps"].mean() - drawn["flat"]["crps"].mean())
        gaps["crps_fixed"].append(drawn["line"]["crps"].mean() - drawn["fixed"]["crps"].mean())
        gaps["rmse_flat"].append(rmse["line"] - rmse["flat"])
        came = drawn["line"]["arrived"]
        gaps["brier"].append(np.mean((drawn["line"]["p_successor"] - came) ** 2 - (0.2 - came) ** 2))
    assert row["crps_gap_se"] == pytest.approx(np.std(gaps["crps_flat"]), rel=1e-9)
    assert row["crps_fixed_gap_se"] == pytest.approx(np.std(gaps["crps_fixed"]), rel=1e-9)
    assert row["rel_rmse_gap_se"] == pytest.approx(np.std(gaps["rmse_flat"]), rel=1e-9)
    assert row["brier_gap_se"] == pytest.approx(np.std(gaps["brier"]), rel=1e-9)
    assert row["verdict"].startswith("At 1M the line forward ")
