"""`GET /v1/forwards`: every model's forward curve in one answer.

The per-model endpoint (`/v1/forwards/{ticker}`) answers one curve; a board of every model's
forwards would otherwise cost one request per model, which no client on the free tier can
afford. Each curve here is exactly what the per-model endpoint gives for that model and mode.
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.params import Parameter

from serve.api.curves import FORWARD_POINT, MODES, SYNC, ForwardCurve, forward_curve_answer, memoized, one_of
from serve.api.market import record_of
from serve.deps import settings_of, snapshot_of
from serve.listing import LIST_DESCRIPTION, LIST_QUERY, PAGE_FIELDS, ListQuery, listed_answer
from serve.respond import envelope_type, records, snapshot_response
from serve.state import LoadedSnapshot

ForwardCurveList = envelope_type("ForwardCurveListResponse", list[ForwardCurve], beside=PAGE_FIELDS)


def every_forward_curve(snapshot: LoadedSnapshot, mode: str) -> list[dict[str, Any]]:
    """One curve per model with a `mode` curve, in ticker order, each built as the per-model
    endpoint builds it, from one pass over the table (not a table scan per model)."""
    curves = snapshot.table("forward_curves")
    rows = curves[(curves["mode"] == mode).to_numpy(dtype=bool)].sort_values(["ticker", "months"], kind="stable")
    answer = []
    for ticker, group in groupby(records(rows, ["ticker", "spot", *FORWARD_POINT]), key=itemgetter("ticker")):
        points = list(group)
        forwards = [{name: point[name] for name in FORWARD_POINT} for point in points]
        answer.append(forward_curve_answer(snapshot, record_of(snapshot, "greeks", ticker), mode, points[0]["spot"],
                                           forwards))
    return answer


@get("/v1/forwards", summary="Forward curves of every model", tags=["curves"],
     description="Every model's forward curve in one answer, in ticker order, each exactly as "
                 "`/v1/forwards/{ticker}` gives it. `mode` is sync (the default) or batch; in batch mode only the "
                 "models sold in batch appear. " + LIST_DESCRIPTION, dependencies=LIST_QUERY)
async def every_forward(
    request: Request,
    listing: ListQuery,
    mode: Annotated[str, Parameter(description="sync (the default) or batch", schema_extra={"enum": list(MODES)})]
    = SYNC,
) -> Response[ForwardCurveList]:
    chosen = one_of("mode", mode, MODES)
    snapshot = snapshot_of(request)
    data = memoized(snapshot, ("every_forward", chosen), lambda: every_forward_curve(snapshot, chosen))
    return snapshot_response(request, snapshot, listed_answer(snapshot, data, listing, request.url.path),
                             settings_of(request).cache_max_age_seconds)


ROUTES = [every_forward]
