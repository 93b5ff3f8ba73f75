"""`GET /v1/forwards`: every model's forward curve in one answer.

The per-model endpoint (`/v1/forwards/{ticker}`) answers one curve; a board of every model's
forwards would otherwise cost one request per model, which no client on the free tier can
afford. Each curve here is exactly what the per-model endpoint gives for that model and mode.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Response

from serve.deps import Reply
from serve.forward_curves import ForwardCurve, every_forward_curve
from serve.listing import LIST_DESCRIPTION, LIST_QUERY, PAGE_FIELDS, ListQuery, listed
from serve.params import MODES, SYNC, enum_param, one_of
from serve.records import memoized
from serve.respond import envelope_type
from serve.routing import get

ForwardCurveList = envelope_type("ForwardCurveListResponse", list[ForwardCurve], beside=PAGE_FIELDS)


@get("/v1/forwards", summary="Forward curves of every model", tags=["curves"],
     description="Every model's forward curve in one answer, in ticker order, each exactly as "
                 "`/v1/forwards/{ticker}` gives it. `mode` is sync (the default) or batch; in batch mode only the "
                 "models sold in batch appear. " + LIST_DESCRIPTION, dependencies=LIST_QUERY)
async def every_forward(
    reply: Reply,
    listing: ListQuery,
    mode: Annotated[str, enum_param("sync (the default) or batch", MODES)] = SYNC,
) -> Response[ForwardCurveList]:
    chosen = one_of("mode", mode, MODES)
    snapshot = reply.snapshot
    data = memoized(snapshot, ("every_forward", chosen), lambda: every_forward_curve(snapshot, chosen))
    return listed(reply, data, listing)


ROUTES = [every_forward]
