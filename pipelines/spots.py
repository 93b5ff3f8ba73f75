"""Spots: one record per model ticker with its prices on the snapshot date, the ratios of the
Greek sheet and where each price came from (contract §4 and §9, `GET /v1/spots`).

Prices are read from `price_history` on `as_of` exactly (the history is daily and carried forward,
so a model priced on or before that date has a row on it). Ratios are computed by
`pipelines.pricing`, the same functions the task-cost endpoints use.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import numpy as np
import pandas as pd

from pipelines.evidence import EVIDENCE_COLUMNS
from pipelines.listings import BATCH, PRICE_FIELDS, SYNC
from pipelines.pricing import Rates, r_batch, r_cache, r_in, r_think

# Identity, from the model registry.
IDENTITY_COLUMNS = ["ticker", "ticker_batch", "model_id", "display_name", "provider", "family", "tier",
                    "is_reasoning", "context_window", "status", "input_modalities", "output_modalities"]
# Prices on as_of ($/M, fees $ per 1,000): beta_* is the output price of that mode, tiers_* the
# context tiers JSON, peak_* the peak and off-peak rates of a model priced by the hour. Batch
# columns are NaN where the model has no batch series on as_of.
SPOT_NAMES = {"output": "beta", **{f: f for f in PRICE_FIELDS if f != "output"}, "tiers": "tiers", "peak": "peak"}
SYNC_PRICE_COLUMNS = [f"{name}_{SYNC}" for name in SPOT_NAMES.values()]
BATCH_PRICE_COLUMNS = [f"{name}_{BATCH}" for name in SPOT_NAMES.values()]
# Ratios of the base sync rates (r_in, r_cache, r_think) and batch over sync output price (r_batch).
RATIO_COLUMNS = ["r_in", "r_cache", "r_think", "r_batch"]
# The observation behind each mode's price on as_of: which source, which version, which marker,
# the date it was last observed (earlier than as_of for a carried-forward price) and its URL.
# known_from: the first day that observation could be known (the history's `known_on`).
PROVENANCE_FIELDS = ["source", "source_version", "provenance", "observed_on", "source_url"]
PROVENANCE_NAMES = {**{field: field for field in PROVENANCE_FIELDS}, "known_on": "known_from"}
SYNC_PROVENANCE_COLUMNS = [f"{name}_{SYNC}" for name in PROVENANCE_NAMES.values()]
BATCH_PROVENANCE_COLUMNS = [f"{name}_{BATCH}" for name in PROVENANCE_NAMES.values()]

SPOT_COLUMNS = (IDENTITY_COLUMNS + SYNC_PRICE_COLUMNS + BATCH_PRICE_COLUMNS + RATIO_COLUMNS
                + SYNC_PROVENANCE_COLUMNS + BATCH_PROVENANCE_COLUMNS + EVIDENCE_COLUMNS)


def rate_columns(mode: str) -> dict[str, str]:
    """Where `Rates.from_row` and `pricing.spot_costs` find a mode's rates in a spots frame."""
    return {field: f"{name}_{mode}" for field, name in SPOT_NAMES.items()}


def _mode_prices(today: pd.DataFrame, mode: str) -> pd.DataFrame:
    rows = today[today["mode"] == mode]
    duplicated = rows["ticker"][rows["ticker"].duplicated()]
    if len(duplicated):
        raise ValueError(f"price_history has more than one {mode} row on one date for {sorted(set(duplicated))}")
    renames = {field: f"{name}_{mode}" for field, name in SPOT_NAMES.items()}
    renames |= {field: f"{name}_{mode}" for field, name in PROVENANCE_NAMES.items()}
    return rows[["ticker", *renames]].rename(columns=renames)


def _ratios(row: Mapping) -> dict[str, float]:
    if pd.isna(row[f"beta_{SYNC}"]) or pd.isna(row[f"input_{SYNC}"]):
        return dict.fromkeys(RATIO_COLUMNS, np.nan)
    rates = Rates.from_row(row, columns=rate_columns(SYNC))
    return {"r_in": r_in(rates), "r_cache": r_cache(rates), "r_think": r_think(rates),
            "r_batch": r_batch(row[f"beta_{BATCH}"], row[f"beta_{SYNC}"])}


def build_spots(price_history: pd.DataFrame, models: pd.DataFrame, as_of: date,
                evidence: pd.DataFrame) -> pd.DataFrame:
    """One row per ticker of `models`, in SPOT_COLUMNS order, sorted by ticker; `evidence` is
    `evidence.spot_evidence` (one row per ticker)."""
    as_of = pd.Timestamp(as_of).date()
    today = price_history[price_history["date"] == as_of]
    frame = models[IDENTITY_COLUMNS]
    for mode in (SYNC, BATCH):
        frame = frame.merge(_mode_prices(today, mode), on="ticker", how="left", validate="one_to_one")
    # Rows as dicts of the columns the ratios read: a row as a Series costs tens of microseconds.
    read = list(dict.fromkeys([*rate_columns(SYNC).values(), f"beta_{SYNC}", f"beta_{BATCH}", f"input_{SYNC}"]))
    ratios = pd.DataFrame([_ratios(row) for row in frame[read].to_dict("records")], columns=RATIO_COLUMNS,
                          index=frame.index)
    frame = pd.concat([frame, ratios], axis=1).merge(evidence, on="ticker", how="left", validate="one_to_one")
    for column in SYNC_PRICE_COLUMNS + BATCH_PRICE_COLUMNS:
        if not column.startswith(("tiers_", "peak_")):
            frame[column] = frame[column].astype("float64")
    return frame[SPOT_COLUMNS].sort_values("ticker", kind="stable").reset_index(drop=True)
