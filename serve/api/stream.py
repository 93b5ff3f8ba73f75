"""`GET /v1/events/stream`: price events as server-sent events, as snapshots are published."""

from __future__ import annotations

from typing import Annotated

from litestar import Request, get
from litestar.params import Parameter
from litestar.response import Stream

from pipelines.events import EVENT_KINDS
from serve.access_log import CLIENT_SCOPE_KEY
from serve.documented import problem
from serve.event_stream import event_stream, held_while_streaming, stream_slots
from serve.params import BATCH, enum_param, one_of
from serve.records import ticker_of
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState


def _client_address(request: Request) -> str:
    """The address access control decided (a trusted proxy's client, not the proxy)."""
    return request.scope.get(CLIENT_SCOPE_KEY) or (request.client.host if request.client else "unknown")


@get("/v1/events/stream", summary="Price events as they are published (server-sent events)", tags=["curves"],
     description="A text/event-stream that sends each price event a newly published snapshot adds (event "
                 "`price_event`, its data the event as `/v1/events` gives it, its id `<snapshot id>:<event id>`), "
                 "filtered by `ticker` (any name; a batch ticker `X.B` selects batch events) and `kind`. Send the "
                 "last id you saw as `Last-Event-ID` to get what was published since, while that snapshot is "
                 "kept; otherwise a `reset` event says to read `/v1/events`. A comment every 15 s (by default) "
                 "keeps the connection open. A stream lasts at most an hour (by default), then sends an `end` "
                 "event whose id resumes the next stream where this one stopped, and closes. One address may "
                 "hold 6 streams at once (by default; 429 beyond), the server a bounded number in all (503 "
                 "beyond), both with Retry-After. The stream counts as one request.",
     responses={429: problem("Over the hourly limit (code rate_limited), or as many streams open from this "
                             "address as it may hold (code too_many_streams), with Retry-After."),
                503: problem("No snapshot has been published yet, or the server holds as many streams as it "
                             "serves (code streams_full, with Retry-After).")})
async def events_stream(
    request: Request,
    settings: Settings,
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
    # Taken last, once the request is known good, and handed at once to the stream that gives it back.
    slot = stream_slots(request.app.state, settings).take(_client_address(request))
    stream = event_stream(snapshots, snapshot, last_event_id, canonical, mode, kind,
                          heartbeat=settings.stream_heartbeat_seconds, life=settings.stream_max_life_seconds)
    return Stream(held_while_streaming(stream, slot), media_type="text/event-stream",
                  headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


ROUTES = [events_stream]
