"""Price events: every change the daily price history shows, one row per (ticker, field) change.

Only observed points count: a `carried_forward` day repeats the observation before it, so it can
never show a change. Each observed point is compared with the series' earlier points, field by
field, against the last value that field was known to have; an observation that leaves a field
empty neither hides a change across it nor turns unknown-to-known into a change.

Kinds (contract §7):

- `new_model`: the first point of a ticker's sync series (field `output`, before NaN).
- `price_cut` / `price_increase`: the sync `input` or `output` price moved, one event per field:
  one origin's own price (a maker's list, or the price a source states), never a median of hosts.
- `restated`: a sync `input` or `output` move that is no one's own price change, because the
  statement showing it is an undated listing (a catalogue's `current` or `archived` price, not a
  live read) and either another source's statement took the series over, or the new value was
  stated for the model's maker, by any source, on or before the point before (the listing in
  between was the slip, this one its correction). A statement its source dates (`published`), a
  dataset's own first sighting (`first_observed`) and a live read a day after the one before are
  what their source says happened then. Out of the default listing, as `hosts_changed` is.
- `hosts_changed`: a series priced at the median of its hosts' quotes (`pipelines.open_weight`)
  moved, in any field or mode. A median moves as hosts join or leave the set the oracle sees as
  well as when one changes its quote, so it is no one's own price change: it is left out of the
  default listing (`of_kind`), and asked for by name.
- `batch_change`: the batch `input` or `output` price moved (either way), and the first point of a
  batch series (field `output`, before NaN).
- `cache_change`: `cache_read` moved, in either mode, between two known values.
- `deprecated`: one per model whose deprecation a source dates (`deprecated_on`), on that day;
  it carries the source and provenance of the model's last sync observation before it. A
  deprecation no source dates has no event (the model's record still says `deprecated`).
- `scheduled`: a change a source announces for a date after `as_of` (`pipelines.scheduled`),
  one per field, dated the day it takes effect: known, but not yet a price.
- `unconfirmed`: a live source's big move that nothing has confirmed yet (`pipelines.guard`),
  one per field, dated the day it was read: recorded, not a price. `detail` says why it is held.
- `alias_moved`: a pointer id (`mistral-large-latest`) began to serve another model
  (`model_aliases`): dated the day of the move, on the model it now serves, `field` the alias and
  `detail` naming both models. Never a price change.

The `new_model` event is dated the model's `first_seen` (the earliest date any source shows it),
which may precede the first point of its series. A price or cache change undone within
`REVERT_DAYS` (the value returns to what it was before), or an alias moved back to the model it
left, is flagged `reverted` on both events: a source's slip or a short promotion, not a lasting
repricing.

Changes smaller than a relative `PRICE_PRECISION` are below the precision prices are stated
with, not events.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.listings import ARCHIVED, BATCH, CARRIED_FORWARD, CURRENT, PUBLISHED, SYNC, prices_agree
from pipelines.live import is_live
from pipelines.open_weight import SOURCE as HOST_MEDIAN_SOURCE

PRICE_CUT = "price_cut"
PRICE_INCREASE = "price_increase"
NEW_MODEL = "new_model"
BATCH_CHANGE = "batch_change"
CACHE_CHANGE = "cache_change"
DEPRECATED = "deprecated"
ALIAS_MOVED = "alias_moved"
SCHEDULED = "scheduled"
UNCONFIRMED = "unconfirmed"
HOSTS_CHANGED = "hosts_changed"
RESTATED = "restated"
# Kinds that record a change in what the oracle sees, not in anyone's price: out of the default listing.
VIEW_CHANGES = (HOSTS_CHANGED, RESTATED)
EVENT_KINDS = (PRICE_CUT, PRICE_INCREASE, NEW_MODEL, BATCH_CHANGE, CACHE_CHANGE, DEPRECATED, ALIAS_MOVED, SCHEDULED,
               UNCONFIRMED, HOSTS_CHANGED, RESTATED)

EVENT_COLUMNS = ["event_id", "ticker", "mode", "kind", "field", "before", "after", "pct_change",
                 "effective_date", "observed_on", "source", "source_version", "source_url", "provenance", "reverted",
                 "detail"]
REVERT_DAYS = 31
CHANGE_KINDS = (PRICE_CUT, PRICE_INCREASE, BATCH_CHANGE, CACHE_CHANGE)

SORT_KEYS = ["effective_date", "ticker", "mode", "field"]
# No maker reprices by a hundredth of a percent; such a move is a price read back from another unit
# (0.4 $/M stated per token and read as 0.39998).
PRICE_PRECISION = 1e-4
PRICE_FIELDS = ("input", "output")
CACHE_FIELD = "cache_read"
STATUS_FIELD = "status"
_SOURCE_COLUMNS = ["source", "source_version", "source_url", "provenance"]
_SERIES = ["ticker", "mode"]


def pct_change(before, after):
    """The change as a fraction, after/before − 1 (−0.125 is a 12.5% cut), as the original oracle
    gave it; NaN where before is 0 or unknown."""
    before = np.asarray(before, dtype="float64")
    after = np.asarray(after, dtype="float64")
    with np.errstate(divide="ignore", invalid="ignore"):
        change = after / before - 1.0
    return np.where((before == 0) | np.isnan(before), np.nan, change)


def changed(before, after):
    """True where both values are known and differ by more than the precision of a price."""
    before = np.asarray(before, dtype="float64")
    after = np.asarray(after, dtype="float64")
    return ~prices_agree(before, after, PRICE_PRECISION) & ~np.isnan(before) & ~np.isnan(after)


def _empty() -> pd.DataFrame:
    frame = pd.DataFrame({column: pd.Series(dtype="object") for column in EVENT_COLUMNS})
    return frame.astype({"before": "float64", "after": "float64", "pct_change": "float64", "reverted": "bool"})


def _rows(points: pd.DataFrame, kind, field: str, before, after, observed_on: str = "observed_on") -> pd.DataFrame:
    """Event rows for `points`, the observations that show the new value; `observed_on` names the
    column that says when the source published it."""
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
        "observed_on": points[observed_on].to_numpy(object),
        **{column: points[column].to_numpy(object) for column in _SOURCE_COLUMNS},
    })
    return frame


def observed_points(price_history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The history's observed points up to `as_of`, in series order."""
    points = price_history[(price_history["provenance"] != CARRIED_FORWARD)
                           & (price_history["date"] <= as_of)]
    return points.sort_values([*_SERIES, "date"], kind="stable").reset_index(drop=True)


def _row_known_before(points: pd.DataFrame, field: str) -> np.ndarray:
    """For each point, the row of the last earlier point of its series that knew `field` (−1:
    none): where the value before, and the source and day that stated it, are read."""
    series_keys = [points[key] for key in _SERIES]
    rows = pd.Series(np.arange(len(points), dtype="float64"), index=points.index).where(points[field].notna())
    return rows.groupby(series_keys).ffill().groupby(series_keys).shift().fillna(-1).to_numpy("int64")


def _stated_by_maker(observations: pd.DataFrame | None) -> dict[tuple, list[tuple]]:
    """(ticker, field) → [(effective date, value)] of every maker's own sync statement."""
    if observations is None or observations.empty:
        return {}
    origin = observations[observations["is_origin"].astype(bool) & (observations["mode"] == SYNC)]
    stated: dict[tuple, list[tuple]] = {}
    for field in PRICE_FIELDS:
        rows = origin[origin[field].notna()]
        for ticker, day, value in zip(rows["ticker"], rows["effective_date"], rows[field], strict=True):
            stated.setdefault((ticker, field), []).append((day, float(value)))
    return stated


def _restated(points: pd.DataFrame, field: str, moved: np.ndarray, before_row: np.ndarray,
              observations: pd.DataFrame | None) -> np.ndarray:
    """Where a sync move of `field` is `restated` (see the module's docstring), among `moved`;
    `before_row` as `_row_known_before` gives it."""
    undated = (points["provenance"].isin([CURRENT, ARCHIVED]) & ~is_live(points["source_version"])).to_numpy()
    candidates = np.flatnonzero(moved & undated & (points["mode"] == SYNC).to_numpy())
    restated = np.zeros(len(points), dtype=bool)
    if not len(candidates):
        return restated
    stated = _stated_by_maker(observations)  # only when some move could be one
    sources, days = points["source"].to_numpy(object), points["date"].to_numpy(object)
    tickers, values = points["ticker"].to_numpy(object), points[field].to_numpy("float64")
    for row in candidates:
        before = before_row[row]
        restated[row] = sources[before] != sources[row] or any(
            day <= days[before] and prices_agree(value, values[row], PRICE_PRECISION)
            for day, value in stated.get((tickers[row], field), ()))
    return restated


def _change_events(points: pd.DataFrame, observations: pd.DataFrame | None) -> list[pd.DataFrame]:
    frames = []
    median = (points["source"] == HOST_MEDIAN_SOURCE).to_numpy()  # a point priced at its hosts' median
    is_sync = (points["mode"] == SYNC).to_numpy()
    is_batch = (points["mode"] == BATCH).to_numpy()
    for field in (*PRICE_FIELDS, CACHE_FIELD):
        before_row = _row_known_before(points, field)
        after = points[field].to_numpy("float64")
        before = np.where(before_row >= 0, after[np.maximum(before_row, 0)], np.nan)
        moved = changed(before, after)
        restated = _restated(points, field, moved & ~median, before_row, observations) \
            if field in PRICE_FIELDS else np.zeros(len(points), dtype=bool)
        kinds = np.select([median, field == CACHE_FIELD, restated, is_sync, is_batch],
                          [HOSTS_CHANGED, CACHE_CHANGE, RESTATED, np.where(after < before, PRICE_CUT, PRICE_INCREASE),
                           BATCH_CHANGE], default="")
        moved &= kinds != ""
        frames.append(_rows(points[moved], kinds[moved], field, before[moved], after[moved]))
    return frames


def _first_points(points: pd.DataFrame, models: pd.DataFrame) -> list[pd.DataFrame]:
    first = points.drop_duplicates(_SERIES, keep="first").copy()
    kinds = np.where(first["mode"] == SYNC, NEW_MODEL, BATCH_CHANGE)
    if "first_seen" in models:
        seen = first["ticker"].map(models.set_index("ticker")["first_seen"])
        first["date"] = [pd.Timestamp(s).date() if kind == NEW_MODEL and pd.notna(s) and pd.Timestamp(s).date() < day
                         else day
                         for s, day, kind in zip(seen, first["date"], kinds, strict=True)]
    nan = np.full(len(first), np.nan)
    return [_rows(first, kinds, "output", nan, first["output"])]


def _deprecations(points: pd.DataFrame, models: pd.DataFrame, as_of: date) -> list[pd.DataFrame]:
    """One event per model whose deprecation a source dates (`deprecated_on`, on or before
    `as_of`), carrying the source of the model's last sync observation before that day."""
    dated = pd.to_datetime(models["deprecated_on"])
    known = dated.notna() & (dated <= pd.Timestamp(as_of))
    on = dict(zip(models.loc[known, "ticker"], dated[known].dt.date, strict=True))
    sync = points[(points["mode"] == SYNC) & points["ticker"].isin(on)]
    before = sync[sync["date"] <= sync["ticker"].map(on)]
    # A series that starts after the dated deprecation lends its first observation instead.
    last = pd.concat([before.drop_duplicates("ticker", keep="last"),
                      sync[~sync["ticker"].isin(before["ticker"])].drop_duplicates("ticker", keep="first")],
                     ignore_index=True)
    last["date"] = last["ticker"].map(on)
    nan = np.full(len(last), np.nan)
    return [_rows(last, DEPRECATED, STATUS_FIELD, nan, nan)]


def _alias_moves(model_aliases: pd.DataFrame | None, as_of: date) -> list[pd.DataFrame]:
    """One event per repoint of a pointer id: each span after an alias's first one."""
    if model_aliases is None or model_aliases.empty:
        return []
    spans = model_aliases.sort_values(["alias", "valid_from"], kind="stable").reset_index(drop=True)
    before = spans.groupby("alias")["ticker"].shift()
    moves = spans[before.notna() & (before != spans["ticker"]) & (spans["valid_from"] <= as_of)]
    moves = moves.assign(_from=before[moves.index])
    # A move back to the model before, within REVERT_DAYS, undoes it.
    reverted = undone_pairs(moves, ["alias"], "_from", "ticker", "valid_from", lambda a, b: a == b)
    rows = pd.DataFrame({
        "ticker": moves["ticker"], "mode": SYNC, "kind": ALIAS_MOVED, "field": moves["alias"], "before": np.nan,
        "after": np.nan, "pct_change": np.nan, "effective_date": moves["valid_from"], "observed_on": None,
        "source": moves["source"],
        "source_version": "", "source_url": None, "provenance": "published",
        "detail": moves["alias"] + " moved from " + moves["_from"] + " to " + moves["ticker"],
        "reverted": reverted.to_numpy(dtype=bool),
    })
    return [rows]


def undone_pairs(frame: pd.DataFrame, group: list[str], before: str, after: str, day: str, same) -> pd.Series:
    """True on both rows of a change undone within REVERT_DAYS: a row whose next row in its
    group, within the window, puts back its `before` (`same(next after, before)`)."""
    ordered = frame.sort_values(day, kind="stable")
    following = ordered.assign(_row=ordered.index).groupby(group)[[after, day, "_row"]].shift(-1)
    days = (pd.to_datetime(following[day]) - pd.to_datetime(ordered[day])).dt.days
    undone = (same(following[after], ordered[before]) & (days <= REVERT_DAYS)).to_numpy(dtype=bool)
    flagged = pd.Series(False, index=frame.index)
    flagged[ordered.index[undone]] = True
    flagged[following["_row"][undone].astype(int).to_numpy()] = True
    return flagged


def flag_reverted(events: pd.DataFrame) -> pd.Series:
    """True on both events of a price or cache change whose next change of the same (ticker,
    mode, field), within REVERT_DAYS, puts back the value from before it."""
    changes = events[events["kind"].isin(CHANGE_KINDS) & events["before"].notna()]
    flagged = undone_pairs(changes, ["ticker", "mode", "field"], "before", "after", "effective_date",
                           lambda a, b: ~changed(b, a) & a.notna())
    return flagged.reindex(events.index, fill_value=False)


def _scheduled(scheduled: pd.DataFrame | None) -> list[pd.DataFrame]:
    if scheduled is None or scheduled.empty:
        return []
    points = scheduled.rename(columns={"effective_date": "date"}).assign(provenance=PUBLISHED)
    frames = []
    for field, rows in points.groupby("field", sort=True):
        frame = _rows(rows, SCHEDULED, field, rows["before"], rows["after"], observed_on="announced_on")
        frame["detail"] = [f"announced by {source} {version} (published {announced}); takes effect {day}"
                           for source, version, announced, day in zip(rows["source"], rows["source_version"],
                                                                      rows["announced_on"], rows["date"], strict=True)]
        frames.append(frame)
    return frames


def _unconfirmed(moves: pd.DataFrame | None) -> list[pd.DataFrame]:
    if moves is None or moves.empty:
        return []
    frames = []
    for field, rows in moves.groupby("field", sort=True):
        frame = _rows(rows, UNCONFIRMED, field, rows["before"], rows["after"], observed_on="date")
        frame["detail"] = rows["detail"].to_numpy(object)
        frames.append(frame)
    return frames


def build_events(price_history: pd.DataFrame, models: pd.DataFrame, as_of: date,
                 model_aliases: pd.DataFrame | None = None, scheduled: pd.DataFrame | None = None,
                 unconfirmed: pd.DataFrame | None = None, observations: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every price event in the history up to `as_of`, and every change announced after it,
    sorted by date, ticker, mode and field.

    `price_history` is the daily history table (one row per ticker, mode and day); `models` gives
    each ticker's status, `first_seen` and `deprecated_on`; `model_aliases` the pointers' spans;
    `scheduled` the `scheduled_changes` table; `unconfirmed` the held moves
    (`pipelines.guard.unconfirmed_moves`); `observations` the statements known, which tell a
    restated listing from a price change (`restated`).
    """
    points = observed_points(price_history, as_of)
    if points.empty:
        return _empty()
    frames = [*_first_points(points, models), *_change_events(points, observations),
              *_deprecations(points, models, as_of), *_alias_moves(model_aliases, as_of), *_scheduled(scheduled),
              *_unconfirmed(unconfirmed)]
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return _empty()
    events = pd.concat(frames, ignore_index=True)
    events["reverted"] = flag_reverted(events) | events.get("reverted", pd.Series(False, index=events.index)).fillna(
        False).astype(bool)
    events["detail"] = events["detail"] if "detail" in events else None
    # A held print is no change of the price: its id says so, and never clashes with one.
    events["event_id"] = [f"{t}:{m}:{f}:{d.isoformat()}" + (f":{UNCONFIRMED}:{s}" if k == UNCONFIRMED else "")
                          for t, m, f, d, k, s in zip(events["ticker"], events["mode"], events["field"],
                                                      events["effective_date"], events["kind"], events["source"],
                                                      strict=True)]
    events = events.sort_values(SORT_KEYS, kind="stable").reset_index(drop=True)
    return events[EVENT_COLUMNS]


def price_moves(events: pd.DataFrame) -> pd.DataFrame:
    """(ticker, date, kind) of every move of a sync output price the events name: a cut or an
    increase (someone's own price changing), a host median moving or a restatement, as the
    forecast and the backtest read them (`change_panel.change_points`)."""
    moved = events[events["kind"].isin([PRICE_CUT, PRICE_INCREASE, *VIEW_CHANGES]).to_numpy()
                   & (events["mode"] == SYNC).to_numpy() & (events["field"] == "output").to_numpy()]
    return pd.DataFrame({"ticker": moved["ticker"].to_numpy(object), "date": moved["effective_date"].to_numpy(object),
                         "kind": moved["kind"].to_numpy(object)})


def of_kind(kinds: pd.Series, kind: str | None) -> np.ndarray:
    """Which events a listing, stream or webhook asking for `kind` gets: that kind alone, or with
    none named every kind but the changes in what the oracle sees (`VIEW_CHANGES`)."""
    return (kinds == kind).to_numpy() if kind is not None else ~kinds.isin(VIEW_CHANGES).to_numpy()


def chosen(events: pd.DataFrame, ticker: str | None = None, mode: str | None = None,
           kind: str | None = None) -> pd.DataFrame:
    """The events a stream or a webhook with these filters gets (`of_kind` for the kind)."""
    keep = of_kind(events["kind"], kind)
    for column, value in (("ticker", ticker), ("mode", mode)):
        if value is not None:
            keep = keep & (events[column] == value).to_numpy()  # not in place: pandas' arrays may be read-only
    return events[keep]


def recent_events(events: pd.DataFrame, since: date | None, ticker: str | None = None,
                  kind: str | None = None, limit: int | None = None) -> pd.DataFrame:
    """Events on or after `since` (None: all), for one ticker (any case) and kind (`of_kind`), newest first.

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
    keep &= of_kind(events["kind"], kind)
    selected = events[keep].sort_values(SORT_KEYS[1:], kind="stable")
    selected = selected.sort_values("effective_date", ascending=False, kind="stable")
    if limit is not None:
        selected = selected.head(limit)
    return selected.reset_index(drop=True)


# The original oracle's `event_type` for each kind (contract §9): its names for a release, a cut
# and any other move of a price; kinds it never had keep their own name, hyphenated as its are.
ORIGINAL_EVENT_TYPES = {NEW_MODEL: "model-release", PRICE_CUT: "price-cut", PRICE_INCREASE: "repricing",
                        BATCH_CHANGE: "repricing", CACHE_CHANGE: "repricing"}


def percent_display(fraction: float) -> str | None:
    """A fraction as the original oracle showed it: −0.125 is "-12.5%"."""
    return None if pd.isna(fraction) else f"{100.0 * fraction:.1f}%"


def with_original_names(events: pd.DataFrame, spots: pd.DataFrame) -> pd.DataFrame:
    """`events` with the fields the original oracle's clients read beside ours: the model's id and
    name, `price_type` (the mode), `event_type`, `beta_before`/`beta_after` (the output price, on
    output events only), `percent_change` (`pct_change` × 100), `pct_change_display` and
    `detected_at` (the day the source published the evidence, `observed_on`)."""
    models = spots.set_index("ticker")
    output = (events["field"] == "output").to_numpy()
    before, after = events["before"].to_numpy("float64"), events["after"].to_numpy("float64")
    return events.assign(
        model_id=events["ticker"].map(models["model_id"]).astype(object),
        display_name=events["ticker"].map(models["display_name"]).astype(object),
        price_type=events["mode"],
        event_type=[ORIGINAL_EVENT_TYPES.get(kind, kind.replace("_", "-")) for kind in events["kind"]],
        beta_before=np.where(output, before, np.nan),
        beta_after=np.where(output, after, np.nan),
        percent_change=100.0 * events["pct_change"].to_numpy("float64"),
        pct_change_display=[percent_display(change) for change in events["pct_change"]],
        detected_at=events["observed_on"],
    )


def new_events(current: pd.DataFrame, previous: pd.DataFrame) -> pd.DataFrame:
    """The events of `current` that `previous` did not have (by `event_id`), in `current`'s order:
    what a snapshot published that the one before it had not."""
    return current[~current["event_id"].isin(previous["event_id"])].reset_index(drop=True)
