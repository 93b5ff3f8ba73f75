"""What docs/security.md says is defended, checked: failures reveal nothing internal, bodies and
keys are bounded, CORS is as configured, keys are compared in constant time."""

import logging
from pathlib import Path

import pytest
from litestar.testing import TestClient

from serve.access import stores
from serve.api import market
from serve.app import create_app
from serve.problems import LOG
from tests.serve.conftest import api_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def make_client(built_warehouse):
    def make(**overrides):
        return TestClient(create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6,
                                                  **overrides)), raise_server_exceptions=False)
    return make


class Remember(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.lines = []

    def emit(self, record):
        self.lines.append(self.format(record))


@pytest.mark.slow  # an app of its own, with the settings under test
def test_an_unexpected_failure_is_a_plain_500_and_the_trace_goes_to_the_log(make_client, monkeypatch):
    def broken(*_):
        raise RuntimeError(f"secret detail in {ROOT}/serve/api/market.py")

    monkeypatch.setattr(market, "table_records", broken)
    log = Remember()
    logging.getLogger(LOG.name).addHandler(log)
    try:
        with make_client() as client:
            response = client.get("/v1/spots")
    finally:
        logging.getLogger(LOG.name).removeHandler(log)
    assert response.status_code == 500
    body = response.text
    assert response.json()["code"] == "internal_error"
    for leak in ("secret detail", "Traceback", str(ROOT), "market.py", "RuntimeError"):
        assert leak not in body
    assert any("secret detail" in line and "Traceback" in line for line in log.lines)  # the operator sees it


@pytest.mark.slow  # an app of its own, with the settings under test
def test_an_oversize_body_is_refused_before_it_is_read(make_client):
    with make_client(max_body_bytes=1024) as client:
        response = client.post("/v1/price", content=b'{"model": "' + b"x" * 4096 + b'"}',
                               headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["code"] == "payload_too_large"


@pytest.mark.slow  # an app of its own, with the settings under test
def test_cors_is_off_unless_configured(make_client):
    with make_client() as client:
        answer = client.get("/v1/spots/O3", headers={"Origin": "https://budget.example"})
    assert answer.status_code == 200 and "access-control-allow-origin" not in answer.headers


@pytest.mark.slow  # an app of its own, with the settings under test
def test_cors_allows_reads_with_a_key_but_never_credentials(make_client):
    with make_client(cors_origins="*") as client:
        preflight = client.options("/v1/price", headers={
            "Origin": "https://budget.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, x-api-key"})
        assert preflight.status_code in (200, 204)
        assert preflight.headers["access-control-allow-origin"] == "*"
        assert "x-api-key" in preflight.headers["access-control-allow-headers"].lower()
        assert "access-control-allow-credentials" not in preflight.headers
        answer = client.get("/v1/spots/O3", headers={"Origin": "https://budget.example"})
        assert answer.headers["access-control-allow-origin"] == "*"
        assert "ratelimit-remaining" in answer.headers["access-control-expose-headers"].lower()


@pytest.mark.slow  # an app of its own, with the settings under test
def test_cors_can_be_narrowed_to_named_origins(make_client):
    with make_client(cors_origins="https://budget.example") as client:
        allowed = client.get("/v1/spots/O3", headers={"Origin": "https://budget.example"})
        other = client.get("/v1/spots/O3", headers={"Origin": "https://elsewhere.example"})
    assert allowed.headers["access-control-allow-origin"] == "https://budget.example"
    assert "access-control-allow-origin" not in other.headers


def test_keys_are_compared_in_constant_time(monkeypatch):
    compared = []
    real = stores.hmac.compare_digest
    monkeypatch.setattr(stores.hmac, "compare_digest", lambda a, b: compared.append((a, b)) or real(a, b))
    assert stores.same_hash("ab" * 32, "ab" * 32) and not stores.same_hash("ab" * 32, "cd" * 32)
    assert len(compared) == 2
