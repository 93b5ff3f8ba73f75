"""Scheduled prices on the real snapshot (as of 2026-11-22): genai-prices 0.2.3 (published
2026-11-10) announces Gemini 4 Argon at 4/20 $/M from 2026-12-01 (today 2/10; batch 1/5 → 2/10)
and the Gemini 3.6, 3.7 and 3.8 Flash models at 1.50/7.50 from 2027-01-01 (today 0.75/3.75)."""

from datetime import date

import numpy as np
import pytest

from pipelines.tasks import TASK_TYPES
from serve.settings import Settings
from tests.serve.test_pricing import post
from tests.serve.test_simulation import spot_cost_of


@pytest.fixture(scope="module")
def greeks(store):
    return store.read_table("greeks").set_index("ticker", drop=False)


def test_the_announced_changes_are_published_field_by_field(store):
    changes = store.read_table("scheduled_changes")
    argon = changes[(changes["ticker"] == "GEMINI-4-ARGON") & (changes["mode"] == "sync")].set_index("field")
    assert argon.loc["output", ["before", "after", "pct_change"]].tolist() == [10.0, 20.0, 100.0]
    assert argon.loc["input", ["before", "after"]].tolist() == [2.0, 4.0]
    assert set(argon["effective_date"]) == {date(2026, 12, 1)}
    assert set(argon["source"]) == {"genai-prices"} and set(argon["announced_on"]) == {date(2026, 11, 10)}
    assert len(changes) == 21  # 7 model-modes × input, output and cache read
    assert set(changes["ticker"]) == {"GEMINI-4-ARGON", "GEMINI-3.6-FLASH", "GEMINI-3.7-FLASH", "GEMINI-3.8-FLASH"}


def test_the_changes_are_served_per_ticker(client):
    data = client.get("/v1/scheduled?ticker=gemini-4-argon").json()["data"]
    assert (data["ticker"], data["count"]) == ("GEMINI-4-ARGON", 6)
    batch = client.get("/v1/scheduled?ticker=GEMINI-4-ARGON.B").json()["data"]
    assert {(c["field"], c["before"], c["after"]) for c in batch["scheduled_changes"]} == {
        ("input", 1.0, 2.0), ("output", 5.0, 10.0), ("cache_read", 0.05, 0.1)}
    assert client.get("/v1/scheduled").json()["data"]["count"] == 21
    assert client.get("/v1/scheduled?ticker=NO-SUCH-MODEL").status_code == 404


def test_scheduled_events_are_their_own_kind(client):
    events = client.get("/v1/events?kind=scheduled&ticker=GEMINI-4-ARGON").json()["data"]["events"]
    outputs = [e for e in events if e["field"] == "output" and e["mode"] == "sync"]
    assert len(outputs) == 1
    event = outputs[0]
    assert (event["before"], event["after"], event["effective_date"]) == (10.0, 20.0, "2026-12-01")
    assert "genai-prices 0.2.3" in event["detail"] and "2026-11-10" in event["detail"]
    # Price changes that happened are other kinds: none of these is a price_increase.
    increases = client.get("/v1/events?kind=price_increase&ticker=GEMINI-4-ARGON").json()["data"]["events"]
    assert all(e["effective_date"] <= "2026-11-22" for e in increases)


def test_the_forward_after_the_date_starts_from_the_announced_price(store):
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])
    argon = curves.loc[("GEMINI-4-ARGON", "sync", "1M")]  # 2026-12-22, after 2026-12-01
    assert argon["beta_forward"] == pytest.approx(20.0 * argon["decay_factor"], rel=1e-12)
    flash_1m, flash_2m = curves.loc[("GEMINI-3.6-FLASH", "sync", "1M")], curves.loc[("GEMINI-3.6-FLASH", "sync", "2M")]
    assert flash_1m["beta_forward"] == pytest.approx(3.75 * flash_1m["decay_factor"], rel=1e-12)  # 2026-12-22
    assert flash_2m["beta_forward"] == pytest.approx(7.50 * flash_2m["decay_factor"], rel=1e-12)  # 2027-01-21


def test_a_task_cost_forward_uses_the_announced_level(client, store):
    body = {"model": "GEMINI-4-ARGON", "n_in": 10000, "n_out": 1000}
    data = post(client, "/v1/price", body | {"horizon_months": 1})
    forward = data["forward"]
    assert forward["scheduled_factor"] == 2.0
    assert forward["cost"] == pytest.approx(2 * data["spot_cost"] * forward["decay_factor"], rel=1e-12)
    before = post(client, "/v1/price", body | {"horizon_months": 0.25})["forward"]  # 2026-11-30
    assert before["scheduled_factor"] == 1.0
    ranked = post(client, "/v1/compare", {"n_in": 10000, "n_out": 1000, "horizon_months": 1,
                                          "models": ["GEMINI-4-ARGON"]})["models"][0]
    assert ranked["forward_cost"] == pytest.approx(forward["cost"], rel=1e-12)


def test_swap_fixings_after_the_date_use_the_announced_price(client, greeks):
    data = client.post("/v1/swap", json={"model": "GEMINI-4-ARGON", "taskType": "chat", "tenor": "3M",
                                         "notionalTokens": 3_000_000}).json()["data"]
    row = greeks.loc["GEMINI-4-ARGON"]
    p = TASK_TYPES["chat"]
    float0 = spot_cost_of(row.to_dict(), "sync", "chat") / (p.n_out * 1e-6)
    t = np.arange(1, 4)
    expected = float0 * 2.0 * np.exp(-row["theta"] * t)  # every fixing (from 2026-12-22) is after 2026-12-01
    assert [f["expected_floating_rate"] for f in data["schedule"]] == pytest.approx(list(expected), rel=1e-12)
    df = np.exp(-Settings().discount_rate * t / 12)
    assert data["fairFixedRate"] == pytest.approx(float(np.sum(df * expected) / np.sum(df)), rel=1e-12)


def test_monte_carlo_paths_start_from_the_announced_price(client, greeks):
    data = client.get("/v1/monte-carlo/GEMINI-4-ARGON?taskCategory=chat&horizonMonths=1&paths=20000&seed=3").json()[
        "data"]
    theta = greeks.loc["GEMINI-4-ARGON", "theta"]
    assert data["forwardCost"] == pytest.approx(2 * data["spotCost"] * np.exp(-theta), rel=1e-12)
    assert abs(data["cost"]["mean"] - data["forwardCost"]) <= 4 * data["meanStandardError"] + 1e-12
    assert data["fan"][0]["mean"] == pytest.approx(20.0 * np.exp(-theta), rel=0.01)


def test_a_budget_counts_the_announced_price_from_its_month(client, greeks):
    data = client.post("/v1/simulate", json={"items": [{"model": "GEMINI-3.6-FLASH", "taskType": "chat",
                                                        "requests_per_month": 1000}],
                                             "horizon_months": 3, "paths": 2000}).json()["data"]
    row = greeks.loc["GEMINI-3.6-FLASH"]
    monthly = 1000 * spot_cost_of(row.to_dict(), "sync", "chat")
    levels = [1.0, 2.0, 2.0]  # month ends 2026-12-22, 2027-01-21, 2027-02-21
    expected = [monthly * level * np.exp(-row["theta"] * m) for m, level in zip((1, 2, 3), levels, strict=True)]
    assert [m["expected_spend"] for m in data["months"]] == pytest.approx(expected, rel=1e-12)


def test_the_chance_of_change_does_not_count_the_announced_price(client):
    data = client.get("/v1/monte-carlo/GEMINI-4-ARGON?taskCategory=chat&horizonMonths=1&paths=20000&seed=3").json()[
        "data"]
    # The announced doubling is known, not a change the process may make.
    assert data["probabilityOfChange"] == pytest.approx(data["probabilityOfChangeModel"], abs=0.01)
