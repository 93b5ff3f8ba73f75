"""Membership of many strings in a large set, at the speed of a hash table.

pandas' `isin` on a column of Arrow strings makes a Python object of every member of the set
before it hashes anything, whatever the column's length, and the backtest asks several times per
anchor with a large universe's tickers as the set. The same question over object arrays goes
through pandas' own hash table.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd


def is_among(values: pd.Series, members: Iterable) -> np.ndarray:
    """`values.isin(members)` as a boolean array (a missing value is among the members only if
    one of them is missing, as with `isin`)."""
    pool = np.asarray(members if isinstance(members, (np.ndarray, pd.Index, pd.Series)) else list(members),
                      dtype=object)
    hit = pd.Index(values.to_numpy(dtype=object), dtype=object).isin(pool)
    if pd.isna(pool).any():  # None and NaN are both "missing" here, as they are to `isin`
        hit |= values.isna().to_numpy()
    return hit
