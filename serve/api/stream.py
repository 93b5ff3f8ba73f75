"""`GET /v1/events/stream`: price events as server-sent events, as snapshots are published."""

from __future__ import annotations

from typing import Annotated

from litestar import get
from litestar.params import Parameter
from litestar.response import Stream

from pipelines.events import EVENT_KINDS
from serve.event_stream import event_stream
from serve.params import BATCH, enum_param, one_of
from serve.records import ticker_of
from serve.state import LoadedSnapshot, SnapshotState


@get("/v1/events/stream", summary="Price events as they are published (server-sent events)", tags=["curves"],
     description="A text/event-stream that sends each price event a newly published snapshot adds (event "
                 "`price_event`, its data the event as `/v1/events` gives it, its id `<snapshot id>:<event id>`), "
                 "filtered by `ticker` (any name; a batch ticker `X.B` selects batch events) and `kind`. Send the "
                 "last id you saw as `Last-Event-ID` to get what was published since, while that snapshot is "
                 "kept; otherwise a `reset` event says to read `/v1/events`. A comment every 15 s keeps the "
                 "connection open. The stream counts as one request.")
async def events_stream(
    snapshots: SnapshotState,
    snapshot: LoadedSnapshot,
    ticker: Annotated[str | None, Parameter(description="a ticker, batch ticker, model id or alias")] = None,
    kind: Annotated[str | None, enum_param("the kind of event", EVENT_KINDS)] = None,
    last_event_id: Annotated[str | None, Parameter(header="Last-Event-ID", description="the id of the last event "
                                                                                      "received")] = None,
) -> Stream:
    one_of("kind", kind, EVENT_KINDS)
    canonical = mode = None
    if ticker is not None:
        resolved = ticker_of(snapshot, ticker)
        canonical, mode = resolved.ticker, BATCH if resolved.mode == BATCH else None
    return Stream(event_stream(snapshots, snapshot, last_event_id, canonical, mode, kind),
                  media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


ROUTES = [events_stream]
