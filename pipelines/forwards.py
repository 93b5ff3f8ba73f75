"""Forward curves: the fitted process's expected price at each tenor, with a 90% band.

beta_forward(t) = β_sched(t) · exp(−θ t) is E[β_t] under the process (`pipelines.dynamics`), so
the Monte Carlo mean converges to it; p05 and p95 are the 5% and 95% quantiles of β_t. β_sched(t)
is the spot, or the price a source has announced for a date on or before t
(`pipelines.scheduled`): the process moves the price from the level it is known to be at.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.dynamics import decay_factor, ratio_quantiles
from pipelines.scheduled import SCHEDULED_COLUMNS, scheduled_beta

TENORS = {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}
BATCH_SUFFIX = ".B"
FORWARD_COLUMNS = ["ticker", "mode", "ticker_forward", "tenor", "months", "spot", "theta", "decay_factor",
                   "beta_forward", "p05", "p95"]


def forward_ticker(ticker: str, mode: str, tenor: str) -> str:
    return f"{ticker}{BATCH_SUFFIX if mode == 'batch' else ''}-{tenor}"


def forward_rows(processes: pd.DataFrame, tenor: str, months: float, scheduled: pd.DataFrame | None = None,
                 as_of: date | None = None) -> pd.DataFrame:
    """One tenor for every (ticker, mode): columns ticker, mode, spot and the process parameters;
    `scheduled` (`scheduled_changes`, with `as_of`) moves the level the process starts from."""
    factor = decay_factor(processes["theta"].to_numpy(dtype=float), months)
    band = ratio_quantiles(processes, months)
    level = spot = processes["spot"].to_numpy(dtype=float)
    if scheduled is not None and len(scheduled):
        level = spot.copy()
        for mode in processes["mode"].unique():
            rows = (processes["mode"] == mode).to_numpy()
            level[rows] = scheduled_beta(processes[rows].rename(columns={"spot": f"beta_{mode}"}), scheduled, mode,
                                         as_of, months)
    return pd.DataFrame({
        "ticker": processes["ticker"].to_numpy(),
        "mode": processes["mode"].to_numpy(),
        "ticker_forward": [forward_ticker(t, m, tenor) for t, m in zip(
            processes["ticker"], processes["mode"], strict=True)],
        "tenor": tenor,
        "months": float(months),
        "spot": spot,
        "theta": processes["theta"].to_numpy(dtype=float),
        "decay_factor": factor,
        "beta_forward": level * factor,
        "p05": level * band[:, 0],
        "p95": level * band[:, 1],
    })


def build_forward_curves(processes: pd.DataFrame, scheduled: pd.DataFrame | None = None,
                         as_of: date | None = None) -> pd.DataFrame:
    """Every tenor for each (ticker, mode) with a positive spot (`greeks.processes_from_greeks`),
    from the scheduled price where one is announced (`scheduled_changes` as of `as_of`)."""
    scheduled = pd.DataFrame(columns=SCHEDULED_COLUMNS) if scheduled is None else scheduled
    base = processes[processes["spot"] > 0].reset_index(drop=True)
    curves = pd.concat([forward_rows(base, tenor, months, scheduled, as_of) for tenor, months in TENORS.items()],
                       ignore_index=True)
    curves["_order"] = curves["tenor"].map(list(TENORS).index)
    return curves.sort_values(["ticker", "mode", "_order"]).drop(columns="_order").reset_index(drop=True)[
        FORWARD_COLUMNS]
