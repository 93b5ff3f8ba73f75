"""The Monte Carlo of one task's cost (`pipelines.monte_carlo`) against laws whose paths are known."""

import numpy as np
import pytest

from pipelines.forecast import HORIZON_MONTHS, ChangeLaw, Process
from pipelines.forwards import TENORS
from pipelines.monte_carlo import HORIZONS, simulate_task_cost

HALVED = ChangeLaw(np.array([0.5]), np.array([1.0]))  # a change halves the price


def test_a_price_certain_to_halve_halves_every_path():
    # P(change by month 1) = 1: every path halves in month 1; a source has announced +10% from month 2.
    levels = np.array([1.0, 1.1, 1.1])
    paths = simulate_task_cost(0.02, 15.0, Process(np.ones(12), HALVED), levels, 3, 1000, seed=7)
    assert paths.cost["mean"] == pytest.approx(0.02 * 0.5 * 1.1) and paths.cost["std"] == pytest.approx(0, abs=1e-15)
    assert paths.beta["p99"] == pytest.approx(15.0 * 0.5 * 1.1)
    assert paths.forward_cost == pytest.approx(0.011)
    assert paths.mean_standard_error == pytest.approx(0, abs=1e-15)
    assert paths.probability_of_change == 1.0 and paths.probability_of_change_model == 1.0
    assert [m.month for m in paths.fan] == [1, 2, 3]
    assert [value for m in paths.fan for value in (m.mean, m.p05, m.p95)] == pytest.approx([7.5] * 3 + [8.25] * 6)
    assert paths.histogram == [{"lower": pytest.approx(0.011), "upper": pytest.approx(0.011), "count": 1000}]


def test_a_price_that_never_changes_keeps_its_announced_level():
    paths = simulate_task_cost(0.02, 15.0, Process(np.zeros(12), HALVED), np.array([1.0]), 1, 500, seed=1)
    assert paths.cost["p01"] == paths.cost["p99"] == pytest.approx(0.02)
    assert paths.probability_of_change == 0.0 and paths.probability_of_change_model == 0.0
    assert paths.forward_cost == pytest.approx(0.02)


def test_a_coin_flip_change_moves_about_half_the_paths():
    # P(change by month 1) = 0.5: the share changed is binomial (n = 4000): within 4 standard errors of 0.5,
    # and the mean cost 0.75·spot within 4 of its own standard errors.
    chances = np.full(12, 0.5)
    paths = simulate_task_cost(1.0, 10.0, Process(chances, HALVED), np.array([1.0]), 1, 4000, seed=3)
    assert abs(paths.probability_of_change - 0.5) < 4 * (0.25 / 4000) ** 0.5
    assert paths.forward_cost == pytest.approx(0.75)
    assert abs(paths.cost["mean"] - 0.75) < 4 * paths.mean_standard_error
    assert paths.cost["std"] == pytest.approx(0.25, rel=0.01)  # two values 0.5 and 1.0, about half each


def test_the_horizons_are_the_forward_curve_tenors():
    """A Monte Carlo is asked at a published forward point (it was 1, 3, 6 while the curves stopped
    at 6M), never past the law's last month."""
    assert HORIZONS == tuple(TENORS.values()) == (1, 2, 3, 6, 9, 12)
    assert max(HORIZONS) == HORIZON_MONTHS


def test_twelve_months_of_a_constant_hazard():
    # 10% a month: P_12 = 1 − 0.9^12 = 0.7175704635, so the forward is 1 − 0.5·P_12 = 0.6412147682 of
    # the spot, and the fan has a point per month.
    process = Process(1 - 0.9 ** np.arange(1, 13), HALVED)
    paths = simulate_task_cost(1.0, 10.0, process, np.ones(12), 12, 20_000, seed=11)
    assert paths.forward_cost == pytest.approx(0.6412147682, abs=1e-10)
    assert paths.probability_of_change_model == pytest.approx(0.7175704635, abs=1e-10)
    assert abs(paths.cost["mean"] - paths.forward_cost) < 3 * paths.mean_standard_error
    assert [m.month for m in paths.fan] == list(range(1, 13))
    assert [m.mean for m in paths.fan] == sorted((m.mean for m in paths.fan), reverse=True)
