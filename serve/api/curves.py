"""Snapshot series: forward curves, price history, the index, events, the backtest and its headline.

Every answer is read from the current snapshot's tables, wrapped in the success envelope and sent
with ETag and Cache-Control. Query parameters are checked here: a value outside its allowed set is
a 400 that lists the allowed values, a range that runs backwards is a 400 on its first bound, and
a model nobody calls by that name is a 404 with suggestions.
"""

from __future__ import annotations

import difflib
from datetime import date, timedelta
from typing import Annotated, Any

import msgspec
import numpy as np
import pandas as pd
from litestar import Response
from litestar.params import Parameter

from pipelines.backtest import METHODS, TENOR_MONTHS
from pipelines.events import EVENT_KINDS, VIEW_CHANGES, recent_events, with_original_names
from pipelines.history import build_price_history
from pipelines.history_points import INTERVALS, POINTS, change_points, period_ends
from pipelines.listings import PRICE_FIELDS
from pipelines.observations import as_known_on
from pipelines.scorecard import headline
from serve.deps import Reply
from serve.event_pages import event_page
from serve.forward_curves import FORWARD_POINT, ForwardCurve, forward_curve_answer
from serve.model_mode import ModelInMode
from serve.params import (
    BATCH,
    DEFAULT_LIMIT,
    LimitParam,
    ModeParam,
    enum_param,
    one_of,
)
from serve.problems import Problem, invalid
from serve.records import memoized, table_records, ticker_of
from serve.respond import envelope_type, plain, records
from serve.routing import get
from serve.state import LoadedSnapshot
from serve.structs import struct_from_schema
from warehouse.schemas import (
    ACCURACY,
    BACKTEST,
    BACKTEST_FAMILIES,
    BACKTEST_RELIABILITY,
    BACKTEST_SUMMARY,
    EVENTS,
)

BACKTEST_TENORS = tuple(TENOR_MONTHS)
EVENTS_WINDOW_DAYS = 30
METHODOLOGY = "docs/methodology.md"
ACCURACY_NOTE = (
    "Each row scores the oracle's sync output-price forecasts at one tenor against the realised price, beside "
    "the flat forward and the single-exponential baseline, for every model (scope all) and for fixed-name models "
    "(scope fixed_name); cases whose window holds a source revision are left out. Lower is better for crps (the "
    "whole distribution, in units of the spot), brier (the chance of change, beside the base rate's), rel_rmse "
    "and log_rmse (the mean), mape and median_ape (the median); coverage is the randomised-PIT share inside the "
    "90% band (90% is calibrated); bias is in percent of spot. Standard errors are by a block bootstrap over "
    "tickers. Rows of scope line score line forwards (the price of whatever model a line offers at the horizon) "
    "against flat and against the fixed model's own forecast (the _fixed columns; single_exp is null there): "
    "changed_share is the share of outcomes where the line had moved to a successor, brier scores the chance of a "
    "successor beside every line's pooled rate, and the standard errors are by a block bootstrap over lines "
    "(`blocks` counts the bootstrap's units). `reliability` compares the predicted chance of change with how "
    "often a change came."
)

# --- response shapes -------------------------------------------------------------------------------

# A day of the history: its date as `timestamp` and its output price as `beta`, then every other of
# the PRICE_FIELDS and where the prices come from.
PricePoint = msgspec.defstruct("PricePoint", [
    ("timestamp", str), ("beta", float | None), *((name, float | None) for name in PRICE_FIELDS if name != "output"),
    ("tiers", str | None), ("peak", str | None), ("source", str), ("source_version", str),
    ("source_url", str | None), ("provenance", str), ("observed_on", str)], kw_only=True, module=__name__)


class PriceHistory(msgspec.Struct, kw_only=True):
    ticker: str
    model_id: str
    display_name: str
    price_type: str
    from_: str | None = msgspec.field(name="from")
    to: str
    prices: list[PricePoint]
    count: int


# Ours, then the original oracle's names beside them (`pipelines.events.with_original_names`).
Event = struct_from_schema("Event", EVENTS, extra=[
    ("model_id", str | None), ("display_name", str | None), ("price_type", str), ("event_type", str),
    ("beta_before", float | None), ("beta_after", float | None), ("percent_change", float | None),
    ("pct_change_display", str | None), ("detected_at", str | None)])


class EventList(msgspec.Struct, kw_only=True):
    events: list[Event]
    count: int
    since: str
    ticker: str | None
    kind: str | None
    limit: int
    truncated: Annotated[bool, msgspec.Meta(
        description="More events match than this page holds: ask again with `cursor` set to `next_cursor`")]
    next_cursor: Annotated[str | None, msgspec.Meta(
        description="The `cursor` of the next page; null when this page ends the list")]


BacktestPrediction = struct_from_schema("BacktestPrediction", BACKTEST)
BacktestSummaryRow = struct_from_schema("BacktestSummaryRow", BACKTEST_SUMMARY)
BacktestFamilyRow = struct_from_schema("BacktestFamilyRow", BACKTEST_FAMILIES)


class Backtest(msgspec.Struct, kw_only=True):
    summary: list[BacktestSummaryRow]
    families: list[BacktestFamilyRow]
    predictions: list[BacktestPrediction]
    count: int
    total: int
    limit: int
    offset: int
    next_offset: int | None


AccuracyRow = struct_from_schema("AccuracyRow", ACCURACY)
ReliabilityRow = struct_from_schema("ReliabilityRow", BACKTEST_RELIABILITY)


class Accuracy(msgspec.Struct, kw_only=True):
    headline: Annotated[str, msgspec.Meta(description="In words: where the forecast beats the flat forward")]
    tenors: list[AccuracyRow]
    reliability: list[ReliabilityRow]
    methods: list[str]
    methodology: str
    note: str


ForwardsResponse = envelope_type("ForwardCurveResponse", ForwardCurve)
HistoryResponse = envelope_type("PriceHistoryResponse", PriceHistory)
EventsResponse = envelope_type("EventListResponse", EventList)
BacktestResponse = envelope_type("BacktestResponse", Backtest)
AccuracyResponse = envelope_type("AccuracyResponse", Accuracy)

# --- query parameters ------------------------------------------------------------------------------


def _ordered(first: tuple[str, date | None], second: tuple[str, date | None]) -> None:
    (start_name, start), (end_name, end) = first, second
    if start is not None and end is not None and start > end:
        raise invalid(start_name, f"{start.isoformat()} is after {end_name} ({end.isoformat()})")


def _model_and_mode(snapshot: LoadedSnapshot, name: str, mode: str | None) -> tuple[dict[str, Any], str]:
    """The model's Greek-sheet record and the mode asked for (`serve.model_mode`)."""
    model = ModelInMode.of(snapshot, name, mode, model_field="ticker")
    return model.greeks(snapshot), model.mode


# --- forwards --------------------------------------------------------------------------------------


def _forward_curve(snapshot: LoadedSnapshot, model: dict[str, Any], mode: str) -> dict[str, Any]:
    curves = snapshot.table("forward_curves")
    rows = curves[(curves["ticker"] == model["ticker"]) & (curves["mode"] == mode)].sort_values("months")
    if rows.empty:
        raise Problem(404, "no_forward_curve", f"no {mode} forward curve is published for {model['ticker']}")
    return forward_curve_answer(snapshot, model, mode, plain(rows["spot"].iloc[0]), records(rows, FORWARD_POINT))


@get("/v1/forwards/{ticker:path}", summary="Forward curve of one model", tags=["curves"],
     description="Expected output price (β, the mean), its median and 5%–95% band and the chance of a change at "
                 "1M, 2M, 3M, 6M, 9M and 12M, from any scheduled price, with the change law behind them "
                 "(methodology §4–5). `mode` is sync or batch; it "
                 "defaults to sync, or to batch when the ticker is a batch ticker (`SONNET-4.B`). Forward "
                 "tickers are `ticker_forward_prefix`-tenor, e.g. `SONNET-4.B-3M`.")
async def forwards(reply: Reply, ticker: str, mode: ModeParam = None) -> Response[ForwardsResponse]:
    snapshot = reply.snapshot
    model, chosen = _model_and_mode(snapshot, ticker, mode)
    data = memoized(snapshot, ("forwards", model["ticker"], chosen), lambda: _forward_curve(snapshot, model, chosen))
    return reply(data)


# --- history ---------------------------------------------------------------------------------------


def _series_positions(snapshot: LoadedSnapshot) -> dict[tuple[str, str], np.ndarray]:
    """Row positions of each (ticker, mode) series of `price_history`, in date order."""
    def compute() -> dict[tuple[str, str], np.ndarray]:
        history = snapshot.table("price_history")
        order = np.argsort(history["date"].to_numpy(), kind="stable")
        groups = history.iloc[order].groupby(["ticker", "mode"], sort=False).indices
        return {key: order[positions] for key, positions in groups.items()}
    return memoized(snapshot, ("history_positions",), compute)


def _price_points(rows: pd.DataFrame) -> list[dict[str, Any]]:
    names = list(PricePoint.__struct_fields__)
    columns = ["date", "output", *names[2:]]
    return [{name: row[column] for name, column in zip(names, columns, strict=True)}
            for row in records(rows, columns)]


def _known_series(snapshot: LoadedSnapshot, ticker: str, mode: str, day: date) -> pd.DataFrame:
    """One series of the history as it could be built on `day`, from the model's statements as
    known then (`pipelines.observations.as_known_on`): each series is built from its ticker's alone."""
    observations = snapshot.table("price_observations")
    history = build_price_history(as_known_on(observations[observations["ticker"] == ticker], day), day)
    return history[history["mode"] == mode].sort_values("date", kind="stable").reset_index(drop=True)


@get("/v1/history/{ticker:path}", summary="Daily price history of one model, with provenance", tags=["curves"],
     description="One point a day from `from` (default: the series' first day) to `to` (default: the snapshot "
                 "date), both inclusive. `beta` is the output price. Each point carries its source, version, URL "
                 "and provenance (`published`, `archived`, `first_observed`, `current`, or `carried_forward` "
                 "for a day that repeats the last observation). `mode` as for forwards. `points=changes` keeps "
                 "only the days a price changed (and the first); `interval=week` or `month` keeps the last day "
                 "of each week or month (the price then in force). `as_known=D` gives the history as it could "
                 "be known on D: built from the statements published by D (a price published later, even one "
                 "dated earlier, does not reach it), ending on D; without it, today's best knowledge of every "
                 "day.")
async def history(
    reply: Reply,
    ticker: str,
    from_: Annotated[date | None, Parameter(query="from", description="first day, YYYY-MM-DD")] = None,
    to: Annotated[date | None, Parameter(description="last day, YYYY-MM-DD; default the snapshot date")] = None,
    mode: ModeParam = None,
    points: Annotated[str, enum_param("daily (every day) or changes (the days a price changed)", POINTS)] = "daily",
    interval: Annotated[str, enum_param("day, week or month: the last day of each", INTERVALS)] = "day",
    as_known: Annotated[date | None, Parameter(description="the history as known on this day, YYYY-MM-DD (on or "
                                                           "before the snapshot date); it ends there")] = None,
) -> Response[HistoryResponse]:
    snapshot = reply.snapshot
    if as_known is not None and as_known > snapshot.as_of_day:
        raise invalid("as_known", f"{as_known.isoformat()} is after the snapshot date {snapshot.as_of}: nothing "
                                  "is known of it yet")
    end = to or as_known or snapshot.as_of_day
    if as_known is not None and end > as_known:
        raise invalid("to", f"{end.isoformat()} is after as_known ({as_known.isoformat()}): a history known on a "
                            "day ends on it")
    _ordered(("from", from_), ("to", end))
    one_of("points", points, POINTS)
    one_of("interval", interval, INTERVALS)
    if points == "changes" and interval != "day":
        raise invalid("interval", "change points are already sparse: send points=changes or an interval, not both")
    model, chosen = _model_and_mode(snapshot, ticker, mode)
    if as_known is None:
        table = snapshot.table("price_history")
        rows = table.iloc[_series_positions(snapshot).get((model["ticker"], chosen), np.empty(0, dtype=int))]
    else:
        rows = _known_series(snapshot, model["ticker"], chosen, as_known)
    dates = rows["date"]
    keep = (dates <= end) if from_ is None else (dates >= from_) & (dates <= end)
    rows = rows[keep.to_numpy(dtype=bool)]
    rows = rows[change_points(rows, [*PRICE_FIELDS, "tiers", "peak"]) if points == "changes"
                else period_ends(rows["date"], interval)]
    prices = _price_points(rows)
    first = from_ or (dates.iloc[0] if len(dates) else None)
    return reply({
        "ticker": model["ticker"], "model_id": model["model_id"], "display_name": model["display_name"],
        "price_type": chosen, "from": plain(first), "to": end.isoformat(), "prices": prices, "count": len(prices),
    })


# --- events ----------------------------------------------------------------------------------------


@get("/v1/events", summary="Recent price events", tags=["curves"],
     description=f"Price changes on or after `since` (default: {EVENTS_WINDOW_DAYS} days before the snapshot "
                 "date), newest first, at most `limit` (default 100). `ticker` takes any name of a model; a batch "
                 "ticker (`X.B`) selects that model's batch events. `kind` is one of "
                 f"{', '.join(EVENT_KINDS)}; without it, every kind but {', '.join(VIEW_CHANGES)} (a change in "
                 "what the oracle sees, no one's own price). `pct_change` is a fraction (−0.125 is a 12.5% cut) and "
                 "`percent_change` the same in percent; beside our names each event carries the original "
                 "oracle's: model_id, display_name, price_type (the mode), event_type, beta_before and beta_after "
                 "(the output price, on output events), pct_change_display and detected_at (the day the source "
                 "published the evidence). `truncated` says more events match than the page holds; then "
                 "`next_cursor` is the `cursor` that asks for the next page (null on the last page), so every "
                 "event of the window is read once, in order.")
async def events(
    reply: Reply,
    since: Annotated[date | None, Parameter(description="first effective date, YYYY-MM-DD")] = None,
    ticker: Annotated[str | None, Parameter(description="a ticker, batch ticker, model id or alias")] = None,
    kind: Annotated[str | None, enum_param("the kind of event", EVENT_KINDS)] = None,
    limit: LimitParam = DEFAULT_LIMIT,
    cursor: Annotated[str | None, Parameter(
        max_length=2000, description="the `next_cursor` of the page before, unchanged; none: the first page")] = None,
) -> Response[EventsResponse]:
    one_of("kind", kind, EVENT_KINDS)
    snapshot = reply.snapshot
    start = since or snapshot.as_of_day - timedelta(days=EVENTS_WINDOW_DAYS)
    table = snapshot.table("events")
    canonical = None
    if ticker is not None:
        resolved = ticker_of(snapshot, ticker)
        canonical = resolved.ticker
        if resolved.mode == BATCH:
            table = table[table["mode"] == BATCH]
    page = event_page(recent_events(table, start, ticker=canonical, kind=kind), cursor, limit)
    rows = records(with_original_names(page.events, snapshot.table("spots")))
    return reply({"events": rows, "count": len(rows), "since": start.isoformat(), "ticker": canonical, "kind": kind,
                  "limit": limit, "truncated": page.truncated, "next_cursor": page.next_cursor})


# --- backtest and accuracy -------------------------------------------------------------------------


def _family_of(snapshot: LoadedSnapshot, family: str) -> str:
    names = memoized(snapshot, ("backtest_family_names",),
                  lambda: {name.lower(): name for name in snapshot.table("backtest")["family"].unique()})
    found = names.get(family.strip().lower())
    if found is None:
        close = difflib.get_close_matches(family.strip().lower(), list(names), n=5, cutoff=0.5)
        hint = (f"did you mean {', '.join(names[c] for c in close)}?" if close
                else "families are maker/line, e.g. openai/o-series")
        raise invalid("family", f"no backtested family is called '{family}'; {hint}")
    return found


def _where(frame: pd.DataFrame, **equal: str | None) -> pd.DataFrame:
    keep = np.ones(len(frame), dtype=bool)
    for column, value in equal.items():
        if value is not None:
            keep &= (frame[column] == value).to_numpy(dtype=bool)
    return frame[keep]


@get("/v1/backtest", summary="Forward-curve backtest", tags=["curves"],
     description="Walk-forward scores of the oracle's forecasts against a flat forward and a single-exponential "
                 "baseline (methodology §9): the tenor summary, the family breakdown (filtered by tenor, method "
                 "and family when given) and the individual predictions, filtered by every parameter and "
                 f"paginated by `limit` (default {DEFAULT_LIMIT}) and `offset` (default 0). `total` counts the "
                 "predictions that match; `next_offset` is null on the last page.")
async def backtest(
    reply: Reply,
    tenor: Annotated[str | None, enum_param("forecast horizon", BACKTEST_TENORS)] = None,
    method: Annotated[str | None, enum_param("forecasting method", METHODS)] = None,
    ticker: Annotated[str | None, Parameter(description="a model's ticker, model id or alias")] = None,
    family: Annotated[str | None, Parameter(description="a model family, e.g. openai/o-series")] = None,
    anchor_from: Annotated[date | None, Parameter(description="first anchor date, YYYY-MM-DD")] = None,
    anchor_to: Annotated[date | None, Parameter(description="last anchor date, YYYY-MM-DD")] = None,
    limit: LimitParam = DEFAULT_LIMIT,
    offset: Annotated[int, Parameter(ge=0, description="predictions to skip; default 0")] = 0,
) -> Response[BacktestResponse]:
    one_of("tenor", tenor, BACKTEST_TENORS)
    one_of("method", method, METHODS)
    _ordered(("anchor_from", anchor_from), ("anchor_to", anchor_to))
    snapshot = reply.snapshot
    canonical = None
    if ticker is not None:
        resolved = ticker_of(snapshot, ticker)
        if resolved.mode == BATCH:
            raise invalid("ticker", f"the backtest scores sync prices only; ask for {resolved.ticker}")
        canonical = resolved.ticker
    family = _family_of(snapshot, family) if family is not None else None
    predictions = _where(snapshot.table("backtest"), tenor=tenor, method=method, ticker=canonical, family=family)
    if anchor_from is not None:
        predictions = predictions[(predictions["anchor"] >= anchor_from).to_numpy(dtype=bool)]
    if anchor_to is not None:
        predictions = predictions[(predictions["anchor"] <= anchor_to).to_numpy(dtype=bool)]
    page = records(predictions.iloc[offset:offset + limit])
    total = len(predictions)
    families = memoized(snapshot, ("backtest_families", tenor, method, family), lambda: records(
        _where(snapshot.table("backtest_families"), tenor=tenor, method=method, family=family)))
    return reply({
        "summary": table_records(snapshot, "backtest_summary"), "families": families, "predictions": page,
        "count": len(page), "total": total, "limit": limit, "offset": offset,
        "next_offset": offset + len(page) if offset + len(page) < total else None,
    })


@get("/v1/accuracy", summary="Backtest headline: accuracy per tenor against the baselines", tags=["curves"],
     description="One row per scope and tenor: the oracle's CRPS, Brier score, relative and log-ratio RMSE, MAPE, "
                 "median APE, bias and randomised-PIT coverage of its 90% band beside the flat forward's and the "
                 "single-exponential baseline's (and the base rate's Brier score), with block-bootstrap standard "
                 "errors and a verdict in words; rows of scope `line` score the line forwards the same way, "
                 "beside flat and the fixed model's own forecast; the reliability of the chance of change; and a "
                 "headline (methodology §9).")
async def accuracy(reply: Reply) -> Response[AccuracyResponse]:
    snapshot = reply.snapshot
    return reply(memoized(snapshot, ("accuracy",), lambda: {
        "headline": headline(snapshot.table("accuracy")), "tenors": table_records(snapshot, "accuracy"),
        "reliability": table_records(snapshot, "backtest_reliability"), "methods": list(METHODS),
        "methodology": METHODOLOGY, "note": ACCURACY_NOTE}))


ROUTES = [forwards, history, events, backtest, accuracy]
