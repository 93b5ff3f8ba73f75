"""What handlers need from the app, given by dependency injection: the settings, the snapshot
state, the snapshot to answer from and a `Reply` that answers from it.

A handler names what it needs as a parameter (`snapshot: LoadedSnapshot`, `settings: Settings`,
`reply: Reply`, `access: Access` on the key endpoints); the app provides them (`DEPENDENCIES`).
The `*_of(request)` functions are the providers, and serve the middleware, which runs before
any handler.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response
from litestar.di import Provide

from serve.access.middleware import SCOPE_KEY, Access
from serve.problems import Problem, no_snapshot
from serve.respond import envelope, snapshot_response
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState
from serve.threads import Threads


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


def computing_of(request: Request) -> Threads:
    return request.app.state.computing


def state_of(request: Request) -> SnapshotState:
    return request.app.state.snapshots


def snapshot_of(request: Request) -> LoadedSnapshot:
    """The current snapshot, or a 503 saying there is none yet."""
    return served(state_of(request))


def served(snapshots: SnapshotState) -> LoadedSnapshot:
    """The snapshot `snapshots` serves now, or the 503 that says there is none yet."""
    snapshot = snapshots.current()
    if snapshot is None:
        raise no_snapshot()
    return snapshot


class Reply:
    """A snapshot answer to this request: the envelope around `data`, with the snapshot's ETag and
    the settings' Cache-Control, or a 304 when the client has it (`serve.respond.snapshot_response`)."""

    def __init__(self, request: Request, snapshot: LoadedSnapshot, settings: Settings):
        self.request, self.snapshot, self.max_age = request, snapshot, settings.cache_max_age_seconds

    def __call__(self, data: Any) -> Response:
        return self.body(envelope(self.snapshot, data))

    def body(self, body: dict[str, Any]) -> Response:
        """A body already enveloped (with fields beside the envelope's, such as a list's `next`)."""
        return snapshot_response(self.request, self.snapshot, body, self.max_age)


def presented_key(request: Request) -> Access:
    """What access control decided for a request that must present a key, or a 401 saying how."""
    access: Access | None = request.scope.get(SCOPE_KEY)
    if access is None or access.key is None:
        raise Problem(401, "missing_key", "present your key as X-API-Key: <key> or Authorization: Bearer <key>")
    return access


DEPENDENCIES = {
    "settings": Provide(settings_of, sync_to_thread=False),
    "snapshots": Provide(state_of, sync_to_thread=False),
    "snapshot": Provide(snapshot_of, sync_to_thread=False),
    "reply": Provide(Reply, sync_to_thread=False),
    "computing": Provide(computing_of, sync_to_thread=False),  # threads for long computed answers
    "access": Provide(presented_key, sync_to_thread=False),  # the key presented, on the endpoints that need one
}
