"""`/` (the service descriptor of interface-spec §2.1) and `/health` (contract §8)."""

from __future__ import annotations

import importlib.metadata
import platform
from datetime import UTC, datetime

import msgspec
from litestar import Request, Response

from serve.respond import iso_millis
from serve.routing import get
from serve.state import Freshness, SnapshotState

ENDPOINTS = {
    "health": "/health",
    "spots": "/v1/spots",
    "greeks": "/v1/greeks",
    "forwards": "/v1/forwards/:ticker",
    "forwards_all": "/v1/forwards?mode=sync or batch",
    "lines": "/v1/lines",
    "line_forwards": "/v1/lines/:maker/:name/forwards?mode=sync or batch",
    "line_by_name": "/v1/lines/:name/forwards",
    "price": "POST /v1/price",
    "compare": "POST /v1/compare",
    "history": "/v1/history/:ticker",
    "keys": {"create": "POST /v1/keys", "usage": "GET /v1/keys/usage", "revoke": "DELETE /v1/keys"},
    "ici": "/v1/ici?type=unified, batch or sync",
    "accuracy": "/v1/accuracy",
    "swap": "POST /v1/swap",
    "simulate": "POST /v1/simulate",
    "providers": "POST /v1/providers",
    "disputes": "/v1/disputes",
    "models": "/v1/models",
    "scheduled": "/v1/scheduled",
    "spot": "/v1/spots/:ticker",
    "greek_sheet": "/v1/greeks/:ticker",
    "model": "/v1/models/:ticker",
    "monte_carlo": "/v1/monte-carlo/:ticker",
    "events": "/v1/events",
    "backtest": "/v1/backtest",
    "task_types": "/v1/task-types",
    "ici_constituents": "/v1/ici/constituents?date=&type=",
    "ici_published": "/v1/ici/published",
    "export": "/v1/export/:table?format=parquet or csv",
    "events_stream": "/v1/events/stream",
    "webhooks": {"create": "POST /v1/webhooks", "list": "GET /v1/webhooks", "remove": "DELETE /v1/webhooks/:id"},
}


class OracleBlock(msgspec.Struct):
    last_update: str | None
    age_seconds: int | None
    stale: bool
    model_count: int


# The descriptor's `endpoints` block, in the order of ENDPOINTS: the keys' routes as a struct of
# their own, any other group as a plain mapping.
KeyEndpoints = msgspec.defstruct("KeyEndpoints", [(name, str) for name in ENDPOINTS["keys"]], module=__name__)
Endpoints = msgspec.defstruct("Endpoints", [
    (name, KeyEndpoints if name == "keys" else dict[str, str] if isinstance(path, dict) else str)
    for name, path in ENDPOINTS.items()], module=__name__)


class Descriptor(msgspec.Struct):
    name: str
    description: str
    version: str
    runtime: str
    status: str
    status_reason: str
    oracle: OracleBlock
    endpoints: Endpoints
    documentation: str
    dashboard: str  # the web pages, fed by the same /v1 answers


class Health(msgspec.Struct):
    status: str
    status_reason: str
    oracle: OracleBlock
    oracle_timestamp: str | None
    models_tracked: int
    timestamp: str  # when this answer was made (UTC): the original oracle's field, which its clients read


def oracle_block(freshness: Freshness) -> OracleBlock:
    return OracleBlock(
        last_update=iso_millis(freshness.last_update) if freshness.last_update else None,
        age_seconds=freshness.age_seconds, stale=freshness.stale, model_count=freshness.model_count,
    )


@get("/", summary="Service descriptor", tags=["service"])
async def descriptor(request: Request, snapshots: SnapshotState) -> Descriptor:
    freshness = snapshots.freshness()
    return Descriptor(
        name="Inference Pricing Oracle",
        description="Prices language-model inference: spots, Greeks, forward curves, task costs, an index, "
                    "swaps and simulations, with the provenance of every price.",
        version=importlib.metadata.version("inference-pricing-oracle"),
        runtime=f"Python {platform.python_version()} (Litestar, uvicorn)",
        status=freshness.status,
        status_reason=freshness.reason,
        oracle=oracle_block(freshness),
        endpoints=msgspec.convert(ENDPOINTS, Endpoints),
        documentation=str(request.base_url).rstrip("/") + "/schema",  # absolute, as the original gave it
        dashboard="/dashboard",
    )


@get("/health", summary="Health: 200 while a snapshot is served, 503 before the first", tags=["service"])
async def health(snapshots: SnapshotState) -> Response[Health]:
    freshness = snapshots.freshness()
    body = Health(
        status=freshness.status, status_reason=freshness.reason, oracle=oracle_block(freshness),
        oracle_timestamp=iso_millis(freshness.last_update) if freshness.last_update else None,
        models_tracked=freshness.model_count, timestamp=iso_millis(datetime.now(UTC)),
    )
    return Response(body, status_code=200 if freshness.last_update else 503)


ROUTES = [descriptor, health]
