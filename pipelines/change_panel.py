"""The history of each model's price as the forecast reads it: change points, and a panel of windows.

A model's price mostly stays where it is and now and then moves in one step, so the forecast
(`pipelines.forecast`) asks two questions of the history: how likely a change is within h
months, given what was known at the window's start, and how large a change is when it comes.
Both are read from the sync output price β of each model, observed points only (never carried
forward):

- `change_points`: each series reduced to the points where β moved, each move marked a change,
  a switch of source, a move that is no one's own price changing (a host median moving, a
  restated listing), or half of a slip (`FIRST`, `CHANGE`, `SWITCH`, `HOSTS_CHANGED`,
  `RESTATED`, `SLIP`).
- `Histories`: those points indexed for lookups of many (model, day) pairs at once.
- `window_panel`: for each model, each first day of a month a on or after its first price and
  each horizon h with a + h months on or before `as_of`: whether β changed in the window, the
  product of the changes, and the features known at a (`FEATURES`). Every feature uses only
  points dated on or before a.
"""

from __future__ import annotations

from datetime import date, timedelta
from functools import lru_cache

import numpy as np
import pandas as pd

from pipelines.days import days_since_1970
from pipelines.events import HOSTS_CHANGED, PRICE_CUT, PRICE_INCREASE, RESTATED
from pipelines.identity import NAME_MEMO, is_pointer, split_vendor, strip_snapshot
from pipelines.listings import CARRIED_FORWARD, SYNC
from pipelines.membership import is_among
from pipelines.months import months_between
from pipelines.registry import EFFICIENT_OUTPUT_CEILING, FRONTIER_OUTPUT_FLOOR, Rules

REVISION_DAYS = 62  # a move undone within this many days was a revision, not a price change
RECENT_DAYS = 182  # "recent": the six months before the anchor
SAME = 1e-9  # relative: two prices closer than this are the same price

# Name classes: a pointer (`-latest`) is repointed to newer models, a preview is priced before
# its release, an unversioned name (`sonar`, `qwen-plus`) is updated in place; a fixed name
# (`claude-sonnet-4-20250514`, `gpt-4.1`) names one model for its whole life.
POINTER, PREVIEW, UNVERSIONED, FIXED = "pointer", "preview", "unversioned", "fixed"
NAME_CLASSES = (POINTER, PREVIEW, UNVERSIONED, FIXED)
STAGE_WORDS = ("preview", "exp", "experimental", "beta")

FEATURES = ["log_age", "log_since_change", "changed_before", "log_changes", "pointer", "preview", "unversioned",
            "frontier", "mid", "reasoning", "log_price", "provider_rate", "family_changed", "newer_in_family"]

# Kinds of change point: a model's first price; a change; a move that came with a switch of
# source (it may be two sources disagreeing rather than a repricing: it sets the level but is
# not counted as a change); a move the events call a host median's (`HOSTS_CHANGED`) or a
# source's restatement (`RESTATED`), which set the level as a switch does; each half of a slip
# (a move undone within REVISION_DAYS, back to exactly the level before it: neither half sets
# the level or counts). Every kind but these first two is a revision, named by its kind.
FIRST, CHANGE, SWITCH, SLIP = "first", "change", "switch", "slip"
REVISIONS = (SWITCH, HOSTS_CHANGED, RESTATED, SLIP)
OWN_MOVES = (PRICE_CUT, PRICE_INCREASE)  # the events' kinds of someone's own price changing
CHANGE_POINT_COLUMNS = ["ticker", "date", "price", "ratio", "kind"]


@lru_cache(maxsize=NAME_MEMO)  # asked for every model at every anchor of a backtest
def name_class(model_id: str) -> str:
    """The class of a model's API name (NAME_CLASSES)."""
    bare = split_vendor(model_id)[1].lower()
    if is_pointer(bare):
        return POINTER
    if any(word in bare.replace(".", "-").split("-") for word in STAGE_WORDS):
        return PREVIEW
    if not any(ch.isdigit() for ch in strip_snapshot(bare)):
        return UNVERSIONED
    return FIXED


def change_points(points: pd.DataFrame, as_of: date, moves: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per ticker, its observed sync β at the first point and at every later move: columns
    ticker, date, price, ratio (to the level before; NaN at the first point and at slips) and
    kind, by ticker and date. `points` are history points (ticker, mode, date or
    effective_date, output, source, provenance). With `moves` (ticker, date, kind: the moves the
    events name, `events.price_moves`), a move is a CHANGE only where they call it a price cut or
    increase; one they call a host median's or a restatement has that kind, and any other (an
    alias moving) is a SWITCH. Each of those sets the level but is no change, so neither the
    hazard, the change law nor a family's rises learn from it."""
    points = points.rename(columns={"effective_date": "date"})
    observed = points[(points["mode"] == SYNC) & (points["output"] > 0) & (points["date"] <= as_of)
                      & (points["provenance"] != CARRIED_FORWARD)]
    observed = observed.sort_values(["ticker", "date"], kind="stable").drop_duplicates(["ticker", "date"], keep="last")
    tickers = observed["ticker"].to_numpy(dtype=object)
    days, prices = observed["date"].to_numpy(dtype=object), observed["output"].to_numpy(float)
    sources = observed["source"].to_numpy(dtype=object)
    # Most series never move: only those whose price differs somewhere walk the points one by one.
    starts = np.flatnonzero(np.r_[True, tickers[1:] != tickers[:-1]]) if len(tickers) else np.array([], dtype=int)
    ends = np.r_[starts[1:], len(tickers)] if len(starts) else starts
    moved = np.zeros(len(tickers), dtype=bool)
    if len(tickers):
        step = np.abs(np.diff(prices)) > SAME * np.maximum(np.abs(prices[1:]), np.abs(prices[:-1]))
        moved[1:] = step & (tickers[1:] == tickers[:-1])
    any_move = np.add.reduceat(moved, starts) > 0 if len(starts) else np.array([], dtype=bool)
    rows = [(tickers[a], days[a], prices[a], np.nan, FIRST) for a in starts[~any_move]]
    named = None if moves is None else _named_moves(moves)
    for a, b in zip(starts[any_move], ends[any_move], strict=True):
        kinds = None if named is None else named.get(tickers[a], {})
        rows += _series_points(tickers[a], days[a:b], prices[a:b], sources[a:b], kinds)
    frame = pd.DataFrame(rows, columns=CHANGE_POINT_COLUMNS)
    return frame.sort_values(["ticker", "date"], kind="stable").reset_index(drop=True)


def _named_moves(moves: pd.DataFrame) -> dict[str, dict[date, str]]:
    """Per ticker, the kind the events give each day's move; an own change wins its day."""
    named: dict[str, dict[date, str]] = {}
    ranked = moves.assign(_own=moves["kind"].isin(OWN_MOVES)).sort_values("_own", kind="stable")
    for ticker, day, kind in zip(ranked["ticker"], ranked["date"], ranked["kind"], strict=True):
        named.setdefault(ticker, {})[day] = kind
    return named


def _series_points(ticker: str, days, prices, sources, kinds: dict[date, str] | None) -> list[tuple]:
    """`change_points` of one series that moves, its points in date order; `kinds` the kind the
    events give each day's move (None: every move of one source is a change)."""
    window = timedelta(days=REVISION_DAYS)
    kept: list[list] = []  # [date, price, source, kind], the levels in force
    slips: list[tuple] = []
    for day, price, source in zip(days, prices, sources, strict=True):
        if kept and _same(price, kept[-1][1]):
            kept[-1][2] = source  # the same price confirmed: the level's source is now this one
            continue
        if len(kept) >= 2 and _same(price, kept[-2][1]) and day - kept[-1][0] <= window:
            undone = kept.pop()
            slips += [(undone[0], undone[1]), (day, price)]
            continue
        kind = FIRST if not kept else _kind_of_move(source == kept[-1][2], kinds, day)
        kept.append([day, price, source, kind])
    ratios = [np.nan] + [b[1] / a[1] for a, b in zip(kept[:-1], kept[1:], strict=True)]
    return ([(ticker, k[0], k[1], r, k[3]) for k, r in zip(kept, ratios, strict=True)]
            + [(ticker, day, price, np.nan, SLIP) for day, price in slips])


def _kind_of_move(same_source: bool, kinds: dict[date, str] | None, day: date) -> str:
    """A move's kind: a change when one source moved and the events (where read) call it an own
    change; else the events' kind for it where they name one, or a switch."""
    named = None if kinds is None else kinds.get(day)
    if same_source and (kinds is None or named in OWN_MOVES):
        return CHANGE
    return named if named in (HOSTS_CHANGED, RESTATED) else SWITCH


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= SAME * max(abs(a), abs(b))


_SPAN = np.int64(1 << 24)  # a (group, day) pair as one sortable integer: group · _SPAN + days since 1970


class _Events:
    """Days of events per group, sorted as (group, day) keys, for counting in windows."""

    def __init__(self, groups: np.ndarray, days: np.ndarray, values: np.ndarray | None = None):
        keys = groups.astype(np.int64) * _SPAN + days
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.values = None if values is None else values[order]

    def upto(self, groups: np.ndarray, days: np.ndarray) -> np.ndarray:
        """Position just past each group's events on or before each day."""
        return np.searchsorted(self.keys, groups.astype(np.int64) * _SPAN + days, side="right")

    def start(self, groups: np.ndarray) -> np.ndarray:
        return np.searchsorted(self.keys, groups.astype(np.int64) * _SPAN, side="left")

    def count(self, groups: np.ndarray, after: np.ndarray | None, upto: np.ndarray) -> np.ndarray:
        """Events of each group in (after, upto], or on or before `upto` with no `after`."""
        low = self.start(groups) if after is None else self.upto(groups, after)
        return (self.upto(groups, upto) - low).astype(float)


class Histories:
    """The change points of the models of `models`, indexed for lookups of many (ticker, day)
    pairs at once. Tickers are given by name, days as dates or datetime64 arrays."""

    def __init__(self, changes: pd.DataFrame, models: pd.DataFrame, rules: Rules):
        meta = models.drop_duplicates("ticker").set_index("ticker")
        levels = changes[is_among(changes["ticker"], meta.index) & (changes["kind"] != SLIP).to_numpy()]
        self.tickers = sorted(levels["ticker"].unique())
        self.index = {t: i for i, t in enumerate(self.tickers)}
        self.meta = meta.loc[self.tickers]
        self.name_class = {t: name_class(m) for t, m in zip(self.tickers, self.meta["model_id"], strict=True)}
        ruled = [rules.first("tier", f"{p}/{m}") for p, m in zip(self.meta["provider"], self.meta["model_id"],
                                                                  strict=True)]
        self._ruled_tier = np.array([r or "" for r in ruled], dtype=object)
        self._class = np.array([self.name_class[t] for t in self.tickers], dtype=object)
        self._reasoning = self.meta["is_reasoning"].fillna(False).astype(bool).to_numpy(float)
        self._provider = pd.factorize(self.meta["provider"])[0]
        self._family = pd.factorize(self.meta["family"])[0]

        at = levels["ticker"].map(self.index).to_numpy(dtype=np.int64)
        level_days = days_since_1970(levels["date"])
        self._levels = _Events(at, level_days, levels["price"].to_numpy(float))
        self._first = np.full(len(self.tickers), np.iinfo(np.int64).max)
        np.minimum.at(self._first, at, level_days)
        moves = levels[levels["kind"] == CHANGE]
        move_at, move_days = moves["ticker"].map(self.index).to_numpy(dtype=np.int64), days_since_1970(moves["date"])
        log_ratio = np.log(moves["ratio"].to_numpy(float))
        self._moves = _Events(move_at, move_days, log_ratio)
        self._log_total = np.r_[0.0, np.cumsum(self._moves.values)]
        rises = log_ratio > 0
        self._provider_moves = _Events(self._provider[move_at], move_days)
        self._family_moves = _Events(self._family[move_at], move_days)
        self._family_rises = _Events(self._family[move_at[rises]], move_days[rises], move_at[rises])
        everyone = np.arange(len(self.tickers))
        self._provider_firsts = _Events(self._provider[everyone], self._first)
        self._family_firsts = _Events(self._family[everyone], self._first)
        revisions = changes[changes["kind"].isin(REVISIONS).to_numpy() & is_among(changes["ticker"], self.index)]
        revised_at = revisions["ticker"].map(self.index).to_numpy(dtype=np.int64)
        self._revisions = _Events(revised_at, days_since_1970(revisions["date"]),
                                  revisions["kind"].to_numpy(dtype=object))

    def _at(self, tickers) -> np.ndarray:
        at = pd.Index(self.tickers).get_indexer(np.atleast_1d(np.asarray(tickers, dtype=object)))
        if (at < 0).any():
            raise KeyError(f"no history for {np.atleast_1d(tickers)[at < 0][:3].tolist()}")
        return at.astype(np.int64)

    def first_day(self, tickers) -> np.ndarray:
        return self._first[self._at(tickers)].astype("datetime64[D]")

    def price_at(self, tickers, days) -> np.ndarray:
        """β in force on each day (NaN before the first point)."""
        return self._price_at(self._at(tickers), days_since_1970(days))

    def _price_at(self, at: np.ndarray, d: np.ndarray) -> np.ndarray:
        position = self._levels.upto(at, d) - 1
        own = (position >= 0) & (self._levels.keys[np.maximum(position, 0)] // _SPAN == at)
        return np.where(own, self._levels.values[np.maximum(position, 0)], np.nan)

    def moved_between(self, tickers, after, upto) -> tuple[np.ndarray, np.ndarray]:
        """Per window (after, upto]: how many price changes, and the product of their ratios."""
        at = self._at(tickers)
        low, high = self._moves.upto(at, days_since_1970(after)), self._moves.upto(at, days_since_1970(upto))
        return (high - low).astype(float), np.exp(self._log_total[high] - self._log_total[low])

    def first_revision(self, tickers, after, upto) -> np.ndarray:
        """Per window (after, upto]: the kind of its first revision (`REVISIONS`), or "" for none."""
        at = self._at(tickers)
        low, high = self._revisions.upto(at, days_since_1970(after)), self._revisions.upto(at, days_since_1970(upto))
        kinds = np.full(len(at), "", dtype=object)
        hit = high > low
        kinds[hit] = self._revisions.values[low[hit]]
        return kinds

    def family_rose(self, tickers, days) -> np.ndarray:
        """Whether any model of each ticker's family (itself included) rose in price on or before each day."""
        return self._family_rises.count(self._family[self._at(tickers)], None, days_since_1970(days)) > 0

    def last_family_rise(self, tickers, days) -> list[str]:
        """The family's latest rise on or before each day, as "TICKER on YYYY-MM-DD" ("" where it
        never rose): the evidence `family_rose` reads."""
        at = self._at(tickers)
        family = self._family[at]
        position = self._family_rises.upto(family, np.broadcast_to(days_since_1970(days), at.shape)) - 1
        keys = self._family_rises.keys[np.maximum(position, 0)] if len(self._family_rises.keys) else position
        found = (position >= 0) & (keys // _SPAN == family)
        return [f"{self.tickers[self._family_rises.values[p]]} on {np.datetime64(int(k % _SPAN), 'D')}" if ok else ""
                for p, k, ok in zip(position.tolist(), np.asarray(keys).tolist(), found.tolist(), strict=True)]

    def changes_upto(self, tickers, days) -> np.ndarray:
        """How many price changes (revisions left out) each ticker had on or before each day."""
        return self._moves.count(self._at(tickers), None, days_since_1970(days))

    def age_months(self, tickers, days) -> np.ndarray:
        """Months from each ticker's first price to each day."""
        return months_between(self._first[self._at(tickers)], days_since_1970(days))

    def features(self, tickers, days) -> pd.DataFrame:
        """FEATURES of each (ticker, day) pair (each day on or after the ticker's first point),
        from what was dated on or before the day."""
        at = self._at(tickers)
        d = np.broadcast_to(days_since_1970(days), at.shape)
        first = self._first[at]
        n_changes = self._moves.count(at, None, d)
        past = self._moves.upto(at, d)
        last_change = first  # with no change anywhere yet (an early anchor), each ticker's first point
        if len(self._moves.keys):
            last_change = np.where(n_changes > 0, self._moves.keys[np.maximum(past - 1, 0)] - at * _SPAN, first)
        price = self._price_at(at, d)
        recent = d - RECENT_DAYS
        provider, family = self._provider[at], self._family[at]
        provider_live = self._provider_firsts.count(provider, None, d)
        family_moves = self._family_moves.count(family, recent, d) - self._moves.count(at, recent, d)
        ruled = self._ruled_tier[at]
        frontier = np.where(ruled != "", ruled == "frontier", price >= FRONTIER_OUTPUT_FLOOR)
        priced_mid = (price < FRONTIER_OUTPUT_FLOOR) & (price > EFFICIENT_OUTPUT_CEILING)
        mid = np.where(ruled != "", ruled == "mid", priced_mid)
        cls = self._class[at]
        return pd.DataFrame({
            "log_age": np.log1p(months_between(first, d)),
            "log_since_change": np.log1p(months_between(last_change, d)),
            "changed_before": (n_changes > 0).astype(float),
            "log_changes": np.log1p(n_changes),
            "pointer": (cls == POINTER).astype(float), "preview": (cls == PREVIEW).astype(float),
            "unversioned": (cls == UNVERSIONED).astype(float),
            "frontier": frontier.astype(float), "mid": mid.astype(float),
            "reasoning": self._reasoning[at],
            "log_price": np.log(price),
            "provider_rate": np.log1p(10 * self._provider_moves.count(provider, recent, d)
                                      / np.maximum(provider_live, 1)),
            "family_changed": (family_moves > 0).astype(float),
            "newer_in_family": (self._family_firsts.count(family, first, d) > 0).astype(float),
        })[FEATURES]


PANEL_COLUMNS = ["ticker", "anchor", "months", "name_class", "family_rose", "changed", "ratio", *FEATURES]


def window_panel(histories: Histories, as_of: date, horizons=(1,), tickers: list[str] | None = None) -> pd.DataFrame:
    """Every (model, first day of a month a, horizon h in whole months) with a on or after the
    model's first point and a + h months on or before `as_of`: PANEL_COLUMNS, by horizon, ticker
    and anchor. `changed` says whether the price changed in (a, a + h months], `ratio` is the
    product of those changes (1 where there were none); `family_rose` whether the family had
    risen in price by a. `tickers` (default: every model) limits the models."""
    chosen = histories.tickers if tickers is None else list(tickers)
    if not chosen:
        return pd.DataFrame(columns=PANEL_COLUMNS)
    first = histories.first_day(chosen)
    first_month = first.astype("datetime64[M]")
    # The first month start on or after the first point, and the last on or before as_of.
    start = np.where(first_month.astype("datetime64[D]") == first, first_month, first_month + 1).astype(np.int64)
    last = np.datetime64(as_of, "M").astype(np.int64)
    tickers, anchors, months = [], [], []
    for h in horizons:
        count = np.maximum(last - h - start + 1, 0)
        at = np.repeat(np.arange(len(chosen)), count)
        offset = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
        tickers.append(at)
        anchors.append(start[at] + offset)
        months.append(np.full(len(at), h))
    at, anchor_month, h = np.concatenate(tickers), np.concatenate(anchors), np.concatenate(months)
    names = np.asarray(chosen, dtype=object)[at]
    anchor = anchor_month.astype("datetime64[M]").astype("datetime64[D]")
    end = (anchor_month + h).astype("datetime64[M]").astype("datetime64[D]")
    count, ratio = histories.moved_between(names, anchor, end)
    frame = histories.features(names, anchor)
    frame.insert(0, "ticker", names)
    frame.insert(1, "anchor", anchor.astype(object))
    frame.insert(2, "months", h.astype(float))
    frame.insert(3, "name_class", [histories.name_class[t] for t in names])
    frame.insert(4, "family_rose", histories.family_rose(names, anchor))
    frame.insert(5, "changed", (count > 0) & (np.abs(ratio - 1.0) > SAME))
    frame.insert(6, "ratio", ratio)
    return frame[PANEL_COLUMNS]
