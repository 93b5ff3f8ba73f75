"""`POST /v1/webhooks`, `GET /v1/webhooks`, `DELETE /v1/webhooks/{id}`: a key's outgoing webhooks
(serve/webhooks.py), their secrets shown once, whether each is paused and why, and their delivery log."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, delete, post

from pipelines.events import EVENT_KINDS
from serve.access.middleware import Access
from serve.deps import served
from serve.direct import strict
from serve.documented import problem
from serve.params import BATCH, one_of
from serve.problems import Problem, invalid
from serve.records import ticker_of
from serve.respond import envelope, envelope_type
from serve.routing import get
from serve.settings import Settings
from serve.state import SnapshotState
from serve.webhook_targets import TargetRefused, check_target
from serve.webhooks import Webhook


class WebhookIn(msgspec.Struct, forbid_unknown_fields=True):
    url: Annotated[str, msgspec.Meta(min_length=8, max_length=2000, description="http(s) address to post to")]
    ticker: Annotated[str, msgspec.Meta(max_length=200, description="only this model's events")] | None = None
    kind: Annotated[str, msgspec.Meta(description=f"only this kind: {', '.join(EVENT_KINDS)}")] | None = None


class WebhookOut(msgspec.Struct, kw_only=True):
    id: str
    url: str
    ticker: str | None
    mode: str | None
    kind: str | None
    created: str
    paused: Annotated[bool, msgspec.Meta(description="no longer delivered to, after failing too often")] = False
    paused_at: str | None = None
    paused_reason: str | None = None
    secret: str | None = None  # on creation only


class Delivery(msgspec.Struct, kw_only=True):
    delivery_id: str
    webhook_id: str
    snapshot_id: str
    attempt: int
    at: str
    status: int | None
    outcome: Annotated[str, msgspec.Meta(description="delivered, retrying or failed")]
    events: int
    detail: Annotated[str | None, msgspec.Meta(description="why the try failed, where the status does not say")] = None


class WebhookList(msgspec.Struct, kw_only=True):
    webhooks: list[WebhookOut]
    deliveries: list[Delivery]


WebhookCreatedResponse = envelope_type("WebhookCreatedResponse", WebhookOut, snapshot_optional=True)
WebhookListResponse = envelope_type("WebhookListResponse", WebhookList, snapshot_optional=True)


def _out(hook: Webhook, secret: bool = False) -> dict[str, Any]:
    return {"id": hook.id, "url": hook.url, "ticker": hook.ticker, "mode": hook.mode, "kind": hook.kind,
            "created": hook.created, "paused": hook.paused is not None, "paused_at": hook.paused,
            "paused_reason": hook.paused_reason, **({"secret": hook.secret} if secret else {})}


@post("/v1/webhooks", status_code=201, summary="Register a webhook for new price events", tags=["alerts"],
      **strict(WebhookIn),
      responses={409: problem("The key already has the most webhooks a key may have (code too_many_webhooks).")},
      description="Each newly published snapshot's events that match `ticker` and `kind` are posted to `url` as "
                  "JSON {snapshot_id, events}, signed `X-Oracle-Signature: sha256=<hex HMAC-SHA256 of the body "
                  "under the secret>`; a failed delivery is tried again with growing waits, then marked failed, "
                  "and a webhook whose deliveries keep failing is paused. Redirects are not followed. The secret "
                  "is shown once. The URL must be http(s), in printable ASCII, with a port from 1 to 65535, and "
                  "reach public addresses only.")
async def create_webhook(request: Request, access: Access, settings: Settings, snapshots: SnapshotState,
                         data: WebhookIn) -> Response[WebhookCreatedResponse]:
    one_of("kind", data.kind, EVENT_KINDS)
    ticker = mode = None
    if data.ticker is not None:
        resolved = ticker_of(served(snapshots), data.ticker)
        ticker, mode = resolved.ticker, BATCH if resolved.mode == BATCH else None
    try:
        await asyncio.to_thread(check_target, data.url, bool(settings.webhook_allow_private))
    except TargetRefused as refused:
        raise invalid("url", str(refused)) from None
    store = request.app.state.webhooks
    hook = await asyncio.to_thread(store.add, access.key.key_id, data.url, ticker, mode, data.kind,
                                   settings.webhook_max_per_key)
    if hook is None:
        raise Problem(409, "too_many_webhooks", f"the key already has {settings.webhook_max_per_key} webhooks, the "
                      "most a key may have; remove one (DELETE /v1/webhooks/{id}) before registering another")
    return Response(envelope(snapshots.current(), _out(hook, secret=True)), status_code=201)


@get("/v1/webhooks", summary="The key's webhooks and their delivery log", tags=["alerts"])
async def list_webhooks(request: Request, access: Access, snapshots: SnapshotState) -> Response[WebhookListResponse]:
    store = request.app.state.webhooks
    hooks = await asyncio.to_thread(store.of_key, access.key.key_id)
    deliveries = await asyncio.to_thread(store.deliveries, access.key.key_id)
    return Response(envelope(snapshots.current(),
                             {"webhooks": [_out(hook) for hook in hooks], "deliveries": deliveries}))


@delete("/v1/webhooks/{webhook_id:str}", status_code=200, summary="Remove a webhook", tags=["alerts"])
async def remove_webhook(request: Request, access: Access, snapshots: SnapshotState,
                         webhook_id: str) -> Response[WebhookListResponse]:
    store = request.app.state.webhooks
    if not await asyncio.to_thread(store.remove, access.key.key_id, webhook_id):
        raise Problem(404, "unknown_webhook", f"the key presented has no webhook {webhook_id}")
    return await list_webhooks.fn(request, access, snapshots)


ROUTES = [create_webhook, list_webhooks, remove_webhook]
