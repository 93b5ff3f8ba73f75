"""The line backtest's scoring: an exact CRPS of a step CDF, the randomised PIT's bounds, and one
anchor's cases worked by hand."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.forecast import ChangeLaw
from pipelines.line_backtest import line_cases, line_scorecard, pit_bounds, product_atoms, step_crps, successor_chance

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
    rates = pd.DataFrame({"rate": [0.2]}, index=pd.Index(["acme/x"], name="line"))
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
    card = line_scorecard(pd.DataFrame(cases), draws=10)
    line = card[(card["tenor"] == "1M") & (card["method"] == "line")].iloc[0]
    assert line["n"] == 1 and line["brier"] == pytest.approx((ps - 1) ** 2)
