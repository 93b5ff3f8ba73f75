"""The Greek sheet (contract §4): each ticker's spot record with a summary of its forecast law.

The law (`pipelines.forecast`) is an atom at "no change" and a change law; the sheet's process
fields now mean, per mode (sync under the plain names, batch with `_batch`):

- theta: the average decay per month the law implies over 12 months, −ln(E[R_12])/12
  (positive: prices expected to fall; scheduled prices left out);
- sigma: 0. The law has no diffusion: between changes a price does not move;
- jump_rate: the hazard of the coming month, −ln(1 − P(a change within 1 month));
- jump_mean, jump_std: the mean and standard deviation of ln(new/old) of a change under the
  change law;
- prior_weight: the weight of the pooled share of rises in the model's change law (its evidence
  group's shrinkage; the change law itself is pooled over the group);
- pool: the change law (the evidence group: `family_rose` or `family_never_rose`);
- exposure_months, n_jumps: months since the model's first price, and its price changes
  (revisions left out).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.change_panel import Histories
from pipelines.forecast import HORIZON_MONTHS, ProcessTable, decay_rate

PROCESS_FIELDS = ["theta", "sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight", "pool",
                  "exposure_months", "n_jumps"]


def process_fields(processes: pd.DataFrame, change_laws: pd.DataFrame, histories: Histories,
                   as_of: date) -> pd.DataFrame:
    """PROCESS_FIELDS per (ticker, mode) of `processes`."""
    table = ProcessTable.read(processes, change_laws)
    prior = change_laws.groupby("change_law")["prior_weight"].first()
    tickers, pools = table.tickers.tolist(), table.law_names
    day = np.array([as_of], dtype="datetime64[D]")
    return pd.DataFrame({
        "ticker": tickers, "mode": table.modes.tolist(),
        "theta": decay_rate(table.expected_ratio(HORIZON_MONTHS)[:, 0]), "sigma": 0.0,
        "jump_rate": -np.log1p(-table.p_change(1.0)[:, 0]),  # the hazard of the coming month, −ln(1 − P_1)
        "jump_mean": [table.laws[name].log_mean for name in pools],
        "jump_std": [table.laws[name].log_std for name in pools],
        "prior_weight": [float(prior[name]) for name in pools], "pool": pools.tolist(),
        "exposure_months": histories.age_months(tickers, day) if tickers else [],
        "n_jumps": histories.changes_upto(tickers, day).astype("int64") if tickers else [],
    })


def build_greeks(spots: pd.DataFrame, fields: pd.DataFrame) -> pd.DataFrame:
    """The spots with `process_fields` beside them: sync under the plain names, batch with `_batch`."""
    by_mode = {mode: rows.set_index("ticker")[PROCESS_FIELDS] for mode, rows in fields.groupby("mode")}
    sync = by_mode.get("sync", pd.DataFrame(columns=PROCESS_FIELDS))
    batch = by_mode.get("batch", pd.DataFrame(columns=PROCESS_FIELDS)).add_suffix("_batch")
    return spots.join(sync, on="ticker").join(batch, on="ticker").reset_index(drop=True)
