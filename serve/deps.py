"""What handlers need from the app: its settings and the snapshot to answer from."""

from __future__ import annotations

from litestar import Request

from serve.access.middleware import SCOPE_KEY, Access
from serve.problems import Problem
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState


def settings_of(request: Request) -> Settings:
    return request.app.state.settings


def state_of(request: Request) -> SnapshotState:
    return request.app.state.snapshots


def snapshot_of(request: Request) -> LoadedSnapshot:
    """The current snapshot, or a 503 saying there is none yet."""
    snapshot = state_of(request).current()
    if snapshot is None:
        raise Problem(503, "no_snapshot", "no snapshot has been published yet; run `oracle refresh` and retry",
                      headers={"Retry-After": "60"})
    return snapshot


def presented_key(request: Request) -> Access:
    """What access control decided for a request that must present a key, or a 401 saying how."""
    access: Access | None = request.scope.get(SCOPE_KEY)
    if access is None or access.key is None:
        raise Problem(401, "missing_key", "present your key as X-API-Key: <key> or Authorization: Bearer <key>")
    return access
