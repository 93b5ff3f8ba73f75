"""Swap, Monte Carlo and budget simulation against the real snapshot, recomputed from its tables."""

import math
from datetime import date

import numpy as np
import pytest

from pipelines.pricing import Rates, task_cost
from pipelines.spots import rate_columns
from pipelines.swap import price_swap
from pipelines.tasks import TASK_TYPES
from serve.settings import Settings

AS_OF = date(2026, 11, 22)
SWAP = {"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": 120_000_000}
ITEM = {"model": "SONNET-4", "taskType": "coding", "requests_per_month": 10_000}


@pytest.fixture(scope="module")
def greeks(store):
    return store.read_table("greeks").set_index("ticker", drop=False)


@pytest.fixture(scope="module")
def curves(store):
    return store.read_table("forward_curves").set_index(["ticker", "mode", "tenor"])


def spot_cost_of(row, mode, task):
    p = TASK_TYPES[task]
    return task_cost(Rates.from_row(row, columns=rate_columns(mode)), p.n_in, p.n_out, p.eta, p.n_think).spot_cost


def assert_problem(response, status, code, field=None):
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == code and body["status"] == status and body["error"] == body["detail"]
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


# --- Swap ----------------------------------------------------------------------------------------

def test_swap_fair_rate_is_recomputed_from_the_tables(client, greeks):
    body = client.post("/v1/swap", json=SWAP)
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    row = greeks.loc["SONNET-4"]
    # By hand from the row's prices: coding is 8000 in (half cached), 1200 out.
    float0 = (row["beta_sync"] * 1200 + 8000 * (0.5 * row["input_sync"] + 0.5 * row["cache_read_sync"])) / 1200
    assert float0 == pytest.approx(26.0, abs=1e-12)
    t = np.arange(1, 4)
    df = np.exp(-Settings().discount_rate * t / 12)
    expected = float0 * np.exp(-row["theta"] * t)
    assert data["fairFixedRate"] == pytest.approx(float(np.sum(df * expected) / np.sum(df)), rel=1e-12)
    assert data["notionalUsd"] == pytest.approx(float(np.sum(40e6 * expected) * 1e-6), rel=1e-12)
    # And the whole quote equals pipelines.swap on the same row.
    p = TASK_TYPES["coding"]
    quote = price_swap(Rates.from_row(row.to_dict(), columns=rate_columns("sync")), row["theta"], p.n_in, p.n_out,
                       p.eta, p.n_think, 3, 120_000_000, Settings().discount_rate, AS_OF)
    assert data["fairFixedRate"] == pytest.approx(quote.fair_fixed_rate, rel=1e-12)
    assert data["npv"] == pytest.approx(0.0, abs=1e-9)
    assert data["greeks"] == pytest.approx({"delta": quote.delta, "vega": 0.0, "theta_greek": quote.theta_greek,
                                            "pv01": quote.pv01}, rel=1e-12)
    assert data["greeks"]["pv01"] == pytest.approx(-0.01 * float(np.sum(df * 40e6)) * 1e-6, rel=1e-12)
    assert (data["model"], data["mode"], data["taskType"], data["tenorMonths"]) == ("SONNET-4", "sync", "coding", 3)
    assert data["discountRate"] == Settings().discount_rate
    assert "npvAtFixedRate" not in data and "fixedRate" not in data
    assert [f["date"] for f in data["schedule"]] == ["2026-12-22", "2027-01-22", "2027-02-21"]
    assert [f["months"] for f in data["schedule"]] == [1, 2, 3]
    assert [f["notional_tokens"] for f in data["schedule"]] == pytest.approx([40e6] * 3)
    assert [f["expected_floating_rate"] for f in data["schedule"]] == pytest.approx(list(expected), rel=1e-12)
    assert [f["discount_factor"] for f in data["schedule"]] == pytest.approx(list(df), rel=1e-12)


def test_swap_at_a_fixed_rate_and_the_snake_case_twins(client):
    camel = client.post("/v1/swap", json={**SWAP, "fixedRate": 30.0}).json()["data"]
    snake = client.post("/v1/swap", json={"model": "sonnet-4", "task_type": "coding", "tenor": "3m",
                                          "notional_tokens": 120_000_000, "fixed_rate": 30.0}).json()["data"]
    assert camel == snake
    assert camel["fixedRate"] == 30.0
    expected = [f["expected_floating_rate"] for f in camel["schedule"]]
    dfs = [f["discount_factor"] for f in camel["schedule"]]
    npv = sum(d * 40e6 * (e - 30.0) for d, e in zip(dfs, expected)) * 1e-6
    assert camel["npvAtFixedRate"] == pytest.approx(npv, rel=1e-12)
    assert camel["npvAtFixedRate"] < 0  # paying 30 for a cost of about 26


def test_swap_on_the_batch_price(client, greeks):
    by_ticker = client.post("/v1/swap", json={**SWAP, "model": "SONNET-4.B"}).json()["data"]
    by_mode = client.post("/v1/swap", json={**SWAP, "mode": "batch"}).json()["data"]
    assert by_ticker == by_mode
    assert by_ticker["mode"] == "batch"
    assert by_ticker["floatingRate"] == pytest.approx(spot_cost_of(greeks.loc["SONNET-4"], "batch", "coding") / 1200e-6)
    assert by_ticker["theta"] == pytest.approx(greeks.loc["SONNET-4", "theta_batch"], rel=1e-14)


# --- Monte Carlo ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("months", "tenor"), [(1, "1M"), (3, "3M"), (6, "6M")])
def test_monte_carlo_mean_is_the_forward_within_three_standard_errors(client, greeks, curves, months, tenor):
    response = client.get(f"/v1/monte-carlo/SONNET-4?taskCategory=coding&horizonMonths={months}&paths=100000&seed=7")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    spot = spot_cost_of(greeks.loc["SONNET-4"], "sync", "coding")
    forward = spot * curves.loc[("SONNET-4", "sync", tenor), "decay_factor"]
    assert data["spotCost"] == pytest.approx(spot, rel=1e-12)
    assert data["forwardCost"] == pytest.approx(forward, rel=1e-12)
    assert abs(data["cost"]["mean"] - forward) < 3 * data["cost"]["std"] / math.sqrt(100_000)
    assert data["meanStandardError"] == pytest.approx(data["cost"]["std"] / math.sqrt(100_000))
    beta = greeks.loc["SONNET-4", "beta_sync"]
    assert data["spotBeta"] == beta
    assert data["beta"]["mean"] == pytest.approx(data["cost"]["mean"] * beta / spot, rel=1e-9)
    stats = [data["cost"][k] for k in ("p01", "p05", "p25", "p50", "p75", "p95", "p99")]
    assert stats == sorted(stats)
    assert len(data["histogram"]) == 20 and sum(b["count"] for b in data["histogram"]) == 100_000
    assert data["histogram"][0]["lower"] <= stats[0] and data["histogram"][-1]["upper"] >= stats[-1]
    assert [p["month"] for p in data["fan"]] == list(range(1, months + 1))
    assert all(p["p05"] <= p["p25"] <= p["p50"] <= p["p75"] <= p["p95"] for p in data["fan"])
    lam = greeks.loc["SONNET-4", "jump_rate"]
    assert data["probabilityOfChangeModel"] == pytest.approx(1 - math.exp(-lam * months), rel=1e-12)
    # A jump smaller than the 5% threshold is not counted, so the simulated share sits a little below.
    se = math.sqrt(data["probabilityOfChangeModel"] / 100_000)
    assert 0.85 * data["probabilityOfChangeModel"] - 3 * se < data["probabilityOfChange"]
    assert data["probabilityOfChange"] < data["probabilityOfChangeModel"] + 3 * se
    assert (data["ticker"], data["mode"], data["taskCategory"], data["horizonMonths"], data["paths"], data["seed"]) == (
        "SONNET-4", "sync", "coding", months, 100_000, 7)


def test_monte_carlo_is_deterministic_by_seed(client):
    url = "/v1/monte-carlo/SONNET-4?taskCategory=reasoning&horizonMonths=3&paths=5000"
    first, again = client.get(url + "&seed=42").json()["data"], client.get(url + "&seed=42").json()["data"]
    other = client.get(url + "&seed=43").json()["data"]
    assert first == again
    assert first["cost"] != other["cost"]
    twin = client.get("/v1/monte-carlo/claude-sonnet-4-20250514?task_category=reasoning&horizon_months=3"
                      "&paths=5000&seed=42").json()["data"]
    assert twin == first


def test_monte_carlo_defaults_batch_and_caching(client, greeks):
    response = client.get("/v1/monte-carlo/SONNET-4.B?taskCategory=chat&horizonMonths=1")
    data = response.json()["data"]
    assert data["paths"] == Settings().monte_carlo_default_paths and data["seed"] == 0
    assert data["mode"] == "batch" and data["spotBeta"] == greeks.loc["SONNET-4", "beta_batch"]
    assert data["spotCost"] == pytest.approx(spot_cost_of(greeks.loc["SONNET-4"], "batch", "chat"), rel=1e-12)
    tag = response.headers["etag"]
    again = client.get("/v1/monte-carlo/SONNET-4.B?taskCategory=chat&horizonMonths=1", headers={"If-None-Match": tag})
    assert again.status_code == 304


# --- Budget simulation ---------------------------------------------------------------------------

def test_simulate_expected_spend_is_analytic_and_the_bands_simulated(client, greeks, curves):
    body = {"items": [ITEM, {"model": "GPT-4.1", "profile": {"n_in": 2000, "n_out": 500, "eta": 0.2},
                             "requests_per_month": 3000},
                      {"model": "SONNET-4", "taskType": "chat", "requests_per_month": 20000}],
            "horizon_months": 3, "paths": 20000, "seed": 5}
    response = client.post("/v1/simulate", json=body)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    sonnet = greeks.loc["SONNET-4"]
    gpt = Rates.from_row(greeks.loc["GPT-4.1"].to_dict(), columns=rate_columns("sync"))
    gpt_cost = task_cost(gpt, 2000, 500, 0.2).spot_cost
    monthly = {"SONNET-4": 10_000 * spot_cost_of(sonnet, "sync", "coding") + 20_000 * spot_cost_of(sonnet, "sync", "chat"),
               "GPT-4.1": 3000 * gpt_cost}
    for month, tenor in zip(data["months"], ["1M", "2M", "3M"]):
        expected = sum(spend * curves.loc[(ticker, "sync", tenor), "decay_factor"] for ticker, spend in monthly.items())
        assert month["expected_spend"] == pytest.approx(expected, rel=1e-12)
        assert month["p05"] <= month["p25"] <= month["p50"] <= month["p75"] <= month["p95"]
    assert [m["month"] for m in data["months"]] == [1, 2, 3]
    assert data["total_expected_spend"] == pytest.approx(sum(m["expected_spend"] for m in data["months"]), rel=1e-12)
    workloads = data["workloads"]
    assert [(w["model"], w["task"]) for w in workloads] == [("SONNET-4", "coding"), ("GPT-4.1", "custom"),
                                                           ("SONNET-4", "chat")]
    assert workloads[1]["task_profile"] == {"n_in": 2000.0, "n_out": 500.0, "eta": 0.2, "n_think": 0.0}
    assert workloads[1]["spot_cost"] == pytest.approx(gpt_cost, rel=1e-12)
    assert sum(w["share"] for w in workloads) == pytest.approx(1.0, abs=1e-12)
    assert sum(w["expected_spend_total"] for w in workloads) == pytest.approx(data["total_expected_spend"], rel=1e-12)
    assert (data["horizon_months"], data["paths"], data["seed"]) == (3, 20000, 5)
    assert client.post("/v1/simulate", json=body).json()["data"] == data


def test_simulate_defaults_and_the_camel_case_twin(client):
    data = client.post("/v1/simulate", json={"items": [{**ITEM, "mode": "batch"}], "horizonMonths": 12}).json()["data"]
    assert data["paths"] == Settings().monte_carlo_default_paths and data["seed"] == 0
    assert len(data["months"]) == 12 and data["workloads"][0]["mode"] == "batch"


# --- Bad input -----------------------------------------------------------------------------------

def drop(body, key):
    return {k: v for k, v in body.items() if k != key}


@pytest.mark.parametrize(("body", "field"), [
    (drop(SWAP, "taskType"), "taskType"),
    (drop(SWAP, "notionalTokens"), "notionalTokens"),
    (drop(SWAP, "model"), "body"),
    (drop(SWAP, "tenor"), "body"),
    ({**SWAP, "tenor": "2M"}, "tenor"),
    ({**SWAP, "tenor": 3}, "tenor"),
    ({**SWAP, "model": 7}, "model"),
    ({**SWAP, "model": "  "}, "model"),
    ({**SWAP, "notionalTokens": -5}, "notionalTokens"),
    ({**SWAP, "notionalTokens": 0}, "notionalTokens"),
    ({**SWAP, "notionalTokens": "lots"}, "notionalTokens"),
    ({**SWAP, "notionalTokens": 1e16}, "notionalTokens"),
    ({**drop(SWAP, "notionalTokens"), "notional_tokens": -1}, "notional_tokens"),
    ({**SWAP, "notional_tokens": 5}, "notionalTokens"),
    ({**SWAP, "task_type": "chat"}, "taskType"),
    ({**SWAP, "fixedRate": -1}, "fixedRate"),
    ({**SWAP, "mode": "weekly"}, "mode"),
    ({**SWAP, "model": "SONNET-4.B", "mode": "sync"}, "mode"),
    ([SWAP], "body"),
])
def test_swap_rejects_bad_input(client, body, field):
    assert_problem(client.post("/v1/swap", json=body), 400, "invalid_input", field)


def test_swap_unknown_task_type_lists_the_valid_ones(client):
    body = assert_problem(client.post("/v1/swap", json={**SWAP, "taskType": "poetry"}), 400, "invalid_input",
                          "taskType")
    assert all(name in body["detail"] for name in TASK_TYPES)
    assert body["valid"] == list(TASK_TYPES)


@pytest.mark.parametrize("raw", [b'{"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": NaN}',
                                 b'{"model": "SONNET-4", "taskType": "coding"', b"not json"])
@pytest.mark.parametrize("path", ["/v1/swap", "/v1/simulate"])
def test_malformed_json_is_a_400(client, raw, path):
    response = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert_problem(response, 400, "malformed_request", "body")


def test_a_number_beyond_a_double_is_a_400_naming_its_field(client):
    raw = b'{"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": 1e999}'
    response = client.post("/v1/swap", content=raw, headers={"content-type": "application/json"})
    body = assert_problem(response, 400, "invalid_input", "notionalTokens")
    assert body["errors"] == [{"field": "notionalTokens", "message": "Number out of range"}]


@pytest.mark.parametrize(("method", "path", "kwargs"), [
    ("post", "/v1/swap", {"json": {**SWAP, "model": "NOPE-9"}}),
    ("get", "/v1/monte-carlo/NOPE-9?taskCategory=coding&horizonMonths=3", {}),
    ("post", "/v1/simulate", {"json": {"items": [ITEM, {**ITEM, "model": "NOPE-9"}], "horizon_months": 3}}),
])
def test_an_unknown_model_is_a_404_with_suggestions(client, method, path, kwargs):
    body = assert_problem(getattr(client, method)(path, **kwargs), 404, "unknown_model")
    assert "NOPE-9" in body["detail"] and isinstance(body["suggestions"], list)


def test_a_model_without_a_batch_price_is_a_404(client, greeks):
    ticker = greeks[greeks["beta_batch"].isna()]["ticker"].iloc[0]
    assert_problem(client.post("/v1/swap", json={**SWAP, "model": ticker, "mode": "batch"}), 404, "no_price")
    assert_problem(client.get(f"/v1/monte-carlo/{ticker}.B?taskCategory=chat&horizonMonths=1"), 404, "no_price")


@pytest.mark.parametrize(("query", "field"), [
    ("horizonMonths=3", "taskCategory"),
    ("taskCategory=coding", "horizonMonths"),
    ("taskCategory=poetry&horizonMonths=3", "taskCategory"),
    ("task_category=poetry&horizonMonths=3", "task_category"),
    ("taskCategory=coding&horizonMonths=2", "horizonMonths"),
    ("taskCategory=coding&horizon_months=12", "horizon_months"),
    ("taskCategory=coding&horizonMonths=abc", "horizonMonths"),
    ("taskCategory=coding&horizonMonths=3&horizon_months=6", "horizonMonths"),
    ("taskCategory=coding&horizonMonths=3&paths=0", "paths"),
    ("taskCategory=coding&horizonMonths=3&paths=100001", "paths"),
    ("taskCategory=coding&horizonMonths=3&paths=many", "paths"),
    ("taskCategory=coding&horizonMonths=3&seed=-1", "seed"),
    ("taskCategory=coding&horizonMonths=3&seed=99999999999999999999999", "seed"),
    ("taskCategory=coding&horizonMonths=3&mode=weekly", "mode"),
])
def test_monte_carlo_rejects_bad_queries(client, query, field):
    body = assert_problem(client.get(f"/v1/monte-carlo/SONNET-4?{query}"), 400, "invalid_input", field)
    if field == "paths" and "many" not in query:
        assert "100000" in body["detail"]  # the bound is named
    if "poetry" in query:
        assert all(name in body["detail"] for name in TASK_TYPES)


def item(**changes):
    return {**ITEM, **changes}


@pytest.mark.parametrize(("body", "field"), [
    ({"items": [ITEM]}, "horizon_months"),
    ({"horizon_months": 3}, "body"),
    ({"items": [], "horizon_months": 3}, "items"),
    ({"items": "all", "horizon_months": 3}, "items"),
    ({"items": [ITEM] * 51, "horizon_months": 3}, "items"),
    ({"items": [ITEM], "horizon_months": 0}, "horizon_months"),
    ({"items": [ITEM], "horizon_months": 13}, "horizon_months"),
    ({"items": [ITEM], "horizon_months": 2.5}, "horizon_months"),
    ({"items": [ITEM], "horizon_months": 3, "horizonMonths": 4}, "horizon_months"),
    ({"items": [ITEM], "horizon_months": 3, "paths": 0}, "paths"),
    ({"items": [ITEM], "horizon_months": 3, "paths": 100001}, "paths"),
    ({"items": [ITEM], "horizon_months": 3, "seed": -1}, "seed"),
    ({"items": [item(requests_per_month=0)], "horizon_months": 3}, "items[0].requests_per_month"),
    ({"items": [item(requests_per_month=-3)], "horizon_months": 3}, "items[0].requests_per_month"),
    ({"items": [item(requests_per_month="lots")], "horizon_months": 3}, "items[0].requests_per_month"),
    ({"items": [ITEM, drop(ITEM, "requests_per_month")], "horizon_months": 3}, "items[1]"),
    ({"items": [item(taskType="poetry")], "horizon_months": 3}, "items[0].taskType"),
    ({"items": [drop(ITEM, "taskType")], "horizon_months": 3}, "items[0].taskType"),
    ({"items": [item(profile={"n_in": 1, "n_out": 1})], "horizon_months": 3}, "items[0].taskType"),
    ({"items": [item(taskType=None, profile={"n_in": 1, "n_out": 1, "eta": 1.5})], "horizon_months": 3},
     "items[0].profile.eta"),
    ({"items": [item(taskType=None, profile={"n_in": -1, "n_out": 1})], "horizon_months": 3}, "items[0].profile.n_in"),
    ({"items": [item(taskType=None, profile={"n_in": 1})], "horizon_months": 3}, "items[0].profile"),
    ({"items": [item(mode="weekly")], "horizon_months": 3}, "items[0].mode"),
    ({"items": [item(model="")], "horizon_months": 3}, "items[0].model"),
])
def test_simulate_rejects_bad_input(client, body, field):
    assert_problem(client.post("/v1/simulate", json=body), 400, "invalid_input", field)


def test_the_openapi_document_describes_the_three_endpoints(client):
    schema = client.get("/schema/openapi.json").json()
    for path, method, request, response in [("/v1/swap", "post", "SwapRequest", "SwapResponse"),
                                            ("/v1/simulate", "post", "SimulateRequest", "SimulateResponse"),
                                            ("/v1/monte-carlo/{ticker}", "get", None, "MonteCarloResponse")]:
        operation = schema["paths"][path][method]
        assert operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(response)
        if request:
            assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(request)
    params = {p["name"] for p in schema["paths"]["/v1/monte-carlo/{ticker}"]["get"]["parameters"]}
    assert {"taskCategory", "task_category", "horizonMonths", "horizon_months", "paths", "seed", "mode"} <= params
    assert "fairFixedRate" in schema["components"]["schemas"]["SwapData"]["properties"]
