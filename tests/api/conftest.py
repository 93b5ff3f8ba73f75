"""An app on the real snapshot built once for the whole session (tests/conftest.py)."""

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.settings import Settings


@pytest.fixture(scope="session")
def client(built_warehouse):
    # The snapshot is dated 2026-11-22; a generous staleness bound keeps it `ok` whenever tests run.
    app = create_app(Settings(warehouse=str(built_warehouse), stale_after_hours=24 * 365 * 100))
    with TestClient(app) as test_client:
        yield test_client
