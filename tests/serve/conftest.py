"""An app on the small universe's snapshot built once for the whole session (tests/conftest.py),
and one on the whole bundled data's for the checks that must see every model."""

import tempfile

import pytest
from litestar.testing import TestClient

from serve.answers import AnswerShelf
from serve.app import create_app
from serve.settings import Settings


def api_settings(**overrides) -> Settings:
    """Settings for a test app: a key database of its own, and a free tier and browsing limit no
    test run can exhaust (the limits themselves are tested in test_access.py), and a pointer looked
at on every request, so a test that publishes sees its snapshot at once."""
    return Settings(**{"data": tempfile.mkdtemp(prefix="oracle-data-"), "free_requests_per_hour": 10**9,
                       "dashboard_requests_per_hour": 10**9,
                       "key_creations_per_hour": 10**9, "access_log": "off",
                       "snapshot_poll_seconds": 0.0, **overrides})


def _client_on(warehouse):
    # The snapshot is dated 2026-11-22; a generous staleness bound keeps it `ok` whenever tests run.
    app = create_app(api_settings(warehouse=str(warehouse), stale_after_hours=24 * 365 * 100))
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def client(built_warehouse):
    yield from _client_on(built_warehouse)


@pytest.fixture(scope="session")
def full_client(full_warehouse):
    yield from _client_on(full_warehouse)


@pytest.fixture(scope="module")
def module_client(built_warehouse):
    """An app of the module's own, for the tests that look at what it keeps (`fresh_client`)."""
    yield from _client_on(built_warehouse)


@pytest.fixture
def fresh_client(module_client):
    """The module's app with nothing kept yet: its snapshot's shelves of answers emptied (the
    other derived tables it keeps are the same for every test, and stay)."""
    cache = module_client.app.state.snapshots.current().cache
    for key in [key for key, kept in cache.items() if isinstance(kept, AnswerShelf)]:
        del cache[key]
    return module_client
