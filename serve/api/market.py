"""Snapshot data: spots and the Greek sheet, each as a list and per ticker, and the disputes
between sources behind the prices."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Response
from litestar.params import Parameter

from pipelines.evidence import COMPARED_FIELDS, RULES
from pipelines.model_metadata import ACTIVE, DEPRECATED, RETIRED
from serve.deps import Reply
from serve.listing import LIST_DESCRIPTION, LIST_QUERY, PAGE_FIELDS, ListQuery, listed
from serve.params import BATCH
from serve.problems import invalid
from serve.records import record_of, table_records, ticker_of
from serve.respond import envelope_type
from serve.routing import get
from serve.state import LoadedSnapshot
from serve.structs import struct_from_schema
from warehouse.schemas import GREEKS, MODELS, PRICE_DISPUTES, SCHEDULED_CHANGES, SPOTS

Spot = struct_from_schema("Spot", SPOTS)
GreekSheet = struct_from_schema("GreekSheet", GREEKS, extra=[("family_prior_weight", float | None)])
SpotList = envelope_type("SpotListResponse", list[Spot], beside=PAGE_FIELDS)
SpotOne = envelope_type("SpotResponse", Spot)
GreekList = envelope_type("GreekListResponse", list[GreekSheet], beside=PAGE_FIELDS)
GreekOne = envelope_type("GreekResponse", GreekSheet)
Dispute = struct_from_schema("Dispute", PRICE_DISPUTES)
ModelRecord = struct_from_schema("ModelRecord", MODELS)
ModelList = envelope_type("ModelListResponse", list[ModelRecord])
ModelOne = envelope_type("ModelResponse", ModelRecord)
STATUSES = (ACTIVE, DEPRECATED, RETIRED)


class DisputeList(msgspec.Struct, kw_only=True):
    disputes: list[Dispute]
    count: int
    ticker: str | None
    field: str | None
    rules: dict[str, str]


DisputesResponse = envelope_type("DisputesResponse", DisputeList)
ScheduledChange = struct_from_schema("ScheduledChange", SCHEDULED_CHANGES)


class ScheduledList(msgspec.Struct, kw_only=True):
    scheduled_changes: list[ScheduledChange]
    count: int
    ticker: str | None


ScheduledResponse = envelope_type("ScheduledResponse", ScheduledList)


def _model_rows(snapshot: LoadedSnapshot, table: str, name: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The rows of `table` for the model called `name` (a batch ticker `X.B`: its batch rows), or
    every row without a name; and the model's ticker."""
    if name is None:
        return table_records(snapshot, table), None
    resolved = ticker_of(snapshot, name, batch=True)
    rows = [row for row in table_records(snapshot, table)
            if row["ticker"] == resolved.ticker and (resolved.mode != BATCH or row["mode"] == BATCH)]
    return rows, resolved.ticker


def _one(reply: Reply, table: str, name: str) -> Response:
    """The record of `table` for the model called `name`."""
    snapshot = reply.snapshot
    return reply(record_of(snapshot, table, ticker_of(snapshot, name).ticker))


@get("/v1/spots", summary="Spot prices of every model", tags=["market"], dependencies=LIST_QUERY,
     description=LIST_DESCRIPTION)
async def list_spots(reply: Reply, listing: ListQuery) -> Response[SpotList]:
    return listed(reply, table_records(reply.snapshot, "spots"), listing)


@get("/v1/spots/{ticker:path}", summary="Spot prices of one model", tags=["market"])
async def one_spot(reply: Reply, ticker: str) -> Response[SpotOne]:
    return _one(reply, "spots", ticker)


@get("/v1/greeks", summary="The Greek sheet of every model", tags=["market"], dependencies=LIST_QUERY,
     description=LIST_DESCRIPTION)
async def list_greeks(reply: Reply, listing: ListQuery) -> Response[GreekList]:
    return listed(reply, table_records(reply.snapshot, "greeks"), listing)


@get("/v1/greeks/{ticker:path}", summary="The Greek sheet of one model", tags=["market"])
async def one_greeks(reply: Reply, ticker: str) -> Response[GreekOne]:
    return _one(reply, "greeks", ticker)


@get("/v1/models", summary="The model registry: names, aliases, limits, modalities and lifecycle", tags=["market"],
     description="One record per model (contract §1): every name it answers to (`aliases`), display name and "
                 "where it comes from, context window, maximum output, input and output modalities, first seen, "
                 "and `status` (active, deprecated or retired) with `deprecated_on` and `retired_on` (which may "
                 "lie after the snapshot date: an announced retirement). `status` filters by status.")
async def list_models(
    reply: Reply,
    status: Annotated[str | None, Parameter(description="active, deprecated or retired")] = None,
) -> Response[ModelList]:
    if status is not None and status not in STATUSES:
        raise invalid("status", f"'{status}' is not a status; use one of {', '.join(STATUSES)}")
    rows = table_records(reply.snapshot, "models")
    return reply(rows if status is None else [r for r in rows if r["status"] == status])


@get("/v1/models/{ticker:path}", summary="One model's record", tags=["market"])
async def one_model(reply: Reply, ticker: str) -> Response[ModelOne]:
    return _one(reply, "models", ticker)


@get("/v1/disputes", summary="Where the sources disagree on a price, and the rule that decided", tags=["market"],
     description="Every (ticker, mode, field) on which some source's latest statement differs from the price in "
                 "force on the snapshot date: one row per source stating the field, with its value, the date it "
                 "asserts (`asserted_on`) and the date it was published (`published_on`), the chosen value, and "
                 "the `rule` that decided (each rule is explained in `rules`). `ticker` takes any name of a model "
                 "(a batch ticker `X.B` selects its batch disputes); "
                 f"`field` is one of {', '.join(COMPARED_FIELDS)}.")
async def disputes(
    reply: Reply,
    ticker: Annotated[str | None, Parameter(description="a ticker, model id or alias")] = None,
    field: Annotated[str | None, Parameter(description=f"one of {', '.join(COMPARED_FIELDS)}")] = None,
) -> Response[DisputesResponse]:
    if field is not None and field not in COMPARED_FIELDS:
        raise invalid("field", f"'{field}' is not a compared field; use one of {', '.join(COMPARED_FIELDS)}")
    rows, canonical = _model_rows(reply.snapshot, "price_disputes", ticker)
    rows = [row for row in rows if field is None or row["field"] == field]
    return reply({"disputes": rows, "count": len(rows), "ticker": canonical, "field": field, "rules": RULES})


@get("/v1/scheduled", summary="Price changes announced for a date after the snapshot", tags=["market"],
     description="Every price field that a source announces will change on a date after the snapshot: ticker, "
                 "mode, `effective_date`, field, `before` (the value in force before it), `after`, pct_change, the "
                 "source and version that announced it and `announced_on` (its publication date). Forwards, Monte "
                 "Carlo, swaps and budgets start from the announced price from its date. `ticker` takes any name "
                 "of a model (a batch ticker `X.B` selects its batch changes).")
async def scheduled(
    reply: Reply,
    ticker: Annotated[str | None, Parameter(description="a ticker, model id or alias")] = None,
) -> Response[ScheduledResponse]:
    rows, canonical = _model_rows(reply.snapshot, "scheduled_changes", ticker)
    return reply({"scheduled_changes": rows, "count": len(rows), "ticker": canonical})


ROUTES = [list_spots, one_spot, list_greeks, one_greeks, list_models, one_model, disputes, scheduled]
