"""A real `oracle serve` on the small universe's snapshot for the client's tests, and a key on it."""

from __future__ import annotations

import sys
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import stop_server
from tests.servers import start_server

# The client of this repository (and its generator) before any installed copy.
CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT) not in sys.path:
    sys.path.insert(0, str(CLIENT))


@pytest.fixture(scope="module")
def server(built_warehouse, tmp_path_factory):
    """(base URL, key) of a server of the module's own; it takes a webhook on loopback, which it
    never posts to, as no snapshot is published while it runs."""
    process, base = start_server(built_warehouse, tmp_path_factory.mktemp("client-data"), webhook_allow_private="1")
    key = httpx.post(f"{base}/v1/keys", json={"name": "client tests"}).json()["api_key"]
    yield base, key
    stop_server(process)


@pytest.fixture(scope="session")
def document():
    """The app's OpenAPI document, as `/schema/openapi.json` serves it (made in-process)."""
    from generate import app_document

    return app_document()
