"""How each list the API pages goes on: what a page's records are, and the call for the page after
it (None after the last). Three ways, as the API has them: the spot, Greek and forward lists give
the path of the next page (`next`), the backtest the offset of the next (`next_offset`), and the
events an opaque cursor (`next_cursor`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from oracle_client.call import Call
from oracle_client.models import (
    Backtest,
    BacktestPrediction,
    Event,
    EventList,
    ForwardCurve,
    ForwardCurveFields,
    ForwardCurveListResponse,
    GreekListResponse,
    GreekSheet,
    GreekSheetFields,
    Spot,
    SpotFields,
    SpotListResponse,
)

R = TypeVar("R")
I = TypeVar("I")  # noqa: E741 - an item of a list


@dataclass(frozen=True)
class Paging(Generic[R, I]):
    items: Callable[[R], Sequence[I]]
    following: Callable[[Call[R], R], Call[R] | None]
    how: str


def _next_path(call: Call[R], page: R) -> Call[R] | None:
    path = cast(Mapping[str, Any], page).get("next")
    return None if path is None else call.at(path)  # the path carries its query: filters, limit, offset


def _next_offset(call: Call[R], page: R) -> Call[R] | None:
    offset = cast(Mapping[str, Any], page).get("next_offset")
    return None if offset is None else call.with_query(offset=offset)


def _next_cursor(call: Call[R], page: R) -> Call[R] | None:
    cursor = cast(Mapping[str, Any], page).get("next_cursor")
    return None if cursor is None else call.with_query(cursor=cursor)


BY_NEXT = "following each page's `next`; `limit` is the page size"
LIST_SPOTS: Paging[SpotListResponse, Spot | SpotFields] = Paging(lambda page: page["data"], _next_path, BY_NEXT)
LIST_GREEKS: Paging[GreekListResponse, GreekSheet | GreekSheetFields] = Paging(
    lambda page: page["data"], _next_path, BY_NEXT)
EVERY_FORWARD: Paging[ForwardCurveListResponse, ForwardCurve | ForwardCurveFields] = Paging(
    lambda page: page["data"], _next_path, BY_NEXT)
BACKTEST_PREDICTIONS: Paging[Backtest, BacktestPrediction] = Paging(
    lambda page: page["predictions"], _next_offset, "the predictions, by `next_offset`; `limit` is the page size")
EVENTS: Paging[EventList, Event] = Paging(
    lambda page: page["events"], _next_cursor, "by `next_cursor`, each event once; `limit` is the page size")
