"""Price events: every change the daily price history shows, one row per (ticker, field) change.

Only observed points count: a `carried_forward` day repeats the observation before it, so it can
never show a change. Each observed point is compared with the series' earlier points, field by
field, against the last value that field was known to have; an observation that leaves a field
empty neither hides a change across it nor turns unknown-to-known into a change.

Kinds (contract §7):

- `new_model`: the first point of a ticker's sync series (field `output`, before NaN).
- `price_cut` / `price_increase`: the sync `input` or `output` price moved, one event per field.
- `batch_change`: the batch `input` or `output` price moved (either way), and the first point of a
  batch series (field `output`, before NaN).
- `cache_change`: `cache_read` moved, in either mode, between two known values.
- `deprecated`: one per model whose status is `deprecated`. The sources do not date deprecations,
  so the event is dated the last day the model's sync price was observed (its last observation
  that is not `carried_forward`), and carries that observation's source and provenance.

Changes smaller than a relative `RELATIVE_TOLERANCE` are float noise, not events.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.listings import BATCH, CARRIED_FORWARD, SYNC

PRICE_CUT = "price_cut"
PRICE_INCREASE = "price_increase"
NEW_MODEL = "new_model"
BATCH_CHANGE = "batch_change"
CACHE_CHANGE = "cache_change"
DEPRECATED = "deprecated"
EVENT_KINDS = (PRICE_CUT, PRICE_INCREASE, NEW_MODEL, BATCH_CHANGE, CACHE_CHANGE, DEPRECATED)

EVENT_COLUMNS = ["event_id", "ticker", "mode", "kind", "field", "before", "after", "pct_change",
                 "effective_date", "source", "source_version", "source_url", "provenance"]

SORT_KEYS = ["effective_date", "ticker", "mode", "field"]
RELATIVE_TOLERANCE = 1e-9
PRICE_FIELDS = ("input", "output")
CACHE_FIELD = "cache_read"
STATUS_FIELD = "status"
_SOURCE_COLUMNS = ["source", "source_version", "source_url", "provenance"]
_SERIES = ["ticker", "mode"]


def pct_change(before, after):
    """100·(after/before − 1); NaN where before is 0 or unknown."""
    before = np.asarray(before, dtype="float64")
    after = np.asarray(after, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = 100.0 * (after / before - 1.0)
    return np.where((before == 0) | np.isnan(before), np.nan, pct)


def changed(before, after):
    """True where both values are known and differ by more than float noise."""
    before = np.asarray(before, dtype="float64")
    after = np.asarray(after, dtype="float64")
    scale = np.maximum(np.abs(before), np.abs(after))
    with np.errstate(invalid="ignore"):
        moved = np.abs(after - before) > RELATIVE_TOLERANCE * scale
    return moved & ~np.isnan(before) & ~np.isnan(after)


def _empty() -> pd.DataFrame:
    frame = pd.DataFrame({column: pd.Series(dtype="object") for column in EVENT_COLUMNS})
    return frame.astype({"before": "float64", "after": "float64", "pct_change": "float64"})


def _rows(points: pd.DataFrame, kind, field: str, before, after) -> pd.DataFrame:
    """Event rows for `points`, the observations that show the new value."""
    before = np.asarray(before, dtype="float64")
    after = np.asarray(after, dtype="float64")
    frame = pd.DataFrame({
        "ticker": points["ticker"].to_numpy(object),
        "mode": points["mode"].to_numpy(object),
        "kind": kind if isinstance(kind, str) else np.asarray(kind, dtype=object),
        "field": field,
        "before": before,
        "after": after,
        "pct_change": pct_change(before, after),
        "effective_date": points["date"].to_numpy(object),
        **{column: points[column].to_numpy(object) for column in _SOURCE_COLUMNS},
    })
    return frame


def observed_points(price_history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The history's observed points up to `as_of`, in series order."""
    points = price_history[(price_history["provenance"] != CARRIED_FORWARD)
                           & (price_history["date"] <= as_of)]
    return points.sort_values([*_SERIES, "date"], kind="stable").reset_index(drop=True)


def last_known_before(points: pd.DataFrame, field: str) -> pd.Series:
    """For each point, the last known value of `field` at an earlier point of its series."""
    series_keys = [points[key] for key in _SERIES]
    known = points[field].astype("float64").groupby(series_keys).ffill()
    return known.groupby(series_keys).shift()


def _change_events(points: pd.DataFrame) -> list[pd.DataFrame]:
    frames = []
    is_sync = (points["mode"] == SYNC).to_numpy()
    is_batch = (points["mode"] == BATCH).to_numpy()
    for field in PRICE_FIELDS:
        before = last_known_before(points, field).to_numpy()
        after = points[field].to_numpy("float64")
        moved = changed(before, after)
        sync = moved & is_sync
        kinds = np.where(after[sync] < before[sync], PRICE_CUT, PRICE_INCREASE)
        frames.append(_rows(points[sync], kinds, field, before[sync], after[sync]))
        batch = moved & is_batch
        frames.append(_rows(points[batch], BATCH_CHANGE, field, before[batch], after[batch]))
    before = last_known_before(points, CACHE_FIELD).to_numpy()
    after = points[CACHE_FIELD].to_numpy("float64")
    moved = changed(before, after)
    frames.append(_rows(points[moved], CACHE_CHANGE, CACHE_FIELD, before[moved], after[moved]))
    return frames


def _first_points(points: pd.DataFrame) -> list[pd.DataFrame]:
    first = points.drop_duplicates(_SERIES, keep="first")
    kinds = np.where(first["mode"] == SYNC, NEW_MODEL, BATCH_CHANGE)
    nan = np.full(len(first), np.nan)
    return [_rows(first, kinds, "output", nan, first["output"])]


def _deprecations(points: pd.DataFrame, models: pd.DataFrame) -> list[pd.DataFrame]:
    deprecated = set(models.loc[models["status"] == DEPRECATED, "ticker"])
    sync = points[(points["mode"] == SYNC) & points["ticker"].isin(deprecated)]
    last = sync.drop_duplicates("ticker", keep="last")
    nan = np.full(len(last), np.nan)
    return [_rows(last, DEPRECATED, STATUS_FIELD, nan, nan)]


def build_events(price_history: pd.DataFrame, models: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Every price event in the history up to `as_of`, sorted by date, ticker, mode and field.

    `price_history` is the daily history table (one row per ticker, mode and day); `models` gives
    each ticker's status. A deprecated model's event is dated the last day its sync price was
    observed, because no source says when a deprecation happened.
    """
    points = observed_points(price_history, as_of)
    if points.empty:
        return _empty()
    frames = [*_first_points(points), *_change_events(points), *_deprecations(points, models)]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return _empty()
    events = pd.concat(frames, ignore_index=True)
    events["event_id"] = [f"{t}:{m}:{f}:{d.isoformat()}" for t, m, f, d in
                          zip(events["ticker"], events["mode"], events["field"], events["effective_date"], strict=True)]
    events = events.sort_values(SORT_KEYS, kind="stable").reset_index(drop=True)
    return events[EVENT_COLUMNS]


def recent_events(events: pd.DataFrame, since: date | None, ticker: str | None = None,
                  kind: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """Events on or after `since` (None: all), for one ticker (any case) and kind, newest first.

    Within a day the order stays ticker, mode, field. Raises ValueError for an unknown kind or a
    negative limit, so a caller can answer with the list of valid kinds.
    """
    if kind is not None and kind not in EVENT_KINDS:
        raise ValueError(f"unknown event kind {kind!r}; valid kinds: {', '.join(EVENT_KINDS)}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be zero or more, got {limit}")
    keep = np.ones(len(events), dtype=bool)
    if since is not None:
        keep &= (events["effective_date"] >= since).to_numpy()
    if ticker is not None:
        keep &= (events["ticker"].str.upper() == ticker.strip().upper()).to_numpy()
    if kind is not None:
        keep &= (events["kind"] == kind).to_numpy()
    selected = events[keep].sort_values(SORT_KEYS[1:], kind="stable")
    selected = selected.sort_values("effective_date", ascending=False, kind="stable")
    if limit is not None:
        selected = selected.head(limit)
    return selected.reset_index(drop=True)
