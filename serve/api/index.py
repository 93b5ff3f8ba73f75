"""The Inference Cost Index: today's level, the baskets of its history, and its published record."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Annotated, Any

import msgspec
import pandas as pd
from litestar import Response
from litestar.params import Parameter

from serve.deps import Reply
from serve.params import enum_param, one_of
from serve.problems import Problem, invalid
from serve.records import memoized, optional_table
from serve.respond import envelope_type, records
from serve.routing import get
from serve.state import LoadedSnapshot
from serve.structs import struct_from_schema
from warehouse.schemas import ICI, ICI_CONSTITUENTS, ICI_HISTORY, ICI_PUBLISHED, ICI_REVISIONS

ICI_TYPES = ("unified", "batch", "sync")
LEVEL_FIELDS = ("type", "value", "as_of", "methodology_version", "verification_hash", "link_factor", "covers",
                "rebalance_date", "carried_forward", "oldest_input_days")

IciConstituent = struct_from_schema("IciConstituent", ICI, exclude=LEVEL_FIELDS)
IciPoint = struct_from_schema("IciPoint", ICI_HISTORY, exclude=("type",))
BasketMember = struct_from_schema("IciBasketMember", ICI_CONSTITUENTS, exclude=("rebalance_date", "type"))
PublishedLevel = struct_from_schema("IciPublishedLevel", ICI_PUBLISHED, exclude=("type",))
Revision = struct_from_schema("IciRevision", ICI_REVISIONS, exclude=("type",))


IciLevel = struct_from_schema("IciLevel", ICI, only=LEVEL_FIELDS,
                              extra=[("constituents", list[IciConstituent]), ("history", list[IciPoint])])


class IciBasket(msgspec.Struct, kw_only=True):
    type: str
    date: str
    rebalance_date: str
    constituents: list[BasketMember]


class IciRecord(msgspec.Struct, kw_only=True):
    type: str
    levels: list[PublishedLevel]
    revisions: list[Revision]
    count: int


IciResponse = envelope_type("IciResponse", IciLevel)
IciBasketResponse = envelope_type("IciBasketResponse", IciBasket)
IciRecordResponse = envelope_type("IciRecordResponse", IciRecord)
TypeParam = Annotated[str, enum_param("unified (the default), batch or sync", ICI_TYPES, query="type")]


NO_INDEX_RECORD = "no_index_record"  # the code of a 503 for a snapshot published before the index kept a table


def _table(snapshot: LoadedSnapshot, name: str) -> pd.DataFrame:
    return optional_table(snapshot, name, NO_INDEX_RECORD, "the index kept it")


def _of_variant(reply: Reply, type_: str, name: str,
                build: Callable[[LoadedSnapshot, str], dict[str, Any]]) -> Response:
    """The answer `build` makes for the variant asked for, once per snapshot and variant."""
    variant = one_of("type", type_, ICI_TYPES)
    snapshot = reply.snapshot
    return reply(memoized(snapshot, (name, variant), lambda: build(snapshot, variant)))


def _ici_level(snapshot: LoadedSnapshot, variant: str) -> dict[str, Any]:
    ici = snapshot.table("ici")
    rows = ici[ici["type"] == variant]
    if rows.empty:
        raise Problem(503, "no_index_level", f"the snapshot publishes no {variant} index level")
    head = records(rows.head(1))[0]
    daily = snapshot.table("ici_history")
    return {
        **{name: head[name] for name in LEVEL_FIELDS},
        "constituents": records(rows, ["ticker", "weight", "price", "contribution"]),
        "history": records(daily[daily["type"] == variant], list(IciPoint.__struct_fields__)),
    }


@get("/v1/ici", summary="The Inference Cost Index", tags=["index"],
     description="`type` is unified (the default when omitted), batch or sync. Returns the chain-linked level on "
                 "the snapshot date; `covers`, which basket the variant covers (batch covers only the constituents "
                 "with a batch price: another basket than sync's, so the two levels are no comparison of batch "
                 "with sync); its constituents with weights, prices and contributions (link_factor · weight · "
                 "price, which sum to the value); the verification hash that recomputes from them and the link "
                 "factor (methodology §7); how many constituents are priced from a statement older than the day "
                 "and the age of the oldest; and the daily history of that variant (null where it had no level), "
                 "with the composition effect of each change of basket (the jump the level would have made were "
                 "it not chain-linked).")
async def ici(reply: Reply, type_: TypeParam = ICI_TYPES[0]) -> Response[IciResponse]:
    return _of_variant(reply, type_, "ici", _ici_level)


@get("/v1/ici/constituents", summary="The index basket in force on a date", tags=["index"],
     description="The basket fixed on the last rebalance date on or before `date` (default: the snapshot date), "
                 "as it was chosen then: each constituent's tier and host count on that date, its weight, and its "
                 "price in the variant on that date (null where it had none).")
async def ici_constituents(
    reply: Reply,
    type_: TypeParam = ICI_TYPES[0],
    on: Annotated[date | None, Parameter(query="date", description="YYYY-MM-DD; default the snapshot date")] = None,
) -> Response[IciBasketResponse]:
    variant = one_of("type", type_, ICI_TYPES)
    snapshot = reply.snapshot
    day = on or snapshot.as_of_day
    table = _table(snapshot, "ici_constituents")
    days = sorted(set(table["rebalance_date"]))
    if not days or day < days[0] or day > snapshot.as_of_day:
        first = days[0].isoformat() if days else "none"
        raise invalid("date", f"{day.isoformat()} is outside the index's history ({first} to {snapshot.as_of})")
    rebalance = max(d for d in days if d <= day)
    rows = table[(table["rebalance_date"] == rebalance) & (table["type"] == variant)]
    return reply({
        "type": variant, "date": day.isoformat(), "rebalance_date": rebalance.isoformat(),
        "constituents": records(rows, list(BasketMember.__struct_fields__)),
    })


def _record(snapshot: LoadedSnapshot, variant: str) -> dict[str, Any]:
    published, revisions = _table(snapshot, "ici_published"), _table(snapshot, "ici_revisions")
    levels = records(published[published["type"] == variant], list(PublishedLevel.__struct_fields__))
    return {"type": variant, "levels": levels, "count": len(levels),
            "revisions": records(revisions[revisions["type"] == variant], list(Revision.__struct_fields__))}


@get("/v1/ici/published", summary="The index as published, and every revision since", tags=["index"],
     description="Each level of the variant as first published (when, in which snapshot, under which "
                 "methodology version), which no later build rewrites, and every revision of a published level "
                 "(old and new level, why, when), oldest first.")
async def ici_published(reply: Reply, type_: TypeParam = ICI_TYPES[0]) -> Response[IciRecordResponse]:
    return _of_variant(reply, type_, "ici_record", _record)


ROUTES = [ici, ici_constituents, ici_published]
