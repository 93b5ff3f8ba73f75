"""The Litestar application factory: `create_app(settings)`; nothing is read at import time."""

from __future__ import annotations

from datetime import timedelta
from functools import partial

from litestar import Litestar
from litestar.config.cors import CORSConfig
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig

from serve.access.batched import BatchedKeyStore
from serve.access.factory import counter_store_from, key_store_from
from serve.access.middleware import AccessControl, RouterMisses
from serve.access_log import AccessLog, AccessLogWriter, open_sink
from serve.answers import AnswerCache, KeptAnswers, send_found
from serve.api import (
    curves,
    descriptor,
    export,
    forward_list,
    index,
    keys,
    market,
    pricing,
    simulation,
    stream,
    webhooks,
)
from serve.compute_pool import ComputePool
from serve.cores import CorePlan, pin_the_loop
from serve.dashboard.routes import dashboard_routes
from serve.deps import DEPENDENCIES
from serve.direct import DirectAnswers
from serve.documented import document_problems
from serve.heap import freeze_what_lives
from serve.openapi_page import DocumentJson, DocumentPage, operation_id
from serve.problems import handle
from serve.settings import Settings
from serve.state import SnapshotState
from serve.threads import Threads, computing_threads, hand_the_loop_its_turn
from serve.webhooks import Dispatcher, WebhookStore

ROUTE_GROUPS = [descriptor.ROUTES, market.ROUTES, curves.ROUTES, index.ROUTES, forward_list.ROUTES,
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


def create_app(settings: Settings, pin_cores: bool = False) -> Litestar:
    """`pin_cores`: the loop and the compute workers each on a core of their own, where the
    process may use enough (serve/cores.py); only for a process that does nothing but serve."""
    import importlib.metadata

    handlers = [handler for group in ROUTE_GROUPS for handler in group]
    document_problems(handlers)
    snapshots = SnapshotState(settings.warehouse, timedelta(hours=settings.stale_after_hours))
    keys_store = BatchedKeyStore(key_store_from(settings.data, settings.key_store_url))
    counters = counter_store_from(settings.counter_store_url)
    computing = Threads.computing()  # long computed answers, apart from the event loop (serve/threads.py)
    processes = settings.compute_processes if settings.compute_processes >= 0 else computing_threads()
    cores = CorePlan.of(processes) if pin_cores else CorePlan.unpinned(processes)
    pool = ComputePool(settings.warehouse, processes, cores.workers) if processes else None
    sink = open_sink(settings.access_log)
    log = AccessLogWriter(sink) if sink is not None else None
    # Every request is logged (outermost), then counted and limited: around each route, and around
    # a kept answer sent in front of the routes (`KeptAnswers`).
    guards = [*([(AccessLog, {"writer": log})] if log else []),
              (AccessControl, {"settings": settings, "keys": keys_store, "counters": counters})]
    guarded_kept_answers = send_found
    for guard, options in reversed(guards):
        guarded_kept_answers = guard(guarded_kept_answers, **options)
    hooks = WebhookStore(settings.data)
    dispatcher = Dispatcher(hooks, snapshots, settings)
    app = Litestar(
        route_handlers=[*handlers, *dashboard_routes()],
        dependencies=DEPENDENCIES,  # what handlers name as parameters: settings, snapshot, reply (serve/deps.py)
        state=State({"settings": settings, "snapshots": snapshots, "key_store": keys_store, "counters": counters,
                     "computing": computing, "webhooks": hooks}),
        # Outermost first: the guards, then a kept answer may be sent.
        middleware=[*(partial(guard, **options) for guard, options in guards),
                    partial(AnswerCache, snapshots=snapshots),
                    partial(DirectAnswers, snapshots=snapshots, max_body_bytes=settings.max_body_bytes,
                            computing=computing, processes=pool)],
        on_startup=[hand_the_loop_its_turn, *([pool.start] if pool else []), dispatcher.start,
                    lambda: pin_the_loop(cores)],
        on_shutdown=[dispatcher.stop, lambda: keys_store.close(), counters.close, hooks.close,
                     *([log.close] if log else []), *([pool.close] if pool else [])],
        exception_handlers={Exception: handle},
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
    # A path no route serves never reaches the routes' middleware: counted and limited around the router.
    app.asgi_handler = RouterMisses(app.asgi_handler, settings, keys_store, counters)
    app.asgi_handler = KeptAnswers(app.asgi_handler, guarded_kept_answers, snapshots, cors=app.cors_config is not None)
    return app


def server_app(settings: Settings, alone: bool = True) -> Litestar:
    """The app of a process that only serves it (`oracle serve`): last at its start-up, the
    snapshot is read (not by the first request) and what the process holds for its life is taken
    out of the garbage collector's walks (serve/heap.py). Not for an app made in a process that
    does other work too, as a test's is. `alone`: the only server process on the machine, whose
    loop and workers may be pinned to cores (`ORACLE_PIN_CORES`)."""
    app = create_app(settings, pin_cores=alone and bool(settings.pin_cores))
    snapshots = app.state.snapshots

    def settle() -> None:
        snapshots.current()
        freeze_what_lives()

    app.on_startup.append(settle)
    return app


def app_from_env() -> Litestar:
    """The app as a factory of no arguments, for server processes started by uvicorn's workers."""
    return server_app(Settings.from_env(), alone=False)
