"""`GET /v1/forwards`: every model's forward curve in one answer.

The per-model endpoint (`/v1/forwards/{ticker}`) answers one curve; a board of every model's
forwards would otherwise cost one request per model, which no client on the free tier can
afford. Each curve here is exactly what the per-model endpoint gives for that model and mode.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get
from litestar.params import Parameter

from serve.api.curves import MODES, SYNC, ForwardCurve, memoized, one_of
from serve.api.market import record_of
from serve.deps import settings_of, snapshot_of
from serve.respond import envelope, envelope_type, records, snapshot_response
from serve.state import LoadedSnapshot

ForwardCurveList = envelope_type("ForwardCurveListResponse", list[ForwardCurve])
POINT_COLUMNS = ["tenor", "ticker_forward", "months", "beta_forward", "decay_factor", "p05", "p95"]
PROCESS = ("sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight")


def every_forward_curve(snapshot: LoadedSnapshot, mode: str) -> list[dict[str, Any]]:
    """One curve per model with a `mode` curve, in ticker order, shaped as the per-model answer.

    Built from one pass over the table (a filter per model would cost a table scan each)."""
    curves = snapshot.table("forward_curves")
    rows = curves[(curves["mode"] == mode).to_numpy(dtype=bool)].sort_values(["ticker", "months"], kind="stable")
    points = records(rows, ["ticker", "spot", *POINT_COLUMNS])
    suffix = "" if mode == SYNC else "_batch"
    answer: list[dict[str, Any]] = []
    for point in points:
        ticker = point.pop("ticker")
        spot = point.pop("spot")
        if not answer or answer[-1]["ticker"] != ticker:
            model = record_of(snapshot, "greeks", ticker)
            answer.append({
                "ticker": ticker,
                "ticker_forward_prefix": ticker if mode == SYNC else model["ticker_batch"],
                "mode": mode,
                "model_id": model["model_id"],
                "display_name": model["display_name"],
                "provider": model["provider"],
                "spot": spot,
                "theta": model[f"theta{suffix}"],
                "forwards": [],
                **{name: model[f"{name}{suffix}"] for name in PROCESS},
                "as_of": snapshot.as_of,
            })
        answer[-1]["forwards"].append(point)
    return answer


@get("/v1/forwards", summary="Forward curves of every model", tags=["curves"],
     description="Every model's forward curve in one answer, in ticker order, each exactly as "
                 "`/v1/forwards/{ticker}` gives it. `mode` is sync (the default) or batch; in batch mode only the "
                 "models sold in batch appear.")
async def every_forward(
    request: Request,
    mode: Annotated[str, Parameter(description="sync (the default) or batch", schema_extra={"enum": list(MODES)})]
    = SYNC,
) -> Response[ForwardCurveList]:
    chosen = one_of("mode", mode, MODES)
    snapshot = snapshot_of(request)
    data = memoized(snapshot, ("every_forward", chosen), lambda: every_forward_curve(snapshot, chosen))
    return snapshot_response(request, snapshot, envelope(snapshot, data), settings_of(request).cache_max_age_seconds)


ROUTES = [every_forward]
