"""The Greek sheet (contract §4): each ticker's spot record with its fitted process.

Sync parameters carry the plain names (theta, sigma, jump_rate, jump_mean, prior_weight); the
batch process, where the model has a batch price, the same names with `_batch`.
"""

from __future__ import annotations

import pandas as pd

PROCESS_FIELDS = ["theta", "sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight", "pool",
                  "exposure_months", "n_jumps"]


def build_greeks(spots: pd.DataFrame, params: pd.DataFrame) -> pd.DataFrame:
    by_mode = {mode: rows.set_index("ticker")[PROCESS_FIELDS] for mode, rows in params.groupby("mode")}
    sync = by_mode.get("sync", pd.DataFrame(columns=PROCESS_FIELDS))
    batch = by_mode.get("batch", pd.DataFrame(columns=PROCESS_FIELDS)).add_suffix("_batch")
    greeks = spots.join(sync, on="ticker").join(batch, on="ticker")
    return greeks.reset_index(drop=True)


MODEL_FIELDS = ["theta", "sigma", "jump_rate", "jump_mean", "jump_std"]


def processes_from_greeks(greeks: pd.DataFrame) -> pd.DataFrame:
    """The fitted process per (ticker, mode) back from the sheet, with each mode's spot."""
    frames = []
    for mode, suffix, spot in (("sync", "", "beta_sync"), ("batch", "_batch", "beta_batch")):
        columns = {f"{field}{suffix}": field for field in MODEL_FIELDS}
        rows = greeks[["ticker", spot, *columns]].rename(columns={spot: "spot", **columns}).assign(mode=mode)
        frames.append(rows[rows["spot"].notna() & rows["jump_rate"].notna()])
    return pd.concat(frames, ignore_index=True)
