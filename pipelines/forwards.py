"""Forward curves: the forecast law (`pipelines.forecast`) at each tenor, sync and batch.

At a tenor h, per ticker and mode, β_h = S_h · R_h with S_h the scheduled price (the price a
source has announced for a date on or before h, else the spot: `pipelines.scheduled`) and R_h
an atom at 1 (no change, probability 1 − p_change) or a draw of the change law. Published:

- scheduled: S_h; p_change: P(a change by h);
- decay_factor: E[R_h] = (1 − p_change) + p_change · m (m the change law's mean);
- beta_forward: S_h · decay_factor, the mean (what the Monte Carlo's mean converges to);
- beta_median, p05, p95: S_h times the mixture's 50%, 5% and 95% quantiles (exact: the law is
  discrete), so the band always holds the median;
- change_mean, change_p05, change_p50, change_p95: the change law's mean ratio new/old and its
  quantiles — what a change, if it comes, does to the price.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.forecast import read_processes
from pipelines.scheduled import SCHEDULED_COLUMNS, scheduled_beta

TENORS = {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}
BATCH_SUFFIX = ".B"
FORWARD_COLUMNS = ["ticker", "mode", "ticker_forward", "tenor", "months", "spot", "scheduled", "p_change",
                   "decay_factor", "beta_forward", "beta_median", "p05", "p95", "change_mean", "change_p05",
                   "change_p50", "change_p95"]


def forward_ticker(ticker: str, mode: str, tenor: str) -> str:
    return f"{ticker}{BATCH_SUFFIX if mode == 'batch' else ''}-{tenor}"


def build_forward_curves(processes: pd.DataFrame, change_laws: pd.DataFrame, spots: pd.DataFrame,
                         scheduled: pd.DataFrame | None = None, as_of: date | None = None) -> pd.DataFrame:
    """Every tenor for each (ticker, mode) of `processes` with a positive spot (`spots`'s
    `beta_{mode}`), from the scheduled price where one is announced (`scheduled_changes` as of
    `as_of`)."""
    scheduled = pd.DataFrame(columns=SCHEDULED_COLUMNS) if scheduled is None else scheduled
    fitted = read_processes(processes, change_laws)
    today = spots.set_index("ticker")
    rows = []
    for (ticker, mode), process in fitted.items():
        spot = today.at[ticker, f"beta_{mode}"] if ticker in today.index else np.nan
        if not spot > 0:
            continue
        law = process.law
        change = [law.mean, law.quantile(0.05), law.quantile(0.5), law.quantile(0.95)]
        months = np.array(list(TENORS.values()), dtype=float)
        p = process.p_change(months)
        factor = process.expected_ratio(months)
        quantiles = process.quantiles(months, (0.05, 0.5, 0.95))
        for i, (tenor, h) in enumerate(TENORS.items()):
            rows.append([ticker, mode, forward_ticker(ticker, mode, tenor), tenor, float(h), float(spot), np.nan,
                         p[i], factor[i], np.nan, quantiles[i, 1], quantiles[i, 0], quantiles[i, 2], *change])
    curves = pd.DataFrame(rows, columns=FORWARD_COLUMNS)
    level = curves["spot"].to_numpy(float).copy()
    for (mode, h), at in curves.groupby(["mode", "months"]).indices.items():
        frame = curves.iloc[at].rename(columns={"spot": f"beta_{mode}"})
        level[at] = scheduled_beta(frame, scheduled, mode, as_of, h) if len(scheduled) else level[at]
    curves["scheduled"] = level
    curves["beta_forward"] = level * curves["decay_factor"]
    for column in ("beta_median", "p05", "p95"):
        curves[column] = level * curves[column]
    return curves.sort_values(["ticker", "mode", "months"], kind="stable").reset_index(drop=True)[FORWARD_COLUMNS]
