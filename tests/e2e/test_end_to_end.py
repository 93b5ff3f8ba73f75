"""End to end on the whole bundled data: the graph materialised into a folder (the session fixture
`full_warehouse` runs `oracle refresh`), `oracle serve` started on it as a real process, and every endpoint's numbers checked against
the Parquet tables, the `pipelines/` pricing functions, or the forecast law recomputed by hand from
its tables (tests/forecast_by_hand.py)."""

import os
import signal

import httpx
import numpy as np
import pytest

from pipelines.pricing import Rates, task_cost
from pipelines.spots import rate_columns
from tests.servers import start_server

pytestmark = pytest.mark.slow  # a real `oracle serve` process


@pytest.fixture(scope="module")
def store(full_store):
    """This module reads the full data's snapshot where other tests read the small universe's."""
    return full_store


@pytest.fixture(scope="module")
def by_hand(full_store):
    from datetime import date

    from tests.conftest import AS_OF
    from tests.forecast_by_hand import ByHand

    return ByHand.of(full_store, date.fromisoformat(AS_OF))


@pytest.fixture(scope="module")
def server(full_warehouse, tmp_path_factory):
    process, base = start_server(full_warehouse, tmp_path_factory.mktemp("e2e-data"))
    with httpx.Client(base_url=base, timeout=30) as client:
        yield client
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)


def _data(response):
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_descriptor_and_health(server, store):
    assert server.get("/").json()["oracle"]["model_count"] == len(store.read_table("models"))
    assert server.get("/health").json()["status"] == "ok"


def test_spots_and_greeks_equal_the_tables(server, store):
    spots = store.read_table("spots").set_index("ticker")
    served = {row["ticker"]: row for row in _data(server.get("/v1/spots"))}
    assert served.keys() == set(spots.index)
    for ticker in ["SONNET-4", "O3", "GPT-4.1-MINI"]:
        assert served[ticker]["beta_sync"] == spots.loc[ticker, "beta_sync"]
    greeks = store.read_table("greeks").set_index("ticker")
    assert _data(server.get("/v1/greeks/O3"))["theta"] == greeks.loc["O3", "theta"]


def test_forwards_history_and_index_equal_the_tables(server, store):
    curves = store.read_table("forward_curves")
    o3 = curves[(curves["ticker"] == "O3") & (curves["mode"] == "sync")]
    served = _data(server.get("/v1/forwards/O3"))["forwards"]
    assert [f["beta_forward"] for f in served] == o3["beta_forward"].tolist()
    assert [f["p_change"] for f in served] == o3["p_change"].tolist()
    history = _data(server.get("/v1/history/O3?from=2025-06-09&to=2025-06-10"))["prices"]
    assert [(p["beta"], p["provenance"]) for p in history] == [(40.0, "published"), (8.0, "published")]
    ici = store.read_table("ici")
    assert _data(server.get("/v1/ici?type=sync"))["value"] == ici.loc[ici["type"] == "sync", "value"].iloc[0]


def test_events_backtest_and_accuracy_equal_the_tables(server, store):
    cut = _data(server.get("/v1/events?since=2025-06-10&ticker=O3&kind=price_cut"))["events"]
    assert {(e["field"], e["before"], e["after"]) for e in cut if e["effective_date"] == "2025-06-10"} == {
        ("output", 40.0, 8.0), ("input", 10.0, 2.0)}
    accuracy = store.read_table("accuracy").set_index(["scope", "tenor"])
    body = _data(server.get("/v1/accuracy"))
    served = {(row["scope"], row["tenor"]): row for row in body["tenors"]}
    assert served.keys() == set(accuracy.index)
    for key in [("all", "6M"), ("fixed_name", "1M")]:
        for column in ("rel_rmse", "crps", "crps_flat", "brier", "brier_base", "coverage", "verdict"):
            assert served[key][column] == accuracy.loc[key, column], (key, column)
    assert body["headline"].startswith("The forecast ") and len(body["reliability"]) == len(
        store.read_table("backtest_reliability"))
    page = _data(server.get("/v1/backtest?tenor=1M&method=oracle&limit=10"))
    assert page["total"] == int(((store.read_table("backtest")["tenor"] == "1M")
                                 & (store.read_table("backtest")["method"] == "oracle")).sum())


def test_on_demand_forwards_equal_the_law_by_hand(server, by_hand):
    """A family that rose (LLAMA-3.2-1B) and a price announced from 2027-01-01 (GEMINI-3.6-FLASH, ×2):
    each forward is spot_cost · L_h · (1 + P_h·(m − 1)) from the processes and change_laws rows."""
    for ticker, months, level in [("LLAMA-3.2-1B", 6, 1.0), ("GEMINI-3.6-FLASH", 1, 1.0), ("GEMINI-3.6-FLASH", 3, 2.0)]:
        factor = 1 + by_hand.p_change(ticker, "sync", months) * (by_hand.law_mean(ticker) - 1)
        price = _data(server.post("/v1/price", json={"model": ticker, "n_in": 3000, "n_out": 700,
                                                     "horizon_months": months}))
        assert price["forward"]["scheduled_factor"] == level
        assert price["forward"]["cost"] == pytest.approx(price["spot_cost"] * level * factor, rel=1e-12)
        ranked = _data(server.post("/v1/compare", json={"n_in": 3000, "n_out": 700, "horizon_months": months,
                                                        "models": [ticker]}))["models"][0]
        assert ranked["forward_cost"] == pytest.approx(ranked["spot_cost"] * level * factor, rel=1e-12)
        mc = _data(server.get(f"/v1/monte-carlo/{ticker}?taskCategory=chat&horizonMonths={months}&paths=50000"
                              f"&seed=5"))
        assert mc["forwardCost"] == pytest.approx(mc["spotCost"] * level * factor, rel=1e-12)
        assert abs(mc["cost"]["mean"] - mc["forwardCost"]) <= 3 * mc["meanStandardError"] + 1e-15
        assert mc["probabilityOfChangeModel"] == pytest.approx(by_hand.p_change(ticker, "sync", months), rel=1e-12)


def test_on_demand_prices_equal_the_pipeline_functions(server, store):
    spots = store.read_table("spots").set_index("ticker")
    price = _data(server.post("/v1/price", json={"model": "claude-sonnet-4-20250514", "n_in": 30000, "n_out": 800,
                                                 "eta": 0.6}))
    assert price["spot_cost"] == pytest.approx(0.0534, abs=1e-12) and price["kappa"] == pytest.approx(4.45)
    compare = _data(server.post("/v1/compare", json={"n_in": 3000, "n_out": 700, "eta": 0.3}))
    for row in compare["models"][:5]:
        rates = Rates.from_row(spots.loc[row["ticker"]], rate_columns("sync"))
        assert row["spot_cost"] == pytest.approx(task_cost(rates, 3000, 700, 0.3).spot_cost, rel=1e-12)
    swap = _data(server.post("/v1/swap", json={"model": "SONNET-4", "taskType": "chat", "tenor": "1M",
                                               "notionalTokens": 1e6}))
    assert swap["npv"] == pytest.approx(0.0, abs=1e-9)
    mc = _data(server.get("/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=1&paths=4000&seed=3"))
    assert mc == _data(server.get("/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=1&paths=4000&seed=3"))
    assert np.isfinite(mc["cost"]["mean"])
    simulated = _data(server.post("/v1/simulate", json={"items": [{"model": "O3", "taskType": "chat",
                                                                   "requests_per_month": 100}],
                                                        "horizon_months": 2, "paths": 400, "seed": 1}))
    assert len(simulated["months"]) == 2
    providers = _data(server.post("/v1/providers", json={"model": "SONNET-4", "n_in": 1000, "n_out": 100}))
    assert providers["count"] == len(providers["providers"]) >= 2


def test_bad_input_is_a_problem_never_a_500(server):
    for method, url, body in [("POST", "/v1/price", {"model": "SONNET-4", "n_in": "many", "n_out": 1}),
                              ("POST", "/v1/compare", {"n_in": 1, "n_out": 1, "eta": 2}),
                              # 4: between the curve tenors (2 was refused while the tenors were 1, 3, 6)
                              ("GET", "/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=4", None),
                              ("GET", "/v1/history/O3?from=2025-13-01", None)]:
        response = server.request(method, url, json=body)
        assert response.status_code == 400, url
        assert response.headers["content-type"].startswith("application/problem+json")
