"""The oracle's own archive: each day's live fetch of a source as dated observations.

A live source is read once a day (`assets.live`) and every body is kept. Read back, the fetches
are one catalogue per day (the day's last good one), each parsed by the same parser as the
bundled data. The newest day's catalogue is the source's `current` statement, dated that day;
each earlier day's current prices become `archived` observations dated on their day. So the
history has a real observation per day per live source, and a change between two fetches shows
on the day it was first seen, with the address it was read from.

What a catalogue states about other dates (a provider's documented change, an announced one) is
taken from the newest fetch only: an earlier fetch would state the same thing again, or something
the newest has since corrected.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

import pandas as pd

from pipelines.listings import ARCHIVED, CURRENT, Listing

LIVE_PREFIX = "live "


def live_version(fetched_at: str) -> str:
    """A live statement's source version: when it was read (the upstream publishes no version)."""
    return f"{LIVE_PREFIX}{fetched_at}"


def is_live(source_version: pd.Series) -> pd.Series:
    return source_version.astype("string").str.startswith(LIVE_PREFIX).fillna(False).astype(bool)


@dataclass(frozen=True)
class DailyCopy:
    """One day's catalogue of a live source: the day it observes, where and when it was read,
    and what the source's parser made of it."""

    day: date
    url: str
    fetched_at: str
    listings: list[Listing]


def as_observations(copies: list[DailyCopy], current: bool = True) -> list[Listing]:
    """Every day's copy as statements dated that day, `copies` oldest first; with `current`
    False (the source no longer lists what these copies describe), the newest too is archived."""
    out = []
    for position, copy in enumerate(copies):
        newest = current and position == len(copies) - 1
        version = live_version(copy.fetched_at)
        for listing in copy.listings:
            if listing.provenance != CURRENT:
                if newest:
                    out.append(replace(listing, source_version=version, source_released=copy.day))
                continue
            out.append(replace(listing, provenance=CURRENT if newest else ARCHIVED, source_version=version,
                               source_released=copy.day, source_url=copy.url,
                               effective_date=max(listing.effective_date, copy.day),
                               note=f"read from {copy.url} at {copy.fetched_at}"))
    return out
