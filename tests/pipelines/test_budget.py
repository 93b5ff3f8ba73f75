"""Budget simulation and the distribution summaries, pinned by hand-computed numbers."""

import math
from dataclasses import replace

import numpy as np
import pytest

from pipelines.budget import (
    Workload,
    changed_share,
    expected_spend,
    histogram,
    month_grid,
    monthly_spend,
    probability_of_jump,
    process_seeds,
    simulate_budget,
    spend_paths,
    summary,
)
from pipelines.dynamics import Process
from pipelines.pricing import Rates

EXACT = 1e-12
FLAT = Rates(input=3.0, output=15.0, cache_read=0.30)
STILL = Process(jump_rate=0.0, jump_mean=0.0, jump_std=0.0, sigma=0.0)
FALLING = Process(jump_rate=0.5, jump_mean=-0.2, jump_std=0.1, sigma=0.05)
RISING = Process(jump_rate=1.0, jump_mean=0.1, jump_std=0.05, sigma=0.1)


def workload(key="A:sync", process=FALLING, requests=1_000.0, rates=FLAT):
    # The contract's test vector: spot_cost 0.0534 USD a request.
    return Workload(key, rates, process, 30_000, 800, 0.6, 0.0, requests)


def test_summary_of_a_small_sample():
    stats = summary(np.array([1.0, 2.0, 3.0, 4.0]))
    assert stats["mean"] == 2.5
    assert stats["std"] == pytest.approx(math.sqrt(1.25), abs=EXACT)
    assert stats["p50"] == 2.5 and stats["p25"] == 1.75 and stats["p75"] == 3.25
    assert stats["p01"] == pytest.approx(1.03, abs=EXACT) and stats["p99"] == pytest.approx(3.97, abs=EXACT)
    assert list(stats) == ["mean", "std", "p01", "p05", "p25", "p50", "p75", "p95", "p99"]


def test_histogram_bins():
    bins = histogram(np.arange(10.0), bins=5)
    assert [(b["lower"], b["upper"], b["count"]) for b in bins] == [
        (0.0, 1.8, 2), (1.8, 3.6, 2), (3.6, 5.4, 2), (5.4, 7.2, 2), (7.2, 9.0, 2)]
    assert histogram(np.full(7, 0.25)) == [{"lower": 0.25, "upper": 0.25, "count": 7}]
    assert sum(b["count"] for b in histogram(np.random.default_rng(0).normal(size=1_000))) == 1_000


def test_a_change_is_a_move_of_at_least_the_jump_threshold():
    # |ln 1.0001| and |ln 0.97| are below 0.05; |ln 1.06| = 0.058 and |ln 0.9| = 0.105 are not.
    assert changed_share(np.array([1.0, 1.0001, 0.97, 1.06, 0.9])) == pytest.approx(0.4, abs=EXACT)
    assert probability_of_jump(0.5, 2.0) == pytest.approx(1 - math.exp(-1.0), abs=EXACT)
    assert probability_of_jump(0.0, 6.0) == 0.0


def test_month_grid():
    assert list(month_grid(3)) == [1.0, 2.0, 3.0]
    assert len(month_grid(12)) == 12
    for bad in (0, 13, 2.5, True):
        with pytest.raises(ValueError):
            month_grid(bad)


def test_workload_needs_positive_requests():
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError):
            workload(requests=bad)


def test_expected_spend_is_requests_times_spot_cost_times_the_decay():
    w = workload()
    assert monthly_spend(w) == pytest.approx(53.4, abs=EXACT)  # 1000 · 0.0534
    months = month_grid(3)
    theta = 0.5 * (1 - math.exp(-0.2 + 0.005))
    expected = expected_spend([w, workload(process=STILL, requests=500.0)], months)
    assert expected.shape == (2, 3)
    assert expected[0] == pytest.approx([53.4 * math.exp(-theta * m) for m in (1, 2, 3)], abs=1e-12)
    assert expected[1] == pytest.approx([26.7, 26.7, 26.7], abs=1e-12)


def test_a_still_price_gives_bands_equal_to_the_expected_spend():
    budget = simulate_budget([workload(process=STILL)], horizon_months=4, paths=50, seed=1)
    assert [m.month for m in budget.months] == [1, 2, 3, 4]
    for month in budget.months:
        assert month.expected_spend == pytest.approx(53.4, abs=1e-12)
        assert (month.p05, month.p25, month.p50, month.p75, month.p95) == pytest.approx((53.4,) * 5, abs=1e-12)
    assert budget.total_expected_spend == pytest.approx(4 * 53.4, abs=1e-12)
    assert budget.shares == (1.0,)


def test_shares_and_totals_by_hand():
    a, b = workload(key="A:sync", process=STILL, requests=1_000.0), workload(key="B:sync", process=STILL, requests=3_000.0)
    budget = simulate_budget([a, b], horizon_months=2, paths=10, seed=0)
    assert budget.workload_spend == pytest.approx((2 * 53.4, 2 * 160.2), abs=1e-12)
    assert budget.shares == pytest.approx((0.25, 0.75), abs=EXACT)
    assert budget.total_expected_spend == pytest.approx(2 * 213.6, abs=1e-12)
    assert [m.expected_spend for m in budget.months] == pytest.approx([213.6, 213.6], abs=1e-12)


def test_the_simulated_mean_spend_is_the_analytic_expected_spend():
    workloads = [workload(key="A:sync", process=FALLING), workload(key="B:sync", process=RISING, requests=400.0)]
    months, paths = month_grid(6), 200_000
    simulated = spend_paths(workloads, months, paths, seed=7)
    se = simulated.std(axis=0) / math.sqrt(paths)
    assert np.all(np.abs(simulated.mean(axis=0) - expected_spend(workloads, months).sum(axis=0)) < 3 * se)


def test_workloads_on_one_model_share_its_path():
    # Two workloads on one process are one workload of twice the volume, path for path.
    twice = simulate_budget([workload(requests=2_000.0)], 3, 2_000, seed=11)
    shared = simulate_budget([workload(), workload()], 3, 2_000, seed=11)
    for one, other in zip(twice.months, shared.months):
        assert (one.p05, one.p50, one.p95) == pytest.approx((other.p05, other.p50, other.p95), abs=1e-9)
    # On two different models the same workloads move independently: a narrower 90% band.
    apart = simulate_budget([workload(key="A:sync"), workload(key="B:sync")], 3, 20_000, seed=11)
    together = simulate_budget([workload(key="A:sync"), workload(key="A:sync")], 3, 20_000, seed=11)
    assert apart.months[-1].p95 - apart.months[-1].p05 < together.months[-1].p95 - together.months[-1].p05


def test_same_seed_same_budget_other_seed_other_bands():
    workloads = [workload(key="A:sync"), workload(key="B:batch", process=RISING)]
    first = simulate_budget(workloads, 6, 5_000, seed=3)
    assert first == simulate_budget(workloads, 6, 5_000, seed=3)
    assert first.months[-1].p50 != simulate_budget(workloads, 6, 5_000, seed=4).months[-1].p50
    seeds = process_seeds(3, 4)
    assert seeds == process_seeds(3, 4) and len(set(seeds)) == 4
    assert process_seeds(3, 2) == seeds[:2]


def test_a_budget_needs_workloads():
    with pytest.raises(ValueError):
        simulate_budget([], 3, 10, 0)
    with pytest.raises(ValueError):
        simulate_budget([replace(workload())], 0, 10, 0)
