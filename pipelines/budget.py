"""Budget simulation of a workload portfolio, and the summaries of simulated distributions that it
shares with the Monte Carlo endpoint (contract §6).

A workload is a task profile sent `requests_per_month` times a month to one model in one mode.
Its spend in month m (m = 1, …, horizon) is priced at the end of that month:

    spend_m = requests_per_month · spot_cost · L(m) · β_m/β_0

(L(m) the price a source has announced for month m over today's, 1 where none: `pipelines.scheduled`)

with spot_cost from `pipelines.pricing` and β_m/β_0 the forecast law (`pipelines.forecast`).

- Expected spend is analytic, not simulated: E[spend_m] = requests·spot_cost·L(m)·E[R_m], E[R_m]
  the forward curve's decay_factor; the workloads' shares are of that expected spend.
- The percentile bands (p05 … p95) of the portfolio's total spend in each month come from paths
  of the law (`Process.sample`) on the monthly grid 1, …, horizon.
- One path per process: workloads on the same model and mode share its path (their prices are the
  same price, so they move together); different models, and the sync and batch prices of one model,
  follow independent paths, because the oracle fits no co-movement between processes. Where a
  market-wide repricing moves many models at once, the bands are narrower than the truth.
- Following a line (methodology §5, "Line forwards"): the workload pays, each month, the price of
  the line's then-current model, β_m/β_0 = R_m·Q_m with Q_m the successor's price over the current
  model's (1 until a successor comes). Q is a `Process` of its own: its chance by month m is the
  line forward's p_successor, its law the succession law, so E[spend_m] = monthly·L(m)·E[R_m]·E[Q_m]
  is the line forward over the spot, and one path of Q per line is shared by every workload that
  follows it (a successor comes for all of them at once). R stays the current model's path, shared
  with the workloads that stay on that model.
- Seeds: the request's seed feeds `numpy.random.SeedSequence`, which spawns one child per process
  in the order the processes first appear among the workloads, then one per line followed, in the
  order the lines first appear; the same workloads, horizon, paths and seed give the same answer.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from pipelines.forecast import HORIZON_MONTHS, Process
from pipelines.pricing import Rates, spot_cost

MAX_HORIZON_MONTHS = HORIZON_MONTHS  # the law's last month, the forward curves' last tenor
BANDS = (5, 25, 50, 75, 95)  # percentiles of the budget's monthly spend
STAT_PERCENTILES = (1, 5, 25, 50, 75, 95, 99)  # percentiles of a distribution summary
HISTOGRAM_BINS = 20


# --- Summaries of simulated values -------------------------------------------------------------

def percentiles(values: np.ndarray, levels: Sequence[float] = BANDS, axis: int = 0) -> np.ndarray:
    """numpy's linear-interpolation percentiles along `axis`, one row per level."""
    return np.percentile(np.asarray(values, dtype=float), list(levels), axis=axis)


def summary(values: np.ndarray) -> dict[str, float]:
    """mean, std (population), p01, p05, p25, p50, p75, p95, p99 of a sample."""
    values = np.asarray(values, dtype=float)
    quantiles = percentiles(values, STAT_PERCENTILES)
    return {"mean": float(values.mean()), "std": float(values.std()),
            **{f"p{level:02d}": float(q) for level, q in zip(STAT_PERCENTILES, quantiles, strict=True)}}


def histogram(values: np.ndarray, bins: int = HISTOGRAM_BINS) -> list[dict[str, float]]:
    """Equal-width bins over [min, max]: [{lower, upper, count}]; one bin when every value is equal."""
    values = np.asarray(values, dtype=float)
    low, high = float(values.min()), float(values.max())
    if high <= low:
        return [{"lower": low, "upper": high, "count": int(values.size)}]
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    return [{"lower": float(edges[i]), "upper": float(edges[i + 1]), "count": int(counts[i])} for i in range(bins)]


CHANGED = 1e-9  # relative: a simulated price this close to today's did not change


def changed_share(ratios: np.ndarray) -> float:
    """Share of paths whose price changed (β_t/β_0 ≠ 1): the law moves a price only by a change."""
    return float(np.mean(np.abs(np.asarray(ratios, dtype=float) - 1.0) > CHANGED))


# --- Budget --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Workload:
    """One item of the portfolio. `key` names its process: workloads with one key share its paths."""

    key: str
    rates: Rates
    process: Process
    n_in: float
    n_out: float
    eta: float
    n_think: float
    requests_per_month: float
    # The announced level at the end of month 1, 2, … (`scheduled.level_ratios`); none: 1 throughout.
    levels: tuple[float, ...] = ()
    # Following a line: its name (workloads on one line share its successor's path) and the law of
    # its successor's price over the current model's; none: the workload stays on its model.
    line: str | None = None
    successor: Process | None = None

    def successor_ratio(self, months: np.ndarray) -> np.ndarray:
        """E[Q_m]: 1 where the workload stays on its model."""
        return np.ones(len(months)) if self.successor is None else self.successor.expected_ratio(months)

    def level(self, months: np.ndarray) -> np.ndarray:
        """L(m) for the month grid: the announced price over today's (1 where none)."""
        if not self.levels:
            return np.ones(len(months))
        return np.asarray([self.levels[int(m) - 1] for m in months], dtype=float)

    def __post_init__(self) -> None:
        requests = float(self.requests_per_month)
        if not math.isfinite(requests) or requests <= 0:
            raise ValueError(f"requests_per_month must be a finite positive number, got {self.requests_per_month!r}")
        if (self.line is None) != (self.successor is None):
            raise ValueError("a workload that follows a line needs both the line and its successor law")


@dataclass(frozen=True)
class BudgetMonth:
    month: int
    expected_spend: float  # analytic, USD
    p05: float  # simulated percentiles of the portfolio's spend in the month, USD
    p25: float
    p50: float
    p75: float
    p95: float


@dataclass(frozen=True)
class Budget:
    months: tuple[BudgetMonth, ...]
    workload_spend: tuple[float, ...]  # each workload's expected spend over the horizon, USD
    shares: tuple[float, ...]  # each workload's share of the total expected spend
    total_expected_spend: float


def month_grid(horizon_months: int) -> np.ndarray:
    """1, …, horizon (months)."""
    if isinstance(horizon_months, bool) or int(horizon_months) != horizon_months or not (
            1 <= horizon_months <= MAX_HORIZON_MONTHS):
        raise ValueError(f"horizon_months must be a whole number in 1..{MAX_HORIZON_MONTHS}, got {horizon_months!r}")
    return np.arange(1, int(horizon_months) + 1, dtype=float)


def monthly_spend(workload: Workload) -> float:
    """requests_per_month·spot_cost: a month's spend at today's prices (USD)."""
    cost = spot_cost(workload.rates, workload.n_in, workload.n_out, workload.eta, workload.n_think)
    return float(workload.requests_per_month) * cost


def expected_spend(workloads: Sequence[Workload], months: np.ndarray) -> np.ndarray:
    """E[spend] of each workload in each month, shape (workloads, months): monthly_spend·L(m)·E[R_m],
    times E[Q_m] for a workload that follows a line."""
    return np.array([monthly_spend(w) * w.level(months) * w.process.expected_ratio(months) * w.successor_ratio(months)
                     for w in workloads]).reshape(len(workloads), len(months))


def process_seeds(seed: int, count: int) -> list[int]:
    """One independent seed per process, spawned from the caller's seed."""
    return [int(child.generate_state(1)[0]) for child in np.random.SeedSequence(seed).spawn(count)]


def spend_paths(workloads: Sequence[Workload], months: np.ndarray, paths: int, seed: int) -> np.ndarray:
    """Total spend of the portfolio on each path in each month, shape (paths, months)."""
    order = list(dict.fromkeys(w.key for w in workloads))
    lines = list(dict.fromkeys(w.line for w in workloads if w.line is not None))
    seeds = process_seeds(seed, len(order) + len(lines))
    successors = {line: next(w for w in workloads if w.line == line).successor.sample(
        months, paths, np.random.default_rng(child)) for line, child in zip(lines, seeds[len(order):], strict=True)}
    total = np.zeros((paths, len(months)))
    for key, child in zip(order, seeds[:len(order)], strict=True):
        members = [w for w in workloads if w.key == key]
        # A month's spend at today's prices on this path of R: the part that stays on the model,
        # plus each followed line's part moved by its path of Q.
        spend = sum(monthly_spend(w) for w in members if w.line is None)
        for line in dict.fromkeys(w.line for w in members if w.line is not None):
            spend = spend + sum(monthly_spend(w) for w in members if w.line == line) * successors[line]
        if np.any(spend > 0):
            total += spend * members[0].level(months) * members[0].process.sample(
                months, paths, np.random.default_rng(child))
    return total


def simulate_budget(workloads: Sequence[Workload], horizon_months: int, paths: int, seed: int) -> Budget:
    """Monthly expected spend (analytic), its simulated bands, and each workload's share."""
    if not workloads:
        raise ValueError("a budget needs at least one workload")
    months = month_grid(horizon_months)
    expected = expected_spend(workloads, months)
    bands = percentiles(spend_paths(workloads, months, paths, seed), BANDS)
    by_month = expected.sum(axis=0)
    per_workload = expected.sum(axis=1)
    total = float(per_workload.sum())
    shares = per_workload / total if total > 0 else np.zeros(len(workloads))
    rows = tuple(BudgetMonth(int(m), float(by_month[i]), *(float(b) for b in bands[:, i]))
                 for i, m in enumerate(months))
    return Budget(rows, tuple(float(s) for s in per_workload), tuple(float(s) for s in shares), total)
