"""The path simulator: reproducible, the right shape, and its mean is the forward's exp(−θt)."""

import math

import numpy as np
import pytest

from pipelines.dynamics import Process
from pipelines.montecarlo import CHUNK_PATHS, simulate_ratios

HORIZONS = [1.0, 3.0, 6.0, 12.0]
FALLING = Process(jump_rate=0.5, jump_mean=-0.2, jump_std=0.1, sigma=0.05)
# m_J = exp(0.1 + 0.00125) > 1, so θ = 1.0·(1 − m_J) ≈ −0.1065: prices expected to rise.
RISING = Process(jump_rate=1.0, jump_mean=0.1, jump_std=0.05, sigma=0.1)
RARE_BIG = Process(jump_rate=0.2, jump_mean=-0.5, jump_std=0.3, sigma=0.2)


def test_theta_of_the_parameter_sets():
    assert FALLING.theta == pytest.approx(0.5 * (1 - math.exp(-0.2 + 0.005)), abs=1e-12)
    assert RISING.theta == pytest.approx(1 - math.exp(0.10125), abs=1e-12)
    assert RISING.theta < 0
    assert RARE_BIG.theta == pytest.approx(0.2 * (1 - math.exp(-0.5 + 0.045)), abs=1e-12)


def test_shape():
    assert simulate_ratios(FALLING, HORIZONS, paths=7, seed=1).shape == (7, 4)
    assert simulate_ratios(FALLING, [2.5], paths=1, seed=1).shape == (1, 1)


def test_same_seed_same_paths_other_seed_other_paths():
    first = simulate_ratios(RISING, HORIZONS, paths=1_000, seed=42)
    again = simulate_ratios(RISING, HORIZONS, paths=1_000, seed=42)
    other = simulate_ratios(RISING, HORIZONS, paths=1_000, seed=43)
    assert np.array_equal(first, again)
    assert not np.any(first == other)


def test_one_chunk_whatever_its_size_gives_the_same_paths():
    paths = 2_000
    assert paths < CHUNK_PATHS
    assert np.array_equal(simulate_ratios(FALLING, HORIZONS, paths, seed=5),
                          simulate_ratios(FALLING, HORIZONS, paths, seed=5, chunk=paths))


def test_chunking_changes_the_stream_but_not_the_distribution():
    paths = 100_000
    whole = simulate_ratios(FALLING, HORIZONS, paths, seed=9)
    chunked = simulate_ratios(FALLING, HORIZONS, paths, seed=9, chunk=7_000)
    # The draws are consumed in another order, so the values differ ...
    assert not np.array_equal(whole, chunked)
    # ... but both are samples of one law: their means agree within 4 standard errors of the difference.
    se = np.sqrt(whole.var(axis=0) / paths + chunked.var(axis=0) / paths)
    assert np.all(np.abs(whole.mean(axis=0) - chunked.mean(axis=0)) < 4 * se)


@pytest.mark.parametrize("process", [FALLING, RISING, RARE_BIG], ids=["falling", "rising", "rare_big"])
def test_the_mean_ratio_is_exp_minus_theta_t(process):
    paths = 200_000
    ratios = simulate_ratios(process, HORIZONS, paths, seed=2024)
    expected = np.exp(-process.theta * np.array(HORIZONS))
    se = ratios.std(axis=0) / math.sqrt(paths)
    assert np.all(np.abs(ratios.mean(axis=0) - expected) < 4 * se)
    # The test has power: a mean off by one tenth of θ over 12 months is outside the band.
    assert np.all(se[-1] < np.abs(np.exp(-1.1 * process.theta * 12) - expected[-1]) / 4)


def test_no_jumps_and_no_diffusion_leave_every_path_at_one():
    still = Process(jump_rate=0.0, jump_mean=-0.4, jump_std=0.2, sigma=0.0)
    ratios = simulate_ratios(still, HORIZONS, paths=500, seed=3)
    assert np.all(ratios == 1.0)


def test_without_diffusion_a_path_moves_only_by_jumps():
    jumps_only = Process(jump_rate=0.3, jump_mean=-0.1, jump_std=0.0, sigma=0.0)
    ratios = simulate_ratios(jumps_only, HORIZONS, paths=2_000, seed=11)
    counts = np.log(ratios) / -0.1
    assert np.allclose(counts, np.round(counts), atol=1e-9)
    assert np.all(np.diff(np.round(counts), axis=1) >= 0)


@pytest.mark.parametrize(("horizons", "paths"), [
    ([1.0, 3.0], 0),
    ([1.0, 3.0], -5),
    ([], 10),
    ([3.0, 1.0], 10),
    ([1.0, 1.0], 10),
    ([0.0, 1.0], 10),
    ([-1.0, 1.0], 10),
])
def test_invalid_arguments_raise(horizons, paths):
    with pytest.raises(ValueError):
        simulate_ratios(FALLING, horizons, paths=paths, seed=0)


def test_a_negative_chunk_raises():
    with pytest.raises(ValueError):
        simulate_ratios(FALLING, HORIZONS, paths=10, seed=0, chunk=-1)
