"""Thinner views of a daily price series: its change points, or one point a week or a month.

A daily series repeats its last observation on every day nothing changed (GPT-4O: hundreds of
`carried_forward` days), which a chart or a budget review does not need. These pick rows of one
model's series in date order; the rows themselves, provenance included, are unchanged.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.history import same_as_previous

POINTS = ("daily", "changes")
INTERVALS = ("day", "week", "month")


def change_points(rows: pd.DataFrame, columns: list[str]) -> np.ndarray:
    """Which rows start a new price: the first, and each whose `columns` (the billed prices, the
    tiers, the peak hours) differ from the row before: prices as `same_as_previous` compares them,
    text exactly. A missing value equals a missing value."""
    if rows.empty:
        return np.zeros(0, dtype=bool)
    changed = np.zeros(len(rows), dtype=bool)
    changed[0] = True
    for column in columns:
        values = rows[column]
        if pd.api.types.is_numeric_dtype(values):
            same = same_as_previous(values)
        else:
            previous = values.shift(1)
            same = (values == previous).fillna(False) | (values.isna() & previous.isna())
        changed[1:] |= ~same.to_numpy(dtype=bool)[1:]
    return changed


def period_ends(dates: pd.Series, interval: str) -> np.ndarray:
    """Which rows are the last of their week (ISO, Monday to Sunday) or calendar month: the price
    in force at the period's end, or on the series' last day for a period still running."""
    if interval == "day" or dates.empty:
        return np.ones(len(dates), dtype=bool)
    stamps = pd.to_datetime(dates)
    period = stamps.dt.to_period("W-SUN" if interval == "week" else "M")
    return (period != period.shift(-1)).to_numpy(dtype=bool)
