"""The Monte Carlo of one task's cost (`pipelines.monte_carlo`) against laws whose paths are known."""

import numpy as np
import pytest

from pipelines.forecast import ChangeLaw, Process
from pipelines.monte_carlo import simulate_task_cost

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
