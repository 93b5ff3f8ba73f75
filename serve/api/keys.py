"""`POST /v1/keys`, `GET /v1/keys/usage`, `DELETE /v1/keys`: make a key, read its usage, revoke it.

A new key is shown once, in the creation response; only its hash is kept. Usage and revocation
act on the key presented with the request (`X-API-Key` or `Authorization: Bearer`).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, delete, get, post

from serve.access.middleware import SCOPE_KEY, Access
from serve.deps import settings_of, state_of
from serve.direct import strict
from serve.problems import Problem, invalid
from serve.respond import envelope, envelope_type, iso_millis

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


KeyCreatedResponse = envelope_type("KeyCreatedResponse", KeyCreated, snapshot_optional=True)
KeyUsageResponse = envelope_type("KeyUsageResponse", KeyUsage, snapshot_optional=True)
KeyRevokedResponse = envelope_type("KeyRevokedResponse", KeyRevoked, snapshot_optional=True)


def _wrap(request: Request, data: Any) -> dict[str, Any]:
    return envelope(state_of(request).current(), data)


def _presented(request: Request) -> Access:
    access: Access | None = request.scope.get(SCOPE_KEY)
    if access is None or access.key is None:
        raise Problem(401, "missing_key", "present your key as X-API-Key: <key> or Authorization: Bearer <key>")
    return access


@post("/v1/keys", status_code=201, summary="Create an API key (shown once)", tags=["keys"], opt=strict(CreateKey))
async def create_key(request: Request, data: CreateKey) -> Response[KeyCreatedResponse]:
    if not NAME.match(data.name):
        raise invalid("name", "use 1–64 letters, digits, spaces or - _ . @")
    # The key store's calls are database round trips: in its own threads, never on the event loop.
    store = request.app.state.key_store
    key, record = await store.threads.run(store.create, data.name, NEW_KEY_TIER, datetime.now(UTC))
    created = KeyCreated(key=key, key_id=record.key_id, name=record.name, tier=record.tier,
                         created=iso_millis(record.created),
                         requests_per_hour=settings_of(request).limit_of(record.tier),
                         note="store this key now: it is not shown again, and only its hash is kept")
    return Response(_wrap(request, created), status_code=201)


@get("/v1/keys/usage", summary="Usage of the key presented", tags=["keys"])
async def key_usage(request: Request) -> Response[KeyUsageResponse]:
    access = _presented(request)
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
    return Response(_wrap(request, body))


@delete("/v1/keys", status_code=200, summary="Revoke the key presented", tags=["keys"])
async def revoke_key(request: Request) -> Response[KeyRevokedResponse]:
    access = _presented(request)
    now = datetime.now(UTC)
    store = request.app.state.key_store
    await store.threads.run(store.revoke, access.key.key_id, now)
    return Response(_wrap(request, KeyRevoked(key_id=access.key.key_id, revoked=iso_millis(now))))


ROUTES = [create_key, key_usage, revoke_key]
