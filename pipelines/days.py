"""Columns of dates as integers: days since 1970.

The tables hold dates as `datetime.date` objects. pandas compares such a column object by object,
a Python call per row; as integers the same question is one vectorised pass, several times faster
on a large universe's history.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

import numpy as np
import pandas as pd


def as_day(value) -> date | None:
    """A table cell as a date: a date as it is, a timestamp's day, None for a missing one (None,
    NaN, NaT: pandas' NaT passes for a date, so it is checked first)."""
    if value is None or pd.isna(value):
        return None
    return value.date() if isinstance(value, datetime) else value


def days_since_1970(values) -> np.ndarray:
    """Days since 1970 of dates (date objects or datetime64). Date objects are converted once per
    distinct day: numpy converts them one at a time, and a table's rows hold far fewer distinct
    days than rows."""
    values = np.asarray(values)
    if values.dtype == object and values.ndim == 1 and len(values) > 1:
        codes, distinct = pd.factorize(values, use_na_sentinel=False)
        return np.asarray(distinct, dtype="datetime64[D]").astype(np.int64)[codes]
    return values.astype("datetime64[D]").astype(np.int64)


def earliest(days: pd.Series, by: pd.Series | Sequence[pd.Series], sort: bool = True) -> pd.Series:
    """`days.groupby(by, sort=sort).min()` for a column of date objects, as date objects, found
    over integers. A column with a missing date is grouped as it is (pandas skips the missing)."""
    if days.empty or days.isna().any():
        return days.groupby(by, sort=sort).min()
    least = pd.Series(days_since_1970(days.to_numpy()), index=days.index).groupby(by, sort=sort).min()
    return pd.Series(least.to_numpy().astype("datetime64[D]").astype(object), index=least.index, name=days.name)
