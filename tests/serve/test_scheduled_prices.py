"""Scheduled prices on the real snapshot (as of 2026-11-22): genai-prices 0.2.3 (published
2026-11-10) announces Gemini 4 Argon at 4/20 $/M from 2026-12-01 (today 2/10; batch 1/5 → 2/10)
and the Gemini 3.6, 3.7 and 3.8 Flash models at 1.50/7.50 from 2027-01-01 (today 0.75/3.75).

Every forward starts from the announced price from its date and not before: β_h = S_h·R_h, S_h
the price in force at the horizon. The law's part, E[R_h] = 1 + P_h·(m − 1), is recomputed by
hand from the processes and change_laws rows (tests/forecast_by_hand.py). Argon's family never
rose (its E[R_h] is at most 1); Gemini 3.6 Flash's did, so its forwards rise beyond the level too."""

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
    assert argon.loc["output", ["before", "after", "pct_change"]].tolist() == [10.0, 20.0, 1.0]
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


# The horizons of the example: Argon's price doubles on 2026-12-01 (8 days ahead), the Flash
# models' on 2027-01-01 (40 days ahead). A horizon h falls on 2026-11-22 + round(30.4375·h) days.
ARGON, FLASH = "GEMINI-4-ARGON", "GEMINI-3.6-FLASH"
LEVELS = {  # (ticker, months) → the announced output price over today's
    (ARGON, 0.25): 1.0, (ARGON, 0.26): 1.0, (ARGON, 0.3): 2.0, (ARGON, 1): 2.0, (ARGON, 3): 2.0, (ARGON, 12): 2.0,
    (FLASH, 1): 1.0, (FLASH, 1.28): 1.0, (FLASH, 1.3): 2.0, (FLASH, 2): 2.0, (FLASH, 6): 2.0, (FLASH, 12): 2.0,
}


def test_the_example_dates_fall_where_the_levels_say(by_hand):
    # 0.26 months is 7.9 days (2026-11-30), 0.3 is 9.1 (2026-12-01, the day itself); 1.28 months
    # is 39.0 days (2026-12-31), 1.3 is 39.6 (2027-01-01, the day itself).
    for (ticker, months), level in LEVELS.items():
        assert by_hand.level(ticker, "sync", months) == level, (ticker, months)
    assert by_hand.horizon_day(0.26) == date(2026, 11, 30) and by_hand.horizon_day(0.3) == date(2026, 12, 1)
    assert by_hand.horizon_day(1.28) == date(2026, 12, 31) and by_hand.horizon_day(1.3) == date(2027, 1, 1)


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_every_forward_starts_from_the_announced_price_from_its_date(store, by_hand, mode):
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])
    spot = {ARGON: 10.0 if mode == "sync" else 5.0, FLASH: 3.75 if mode == "sync" else 1.875}
    for ticker in (ARGON, FLASH):
        for tenor, months in {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}.items():
            row = curves.loc[(ticker, mode, tenor)]
            # Argon from 2026-12-01: every tenor (1M is 2026-12-22); Flash from 2027-01-01: 2M
            # (2027-01-22) on, not 1M.
            level = 2.0 if ticker == ARGON or months >= 2 else 1.0
            factor = by_hand.expected_ratio(ticker, mode, months)
            assert row["spot"] == spot[ticker]
            assert row["scheduled"] == level * spot[ticker], (ticker, tenor)
            assert row["p_change"] == pytest.approx(by_hand.p_change(ticker, mode, months), rel=1e-12)
            assert row["decay_factor"] == pytest.approx(factor, rel=1e-12)
            assert row["beta_forward"] == pytest.approx(level * spot[ticker] * factor, rel=1e-12), (ticker, tenor)
            for column, q in (("beta_median", 0.5), ("p05", 0.05), ("p95", 0.95)):
                assert row[column] == pytest.approx(
                    level * spot[ticker] * by_hand.quantile(ticker, mode, months, q), rel=1e-12), (ticker, column)
    assert by_hand.law_name[(ARGON, mode)] == "family_never_rose" and by_hand.law_name[(FLASH, mode)] == "family_rose"
    assert curves.loc[(FLASH, mode, "1M"), "decay_factor"] > 1.0  # the family rose: the mean rises beyond the level


@pytest.mark.parametrize(("ticker", "months"), list(LEVELS))
def test_a_task_cost_forward_uses_the_announced_level_from_its_date(client, by_hand, ticker, months):
    body = {"model": ticker, "n_in": 10000, "n_out": 1000}
    data = post(client, "/v1/price", body | {"horizon_months": months})
    forward, level = data["forward"], LEVELS[(ticker, months)]
    factor = by_hand.expected_ratio(ticker, "sync", months)
    assert forward["scheduled_factor"] == level
    assert forward["decay_factor"] == pytest.approx(factor, rel=1e-12)
    assert forward["p_change"] == pytest.approx(by_hand.p_change(ticker, "sync", months), rel=1e-12)
    assert forward["cost"] == pytest.approx(level * data["spot_cost"] * factor, rel=1e-12)
    assert forward["beta_forward"] == pytest.approx(level * data["beta_used"] * factor, rel=1e-12)
    assert forward["cost_median"] == pytest.approx(
        level * data["spot_cost"] * by_hand.quantile(ticker, "sync", months, 0.5), rel=1e-12)
    ranked = post(client, "/v1/compare", {"n_in": 10000, "n_out": 1000, "horizon_months": months,
                                          "models": [ticker]})["models"][0]
    assert ranked["forward_cost"] == pytest.approx(level * ranked["spot_cost"] * factor, rel=1e-12)
    assert ranked["forward_cost"] == pytest.approx(forward["cost"], rel=1e-12)


@pytest.mark.parametrize(("ticker", "levels"), [(ARGON, [2.0, 2.0, 2.0]), (FLASH, [1.0, 2.0, 2.0])])
def test_swap_fixings_use_the_announced_price_from_its_date(client, greeks, by_hand, ticker, levels):
    data = client.post("/v1/swap", json={"model": ticker, "taskType": "chat", "tenor": "3M",
                                         "notionalTokens": 3_000_000}).json()["data"]
    row = greeks.loc[ticker]
    p = TASK_TYPES["chat"]
    float0 = spot_cost_of(row.to_dict(), "sync", "chat") / (p.n_out * 1e-6)
    t = np.arange(1, 4)
    # Fixings on 2026-12-22, 2027-01-22 and 2027-02-21: Argon's all after 2026-12-01, Flash's
    # first before 2027-01-01.
    assert [f["date"] for f in data["schedule"]] == ["2026-12-22", "2027-01-22", "2027-02-21"]
    expected = float0 * np.array(levels) * np.array([by_hand.expected_ratio(ticker, "sync", m) for m in t])
    assert [f["expected_floating_rate"] for f in data["schedule"]] == pytest.approx(list(expected), rel=1e-12)
    df = np.exp(-Settings().discount_rate * t / 12)
    assert data["fairFixedRate"] == pytest.approx(float(np.sum(df * expected) / np.sum(df)), rel=1e-12)
    assert data["floatingRate"] == pytest.approx(float0, rel=1e-12)  # today's, before any announced price


MC = "/v1/monte-carlo/{}?taskCategory=chat&horizonMonths={}&paths=100000&seed=3"


@pytest.mark.parametrize(("ticker", "months", "levels"), [
    (ARGON, 1, [2.0]), (ARGON, 3, [2.0, 2.0, 2.0]), (FLASH, 1, [1.0]), (FLASH, 3, [1.0, 2.0, 2.0]),
])
def test_monte_carlo_paths_start_from_the_announced_price_from_its_date(client, by_hand, ticker, months, levels):
    data = client.get(MC.format(ticker, months)).json()["data"]
    factor = by_hand.expected_ratio(ticker, "sync", months)
    assert data["forwardCost"] == pytest.approx(levels[-1] * data["spotCost"] * factor, rel=1e-12)
    assert abs(data["cost"]["mean"] - data["forwardCost"]) <= 3 * data["meanStandardError"] + 1e-15
    spot = data["spotBeta"]
    for point, level in zip(data["fan"], levels, strict=True):
        month = point["month"]
        # The median path has not changed: it sits at the price in force at the month's end.
        assert point["p50"] == pytest.approx(level * spot, rel=1e-12), (ticker, month)
        assert point["mean"] == pytest.approx(level * spot * by_hand.expected_ratio(ticker, "sync", month), rel=0.01)


@pytest.mark.parametrize(("ticker", "levels"), [(FLASH, [1.0, 2.0, 2.0]), (ARGON, [2.0, 2.0, 2.0])])
def test_a_budget_counts_the_announced_price_from_its_month(client, greeks, by_hand, ticker, levels):
    data = client.post("/v1/simulate", json={"items": [{"model": ticker, "taskType": "chat",
                                                        "requests_per_month": 1000}],
                                             "horizon_months": 3, "paths": 2000}).json()["data"]
    row = greeks.loc[ticker]
    monthly = 1000 * spot_cost_of(row.to_dict(), "sync", "chat")
    # Month ends 2026-12-22, 2027-01-21 (round(60.875) = 61 days) and 2027-02-21.
    expected = [monthly * level * by_hand.expected_ratio(ticker, "sync", m)
                for m, level in zip((1, 2, 3), levels, strict=True)]
    assert [m["expected_spend"] for m in data["months"]] == pytest.approx(expected, rel=1e-12)
    # Fewer than half the paths change by month 3: the median month is the announced level exactly.
    assert [m["p50"] for m in data["months"]] == pytest.approx([monthly * level for level in levels], rel=1e-12)


@pytest.mark.parametrize("ticker", [ARGON, FLASH])
def test_the_chance_of_change_does_not_count_the_announced_price(client, by_hand, ticker):
    data = client.get(MC.format(ticker, 3)).json()["data"]
    # The announced doubling is known, not a change the law may make.
    p = by_hand.p_change(ticker, "sync", 3)
    assert data["probabilityOfChangeModel"] == pytest.approx(p, rel=1e-12)
    assert abs(data["probabilityOfChange"] - p) <= 3 * np.sqrt(p * (1 - p) / 100_000)
