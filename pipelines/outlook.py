""""Will it get cheaper?" in words: a forward's figures said as a sentence for people who budget.

A forward says three things (methodology §5): what a source has announced for the horizon (the
`scheduled_changes` table), the chance the price changes by then (p_change) and the expected
price over today's (the forward over the spot). The sentence says the announcement first, as it
is the one thing known rather than forecast:

- "announced: doubles on 2027-01-01; expected +100.0% in 6 months"
- "no change announced; 2% chance of a change in 6 months"
- "no change announced; 13% chance of a change in 12 months, expected −4.1%"

An expected change under a twentieth of a percent is not said: it is the flat price.

A line forward (methodology §5, "Line forwards") is said from the side of a team that follows the
line: "following the line: expected −30.0% by 2027-06 (70% chance of a successor by then)".
"""

from __future__ import annotations

import math
from datetime import date

import pandas as pd

from pipelines.scheduled import horizon_date

SAID_FROM = 0.0005  # the smallest expected change the sentence states


def announced_change(changes: pd.DataFrame, ticker: str, mode: str, as_of: date,
                     months: float) -> tuple[date, float] | None:
    """The output price a source has announced to take effect after `as_of` and by the horizon:
    the last such change's day and its level over today's price (`before` of the first one)."""
    mine = changes[(changes["ticker"] == ticker) & (changes["mode"] == mode) & (changes["field"] == "output")]
    due = pd.to_datetime(mine["effective_date"]).dt.date
    mine = mine[(due > as_of) & (due <= horizon_date(as_of, months))].sort_values("effective_date")
    if mine.empty or not mine["before"].iloc[0] > 0:
        return None
    last = mine.iloc[-1]
    return pd.Timestamp(last["effective_date"]).date(), float(last["after"]) / float(mine["before"].iloc[0])


def _change(ratio: float) -> str:
    return "doubles" if math.isclose(ratio, 2.0) else "halves" if math.isclose(ratio, 0.5) else \
        f"{ratio - 1:+.0%}".replace("-", "−")


def _span(months: float) -> str:
    return f"{months:g} month" + ("" if months == 1 else "s")


def _share(p: float) -> str:
    return "under 1%" if 0 < p < 0.005 else f"{p:.0%}"


def _expected(ratio: float | None) -> str:
    """An expected move in words ("+101.5%", "−4.1%"), or "" where it is under SAID_FROM or unknown."""
    if ratio is None or not math.isfinite(ratio) or abs(ratio - 1) < SAID_FROM:
        return ""
    return f"{ratio - 1:+.1%}".replace("-", "−")


def in_words(months: float, p_change: float | None, expected_ratio: float | None,
             announced: tuple[date, float] | None = None) -> str:
    """The sentence for one forward (see the module); `expected_ratio` is the forward over the spot."""
    span = _span(months)
    expected = _expected(expected_ratio)
    if announced is not None:
        day, ratio = announced
        return f"announced: {_change(ratio)} on {day.isoformat()}" + (f"; expected {expected} in {span}"
                                                                       if expected else "")
    if p_change is None or not math.isfinite(p_change):
        return "no change announced; no forecast (no price history to learn from)"
    return (f"no change announced; {_share(p_change)} chance of a change in {span}"
            + (f", expected {expected}" if expected else ""))


def line_in_words(by: date, p_successor: float, expected_ratio: float) -> str:
    """A line forward in words, for a team that moves to each successor as it comes: "following the
    line: expected −30.0% by 2027-06 (70% chance of a successor by then)". The change is the line's
    forward over its current model's spot, `by` the horizon's day (said as its month)."""
    expected = _expected(expected_ratio)
    change = f"expected {expected}" if expected else "no change expected"
    return (f"following the line: {change} by {by:%Y-%m} "
            f"({_share(p_successor)} chance of a successor by then)")
