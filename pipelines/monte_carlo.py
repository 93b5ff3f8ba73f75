"""Monte Carlo of one task's cost on one model to a horizon (contract §6, `/v1/monte-carlo`).

Each path draws a time of change from the model's chance of change and a ratio from its change
law (`Process.sample`, seeded by the request), on the monthly grid 1, …, horizon. A path's price
in month m is β_0 · L(m) · R_m, with L(m) the price a source has announced for month m over
today's (1 where none: `pipelines.scheduled`) and R_m the law's ratio; the task's cost moves
with it. The analytic forward, spot_cost · L(t) · E[R_t], is what the simulated mean estimates
within its standard error.

A Monte Carlo runs to a tenor of the forward curves (HORIZONS: 1, 2, 3, 6, 9 or 12 months), so
its mean at the horizon can be read against a published forward point.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pipelines.budget import HISTOGRAM_BINS, changed_share, histogram, percentiles, summary
from pipelines.forecast import Process
from pipelines.forwards import TENORS

HORIZONS = tuple(TENORS.values())  # the horizons a Monte Carlo is asked for, in months
FAN_BANDS = (5, 25, 50, 75, 95)  # percentiles of the output price in each month of the fan


@dataclass(frozen=True)
class FanMonth:
    month: int
    mean: float  # of the output price, $/M
    p05: float
    p25: float
    p50: float
    p75: float
    p95: float


@dataclass(frozen=True)
class TaskCostPaths:
    forward_cost: float  # analytic: spot_cost · L(horizon) · E[R_horizon]
    mean_standard_error: float  # of the simulated mean cost
    cost: dict[str, float]  # summary of the cost at the horizon (`budget.summary`)
    beta: dict[str, float]  # summary of the output price at the horizon
    histogram: list[dict[str, float]]  # of the cost at the horizon
    probability_of_change: float  # simulated share of paths whose price the law changed
    probability_of_change_model: float  # the law's own chance of a change by the horizon
    fan: list[FanMonth]


def simulate_task_cost(spot_cost: float, beta: float, process: Process, levels: np.ndarray, horizon: int,
                       paths: int, seed: int) -> TaskCostPaths:
    """`paths` paths of the task's cost to `horizon` months; `levels[m-1]` is L(m) for m = 1 … horizon.

    A change a source has announced is known, not drawn: the share of paths that changed counts
    the law's changes only.
    """
    grid = np.arange(1, horizon + 1, dtype=float)
    moves = process.sample(grid, paths, np.random.default_rng(seed))  # the law alone: what may change
    ratios = moves * np.asarray(levels, dtype=float)  # from the level a source has announced, where one has
    costs = spot_cost * ratios[:, -1]
    betas = beta * ratios[:, -1]
    cost_summary = summary(costs)
    bands = percentiles(beta * ratios, FAN_BANDS)
    return TaskCostPaths(
        forward_cost=float(spot_cost * levels[-1] * process.expected_ratio(horizon)[0]),
        mean_standard_error=cost_summary["std"] / paths**0.5,
        cost=cost_summary, beta=summary(betas), histogram=histogram(costs, HISTOGRAM_BINS),
        probability_of_change=changed_share(moves[:, -1]),
        probability_of_change_model=float(process.p_change(horizon)[0]),
        fan=[FanMonth(int(month), float(beta * ratios[:, i].mean()), *(float(v) for v in bands[:, i]))
             for i, month in enumerate(grid)],
    )
