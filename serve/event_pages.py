"""Pages of `GET /v1/events`: an opaque cursor that names the last event a page gave.

The events are listed newest first, then by ticker, mode and field (`pipelines.events.recent_events`).
A cursor holds the last event's id and that sort key, so the next page starts right after it. It
is a position, not a count: when a new snapshot is published between two pages, the pages still
give each event once (an event the later build no longer has is passed over by its key; one it
adds before the cursor's place belongs to the pages already read). The cursor is base64url JSON,
for the server alone to read; a client sends back what it was given.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from serve.problems import invalid

NOT_A_CURSOR = "not a cursor this endpoint gave: send back the `next_cursor` of the page before, unchanged"


@dataclass(frozen=True)
class EventPage:
    events: pd.DataFrame
    next_cursor: str | None  # None: this page ends the list

    @property
    def truncated(self) -> bool:
        return self.next_cursor is not None


def cursor_of(event: pd.Series) -> str:
    """The cursor that starts the page after `event`."""
    key = [event["effective_date"].isoformat(), event["ticker"], event["mode"], event["field"], event["event_id"]]
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode().rstrip("=")


def _read(cursor: str) -> tuple[date, str, str, str, str]:
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        day, ticker, mode, field, event_id = key
        if not all(isinstance(part, str) for part in key):
            raise ValueError(cursor)
        return date.fromisoformat(day), ticker, mode, field, event_id
    except (binascii.Error, ValueError, TypeError, RecursionError) as error:
        raise invalid("cursor", NOT_A_CURSOR) from error


def _start(events: pd.DataFrame, cursor: str) -> int:
    """Where the page after `cursor` starts in `events` (ordered as `recent_events` orders them)."""
    day, ticker, mode, field, event_id = _read(cursor)
    at = np.flatnonzero((events["event_id"] == event_id).to_numpy())
    if len(at):
        return int(at[0]) + 1
    # The event is gone from this snapshot: the first event that sorts after its key.
    dates = events["effective_date"].to_numpy()
    same_day = dates == day
    later_in_day = np.array([(t, m, f) > (ticker, mode, field) for t, m, f in
                             zip(events["ticker"], events["mode"], events["field"], strict=True)], dtype=bool)
    after = (dates < day) | (same_day & later_in_day)
    hits = np.flatnonzero(after)
    return int(hits[0]) if len(hits) else len(events)


def event_page(events: pd.DataFrame, cursor: str | None, limit: int) -> EventPage:
    """At most `limit` of `events` (the whole ordered selection), after `cursor` when one is given."""
    start = 0 if cursor is None else _start(events, cursor)
    page = events.iloc[start:start + limit].reset_index(drop=True)
    more = start + limit < len(events)
    return EventPage(page, cursor_of(page.iloc[-1]) if more and len(page) else None)
