"""POST /v1/price, /v1/compare, /v1/providers and GET /v1/task-types against the real snapshot,
each number checked against `pipelines.pricing` on the published tables (every forward against
the law recomputed by hand from them: tests/forecast_by_hand.py), and every class of bad input
answered with a problem."""

import math

import msgspec
import numpy as np
import pytest
from litestar.testing import TestClient

import serve.api.pricing as pricing
from pipelines.pricing import Rates, task_cost
from pipelines.spots import rate_columns
from pipelines.tasks import task_table
from serve.api.pricing import Comparison, Price, ProviderComparison
from serve.app import create_app
from tests.serve.conftest import api_settings

REL = 1e-12
VECTOR = {"n_in": 30000, "n_out": 800, "eta": 0.6}
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def tables(store):
    return {name: store.read_table(name) for name in ("spots", "greeks", "forward_curves", "providers")}


def row_of(frame, ticker):
    rows = frame[frame["ticker"] == ticker]
    assert len(rows) == 1, ticker
    return rows.iloc[0].to_dict()


def post(client, path, body):
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    payload = response.json()
    assert set(payload) == {"data", "oracle_timestamp", "cache_age_seconds"}
    assert "etag" not in response.headers  # computed on demand
    return payload["data"]


# POST /v1/price

@pytest.mark.parametrize("name", ["SONNET-4", "sonnet-4", "claude-sonnet-4-20250514", "claude-sonnet-4-0",
                                  "anthropic/claude-sonnet-4"])
def test_price_returns_the_contract_test_vector_for_every_spelling(client, name):
    data = post(client, "/v1/price", {"model": name, **VECTOR})
    msgspec.convert(data, Price)  # the declared shape
    assert (data["model"], data["model_id"], data["mode"]) == ("SONNET-4", "claude-sonnet-4-20250514", "sync")
    assert data["r_in_eff"] == pytest.approx(0.092, rel=REL)
    assert data["kappa"] == pytest.approx(4.45, rel=REL)
    assert data["spot_cost"] == pytest.approx(0.0534, rel=REL)
    assert data["beta_used"] == 15.0
    assert data["task_profile"] == {"n_in": 30000, "n_out": 800, "n_think": 0, "eta": 0.6, "n_cache_write_5m": 0,
                                    "n_cache_write_1h": 0, "n_citation": 0, "n_requests": 1, "n_web_searches": 0,
                                    "n_file_searches": 0, "n_grounding": 0}
    value = data["cache_value"]
    assert value["cost_without_cache"] == pytest.approx(0.102, rel=REL)
    assert value["savings"] == pytest.approx(0.0486, rel=REL)
    assert value["savings_pct"] == pytest.approx(47.647058823529406, rel=REL)
    assert round(value["savings_pct"], 2) == 47.65
    assert "forward" not in data


def test_price_without_cache_or_output_has_no_cache_value_and_a_null_kappa(client):
    data = post(client, "/v1/price", {"model": "SONNET-4", "n_in": 1000, "n_out": 0})
    assert "cache_value" not in data and data["kappa"] is None
    assert data["spot_cost"] == pytest.approx(0.003, rel=REL)


@pytest.mark.parametrize("name", ["O3.B", "o3.b"])
def test_a_batch_ticker_prices_the_batch_rates(client, tables, name):
    data = post(client, "/v1/price", {"model": name, "n_in": 5000, "n_out": 2000, "eta": 0.25, "n_think": 3000})
    assert data["mode"] == "batch"
    expected = task_cost(Rates.from_row(row_of(tables["spots"], "O3"), rate_columns("batch")), 5000, 2000, 0.25, 3000)
    assert data["spot_cost"] == pytest.approx(expected.spot_cost, rel=REL)
    assert data["beta_used"] == expected.beta_used == 4.0
    assert post(client, "/v1/price", {"model": "O3", "mode": "batch", "n_in": 5000, "n_out": 2000, "eta": 0.25,
                                      "n_think": 3000})["spot_cost"] == data["spot_cost"]


def test_a_reasoning_model_bills_thinking_as_output(client):
    # O3 sync at 2 / 8 / 0.5, thinking billed as output: (8·(500 + 4000) + 2·1000)e-6
    data = post(client, "/v1/price", {"model": "O3", "n_in": 1000, "n_out": 500, "n_think": 4000})
    assert data["spot_cost"] == pytest.approx(0.038, rel=REL)


FORWARD_FIELDS = {"horizon_months", "cost", "beta_forward", "p_change", "decay_factor", "cost_median", "cost_p05",
                  "cost_p95", "scheduled_factor", "theta_used", "outlook"}
# SONNET-4's family never rose (its change law's mean is at most 1); SOLAR-PRO4's maker raised
# its price twice (2026-09-11, 2026-10-20): its forward rises, in a band.
FORWARD_MODELS = ["SONNET-4", "SOLAR-PRO4"]


@pytest.mark.parametrize("ticker", FORWARD_MODELS)
@pytest.mark.parametrize("months, tenor", [(3, "3M"), (12, "12M"), (1, "1M")])
def test_the_forward_cost_scales_with_the_forward_curve(client, tables, by_hand, ticker, months, tenor):
    data = post(client, "/v1/price", {"model": ticker, **VECTOR, "horizon_months": months})
    curve = row_of(tables["forward_curves"][tables["forward_curves"]["mode"] == "sync"].assign(
        ticker=lambda f: f["ticker_forward"]), f"{ticker}-{tenor}")
    forward = data["forward"]
    assert set(forward) == FORWARD_FIELDS
    assert forward["horizon_months"] == months and forward["scheduled_factor"] == 1.0
    # By hand from the processes and change_laws rows: E[R_h] = 1 + P_h·(m − 1).
    p = by_hand.p_change(ticker, "sync", months)
    factor = 1 + p * (by_hand.law_mean(ticker) - 1)
    assert forward["p_change"] == pytest.approx(p, rel=REL) == curve["p_change"]
    assert forward["decay_factor"] == pytest.approx(factor, rel=REL)
    assert forward["decay_factor"] == pytest.approx(curve["decay_factor"], rel=REL)
    assert forward["cost"] == pytest.approx(data["spot_cost"] * factor, rel=REL)
    assert forward["beta_forward"] == pytest.approx(data["beta_used"] * factor, rel=REL)
    assert forward["beta_forward"] == pytest.approx(curve["beta_forward"], rel=REL)
    for field, q, column in (("cost_p05", 0.05, "p05"), ("cost_median", 0.5, "beta_median"), ("cost_p95", 0.95, "p95")):
        assert forward[field] == pytest.approx(data["spot_cost"] * by_hand.quantile(ticker, "sync", months, q), rel=REL)
        assert forward[field] == pytest.approx(data["spot_cost"] * curve[column] / curve["spot"], rel=1e-9)
    assert forward["cost_p05"] <= forward["cost_median"] <= forward["cost_p95"]
    assert forward["outlook"] == curve["outlook"]  # the published tenor's words, made the same way
    if ticker == "SOLAR-PRO4":  # a family that rose: a change is likely enough to move the mean and the band
        assert forward["decay_factor"] > 1.005 and forward["cost_p05"] < forward["cost_p95"]


def test_a_forward_ticker_gives_its_horizon_and_a_batch_one_its_mode(client, tables, by_hand):
    by_horizon = post(client, "/v1/price", {"model": "SONNET-4", **VECTOR, "horizon_months": 3})
    assert post(client, "/v1/price", {"model": "SONNET-4-3M", **VECTOR}) == by_horizon
    batch = post(client, "/v1/price", {"model": "sonnet-4.b-6m", **VECTOR})
    curve = tables["forward_curves"]
    row = curve[curve["ticker_forward"] == "SONNET-4.B-6M"].iloc[0]
    assert batch["mode"] == "batch" and batch["forward"]["horizon_months"] == 6
    assert batch["forward"]["decay_factor"] == pytest.approx(row["decay_factor"], rel=REL)
    assert batch["forward"]["p_change"] == pytest.approx(by_hand.p_change("SONNET-4", "batch", 6), rel=REL)
    assert batch["forward"]["decay_factor"] == pytest.approx(by_hand.expected_ratio("SONNET-4", "batch", 6), rel=REL)


@pytest.mark.parametrize("ticker", ["O3", "LLAMA-3.2-1B"])
def test_any_horizon_up_to_a_year_reads_the_chance_of_change_between_months(client, by_hand, ticker):
    data = post(client, "/v1/price", {"model": ticker, "n_in": 1000, "n_out": 1000, "horizon_months": 4.5})
    forward = data["forward"]
    # Between months 4 and 5 the survival is log-linear: 1 − P = (1 − P_4)·((1 − P_5)/(1 − P_4))^½.
    survival = by_hand.chances[(ticker, "sync")][[3, 4]]
    p = 1 - (1 - survival[0]) * np.sqrt((1 - survival[1]) / (1 - survival[0]))
    assert survival[0] < p < survival[1]
    assert forward["p_change"] == pytest.approx(p, rel=REL)
    assert forward["decay_factor"] == pytest.approx(1 + p * (by_hand.law_mean(ticker) - 1), rel=REL)
    assert forward["cost"] == pytest.approx(data["spot_cost"] * forward["decay_factor"], rel=REL)
    assert forward["cost_p05"] <= forward["cost_median"] <= forward["cost_p95"]


def test_a_model_without_a_law_has_a_forward_of_nulls(client, monkeypatch):
    """Every priced model of the bundled data has a law; one without (no price history to fit it
    from) keeps its spot cost and states no forward, never one as if its price could not change."""
    real = pricing.process_of
    monkeypatch.setattr(pricing, "process_of",
                        lambda snapshot, ticker, mode: None if ticker == "O3" else real(snapshot, ticker, mode))
    data = post(client, "/v1/price", {"model": "O3", "n_in": 1234, "n_out": 567, "horizon_months": 2})
    assert data["spot_cost"] > 0
    assert data["forward"] == {"horizon_months": 2, "cost": None, "beta_forward": None, "p_change": None,
                               "decay_factor": None, "cost_median": None, "cost_p05": None, "cost_p95": None,
                               "scheduled_factor": 1.0, "theta_used": None,
                               "outlook": "no change announced; no forecast (no price history to learn from)"}


def problem(response, status, code, field=None):
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert body["code"] == code and body["status"] == status and body["detail"] == body["error"]
    if field is not None:
        assert field in [e["field"] for e in body["errors"]], body
    return body


def test_a_model_that_does_not_think_refuses_thinking_tokens(client):
    body = problem(client.post("/v1/price", json={"model": "GPT-4.1", "n_in": 10, "n_out": 10, "n_think": 1}),
                   400, "invalid_input", "n_think")
    assert "thinking" in body["errors"][0]["message"]


def test_a_prompt_over_the_context_window_is_refused(client):
    body = problem(client.post("/v1/price", json={"model": "SONNET-4", "n_in": 199_500, "n_out": 501}),
                   400, "invalid_input", "n_in")
    assert "200,000" in body["detail"]
    assert post(client, "/v1/price", {"model": "SONNET-4", "n_in": 199_500, "n_out": 500})["spot_cost"] > 0


def test_a_batch_request_without_a_batch_price_is_a_404(client):
    problem(client.post("/v1/price", json={"model": "GPT-OSS-120B.B", "n_in": 10, "n_out": 10}), 404, "no_batch_price")
    problem(client.post("/v1/price", json={"model": "GPT-OSS-120B", "mode": "batch", "n_in": 10, "n_out": 10}),
            404, "no_batch_price")


@pytest.mark.parametrize("body, field", [
    ({"model": "SONNET-4.B", "mode": "sync"}, "mode"),
    ({"model": "SONNET-4-3M", "horizon_months": 6}, "horizon_months"),
    ({"model": "SONNET-4-13M"}, "model"),
    ({"model": "SONNET-4-0M"}, "model"),
])
def test_contradictory_model_names_are_invalid(client, body, field):
    problem(client.post("/v1/price", json={"n_in": 10, "n_out": 10, **body}), 400, "invalid_input", field)


# POST /v1/compare

def expected_costs(spots, mode, n_in, n_out, eta=0.0, n_think=0.0):
    out = {}
    for row in spots.to_dict("records"):
        if math.isnan(row[f"beta_{mode}"]):
            continue
        out[row["ticker"]] = task_cost(Rates.from_row(row, rate_columns(mode)), n_in, n_out, eta, n_think)
    return out


def test_compare_ranks_every_model_with_the_task_cost_of_each(client, tables):
    data = post(client, "/v1/compare", {"n_in": 12000, "n_out": 700, "eta": 0.4, "include_retired": True})
    msgspec.convert(data, Comparison)
    spots = tables["spots"]
    assert data["mode"] == "sync" and data["count"] == len(data["models"]) > 20
    costs = [m["spot_cost"] for m in data["models"]]
    assert costs == sorted(costs)
    assert (data["cheapest"], data["most_expensive"]) == (data["models"][0]["ticker"], data["models"][-1]["ticker"])
    assert sorted([m["ticker"] for m in data["models"]] + [e["ticker"] for e in data["excluded"]]) == sorted(
        spots["ticker"])
    expected = expected_costs(spots, "sync", 12000, 700, 0.4)
    for model in data["models"]:
        truth = expected[model["ticker"]]
        assert model["spot_cost"] == pytest.approx(truth.spot_cost, rel=REL), model["ticker"]
        assert model["kappa"] == pytest.approx(truth.kappa, rel=REL)
        assert model["r_in_eff"] == pytest.approx(truth.r_in_eff, rel=REL)
        assert model["beta"] == truth.beta_used
        assert "forward_cost" not in model
    assert {e["reason"] for e in data["excluded"]} <= {"context_window", "no_output_price", "no_price", "not_text"}
    assert {e["ticker"]: e["reason"] for e in data["excluded"]}["QWEN3-ASR-FLASH"] == "not_text"  # speech in


def test_a_default_comparison_ranks_active_models_and_says_why_the_others_are_left_out(client, tables):
    """Like the board's default view: deprecated and retired models are listed, with the reason."""
    spots = tables["spots"]
    data = post(client, "/v1/compare", {"n_in": 12000, "n_out": 700, "eta": 0.4})
    assert data["count"] > 3 and all(m["status"] == "active" for m in data["models"])
    excluded = {e["ticker"]: e["reason"] for e in data["excluded"]}
    for status in ("retired", "deprecated"):
        left_out = set(spots.loc[spots["status"] == status, "ticker"])
        assert left_out and all(excluded[t] in (status, "not_text") for t in left_out), status


def test_compare_brings_retired_models_back_when_asked_and_marks_them(client, tables):
    spots = tables["spots"]
    data = post(client, "/v1/compare", {"n_in": 12000, "n_out": 700, "include_retired": True})
    ranked = {m["ticker"]: m["status"] for m in data["models"]}
    retired = set(spots.loc[spots["status"] == "retired", "ticker"])
    assert retired and {t for t in retired if t in ranked} and all(ranked[t] == "retired" for t in retired
                                                                   if t in ranked)
    assert "retired" not in {e["reason"] for e in data["excluded"]}


def test_compare_excludes_models_that_cannot_think_or_hold_the_prompt(client, tables):
    spots = tables["spots"]
    thinking = post(client, "/v1/compare", {"n_in": 1000, "n_out": 100, "n_think": 500, "include_retired": True})
    reasons = {e["ticker"]: e["reason"] for e in thinking["excluded"]}
    assert reasons["GPT-4.1"] == "no_thinking"
    assert set(reasons) >= set(spots.loc[~spots["is_reasoning"], "ticker"])
    assert all(m["is_reasoning"] for m in thinking["models"]) and "O3" in {m["ticker"] for m in thinking["models"]}

    huge = post(client, "/v1/compare", {"n_in": 50_000_000, "n_out": 100, "include_retired": True})
    reasons = {e["ticker"]: e for e in huge["excluded"]}
    assert reasons["SONNET-4"]["reason"] == "context_window" and "200,000" in reasons["SONNET-4"]["detail"]
    known = spots["context_window"].notna()
    assert set(spots.loc[known, "ticker"]) <= set(reasons)
    text = spots["input_modalities"].map(lambda m: "text" in m)
    assert {m["ticker"] for m in huge["models"]} <= set(spots.loc[~known & text, "ticker"])  # unknown windows stay


def test_a_shortlist_prices_every_named_model_and_says_how_it_billed_the_thinking(client, tables):
    """Thinking tokens asked of a model that does not think are priced as output tokens on a
    shortlist (never a silent drop); each row says how; each cost is /v1/price's for that profile."""
    profile = {"n_in": 1500, "n_out": 400, "eta": 0.3}
    named = post(client, "/v1/compare", {**profile, "n_think": 2000, "models": ["O3", "GPT-4.1"]})
    assert named["excluded"] == [] and {m["ticker"] for m in named["models"]} == {"O3", "GPT-4.1"}
    rows = {m["ticker"]: m for m in named["models"]}
    assert not rows["GPT-4.1"]["is_reasoning"] and rows["O3"]["is_reasoning"]
    assert rows["GPT-4.1"]["note"].startswith("not a reasoning model: the 2,000 thinking tokens are priced as")
    assert rows["O3"]["note"] == "a reasoning model: its 2,000 thinking tokens are billed at its reasoning rate"
    as_output = post(client, "/v1/price", {**profile, "model": "GPT-4.1", "n_out": 2400})
    assert rows["GPT-4.1"]["spot_cost"] == pytest.approx(as_output["spot_cost"], rel=1e-12)
    thinking = post(client, "/v1/price", {**profile, "model": "O3", "n_think": 2000})
    assert rows["O3"]["spot_cost"] == pytest.approx(thinking["spot_cost"], rel=1e-12)
    # By hand: GPT-4.1 at β (output) and its blended input, 2,400 output tokens.
    spot = tables["spots"].set_index("ticker").loc["GPT-4.1"]
    blended = 0.7 * spot["input_sync"] + 0.3 * spot["cache_read_sync"]
    assert rows["GPT-4.1"]["spot_cost"] == pytest.approx((2400 * spot["beta_sync"] + 1500 * blended) / 1e6, rel=1e-9)
    # Without thinking tokens a reasoning model's cost is a floor, and its row says so; the others
    # have no note. The whole board still leaves non-thinkers out of a thinking profile, with the reason.
    none = {m["ticker"]: m for m in post(client, "/v1/compare", {**profile, "models": ["O3", "GPT-4.1"]})["models"]}
    assert none["GPT-4.1"].get("note") is None
    assert none["O3"]["note"] == ("a reasoning model priced with no thinking tokens: it spends some on every "
                                  "request, so its cost is a floor; send n_think to price them")
    board = post(client, "/v1/compare", {**profile, "n_think": 2000, "include_retired": True})
    assert {e["ticker"]: e["reason"] for e in board["excluded"]}["GPT-4.1"] == "no_thinking"


def test_compare_says_each_forward_in_the_words_of_its_published_tenor(client, tables):
    data = post(client, "/v1/compare", {"n_in": 2000, "n_out": 500, "horizon_months": 6,
                                        "models": ["GEMINI-3.6-FLASH", "O3", "SOLAR-PRO4"]})
    curves = tables["forward_curves"]
    six = curves[(curves["mode"] == "sync") & (curves["tenor"] == "6M")].set_index("ticker")["outlook"]
    assert {m["ticker"]: m["outlook"] for m in data["models"]} == {t: six[t] for t in ("GEMINI-3.6-FLASH", "O3",
                                                                                        "SOLAR-PRO4")}
    assert six["GEMINI-3.6-FLASH"].startswith("announced: doubles on 2027-01-01")
    assert "outlook" not in post(client, "/v1/compare", {"n_in": 2000, "n_out": 500, "models": ["O3"]})["models"][0]


def test_following_the_line_prices_the_lines_then_current_model(client, store):
    """`follow: line` adds the line forward beside the model's own: the task's spot cost moved as
    the published line forward moves β; a model that is not its line's current one is refused."""
    forwards, lines = store.read_table("line_forwards"), store.read_table("lines")
    point = forwards[(forwards["mode"] == "sync") & (forwards["months"] == 3)].sort_values("line").iloc[0]
    body = {"model": point["current"], "n_in": 3000, "n_out": 800, "horizon_months": 3}
    data = post(client, "/v1/price", {**body, "follow": "line"})
    line = data["line_forward"]
    scale = data["spot_cost"] / point["spot"]
    assert (line["line"], line["current"]) == (point["line"], point["current"])
    assert line["p_successor"] == pytest.approx(point["p_successor"], rel=1e-12)
    assert line["cost"] == pytest.approx(point["beta_forward"] * scale, rel=1e-12)
    assert (line["cost_p05"], line["cost_median"], line["cost_p95"]) == pytest.approx(
        (point["p05"] * scale, point["beta_median"] * scale, point["p95"] * scale), rel=1e-12)
    said = f"{point['beta_forward'] / point['spot'] - 1:+.1%}".replace("-", "−")
    assert line["outlook"] == (f"following the line: expected {said} by 2027-02 "  # 2026-11-22 + 91 days
                               f"({point['p_successor']:.0%} chance of a successor by then)")
    assert data["forward"] == post(client, "/v1/price", body)["forward"]  # staying on the model, beside it
    assert "line_forward" not in post(client, "/v1/price", body)
    older = lines[(lines["line"] == point["line"]) & (lines["ticker"] != point["current"])]
    if len(older):
        problem(client.post("/v1/price", json={**body, "model": older["ticker"].iloc[0], "follow": "line"}), 400,
                "invalid_input", "follow")
    refused = problem(client.post("/v1/price", json={**body, "horizon_months": 2.5, "follow": "line"}), 400,
                      "invalid_input", "follow")
    assert "whole horizon_months" in refused["detail"]


def test_compare_in_batch_mode_uses_the_batch_rates(client, tables):
    data = post(client, "/v1/compare", {"n_in": 4000, "n_out": 1000, "mode": "batch", "models": ["O3", "SONNET-4",
                                                                                                 "GPT-OSS-120B"]})
    expected = expected_costs(tables["spots"], "batch", 4000, 1000)
    assert [m["ticker"] for m in data["models"]] == ["O3", "SONNET-4"]
    assert [m["spot_cost"] for m in data["models"]] == pytest.approx(
        [expected["O3"].spot_cost, expected["SONNET-4"].spot_cost], rel=REL)
    assert data["excluded"] == [{"ticker": "GPT-OSS-120B", "reason": "no_price",
                                 "detail": "the model has no batch price"}]
    theta = row_of(tables["greeks"], "O3")["theta_batch"]
    assert data["models"][0]["theta"] == pytest.approx(theta, rel=REL)


def test_compare_a_list_resolves_names_once_and_carries_the_forward(client, by_hand):
    data = post(client, "/v1/compare", {"n_in": 2000, "n_out": 500, "horizon_months": 6,
                                        "models": ["SONNET-4", "claude-sonnet-4-0", "o3", "GPT-4.1"]})
    # GPT-4.1 and O3 share 2 / 8 $/M: equal costs are ranked by ticker.
    assert [m["ticker"] for m in data["models"]] == ["GPT-4.1", "O3", "SONNET-4"]
    assert data["horizon_months"] == 6 and data["excluded"] == []
    for model in data["models"]:
        factor = by_hand.expected_ratio(model["ticker"], "sync", 6)
        assert model["forward_cost"] == pytest.approx(model["spot_cost"] * factor, rel=REL)


@pytest.mark.parametrize("mode", ["sync", "batch"])
@pytest.mark.parametrize("months", [1, 2, 4.5, 6])
def test_compare_forward_cost_is_the_spot_cost_times_the_scheduled_factor_and_the_mean_ratio(client, by_hand, mode,
                                                                                            months):
    """Every ranked model, by hand: forward_cost = spot_cost · L_h · E[R_h], L_h the output price
    announced for the horizon over today's, E[R_h] = 1 + P_h·(m − 1) from its processes rows."""
    data = post(client, "/v1/compare", {"n_in": 2000, "n_out": 500, "eta": 0.2, "mode": mode,
                                        "horizon_months": months, "include_retired": True})
    assert data["count"] > (20 if mode == "sync" else 10)  # the small universe: 24 and 15
    moved = set()
    for model in data["models"]:
        ticker = model["ticker"]
        level, factor = by_hand.level(ticker, mode, months), by_hand.expected_ratio(ticker, mode, months)
        assert model["forward_cost"] == pytest.approx(model["spot_cost"] * level * factor, rel=REL), ticker
        if level != 1.0:
            moved.add(ticker)
    # The announced Gemini prices (from 2026-12-01 and 2027-01-01) count only from their dates;
    # GEMINI-3.7-FLASH's announcement is for its sync price only.
    expected = {"GEMINI-4-ARGON"} if months == 1 else {"GEMINI-4-ARGON", "GEMINI-3.6-FLASH", "GEMINI-3.8-FLASH"} | (
        {"GEMINI-3.7-FLASH"} if mode == "sync" else set())
    assert "GEMINI-4-ARGON" in moved and moved == expected & {m["ticker"] for m in data["models"]}


def test_compare_skips_an_unknown_model_and_lists_it_with_suggestions(client):
    # As the original oracle did: the names no model answers to are skipped, not a failed request.
    data = post(client, "/v1/compare", {"n_in": 1, "n_out": 1, "models": ["SONNET-4", "SONET-4", "zzzz"]})
    assert [m["ticker"] for m in data["models"]] == ["SONNET-4"] and data["count"] == 1
    unknown = [e for e in data["excluded"] if e["reason"] == "unknown_model"]
    assert [(e["ticker"], e["model"]) for e in unknown] == [(None, "SONET-4"), (None, "zzzz")]
    assert "SONNET-4" in unknown[0]["suggestions"] and unknown[1]["suggestions"] == []
    assert unknown[0]["detail"].startswith("no model is called 'SONET-4' (did you mean SONNET-4")
    assert unknown[1]["detail"] == "no model is called 'zzzz'"
    nothing = post(client, "/v1/compare", {"n_in": 1, "n_out": 1, "models": ["zzzz"]})
    assert (nothing["count"], nothing["cheapest"], [e["model"] for e in nothing["excluded"]]) == (0, None, ["zzzz"])


def test_compare_refuses_a_batch_ticker_in_sync_mode(client):
    problem(client.post("/v1/compare", json={"n_in": 1, "n_out": 1, "models": ["O3.B"]}), 400, "invalid_input",
            "models")
    data = post(client, "/v1/compare", {"n_in": 1, "n_out": 1, "mode": "batch", "models": ["O3.B"]})
    assert data["cheapest"] == "O3"


def test_compare_with_nothing_priced_has_no_cheapest(client):
    data = post(client, "/v1/compare", {"n_in": 50_000_000, "n_out": 1, "models": ["SONNET-4"]})  # over its window
    assert (data["models"], data["cheapest"], data["most_expensive"], data["count"]) == ([], None, None, 0)


# POST /v1/providers

@pytest.mark.parametrize("ticker", ["GPT-OSS-120B", "SONNET-4"])
def test_providers_price_every_host_of_the_model(client, tables, ticker):
    profile = {"n_in": 20000, "n_out": 1500, "eta": 0.5}
    data = post(client, "/v1/providers", {"model": ticker, **profile})
    msgspec.convert(data, ProviderComparison)
    rows = tables["providers"]
    rows = rows[(rows["ticker"] == ticker) & (rows["mode"] == "sync")]
    assert data["ticker"] == ticker and data["count"] == len(rows) == len(data["providers"]) > 1
    by_id = {(r["provider"], r["provider_model_id"]): r for r in rows.to_dict("records")}
    for quote in data["providers"]:
        truth = task_cost(Rates.from_row(by_id[quote["provider"], quote["provider_model_id"]]), 20000, 1500, 0.5)
        assert quote["spot_cost"] == pytest.approx(truth.spot_cost, rel=REL), quote["provider"]
        assert quote["spread_to_origin"] == pytest.approx(quote["spot_cost"] / data["origin"]["spot_cost"] - 1,
                                                          rel=REL, abs=1e-15)
    costs = [q["spot_cost"] for q in data["providers"]]
    assert costs == sorted(costs)
    origins = [q for q in data["providers"] if q["is_origin"]]
    assert origins and origins[0]["spread_to_origin"] == 0.0
    assert data["origin"]["spot_cost"] == origins[0]["spot_cost"]


def test_providers_share_the_model_checks_of_price(client):
    problem(client.post("/v1/providers", json={"model": "GPT-OSS-120B", "n_in": 200_000, "n_out": 1}),
            400, "invalid_input", "n_in")
    problem(client.post("/v1/providers", json={"model": "GPT-OSS-120B.B", "n_in": 1, "n_out": 1}), 404,
            "no_batch_price")
    batch = post(client, "/v1/providers", {"model": "SONNET-4.B", "n_in": 1000, "n_out": 1000})
    assert batch["mode"] == "batch" and all(q["output"] == 7.5 for q in batch["providers"])


# GET /v1/task-types

def test_task_types_are_the_published_table(client):
    response = client.get("/v1/task-types")
    assert response.status_code == 200
    assert response.json()["data"] == task_table()
    assert {"chat", "coding", "reasoning", "rag", "summarization", "extraction", "agentic"} <= {
        t["task_type"] for t in response.json()["data"]}
    # Each says what its thinking tokens stand for: a convention where it counts some, a floor where none.
    said = {t["task_type"]: t["thinking"] for t in response.json()["data"]}
    assert said["reasoning"] == ("counts 6,000 thinking tokens, billed at a reasoning model's reasoning rate "
                                 "(a convention, not a measurement)")
    for name in ("chat", "coding", "rag"):
        assert said[name].startswith("counts no thinking tokens: a reasoning model spends some on every request")
        assert "its cost here is a floor" in said[name]


# Bad input

BODIES = {
    "/v1/price": {"model": "SONNET-4", "n_in": 1000, "n_out": 100},
    "/v1/compare": {"n_in": 1000, "n_out": 100},
    "/v1/providers": {"model": "SONNET-4", "n_in": 1000, "n_out": 100},
}
PATHS = list(BODIES)


def raw(client, path, text):
    return client.post(path, content=text, headers={"content-type": "application/json"})


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("change, field", [
    ({"n_in": None}, "n_in"),
    ({"n_out": "lots"}, "n_out"),
    ({"n_in": "1000"}, "n_in"),  # a number sent as text is a wrong type, not a guess
    ({"n_in": True}, "n_in"),
    ({"n_in": [1]}, "n_in"),
    ({"n_in": -1}, "n_in"),
    ({"n_out": -0.5}, "n_out"),
    ({"n_think": -1}, "n_think"),
    ({"n_in": 1e13}, "n_in"),
    ({"eta": 1.5}, "eta"),
    ({"eta": -0.1}, "eta"),
    ({"eta": "half"}, "eta"),
])
def test_bad_fields_are_invalid_input(client, path, change, field):
    problem(client.post(path, json={**BODIES[path], **change}), 400, "invalid_input", field)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("missing", ["n_in", "n_out"])
def test_a_missing_field_is_invalid_input(client, path, missing):
    body = {k: v for k, v in BODIES[path].items() if k != missing}
    assert missing in problem(client.post(path, json=body), 400, "invalid_input")["detail"]


@pytest.mark.parametrize("path", ["/v1/price", "/v1/providers"])
def test_a_missing_or_empty_model_is_invalid_input(client, path):
    body = {k: v for k, v in BODIES[path].items() if k != "model"}
    assert "model" in problem(client.post(path, json=body), 400, "invalid_input")["detail"]
    problem(client.post(path, json={**body, "model": ""}), 400, "invalid_input", "model")
    problem(client.post(path, json={**body, "model": 42}), 400, "invalid_input", "model")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("change, field", [
    ({"mode": "fast"}, "mode"),
    ({"unknown_field": 1}, "body"),
])
def test_bad_modes_and_unknown_fields_are_invalid_input(client, path, change, field):
    body = problem(client.post(path, json={**BODIES[path], **change}), 400, "invalid_input", field)
    assert list(change)[0] in body["detail"] or "fast" in body["detail"]


@pytest.mark.parametrize("path", ["/v1/price", "/v1/compare"])
@pytest.mark.parametrize("horizon", [0, -1, 13, 12.0001, "3"])
def test_a_horizon_outside_a_year_is_invalid_input(client, path, horizon):
    problem(client.post(path, json={**BODIES[path], "horizon_months": horizon}), 400, "invalid_input",
            "horizon_months")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "nan"])
def test_nan_and_infinite_counts_are_rejected(client, path, number):
    body = BODIES[path]
    fields = ", ".join(f'"{k}": {v!r}'.replace("'", '"') for k, v in body.items() if k != "n_in")
    response = raw(client, path, f'{{"n_in": {number}, {fields}}}')
    # Not JSON: the parser refuses them before any field is read, a 400 that says the body is unreadable.
    problem(response, 400, "malformed_request", "body")


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("number", ["1e999", "-1e999"])
def test_numbers_beyond_a_double_name_their_field(client, path, number):
    body = BODIES[path]
    fields = ", ".join(f'"{k}": {v!r}'.replace("'", '"') for k, v in body.items() if k != "n_in")
    response = raw(client, path, f'{{"n_in": {number}, {fields}}}')
    problem(response, 400, "invalid_input", "n_in")
    assert "out of range" in response.json()["detail"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("text, code", [
    ('{"n_in": 1000, "n_out": ', "malformed_request"),
    ("{'n_in': 1000}", "malformed_request"),
    ("not json", "malformed_request"),
    ('[{"n_in": 1000, "n_out": 100}]', "invalid_input"),
    ("null", "invalid_input"),
    ('"a string"', "invalid_input"),
    ("", "invalid_input"),
])
def test_unreadable_or_non_object_bodies_are_400(client, path, text, code):
    problem(raw(client, path, text), 400, code)


@pytest.mark.parametrize("path", PATHS)
def test_an_oversize_body_is_413(client, path):
    body = {**BODIES[path], "padding": "x" * (65 * 1024)}
    problem(client.post(path, json=body), 413, "payload_too_large")


@pytest.mark.parametrize("path", PATHS)
def test_a_wrong_method_is_405(client, path):
    problem(client.get(path), 405, "method_not_allowed")
    problem(client.delete(path), 405, "method_not_allowed")


@pytest.mark.parametrize("path", ["/v1/price", "/v1/providers"])
@pytest.mark.parametrize("name", ["SONET-4", "SONNET-4.B.B", "NOPE-3M", "/"])
def test_an_unknown_model_is_a_404_with_suggestions(client, path, name):
    body = problem(client.post(path, json={**BODIES[path], "model": name}), 404, "unknown_model")
    assert isinstance(body["suggestions"], list)
    if name == "SONET-4":
        assert "SONNET-4" in body["suggestions"]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("body", [
    {"n_in": 0, "n_out": 0},
    {"n_in": 1e12, "n_out": 1e12, "eta": 1},
    {"n_in": 5e-324, "n_out": 1e-300, "n_think": 0, "eta": 0.9999999999},
    {"n_in": 1, "n_out": 1, "models": ["GPT-4.1", "gpt-4.1", "O3"], "horizon_months": 1e-9},
])
def test_extreme_but_valid_profiles_never_fail(client, path, body):
    if path != "/v1/compare":
        body = {k: v for k, v in body.items() if k not in ("models", "horizon_months")} | {"model": "O3"}
    response = client.post(path, json=body)
    assert response.status_code in (200, 400), response.text
    if response.status_code == 200:
        assert all(not isinstance(v, float) or math.isfinite(v) for v in _numbers(response.json()["data"]))


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    else:
        yield value


def test_without_a_snapshot_the_post_endpoints_are_503(tmp_path):
    with TestClient(create_app(api_settings(warehouse=str(tmp_path)))) as client:
        for path, body in BODIES.items():
            problem(client.post(path, json=body), 503, "no_snapshot")
        problem(client.get("/v1/task-types"), 503, "no_snapshot")


def test_the_openapi_document_states_the_request_constraints(client):
    schemas = client.get("/schema/openapi.json").json()["components"]["schemas"]
    price = schemas["PriceRequest"]
    assert set(price["required"]) == {"model", "n_in", "n_out"}
    assert price["properties"]["n_in"]["minimum"] == 0
    assert (price["properties"]["eta"]["minimum"], price["properties"]["eta"]["maximum"]) == (0, 1)
    assert "batch" in str(price["properties"]["mode"])
    assert set(schemas["CompareRequest"]["required"]) == {"n_in", "n_out"}
    paths = client.get("/schema/openapi.json").json()["paths"]
    for path in PATHS:
        responses = paths[path]["post"]["responses"]
        # A comparison skips a name no model answers to (listed as unknown_model): no 404.
        assert set(responses) >= {"200", "400", "413", "503"} | ({"404"} if path != "/v1/compare" else set()), path
        assert ("404" in responses) == (path != "/v1/compare"), path
        assert list(responses["400"]["content"]) == [PROBLEM]


def test_the_original_oracles_request_names_price_and_compare_the_same(client):
    ours = post(client, "/v1/price", {"model": "SONNET-4", "n_in": 1000, "n_out": 200, "horizon_months": 3})
    for name in ("ticker", "modelId"):
        assert post(client, "/v1/price", {name: "SONNET-4", "nIn": 1000, "nOut": 200, "horizonMonths": 3}) == ours
    compared = post(client, "/v1/compare", {"nIn": 1000, "nOut": 200, "nThink": 100, "models": ["O3", "GPT-4O"]})
    assert compared == post(client, "/v1/compare", {"n_in": 1000, "n_out": 200, "n_think": 100,
                                                   "models": ["O3", "GPT-4O"]})
    problem(client.post("/v1/price", json={"model": "O3", "ticker": "GPT-4O", "n_in": 1, "n_out": 1}), 400,
            "invalid_input", "model")
