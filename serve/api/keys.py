"""`POST /v1/keys`, `GET /v1/keys/usage`, `DELETE /v1/keys`: make a key, read its usage, revoke it.

A new key is shown once, in the creation response; only its hash is kept. Usage and revocation
act on the key presented with the request (`X-API-Key` or `Authorization: Bearer`).

Each answer is our envelope with the original oracle's fields beside it at the top level, where
its clients read them (contract §9): `success`, `api_key`, `name`, `tier`, `rate_limit` and
`message` on creation; `name`, `created_at`, `last_used`, `request_count`, `tier` and
`rate_limit` for usage; `success` and `message` on revocation. `rate_limit` is in words, as the
original gave it, with our window: "30 requests/hour".
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, delete, post

from serve.access.middleware import Access
from serve.direct import strict
from serve.problems import invalid
from serve.respond import envelope, envelope_type, iso_millis
from serve.routing import get
from serve.settings import Settings
from serve.state import SnapshotState

NAME = re.compile(r"^[A-Za-z0-9 _.@-]{1,64}$")
NEW_KEY_TIER = "developer"


class CreateKey(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=64,
                                      description="1–64 letters, digits, spaces or - _ . @")]


class KeyCreated(msgspec.Struct):
    key: str
    key_id: str
    name: str
    tier: str
    created: str
    requests_per_hour: int
    note: str


class Window(msgspec.Struct):
    requests: int
    limit: int
    reset: str


class KeyUsage(msgspec.Struct):
    key_id: str
    name: str
    tier: str
    created: str
    last_used: str | None
    total_requests: int
    window: Window
    per_endpoint: dict[str, int]
    per_day: dict[str, int]


class KeyRevoked(msgspec.Struct):
    key_id: str
    revoked: str


KeyCreatedResponse = envelope_type("KeyCreatedResponse", KeyCreated, snapshot_optional=True, beside=[
    ("success", bool), ("api_key", str), ("name", str), ("tier", str), ("rate_limit", str), ("message", str)])
KeyUsageResponse = envelope_type("KeyUsageResponse", KeyUsage, snapshot_optional=True, beside=[
    ("name", str), ("created_at", str), ("last_used", str | None), ("request_count", int), ("tier", str),
    ("rate_limit", str)])
KeyRevokedResponse = envelope_type("KeyRevokedResponse", KeyRevoked, snapshot_optional=True, beside=[
    ("success", bool), ("message", str)])


def _wrap(snapshots: SnapshotState, data: Any, **original: Any) -> dict[str, Any]:
    """Our envelope, and the original oracle's fields beside it."""
    return {**envelope(snapshots.current(), data), **original}


@post("/v1/keys", status_code=201, summary="Create an API key (shown once)", tags=["keys"], **strict(CreateKey))
async def create_key(request: Request, settings: Settings, snapshots: SnapshotState,
                     data: CreateKey) -> Response[KeyCreatedResponse]:
    if not NAME.match(data.name):
        raise invalid("name", "use 1–64 letters, digits, spaces or - _ . @")
    # The key store's calls are database round trips: in its own threads, never on the event loop.
    store = request.app.state.key_store
    key, record = await store.threads.run(store.create, data.name, NEW_KEY_TIER, datetime.now(UTC))
    per_hour = settings.limit_of(record.tier)
    created = KeyCreated(key=key, key_id=record.key_id, name=record.name, tier=record.tier,
                         created=iso_millis(record.created), requests_per_hour=per_hour,
                         note="store this key now: it is not shown again, and only its hash is kept")
    return Response(_wrap(snapshots, created, success=True, api_key=key, name=record.name, tier=record.tier,
                          rate_limit=f"{per_hour} requests/hour",
                          message="Store this key securely - it cannot be retrieved later."), status_code=201)


@get("/v1/keys/usage", summary="Usage of the key presented", tags=["keys"])
async def key_usage(request: Request, access: Access, snapshots: SnapshotState) -> Response[KeyUsageResponse]:
    record = access.key
    store = request.app.state.key_store
    usage = await store.threads.run(store.usage, record.key_id)
    body = KeyUsage(
        key_id=record.key_id, name=record.name, tier=record.tier, created=iso_millis(record.created),
        last_used=iso_millis(usage.last_used) if usage.last_used else None, total_requests=usage.total,
        window=Window(requests=access.count, limit=access.limit,
                      reset=iso_millis(datetime.fromtimestamp(access.reset_at, UTC))),
        per_endpoint=usage.per_endpoint, per_day=usage.per_day,
    )
    return Response(_wrap(snapshots, body, name=body.name, created_at=body.created, last_used=body.last_used,
                          request_count=body.total_requests, tier=body.tier,
                          rate_limit=f"{access.limit} requests/hour"))


@delete("/v1/keys", status_code=200, summary="Revoke the key presented", tags=["keys"])
async def revoke_key(request: Request, access: Access, snapshots: SnapshotState) -> Response[KeyRevokedResponse]:
    now = datetime.now(UTC)
    store = request.app.state.key_store
    await store.threads.run(store.revoke, access.key.key_id, now)
    return Response(_wrap(snapshots, KeyRevoked(key_id=access.key.key_id, revoked=iso_millis(now)),
                          success=True, message="API key revoked"))


ROUTES = [create_key, key_usage, revoke_key]
