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
    process_seeds,
    simulate_budget,
    spend_paths,
    summary,
)
from pipelines.forecast import ChangeLaw, Process
from pipelines.pricing import Rates

EXACT = 1e-12
FLAT = Rates(input=3.0, output=15.0, cache_read=0.30)
K = np.arange(1, 13)
# A change: 0.5 (w 0.2), 0.8 (0.5) or 1.1 (0.3), m = 0.83; a constant 10% monthly hazard, P(t) = 1 − 0.9^t:
# E[R_t] = 1 − 0.17·(1 − 0.9^t).
FALLING = Process(1 - 0.9**K, ChangeLaw(np.array([0.5, 0.8, 1.1]), np.array([0.2, 0.5, 0.3])))
# A change: 0.9 or 1.5 at even odds, m = 1.2; P(t) = 1 − 0.8^t: E[R_t] = 1 + 0.2·(1 − 0.8^t).
RISING = Process(1 - 0.8**K, ChangeLaw(np.array([0.9, 1.5]), np.array([0.5, 0.5])))
STILL = Process(np.zeros(12), FALLING.law)  # never a change


def workload(key="A:sync", process=FALLING, requests=1_000.0, rates=FLAT, levels=()):
    # The contract's test vector: spot_cost 0.0534 USD a request.
    return Workload(key, rates, process, 30_000, 800, 0.6, 0.0, requests, levels)


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


def test_changed_share_counts_only_moved_paths():
    # 1 + 5e-10 is within the 1e-9 of no change; 1 + 2e-9, 0.97, 1.06 and 0.9 moved: 4 of 6.
    assert changed_share(np.array([1.0, 1.0 + 5e-10, 1.0 + 2e-9, 0.97, 1.06, 0.9])) == pytest.approx(4 / 6, abs=EXACT)
    assert changed_share(np.ones(5)) == 0.0
    assert changed_share(np.array([0.5, 2.0])) == 1.0


def test_the_share_of_simulated_paths_that_changed_is_the_chance_of_a_change():
    # No ratio of FALLING's law is 1, so a path has moved by t exactly when it changed: a share of P(t) = 1 − 0.9^t.
    months, paths = np.array([1.0, 2.5, 6.0, 12.0]), 100_000
    ratios = FALLING.sample(months, paths, np.random.default_rng(5))
    for j, t in enumerate(months):
        p = 1 - 0.9**t
        assert abs(changed_share(ratios[:, j]) - p) < 4 * math.sqrt(p * (1 - p) / paths)
    # A law whose changes all land on 1 never moves a price, however likely the change.
    assert changed_share(Process(1 - 0.5**K, ChangeLaw(np.array([1.0]), np.array([1.0]))).sample(
        months, 1_000, np.random.default_rng(5))) == 0.0


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


def test_expected_spend_is_requests_times_spot_cost_times_the_expected_ratio():
    w = workload()
    assert monthly_spend(w) == pytest.approx(53.4, abs=EXACT)  # 1000 · 0.0534
    months = month_grid(3)
    expected = expected_spend([w, workload(process=STILL, requests=500.0), workload(process=RISING)], months)
    assert expected.shape == (3, 3)
    # 53.4·(1 − 0.17·0.1) = 53.4·0.983 = 52.4922; ·0.9677 (0.17·0.19 = 0.0323) = 51.67518; ·0.95393 = 50.939862
    assert expected[0] == pytest.approx([52.4922, 51.67518, 50.939862], abs=1e-11)
    assert expected[1] == pytest.approx([26.7, 26.7, 26.7], abs=1e-12)
    # 53.4·(1 + 0.2·0.2) = 55.536; ·(1 + 0.2·0.36) = 57.2448; ·(1 + 0.2·0.488) = 58.61184
    assert expected[2] == pytest.approx([55.536, 57.2448, 58.61184], abs=1e-11)


def test_expected_spend_carries_the_announced_level():
    # Announced at 1.5× today's from month 2 on.
    expected = expected_spend([workload(levels=(1.0, 1.5, 1.5))], month_grid(3))
    assert expected[0] == pytest.approx([52.4922, 1.5 * 51.67518, 1.5 * 50.939862], abs=1e-11)


def test_a_still_price_gives_bands_equal_to_the_expected_spend():
    budget = simulate_budget([workload(process=STILL)], horizon_months=4, paths=50, seed=1)
    assert [m.month for m in budget.months] == [1, 2, 3, 4]
    for month in budget.months:
        assert month.expected_spend == pytest.approx(53.4, abs=1e-12)
        assert (month.p05, month.p25, month.p50, month.p75, month.p95) == pytest.approx((53.4,) * 5, abs=1e-12)
    assert budget.total_expected_spend == pytest.approx(4 * 53.4, abs=1e-12)
    assert budget.shares == (1.0,)


def test_shares_and_totals_by_hand():
    a = workload(key="A:sync", process=STILL, requests=1_000.0)
    b = workload(key="B:sync", process=STILL, requests=3_000.0)
    budget = simulate_budget([a, b], horizon_months=2, paths=10, seed=0)
    assert budget.workload_spend == pytest.approx((2 * 53.4, 2 * 160.2), abs=1e-12)
    assert budget.shares == pytest.approx((0.25, 0.75), abs=EXACT)
    assert budget.total_expected_spend == pytest.approx(2 * 213.6, abs=1e-12)
    assert [m.expected_spend for m in budget.months] == pytest.approx([213.6, 213.6], abs=1e-12)
    # FALLING over two months: 52.4922 + 51.67518 = 104.16738; with 3× the volume on a still price, 320.4.
    mixed = simulate_budget([workload(), b], horizon_months=2, paths=10, seed=0)
    assert mixed.workload_spend == pytest.approx((104.16738, 320.4), abs=1e-11)
    assert mixed.shares == pytest.approx((104.16738 / 424.56738, 320.4 / 424.56738), abs=EXACT)


def test_the_bands_are_quantiles_of_the_mixture():
    # One workload on FALLING at month 6: P = 1 − 0.9^6 = 0.468559. The spend is 53.4·R with R = 0.5 (weight
    # 0.2·P = 0.0937), 0.8 (0.2343), 1 (0.5314) or 1.1 (0.1406): cumulative 0.094, 0.328, 0.859, 1. With 20 000
    # paths the sample's 5%, 25%, 50%, 75% and 95% sit well inside the atoms 0.5, 0.8, 1, 1 and 1.1.
    budget = simulate_budget([workload()], horizon_months=6, paths=20_000, seed=2)
    last = budget.months[-1]
    assert (last.p05, last.p25, last.p50, last.p75, last.p95) == pytest.approx(
        (26.7, 42.72, 53.4, 53.4, 58.74), abs=1e-9)


def test_the_simulated_mean_spend_is_the_analytic_expected_spend():
    workloads = [workload(key="A:sync", process=FALLING), workload(key="B:sync", process=RISING, requests=400.0)]
    months, paths = month_grid(6), 200_000
    simulated = spend_paths(workloads, months, paths, seed=7)
    t = np.arange(1, 7, dtype=float)
    analytic = 53.4 * (1 - 0.17 * (1 - 0.9**t)) + 21.36 * (1 + 0.2 * (1 - 0.8**t))  # 400·0.0534 = 21.36
    assert expected_spend(workloads, months).sum(axis=0) == pytest.approx(analytic, abs=1e-11)
    se = simulated.std(axis=0) / math.sqrt(paths)
    assert np.all(se > 0)
    assert np.all(np.abs(simulated.mean(axis=0) - analytic) < 4 * se)


def test_workloads_on_one_model_share_its_path():
    # Two workloads on one process are one workload of twice the volume, path for path.
    months = month_grid(3)
    twice = spend_paths([workload(requests=2_000.0)], months, 2_000, seed=11)
    shared = spend_paths([workload(), workload()], months, 2_000, seed=11)
    assert shared == pytest.approx(twice, abs=1e-9)
    # And that path is the process's own, drawn from the first child seed.
    own = 106.8 * FALLING.sample(months, 2_000, np.random.default_rng(process_seeds(11, 1)[0]))
    assert shared == pytest.approx(own, abs=1e-9)
    # On two different models the same workloads move independently: a narrower 90% band. At month 4
    # (P = 1 − 0.9^4 = 0.3439) R is 0.5, 0.8, 1 or 1.1 with weights 0.0688, 0.1720, 0.6561, 0.1032.
    # Together, 106.8·R: 5% at R = 0.5 (cumulative 0.069), 95% at 1.1 (cumulative 0.897 below it), a band
    # of 106.8·0.6 = 64.08. Apart, 53.4·(R + R'): P(R + R' ≤ 1.3) = 0.0047 + 0.0237 = 0.028,
    # P(≤ 1.5) = 0.119, so 5% at 1.5; P(R + R' > 2) = 2·0.6561·0.1032 + 0.1032² = 0.146 and P(> 2.1) = 0.011,
    # so 95% at 2.1: a band of 53.4·0.6 = 32.04.
    apart = simulate_budget([workload(key="A:sync"), workload(key="B:sync")], 4, 20_000, seed=11)
    together = simulate_budget([workload(key="A:sync"), workload(key="A:sync")], 4, 20_000, seed=11)
    assert together.months[-1].p95 - together.months[-1].p05 == pytest.approx(64.08, abs=1e-9)
    assert apart.months[-1].p95 - apart.months[-1].p05 == pytest.approx(32.04, abs=1e-9)


def test_same_seed_same_budget_other_seed_other_paths():
    workloads = [workload(key="A:sync"), workload(key="B:batch", process=RISING)]
    first = simulate_budget(workloads, 6, 5_000, seed=3)
    assert first == simulate_budget(workloads, 6, 5_000, seed=3)
    months = month_grid(6)
    paths = spend_paths(workloads, months, 5_000, seed=3)
    assert np.array_equal(paths, spend_paths(workloads, months, 5_000, seed=3))
    assert not np.array_equal(paths, spend_paths(workloads, months, 5_000, seed=4))
    seeds = process_seeds(3, 4)
    assert seeds == process_seeds(3, 4) and len(set(seeds)) == 4
    assert process_seeds(3, 2) == seeds[:2]
    # Each key draws from its own child seed, in the order the keys first appear.
    a = 53.4 * FALLING.sample(months, 5_000, np.random.default_rng(seeds[0]))
    b = 53.4 * RISING.sample(months, 5_000, np.random.default_rng(seeds[1]))
    assert paths == pytest.approx(a + b, abs=1e-9)


def test_a_budget_needs_workloads():
    with pytest.raises(ValueError):
        simulate_budget([], 3, 10, 0)
    with pytest.raises(ValueError):
        simulate_budget([replace(workload())], 0, 10, 0)


# --- Following a line ----------------------------------------------------------------------------

# A successor: its price over the current model's 0.5 or 2.0 at even odds (mean 1.25); a successor has
# come by month m with chance 1 − 0.7^m (`line_forwards.successor_chance` at λ = −ln 0.7).
SUCCESSOR = Process(1 - 0.7**K, ChangeLaw(np.array([0.5, 2.0]), np.array([0.5, 0.5])))


def following(key="A:sync", requests=1_000.0, line="maker/line"):
    return replace(workload(key=key, requests=requests), line=line, successor=SUCCESSOR)


def test_following_a_line_multiplies_the_expected_spend_by_the_successors_expected_ratio():
    months = month_grid(4)
    # By hand: 53.4·E[R_m]·E[Q_m], E[R_m] = 1 − 0.17·(1 − 0.9^m), E[Q_m] = 1 + 0.25·(1 − 0.7^m).
    by_hand = [53.4 * (1 - 0.17 * (1 - 0.9**m)) * (1 + 0.25 * (1 - 0.7**m)) for m in range(1, 5)]
    assert expected_spend([following()], months)[0] == pytest.approx(by_hand, rel=EXACT)
    assert expected_spend([workload(), following()], months)[0] == pytest.approx(
        [53.4 * (1 - 0.17 * (1 - 0.9**m)) for m in range(1, 5)], rel=EXACT)  # staying: no successor
    with pytest.raises(ValueError):
        replace(workload(), line="maker/line")  # a line without its successor law


def test_a_followed_line_draws_its_successor_once_for_every_workload_on_it():
    months = month_grid(3)
    seeds = process_seeds(11, 2)  # the model's process first, then the line
    r = FALLING.sample(months, 2_000, np.random.default_rng(seeds[0]))
    q = SUCCESSOR.sample(months, 2_000, np.random.default_rng(seeds[1]))
    # Path for path: staying pays 53.4·R, following 53.4·R·Q; two followers are one of twice the volume.
    mixed = spend_paths([workload(), following()], months, 2_000, seed=11)
    assert mixed == pytest.approx(53.4 * r + 53.4 * r * q, abs=1e-9)
    twice = spend_paths([following(requests=2_000.0)], months, 2_000, seed=11)
    assert spend_paths([following(), following()], months, 2_000, seed=11) == pytest.approx(twice, abs=1e-9)
    # With no line followed, the draws are as they were: the process's own first child seed.
    assert spend_paths([workload()], months, 2_000, seed=11) == pytest.approx(53.4 * r, abs=1e-9)


def test_the_simulated_share_of_paths_with_a_successor_is_its_chance():
    months = month_grid(6)
    paths = spend_paths([following()], months, 40_000, seed=5) / spend_paths([workload()], months, 40_000, seed=5)
    # Q moved (0.5 or 2) on a path once a successor came: by month m with chance 1 − 0.7^m.
    for m in range(6):
        assert changed_share(paths[:, m]) == pytest.approx(1 - 0.7 ** (m + 1), abs=0.01)
