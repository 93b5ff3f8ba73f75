"""Keys, the free tier and rate limits, against an app on the real snapshot."""

import logging
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from tests.serve.conftest import api_settings

pytestmark = pytest.mark.slow  # each test an app of its own, with its own key database and limits

LIMITS = {"free_requests_per_hour": 60, "dashboard_requests_per_hour": 800, "developer_requests_per_hour": 30,
          "key_creations_per_hour": 5,
          "trusted_proxies": "testclient"}


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def app_on(built_warehouse):
    def make(data: Path, **overrides):
        return TestClient(create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6,
                                                  data=str(data), **{**LIMITS, **overrides})))
    return make


def _from(ip: str) -> dict[str, str]:
    return {"X-Forwarded-For": ip}


def _key(client, name="analyst", ip="10.0.0.1") -> str:
    response = client.post("/v1/keys", json={"name": name}, headers=_from(ip))
    assert response.status_code == 201, response.text
    return response.json()["data"]["key"]


def test_the_61st_free_request_in_an_hour_is_a_429_and_another_address_is_unaffected(app_on, data):
    with app_on(data) as client:
        for i in range(60):
            response = client.get("/v1/spots/O3", headers=_from("192.0.2.7"))
            assert response.status_code == 200, i
            assert response.headers["ratelimit-remaining"] == str(59 - i)
        limited = client.get("/v1/spots/O3", headers=_from("192.0.2.7"))
        other = client.get("/v1/spots/O3", headers=_from("192.0.2.8"))
    assert limited.status_code == 429
    assert limited.headers["content-type"].startswith("application/problem+json")
    assert int(limited.headers["retry-after"]) >= 1 and limited.headers["ratelimit-remaining"] == "0"
    problem = limited.json()
    assert problem["code"] == "rate_limited" and "retry after" in problem["detail"]
    assert problem["retry_after_seconds"] == int(limited.headers["retry-after"])
    # The original oracle's names: X-RateLimit-Reset an epoch time, `resetAt` the same instant in ISO.
    assert problem["resetAt"] == problem["reset"] == datetime.fromtimestamp(
        int(limited.headers["x-ratelimit-reset"]), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert (limited.headers["x-ratelimit-limit"], limited.headers["x-ratelimit-remaining"]) == ("60", "0")
    assert other.status_code == 200 and other.headers["ratelimit-remaining"] == "59"


def test_headers_count_down_and_name_the_limit_and_reset(app_on, data):
    with app_on(data) as client:
        first = client.get("/v1/accuracy", headers=_from("192.0.2.9"))
        second = client.post("/v1/price", json={"model": "O3", "n_in": 10, "n_out": 10}, headers=_from("192.0.2.9"))
    assert first.headers["ratelimit-limit"] == second.headers["ratelimit-limit"] == "60"
    assert (int(first.headers["ratelimit-remaining"]), int(second.headers["ratelimit-remaining"])) == (59, 58)
    assert 0 < int(second.headers["ratelimit-reset"]) <= 3600
    # The X-RateLimit-* twins the original oracle's clients read: the same limit and count, and
    # the reset as an epoch time, `ratelimit-reset` seconds from the answer.
    for answer in (first, second):
        assert answer.headers["x-ratelimit-limit"] == answer.headers["ratelimit-limit"]
        assert answer.headers["x-ratelimit-remaining"] == answer.headers["ratelimit-remaining"]
    assert abs(int(second.headers["x-ratelimit-reset"]) - time.time() - int(second.headers["ratelimit-reset"])) <= 2


def test_descriptor_health_and_openapi_are_not_counted(app_on, data):
    with app_on(data) as client:
        before = client.get("/v1/spots/O3", headers=_from("192.0.2.10")).headers["ratelimit-remaining"]
        for path in ["/", "/health", "/schema/openapi.json"] * 5:
            response = client.get(path, headers=_from("192.0.2.10"))
            assert "ratelimit-remaining" not in response.headers
        after = client.get("/v1/spots/O3", headers=_from("192.0.2.10")).headers["ratelimit-remaining"]
    assert int(before) - int(after) == 1


def test_a_key_gets_its_tiers_limit(app_on, data):
    with app_on(data) as client:
        key = _key(client)
        answers = [client.get("/v1/spots/O3", headers={"X-API-Key": key}) for _ in range(31)]
    assert answers[0].headers["ratelimit-limit"] == "30"
    assert [a.status_code for a in answers] == [200] * 30 + [429]


def test_key_life_cycle_create_use_usage_revoke(app_on, data):
    with app_on(data) as client:
        created = client.post("/v1/keys", json={"name": "budget team"}, headers=_from("10.0.0.2"))
        assert created.status_code == 201
        record = created.json()["data"]
        key = record["key"]
        assert (record["tier"], record["requests_per_hour"]) == ("developer", 30) and key.startswith("ipo_")
        for _ in range(3):
            assert client.get("/v1/spots/O3", headers={"Authorization": f"Bearer {key}"}).status_code == 200
        usage = client.get("/v1/keys/usage", headers={"X-API-Key": key}).json()["data"]
        assert usage["name"] == "budget team" and usage["tier"] == "developer"
        assert usage["total_requests"] == 4  # three reads and this usage call
        assert usage["per_endpoint"]["GET /v1/spots/{ticker:path}"] == 3
        assert sum(usage["per_day"].values()) == 4
        assert usage["window"] == {**usage["window"], "requests": 4, "limit": 30}
        assert client.delete("/v1/keys", headers={"X-API-Key": key}).status_code == 200
        after = client.get("/v1/spots/O3", headers={"X-API-Key": key})
    assert after.status_code == 401 and after.json()["code"] == "invalid_key"


def test_key_answers_carry_the_original_oracles_names_at_the_top_level(app_on, data):
    with app_on(data) as client:
        created = client.post("/v1/keys", json={"name": "old client"}, headers=_from("10.0.0.3")).json()
        assert {name: created[name] for name in ("success", "name", "tier", "rate_limit", "message")} == {
            "success": True, "name": "old client", "tier": "developer", "rate_limit": "30 requests/hour",
            "message": "Store this key securely - it cannot be retrieved later."}
        key = created["api_key"]
        assert key == created["data"]["key"] and key.startswith("ipo_")
        client.get("/v1/spots/O3", headers={"X-API-Key": key})
        usage = client.get("/v1/keys/usage", headers={"X-API-Key": key}).json()
        assert (usage["name"], usage["tier"], usage["rate_limit"]) == ("old client", "developer", "30 requests/hour")
        assert usage["request_count"] == usage["data"]["total_requests"] == 2  # the read and this call
        assert usage["created_at"] == usage["data"]["created"] and usage["created_at"].endswith("Z")
        assert usage["last_used"] == usage["data"]["last_used"] is not None
        revoked = client.delete("/v1/keys", headers={"X-API-Key": key}).json()
        assert (revoked["success"], revoked["message"]) == (True, "API key revoked") and revoked["data"]["key_id"]


def test_an_unknown_key_is_a_401_not_the_free_tier(app_on, data):
    with app_on(data) as client:
        response = client.get("/v1/spots/O3", headers={"X-API-Key": "ipo_not-a-key"})
        missing = client.get("/v1/keys/usage")
    assert response.status_code == 401 and response.json()["code"] == "invalid_key"
    assert missing.status_code == 401 and missing.json()["code"] == "missing_key"
    # Where the caller stands against the failed-authentication limit this 401 counted against.
    assert response.headers["ratelimit-limit"] == response.headers["x-ratelimit-limit"]
    assert int(response.headers["ratelimit-remaining"]) == int(response.headers["ratelimit-limit"]) - 1


def test_a_key_survives_a_restart_with_its_usage(app_on, data):
    with app_on(data) as client:
        key = _key(client)
        client.get("/v1/greeks/O3", headers={"X-API-Key": key})
    with app_on(data) as restarted:
        usage = restarted.get("/v1/keys/usage", headers={"X-API-Key": key})
    assert usage.status_code == 200
    assert usage.json()["data"]["total_requests"] == 2


def test_the_database_never_holds_a_key_and_no_log_line_shows_one(app_on, data, caplog):
    caplog.set_level(logging.DEBUG)
    with app_on(data) as client:
        key = _key(client)
        client.get("/v1/spots/O3", headers={"X-API-Key": key})
        client.get("/v1/keys/usage", headers={"X-API-Key": key})
    stored = b"".join(path.read_bytes() for path in data.iterdir() if path.is_file())
    assert stored and key.encode() not in stored
    assert all(key not in record.getMessage() for record in caplog.records)


def test_key_creation_is_limited_per_address(app_on, data):
    with app_on(data) as client:
        made = [client.post("/v1/keys", json={"name": f"k{i}"}, headers=_from("10.0.0.9")).status_code
                for i in range(6)]
        elsewhere = client.post("/v1/keys", json={"name": "other"}, headers=_from("10.0.0.10")).status_code
    assert made == [201] * 5 + [429] and elsewhere == 201


def test_a_client_over_the_free_limit_can_still_create_a_key(app_on, data):
    # The 429 says to get a key; creating one counts only against the key-creation limit.
    with app_on(data, free_requests_per_hour=2) as client:
        spent = [client.get("/v1/spots/O3", headers=_from("10.0.0.12")).status_code for _ in range(3)]
        created = client.post("/v1/keys", json={"name": "after"}, headers=_from("10.0.0.12"))
        still_free = client.get("/v1/spots/O3", headers=_from("10.0.0.12")).status_code
        keyed = client.get("/v1/spots/O3", headers={**_from("10.0.0.12"), "X-API-Key": created.json()["data"]["key"]})
    assert spent == [200, 200, 429] and still_free == 429
    assert created.status_code == 201
    assert (created.headers["RateLimit-Limit"], created.headers["RateLimit-Remaining"]) == ("5", "4")
    assert keyed.status_code == 200 and keyed.headers["RateLimit-Limit"] == "30"


def test_bad_creation_requests_do_not_use_up_the_creation_limit(app_on, data):
    with app_on(data) as client:
        bad = [client.post("/v1/keys", json={"name": ""}, headers=_from("10.0.0.20")).status_code for _ in range(10)]
        made = [client.post("/v1/keys", json={"name": f"k{i}"}, headers=_from("10.0.0.20")).status_code
                for i in range(6)]
    assert bad == [400] * 10 and made == [201] * 5 + [429]


def test_guessing_keys_is_limited_per_address(app_on, data):
    with app_on(data, failed_auths_per_hour=3) as client:
        guesses = [client.get("/v1/spots/O3", headers={**_from("10.0.0.30"), "X-API-Key": f"ipo_guess-{i}"})
                   for i in range(5)]
        elsewhere = client.get("/v1/spots/O3", headers={**_from("10.0.0.31"), "X-API-Key": "ipo_guess"})
        free = client.get("/v1/spots/O3", headers=_from("10.0.0.30"))  # no key: the free tier is untouched
        key = _key(client, ip="10.0.0.32")
        keyed = client.get("/v1/spots/O3", headers={**_from("10.0.0.30"), "X-API-Key": key})
    assert [r.status_code for r in guesses] == [401, 401, 401, 429, 429]
    limited = guesses[-1].json()
    assert limited["code"] == "rate_limited" and "failed authentication" in limited["detail"]
    assert int(guesses[-1].headers["retry-after"]) >= 1
    assert elsewhere.status_code == 401 and free.status_code == 200 and keyed.status_code == 200


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "x" * 65}, {"name": "bad\nname"}, {"name": 5},
                                  {"name": "ok", "tier": "internal"}])
def test_a_bad_key_name_is_a_400(app_on, data, body):
    with app_on(data) as client:
        response = client.post("/v1/keys", json=body, headers=_from("10.0.0.11"))
    assert response.status_code == 400 and response.json()["code"] == "invalid_input"


def test_concurrent_requests_are_all_counted(app_on, data):
    with app_on(data, developer_requests_per_hour=10_000) as client:
        key = _key(client)
        with ThreadPoolExecutor(max_workers=8) as pool:
            codes = list(pool.map(lambda _: client.get("/v1/spots/O3", headers={"X-API-Key": key}).status_code,
                                  range(200)))
        usage = client.get("/v1/keys/usage", headers={"X-API-Key": key}).json()["data"]
    assert codes == [200] * 200
    assert usage["total_requests"] == 201 and usage["window"]["requests"] == 201


def test_forwarded_for_is_ignored_from_untrusted_peers(app_on, data):
    with app_on(data, trusted_proxies="") as client:
        one = client.get("/v1/spots/O3", headers=_from("198.51.100.1")).headers["ratelimit-remaining"]
        two = client.get("/v1/spots/O3", headers=_from("198.51.100.2")).headers["ratelimit-remaining"]
    assert (one, two) == ("59", "58")  # both counted against the socket's address


def test_paths_no_route_serves_are_counted_limited_and_carry_the_rate_headers(app_on, data):
    """The router's own 404 and 405 answer before any route's middleware: they are counted
    against the caller's limit like any request, with both families of rate-limit header."""
    with app_on(data, free_requests_per_hour=3) as client:
        ip = _from("10.0.0.9")
        missing = client.get("/v1/no-such-thing", headers=ip)
        wrong_method = client.delete("/v1/spots", headers=ip)
        assert (missing.status_code, wrong_method.status_code) == (404, 405)
        assert missing.json()["code"] == "not_found" and wrong_method.json()["code"] == "method_not_allowed"
        for response, remaining in ((missing, "2"), (wrong_method, "1")):
            assert response.headers["RateLimit-Limit"] == response.headers["X-RateLimit-Limit"] == "3"
            assert response.headers["RateLimit-Remaining"] == response.headers["X-RateLimit-Remaining"] == remaining
        assert client.get("/v1/spots/O3", headers=ip).headers["RateLimit-Remaining"] == "0"
        over = client.get("/v1/no-such-thing", headers=ip)
        assert over.status_code == 429 and over.headers["Retry-After"]
        unknown_key = client.get("/v1/no-such-thing", headers={**_from("10.0.0.10"), "X-API-Key": "ipo_nope"})
        assert unknown_key.status_code == 401 and unknown_key.headers["X-RateLimit-Limit"]
        assert "RateLimit-Limit" not in client.get("/no-such-page", headers=ip).headers  # only /v1 is limited


# What each dashboard page asks of /v1 on a first visit (serve/dashboard/static/*.js): GETs that
# stand in for its calls, which count alike whatever their method.
PAGE_CALLS = {"/dashboard": 3, "/dashboard/models/O3": 6, "/dashboard/calculator": 6, "/dashboard/index": 3,
              "/dashboard/accuracy": 2}


def test_a_visitor_browses_a_hundred_dashboard_pages_an_hour_without_spending_the_free_tier(app_on, data):
    visitor = _from("192.0.2.40")
    pages = [list(PAGE_CALLS)[i % len(PAGE_CALLS)] for i in range(100)]
    # Each page view at the most calls any page makes, so a hundred of any pages fit.
    most = max(PAGE_CALLS.values())
    with app_on(data) as browser:
        for view, page in enumerate(pages):
            assert browser.get(page).status_code == 200
            for call in range(most):
                response = browser.get("/v1/spots/O3", headers=visitor)
                assert response.status_code == 200, (view, call)
        assert response.headers["ratelimit-limit"] == "800"
        assert response.headers["ratelimit-remaining"] == str(800 - 100 * most)
        # The same address without the dashboard's cookie: its free tier is untouched.
        with app_on(data) as script:
            plain = script.get("/v1/spots/O3", headers=visitor)
        assert (plain.headers["ratelimit-limit"], plain.headers["ratelimit-remaining"]) == ("60", "59")
        for _ in range(800 - 100 * most):
            assert browser.get("/v1/spots/O3", headers=visitor).status_code == 200
        over = browser.get("/v1/spots/O3", headers=visitor)
        # Another address browsing has its own budget.
        other = browser.get("/v1/spots/O3", headers=_from("192.0.2.41"))
        # A key is counted as a key, cookie or not.
        key = _key(browser, ip="192.0.2.40")
        keyed = browser.get("/v1/spots/O3", headers={**visitor, "X-API-Key": key})
    assert over.status_code == 429
    assert over.json()["detail"].startswith("the dashboard's limit of 800 requests per hour is reached")
    assert other.status_code == 200 and other.headers["ratelimit-remaining"] == "799"
    assert keyed.status_code == 200 and keyed.headers["ratelimit-limit"] == "30"


def test_only_the_dashboards_own_cookie_value_counts_as_browsing(app_on, data):
    with app_on(data) as client:
        for cookie in ("oracle_dashboard=0", "oracle_dashboard=1x", "other=1", "xoracle_dashboard=1"):
            response = client.get("/v1/spots/O3", headers={**_from("192.0.2.50"), "Cookie": cookie})
            assert response.headers["ratelimit-limit"] == "60", cookie
        both = client.get("/v1/spots/O3", headers={**_from("192.0.2.50"), "Cookie": "a=b; oracle_dashboard=1"})
    assert both.headers["ratelimit-limit"] == "800"
