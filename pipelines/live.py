"""The oracle's own archive: each day's live fetch of a source as dated observations.

A live source is read once a day (`assets.live`) and every body is kept. Read back, the fetches
are one catalogue per day (the day's last good one), each parsed by the same parser as the
bundled data. The newest day's catalogue is the source's `current` statement, dated that day;
each earlier day's current prices become `archived` observations dated on their day. So the
history has a real observation per day per live source, and a change between two fetches shows
on the day it was first seen, with the address it was read from.

What a catalogue states about other dates (a provider's documented change, an announced one) is
taken from the newest fetch only: an earlier fetch would state the same thing again, or something
the newest has since corrected. Its `source_released` is the day the oracle first read it (the
first of the kept copies that stated it), so that a statement read again on a later day shows it
(`pipelines.guard` takes that as the next fetch confirming it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date

import pandas as pd

from pipelines.listings import ARCHIVED, CURRENT, PRICE_FIELDS, Listing

LIVE_PREFIX = "live "


def live_version(day: date, fetched_at: str) -> str:
    """A live statement's source version: the day its fetch observed and when it was read (the
    upstreams publish no version), e.g. `live 2026-11-22 2026-11-22T06:00:03.120Z`."""
    return f"{LIVE_PREFIX}{day.isoformat()} {fetched_at}"


def read_on(version: str) -> date:
    """The day a live statement's fetch observed, from its source version."""
    return date.fromisoformat(version[len(LIVE_PREFIX):].split(" ", 1)[0])


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


def _statement(listing: Listing) -> tuple:
    """What a dated statement says: who, which id and mode, from when, at what prices."""
    return (listing.provider, listing.source_model_id, listing.mode, listing.effective_date,
            *(getattr(listing, name) for name in PRICE_FIELDS))


def as_observations(copies: list[DailyCopy], current: bool = True) -> list[Listing]:
    """Every day's copy as statements dated that day, `copies` oldest first; with `current`
    False (the source no longer lists what these copies describe), the newest too is archived."""
    out: list[Listing] = []
    first_read: dict[tuple, date] = {}
    for position, copy in enumerate(copies):
        newest = current and position == len(copies) - 1
        version = live_version(copy.day, copy.fetched_at)
        for listing in copy.listings:
            if listing.provenance != CURRENT:
                key = _statement(listing)
                first_read.setdefault(key, copy.day)
                if newest:
                    out.append(replace(listing, source_version=version, source_released=first_read[key]))
                continue
            out.append(replace(listing, provenance=CURRENT if newest else ARCHIVED, source_version=version,
                               source_released=copy.day, source_url=copy.url,
                               effective_date=max(listing.effective_date, copy.day),
                               note=f"read from {copy.url} at {copy.fetched_at}"))
    return out
