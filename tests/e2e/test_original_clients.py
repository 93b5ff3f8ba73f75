"""A client written for the original oracle, against a real `oracle serve`.

Each test reads only what the original oracle's own documentation and route code promise its
clients (`notes/original-oracle-api.md`, contract §9): the request names it accepted and the
response names it gave. Figures are pinned to the bundled data by hand: O3 costs $2 per million
input tokens and $8 per million output tokens since its cut of 2025-06-10, from $10 and $40.
"""

from __future__ import annotations

import math
import time
from datetime import datetime

import httpx
import pytest

from tests.e2e.conftest import stop_server
from tests.servers import start_server
from tests.small_universe import TICKERS

pytestmark = pytest.mark.slow  # a real `oracle serve` process

O3_INPUT, O3_OUTPUT = 2.0, 8.0  # $/M tokens, sync, on the snapshot date


@pytest.fixture(scope="module")
def original(built_warehouse, tmp_path_factory):
    """The server, with a free tier of 40 requests an hour for the rate-limit tests' own address."""
    process, base = start_server(built_warehouse, tmp_path_factory.mktemp("original-data"))
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client
    stop_server(process)


def test_the_descriptor_and_health(original):
    root = original.get("/").json()
    assert {"name", "description", "version", "status", "oracle", "endpoints", "documentation"} <= set(root)
    endpoints = root["endpoints"]
    for name in ("health", "spots", "greeks", "forwards", "price", "compare", "history", "keys"):
        assert name in endpoints, name
    assert endpoints["price"] == "POST /v1/price"
    assert set(endpoints["keys"]) >= {"create", "usage", "revoke"}
    assert root["documentation"].startswith(str(original.base_url).rstrip("/"))
    health = original.get("/health").json()
    assert health["status"] == "ok"
    assert {"last_update", "age_seconds", "stale", "model_count"} <= set(health["oracle"])
    assert health["oracle"]["model_count"] == len(TICKERS) and health["oracle"]["stale"] is False
    assert abs(datetime.fromisoformat(health["timestamp"].replace("Z", "+00:00")).timestamp() - time.time()) < 60


def test_spots_and_greeks(original):
    spots = original.get("/v1/spots").json()
    assert {"data", "oracle_timestamp", "cache_age_seconds"} <= set(spots)
    o3 = next(record for record in spots["data"] if record["ticker"] == "O3")
    assert {"ticker", "ticker_batch", "model_id", "display_name", "provider", "beta_sync", "beta_batch",
            "context_window"} <= set(o3)
    assert (o3["model_id"], o3["provider"], o3["ticker_batch"], o3["beta_sync"]) == ("o3", "openai", "O3.B", O3_OUTPUT)
    assert original.get("/v1/spots/o3").json()["data"]["ticker"] == "O3"  # upper-cased, as the original did
    assert original.get("/v1/spots/O3.B").json()["data"]["ticker"] == "O3"  # a batch ticker finds its model
    greeks = original.get("/v1/greeks/O3").json()["data"]
    assert {"r_in", "r_cache", "r_think", "r_batch", "is_reasoning", "theta", "sigma",
            "family_prior_weight"} <= set(greeks)
    assert greeks["r_in"] == pytest.approx(O3_INPUT / O3_OUTPUT) and greeks["is_reasoning"] is True
    assert greeks["family_prior_weight"] == greeks["prior_weight"]  # the original's name for the same weight


def test_forwards(original):
    curve = original.get("/v1/forwards/O3").json()["data"]
    assert {"ticker", "model_id", "display_name", "spot", "theta", "forwards"} <= set(curve)
    assert curve["spot"] == O3_OUTPUT
    point = curve["forwards"][0]
    assert {"tenor", "beta_forward", "decay_factor", "p05", "p95"} <= set(point)
    assert point["beta_forward"] == pytest.approx(curve["spot"] * point["decay_factor"], rel=1e-9)


@pytest.mark.parametrize("name", ["model", "ticker", "modelId"])
def test_price_in_the_original_names(original, name):
    body = {name: "o3", "nIn": 1000, "nOut": 500, "horizonMonths": 3}
    price = original.post("/v1/price", json=body).json()["data"]
    assert (price["model"], price["model_id"]) == ("O3", "o3")
    assert {"display_name", "spot_cost", "kappa", "r_in_eff", "beta_used", "task_profile", "forward"} <= set(price)
    assert price["spot_cost"] == pytest.approx((1000 * O3_INPUT + 500 * O3_OUTPUT) / 1e6)  # $0.006
    assert price["task_profile"] == {**price["task_profile"], "n_in": 1000, "n_out": 500, "n_think": 0, "eta": 0}
    assert {"horizon_months", "cost", "beta_forward", "theta_used", "decay_factor"} <= set(price["forward"])
    forward = price["forward"]
    assert forward["horizon_months"] == 3
    assert forward["theta_used"] == pytest.approx(-math.log(forward["decay_factor"]) / 3, rel=1e-12)
    assert forward["cost"] == pytest.approx(price["spot_cost"] * math.exp(-3 * forward["theta_used"]), rel=1e-9)


def test_price_with_cache_reports_its_value(original):
    price = original.post("/v1/price", json={"model": "O3", "n_in": 10000, "n_out": 100, "eta": 0.5}).json()["data"]
    assert {"cost_without_cache", "savings", "savings_pct"} <= set(price["cache_value"])
    without = (10000 * O3_INPUT + 100 * O3_OUTPUT) / 1e6
    assert price["cache_value"]["cost_without_cache"] == pytest.approx(without)
    assert price["cache_value"]["savings"] == pytest.approx(without - price["spot_cost"])


def test_compare_skips_unknown_models(original):
    body = {"models": ["O3", "no-such-model-anywhere", "gpt-4o"], "n_in": 1000, "n_out": 500}
    answer = original.post("/v1/compare", json=body)
    assert answer.status_code == 200
    compared = answer.json()["data"]
    assert [model["ticker"] for model in compared["models"]] == ["O3", "GPT-4O"] or \
        [model["ticker"] for model in compared["models"]] == ["GPT-4O", "O3"]
    assert compared["count"] == 2 and compared["cheapest"] == compared["models"][0]["ticker"]
    assert compared["most_expensive"] == compared["models"][-1]["ticker"]
    costs = [model["spot_cost"] for model in compared["models"]]
    assert costs == sorted(costs)
    assert {"ticker", "model_id", "display_name", "provider", "spot_cost", "kappa", "beta", "is_reasoning",
            "theta"} <= set(compared["models"][0])
    skipped = [row for row in compared["excluded"] if row["reason"] == "unknown_model"]
    assert [row["model"] for row in skipped] == ["no-such-model-anywhere"] and skipped[0]["ticker"] is None


def test_history(original):
    history = original.get("/v1/history/O3", params={"from": "2025-06-01", "to": "2025-06-30"}).json()["data"]
    assert {"ticker", "model_id", "display_name", "price_type", "prices", "count"} <= set(history)
    assert history["price_type"] == "sync" and history["count"] == len(history["prices"]) == 30
    point = history["prices"][0]
    assert {"timestamp", "beta", "input", "cache_read", "source", "provenance"} <= set(point)
    by_day = {p["timestamp"][:10]: p for p in history["prices"]}
    assert (by_day["2025-06-09"]["beta"], by_day["2025-06-10"]["beta"]) == (40.0, O3_OUTPUT)


def test_events(original):
    events = original.get("/v1/events", params={"since": "2025-06-01", "ticker": "O3"}).json()["data"]
    assert {"events", "count", "since"} <= set(events)
    cut = next(e for e in events["events"] if e["field"] == "output" and e["effective_date"] == "2025-06-10")
    assert {"ticker", "model_id", "display_name", "price_type", "beta_before", "beta_after", "pct_change",
            "pct_change_display", "detected_at", "event_type"} <= set(cut)
    assert (cut["beta_before"], cut["beta_after"]) == (40.0, O3_OUTPUT)
    assert cut["pct_change"] == pytest.approx(-0.8) and cut["pct_change_display"] == "-80.0%"
    assert (cut["event_type"], cut["price_type"], cut["model_id"]) == ("price-cut", "sync", "o3")


def test_keys(original):
    created = original.post("/v1/keys", json={"name": "original client"})
    assert created.status_code == 201
    made = created.json()
    assert made["success"] is True and made["api_key"].startswith("ipo_")
    assert (made["name"], made["tier"]) == ("original client", "developer")
    assert made["rate_limit"].endswith("requests/hour") and "cannot be retrieved" in made["message"]
    key = {"X-API-Key": made["api_key"]}
    assert original.get("/v1/spots/O3", headers=key).status_code == 200
    usage = original.get("/v1/keys/usage", headers=key).json()
    assert (usage["name"], usage["tier"], usage["request_count"]) == ("original client", "developer", 2)
    assert usage["created_at"] and usage["last_used"] and usage["rate_limit"] == made["rate_limit"]
    revoked = original.delete("/v1/keys", headers=key).json()
    assert (revoked["success"], revoked["message"]) == (True, "API key revoked")
    assert original.get("/v1/spots/O3", headers=key).status_code == 401


@pytest.fixture(scope="module")
def limited(built_warehouse, tmp_path_factory):
    """A server whose free tier allows three requests an hour."""
    process, base = start_server(built_warehouse, tmp_path_factory.mktemp("limited-data"),
                                 free_requests_per_hour="3")
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client
    stop_server(process)


def test_rate_limit_headers_and_the_429(limited):
    answers = [limited.get("/v1/spots/O3"), limited.get("/v1/no-such-path"), limited.delete("/v1/spots")]
    assert [answer.status_code for answer in answers] == [200, 404, 405]
    for answer, remaining in zip(answers, ("2", "1", "0"), strict=True):
        assert answer.headers["X-RateLimit-Limit"] == "3"
        assert answer.headers["X-RateLimit-Remaining"] == remaining
        reset = int(answer.headers["X-RateLimit-Reset"])  # an epoch time in seconds
        assert time.time() < reset <= time.time() + 3600
    over = limited.get("/v1/spots/O3")
    assert over.status_code == 429 and int(over.headers["Retry-After"]) >= 1
    body = over.json()
    assert body["error"] and body["limit"] == 3
    assert datetime.fromisoformat(body["resetAt"].replace("Z", "+00:00")).timestamp() == pytest.approx(
        int(over.headers["X-RateLimit-Reset"]), abs=1)
    unknown = limited.get("/v1/spots/O3", headers={"X-API-Key": "ipo_unknown"})
    assert unknown.status_code == 401 and "X-RateLimit-Limit" in unknown.headers
