"""The Litestar application factory: `create_app(settings)`; nothing is read at import time."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from litestar import Litestar, Request, Response
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig

from serve.access.batched import BatchedKeyStore
from serve.access.factory import counter_store_from, key_store_from
from serve.access.middleware import AccessControl
from serve.access.misses import RouterMisses
from serve.access_log import AccessLog, AccessLogWriter, open_sink
from serve.answers import kept_answer
from serve.api import (
    curves,
    descriptor,
    export,
    forward_list,
    index,
    keys,
    lines,
    market,
    pricing,
    simulation,
    stream,
    webhooks,
)
from serve.dashboard.routes import dashboard_routes
from serve.deps import DEPENDENCIES
from serve.direct import check_query
from serve.documented import document_problems
from serve.heap import freeze_what_lives
from serve.openapi_page import DocumentJson, DocumentPage, operation_id
from serve.settings import Settings
from serve.state import SnapshotState
from serve.threads import Threads
from serve.webhooks import Dispatcher, WebhookStore

ROUTE_GROUPS = [descriptor.ROUTES, market.ROUTES, curves.ROUTES, lines.ROUTES, index.ROUTES, forward_list.ROUTES,
                pricing.ROUTES, simulation.ROUTES, keys.ROUTES, export.ROUTES, stream.ROUTES, webhooks.ROUTES]


CORS_EXPOSED = ["ETag", "Cache-Control", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After", "X-Snapshot-Id",
                "X-Table-SHA256", "Repr-Digest", "Content-Disposition"]


def cors_config(settings: Settings) -> CORSConfig | None:
    """Browsers may call the API from the configured origins: reads and quotes with a key in a
    header, never with credentials (cookies), and they may read the caching and limit headers."""
    origins = [origin.strip() for origin in settings.cors_origins.split(",") if origin.strip()]
    if not origins:
        return None
    return CORSConfig(allow_origins=origins, allow_methods=["GET", "POST", "DELETE", "OPTIONS"],
                      allow_headers=["Content-Type", "X-API-Key", "Authorization", "If-None-Match"],
                      expose_headers=CORS_EXPOSED, allow_credentials=False, max_age=3600)


async def before_each_request(request: Request) -> Response | None:
    """Inside every route, after its middleware: a snapshot GET answered from the answers kept
    for the snapshot (`serve.answers`), else the request's query checked before its handler runs."""
    kept = await kept_answer(request)
    if kept is None:
        check_query(request.scope, request.route_handler)
    return kept


def create_app(settings: Settings) -> Litestar:
    import importlib.metadata

    handlers = [handler for group in ROUTE_GROUPS for handler in group]
    document_problems(handlers)
    snapshots = SnapshotState(settings.warehouse, timedelta(hours=settings.stale_after_hours),
                              poll_seconds=settings.snapshot_poll_seconds)
    keys_store = BatchedKeyStore(key_store_from(settings.data, settings.key_store_url))
    counters = counter_store_from(settings.counter_store_url)
    computing = Threads.computing()  # long computed answers, apart from the event loop (serve/threads.py)
    sink = open_sink(settings.access_log)
    writer = AccessLogWriter(sink) if sink is not None else None
    log = AccessLog(writer) if writer is not None else None
    # Every request is counted, limited and logged (outermost), then, on the routes that take a
    # body, the body checked strictly (serve/direct.py); a path no route serves gets the same
    # through the error hooks (serve/access/misses.py).
    guard = {"settings": settings, "keys": keys_store, "counters": counters, "log": log}
    misses = RouterMisses(AccessControl(None, **guard), log)
    hooks = WebhookStore(settings.data)
    dispatcher = Dispatcher(hooks, snapshots, settings)
    app = Litestar(
        route_handlers=[*handlers, *dashboard_routes()],
        dependencies=DEPENDENCIES,  # what handlers name as parameters: settings, snapshot, reply (serve/deps.py)
        state=State({"settings": settings, "snapshots": snapshots, "key_store": keys_store, "counters": counters,
                     "computing": computing, "webhooks": hooks}),
        middleware=[partial(AccessControl, **guard)],
        before_request=before_each_request,
        after_exception=[misses.decide],
        on_startup=[dispatcher.start],
        on_shutdown=[dispatcher.stop, lambda: keys_store.close(), counters.close, hooks.close,
                     *([writer.close] if writer else [])],
        exception_handlers={Exception: misses.handle},
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        openapi_config=OpenAPIConfig(
            title="Inference Pricing Oracle",
            version=importlib.metadata.version("inference-pricing-oracle"),
            description="Prices, sensitivities, forward curves, task costs and an index for language-model "
                        "inference. Every price carries its source and provenance.",
            path="/schema",
            render_plugins=[DocumentPage(), DocumentJson()],
            operation_id_creator=operation_id,
        ),
    )
    return app


def server_app(settings: Settings) -> Litestar:
    """The app of a process that only serves it (`oracle serve`): last at its start-up, the
    snapshot is read (not by the first request) and what the process holds for its life is taken
    out of the garbage collector's walks (serve/heap.py). Not for an app made in a process that
    does other work too, as a test's is."""
    app = create_app(settings)
    snapshots = app.state.snapshots

    def settle() -> None:
        snapshots.current()
        freeze_what_lives()

    app.on_startup.append(settle)
    return app


def app_from_env() -> Litestar:
    """The app as a factory of no arguments, for server processes started by uvicorn's workers."""
    return server_app(Settings.from_env())
