"""Months as the forecasts count them: 30.4375 days each (365.25 / 12, contract units)."""

from __future__ import annotations

import numpy as np

DAYS_PER_MONTH = 30.4375


def months_between(start, end):
    """(end − start) in months, for dates or arrays of them."""
    days = np.asarray(end, dtype="datetime64[D]") - np.asarray(start, dtype="datetime64[D]")
    return days.astype(float) / DAYS_PER_MONTH
