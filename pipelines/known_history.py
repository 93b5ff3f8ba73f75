"""The price history as it stood on each past day: what a build on that day would have shown.

`history.build_price_history` is today's best knowledge of every past day: a statement published
after the day it asserts (a release dating a price back to a model's launch, a restatement)
reaches back into those days. A product that must read a past day as it could be read then (the
index, whose levels may be written into contracts) reads this instead.

Knowledge changes only on the days a *late* statement is first published (one whose
`listings.known_on` is after its `effective_date`); every other statement is known by the time
it is in force. So the days from a start to the snapshot date fall into epochs, each opened by a
late statement's publication (or by the start). Within an epoch the statements known are the
same: every timely one, and the late ones published by the epoch's first day. One build of the
history from them (`known_at`) gives each day of the epoch its row as known on that day, provided
no statement stops steering its series inside the epoch (a host median beginning, an in-region
id stated: `history.cutoff_days`), so those days open epochs too.

Which tickers the archive may carry back (`history.archive_tracks_on`) is a judgement of the
archive as a source, not a statement of a price: a caller may make it once, from everything known
today, and hand it to every view (`backfill`), so that the archive's own contemporaneous prices
stand for a maker's where it is seen to track the maker. Left to each view, it is made from that
view's statements alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

import pandas as pd

from pipelines.history import archive_tracks_on, cutoff_days, daily_history, history_points
from pipelines.listings import published_late
from pipelines.observations import ranked_again


@dataclass(frozen=True)
class KnownView:
    """What could be known from `begin` to `end`: the statements, ranked among themselves, and
    the daily history built from them to `end`."""

    begin: date
    end: date
    observations: pd.DataFrame
    history: pd.DataFrame


def known_at(observations: pd.DataFrame, day: date, end: date | None = None,
             backfill: set[str] | None = None) -> KnownView:
    """The view known on `day`: every timely statement and the late ones published by then, with
    the history built from them to `end` (default `day`), the archive carrying back `backfill`
    (default: as the view's own statements judge it). Its rows up to the next late publication
    after `day` are those days' rows as known on each."""
    published, late = published_late(observations)
    known = ranked_again(observations[~late | (published <= pd.Timestamp(day))])
    end = end or day
    backfill = archive_tracks_on(known, [end])[0] if backfill is None else backfill
    return KnownView(day, end, known, daily_history(history_points(known, end, backfill), end))


def epochs(observations: pd.DataFrame, start: date, as_of: date,
           backfill: set[str] | None = None) -> Iterator[KnownView]:
    """The views of the epochs from `start` to `as_of`, in order (`backfill` as `known_at` reads
    it): together their histories' rows from each `begin` to its `end` are every day's rows as
    known on that day."""
    published, late = published_late(observations)
    opened = {d.date() for d in published[late]} | cutoff_days(observations)
    opened = {d for d in opened if start < d <= as_of}
    begins = sorted({start, *opened})
    for begin, following in zip(begins, [*begins[1:], as_of + timedelta(days=1)], strict=True):
        yield known_at(observations, begin, following - timedelta(days=1), backfill)


def as_known_each_day(views: list[KnownView]) -> pd.DataFrame:
    """Every day's rows as known on that day: each view's history from its `begin` to its `end`."""
    return pd.concat([view.history[view.history["date"] >= view.begin] for view in views], ignore_index=True)
