"""Everything a request is billed for, on the real snapshot: compulsory request fees, tool fees,
cache writes, citation tokens and peak hours, each line of the cost pinned to the provider's own
price list (as genai-prices 0.2.3 and LiteLLM 1.110.2 state it)."""

import json

import pytest

from tests.serve.test_pricing import post, problem


def lines_of(data):
    return {line["line"]: line for line in data["cost_lines"]}


def test_sonar_reasoning_bills_twelve_dollars_per_thousand_requests_on_its_own_line(client):
    """Perplexity's price list (genai-prices `requests_kcount` 12): 2,000 in at $1/M, 500 out at
    $5/M and $12 per 1,000 requests = 0.002 + 0.0025 + 0.012 = $0.0165, genai-prices' own figure."""
    data = post(client, "/v1/price", {"model": "SONAR-REASONING", "n_in": 2000, "n_out": 500})
    assert data["spot_cost"] == pytest.approx(0.0165, rel=1e-12)
    lines = lines_of(data)
    assert set(lines) == {"input", "output", "request_fee"}
    assert lines["request_fee"] | {"cost": pytest.approx(0.012)} == {
        "line": "request_fee", "quantity": 1.0, "unit_price": 12.0, "unit": "usd_per_thousand",
        "cost": 0.012, "note": None}
    assert (lines["input"]["cost"], lines["output"]["cost"]) == (pytest.approx(0.002), pytest.approx(0.0025))
    assert sum(line["cost"] for line in data["cost_lines"]) == data["spot_cost"]
    # Ten requests with the same tokens in all pay ten fees.
    ten = post(client, "/v1/price", {"model": "SONAR-REASONING", "n_in": 2000, "n_out": 500, "n_requests": 10})
    assert ten["spot_cost"] == pytest.approx(0.0045 + 0.12, rel=1e-12)
    assert ten["task_profile"]["n_requests"] == 10  # the answer echoes the usage it priced


def test_compare_and_providers_include_the_compulsory_fee(client):
    one = post(client, "/v1/price", {"model": "SONAR-REASONING", "n_in": 2000, "n_out": 500})
    ranked = post(client, "/v1/compare", {"n_in": 2000, "n_out": 500, "models": ["SONAR-REASONING", "SONAR-PRO"]})
    costs = {m["ticker"]: m["spot_cost"] for m in ranked["models"]}
    assert costs["SONAR-REASONING"] == one["spot_cost"]
    assert costs["SONAR-PRO"] == pytest.approx(0.006 + 0.0075 + 0.014, rel=1e-12)  # 3/15 and $14 per 1,000
    hosts = post(client, "/v1/providers", {"model": "SONAR-REASONING", "n_in": 2000, "n_out": 500})
    assert hosts["origin"]["spot_cost"] == pytest.approx(0.0165, rel=1e-12)


def test_web_and_file_searches_are_billed_per_call_when_the_profile_makes_them(client):
    """OpenAI's tool prices for GPT-4.1: web search $10 and file search $2.50 per 1,000 calls."""
    data = post(client, "/v1/price", {"model": "GPT-4.1", "n_in": 1000, "n_out": 100, "n_web_searches": 3,
                                      "n_file_searches": 2})
    lines = lines_of(data)
    assert (lines["web_search"]["unit_price"], lines["web_search"]["cost"]) == (10.0, pytest.approx(0.03))
    assert (lines["file_search"]["unit_price"], lines["file_search"]["cost"]) == (2.5, pytest.approx(0.005))
    assert data["spot_cost"] == pytest.approx(0.002 + 0.0008 + 0.03 + 0.005, rel=1e-12)
    assert "request_fee" not in lines  # OpenAI bills no fee per request


def test_a_tool_fee_no_source_states_is_shown_at_zero_with_a_note(client):
    data = post(client, "/v1/price", {"model": "GPT-4.1", "n_in": 1000, "n_out": 100, "n_grounding": 5})
    line = lines_of(data)["grounding"]
    assert (line["unit_price"], line["cost"]) == (None, 0.0)
    assert "no source states a grounding fee" in line["note"]


def test_sonar_deep_research_bills_citations_and_searches(client):
    """Perplexity's page: Sonar Deep Research $2/M input, $8/M output, $3/M reasoning, $2/M citation
    tokens and $5 per 1,000 search queries."""
    data = post(client, "/v1/price", {"model": "SONAR-DEEP-RESEARCH", "n_in": 1000, "n_out": 2000, "n_think": 10000,
                                      "n_citation": 5000, "n_web_searches": 20})
    lines = lines_of(data)
    assert (lines["citation"]["unit_price"], lines["thinking"]["unit_price"]) == (2.0, 3.0)
    expected = 0.002 + 0.016 + 0.03 + 0.01 + 0.1
    assert data["spot_cost"] == pytest.approx(expected, rel=1e-12)


def test_cache_writes_are_prompt_tokens_at_their_own_rates(client):
    """Sonnet 4.5 (Anthropic's page): input 3, cache read 0.30, 5-minute write 3.75, 1-hour write 6,
    output 15 $/M. 10,000 prompt tokens, half read from cache, 2,000 written for 5 minutes and 1,000
    for an hour: 2,000 fresh·3 + 5,000·0.30 + 2,000·3.75 + 1,000·6 + 500 out·15."""
    data = post(client, "/v1/price", {"model": "SONNET-4.5", "n_in": 10000, "n_out": 500, "eta": 0.5,
                                      "n_cache_write_5m": 2000, "n_cache_write_1h": 1000})
    lines = lines_of(data)
    assert {k: v["quantity"] for k, v in lines.items()} == {
        "input": 2000, "cached_input": 5000, "cache_write_5m": 2000, "cache_write_1h": 1000, "output": 500}
    assert data["spot_cost"] == pytest.approx(0.006 + 0.0015 + 0.0075 + 0.006 + 0.0075, rel=1e-12)
    # Haiku 5.5 past its 100k tier: every rate of the request moves, the 1-hour write's too (0.20 → 1.00).
    long = post(client, "/v1/price", {"model": "HAIKU-5.5", "n_in": 150000, "n_out": 500, "n_cache_write_1h": 1000})
    assert lines_of(long)["cache_write_1h"]["unit_price"] == 1.0
    assert long["spot_cost"] == pytest.approx((149000 * 0.5 + 1000 * 1.0 + 500 * 2.5) * 1e-6, rel=1e-12)


def test_cache_writes_beyond_the_uncached_prompt_are_refused(client):
    response = client.post("/v1/price", json={"model": "SONNET-4.5", "n_in": 1000, "n_out": 10, "eta": 0.5,
                                              "n_cache_write_5m": 600})
    body = problem(response, 400, "invalid_input", "n_cache_write_5m")
    assert "cannot exceed" in body["detail"]


# DeepSeek V4: peak UTC 01:00–04:00 and 06:00–10:00, Monday to Friday, at twice the off-peak rates.
MONDAY_PEAK, MONDAY_OFF_PEAK, SATURDAY_PEAK_HOUR = "2026-11-23T02:30:00Z", "2026-11-23T12:00:00Z", "2026-11-21T02:30:00Z"


def test_deepseek_v4_pro_publishes_both_rates_and_its_peak_hours(store):
    spots = store.read_table("spots").set_index("ticker")
    peak = json.loads(spots.loc["DEEPSEEK-V4-PRO", "peak_sync"])
    assert peak == {"hours_utc": [["01:00", "04:00"], ["06:00", "10:00"]], "days": "mon-fri",
                    "peak": {"cache_read": 0.044, "input": 1.32, "output": 3.96},
                    "off_peak": {"cache_read": 0.022, "input": 0.66, "output": 1.98}, "standard": "off_peak"}
    assert spots.loc["DEEPSEEK-V4-PRO", "beta_sync"] == 1.98  # β is the standard (off-peak) rate


def test_a_peak_hour_costs_twice_the_off_peak_one(client):
    body = {"model": "DEEPSEEK-V4-PRO", "n_in": 20000, "n_out": 1500, "eta": 0.25}
    peak = post(client, "/v1/price", body | {"at": MONDAY_PEAK})
    off = post(client, "/v1/price", body | {"at": MONDAY_OFF_PEAK})
    default = post(client, "/v1/price", body)
    assert (peak["period"], off["period"], default["period"]) == ("peak", "off_peak", "off_peak")
    assert peak["spot_cost"] == pytest.approx(2 * off["spot_cost"], rel=1e-12)
    assert off["spot_cost"] == pytest.approx((15000 * 0.66 + 5000 * 0.022 + 1500 * 1.98) * 1e-6, rel=1e-12)
    assert default["spot_cost"] == off["spot_cost"]
    assert post(client, "/v1/price", body | {"period": "peak"})["spot_cost"] == peak["spot_cost"]
    # A window holds its first second and not its last: 01:00 is peak, 04:00 is not.
    assert post(client, "/v1/price", body | {"at": "2026-11-23T01:00:00Z"})["period"] == "peak"
    assert post(client, "/v1/price", body | {"at": "2026-11-23T04:00:00Z"})["period"] == "off_peak"
    # Saturdays are off-peak all day (warehouse/seed/peak_days.csv, from DeepSeek's own notice).
    assert post(client, "/v1/price", body | {"at": SATURDAY_PEAK_HOUR})["period"] == "off_peak"


def test_compare_prices_every_model_in_the_period_asked(client):
    body = {"n_in": 20000, "n_out": 1500, "models": ["DEEPSEEK-V4-PRO", "GPT-4.1"]}
    off = {m["ticker"]: m["spot_cost"] for m in post(client, "/v1/compare", body)["models"]}
    peak = {m["ticker"]: m["spot_cost"] for m in post(client, "/v1/compare", body | {"at": MONDAY_PEAK})["models"]}
    assert peak["DEEPSEEK-V4-PRO"] == pytest.approx(2 * off["DEEPSEEK-V4-PRO"], rel=1e-12)
    assert peak["GPT-4.1"] == off["GPT-4.1"]  # not priced by the hour


def test_period_and_at_together_are_refused(client):
    response = client.post("/v1/price", json={"model": "DEEPSEEK-V4-PRO", "n_in": 1, "n_out": 1, "period": "peak",
                                              "at": MONDAY_PEAK})
    problem(response, 400, "invalid_input", "at")


def test_swaps_budgets_and_monte_carlo_include_the_compulsory_fee(client):
    """The chat task type (1,500 in, 30% cached, 400 out) on Sonar Reasoning, which states no cache
    price: 1,500·1 + 400·5 $/M + $12 per 1,000 requests = 0.0035 + 0.012 = $0.0155 a request."""
    swap = client.post("/v1/swap", json={"model": "SONAR-REASONING", "taskType": "chat", "tenor": "1M",
                                         "notionalTokens": 1_000_000}).json()["data"]
    assert swap["floatingRate"] == pytest.approx(0.0155 / 400e-6, rel=1e-12)  # 38.75 $/M output tokens
    budget = client.post("/v1/simulate", json={"items": [{"model": "SONAR-REASONING", "taskType": "chat",
                                                          "requests_per_month": 1000}], "horizon_months": 1,
                                               "paths": 1000}).json()["data"]
    assert budget["workloads"][0]["spot_cost"] == pytest.approx(0.0155, rel=1e-12)
    paths = client.get("/v1/monte-carlo/SONAR-REASONING?taskCategory=chat&horizonMonths=1&paths=1000").json()["data"]
    assert paths["spotCost"] == pytest.approx(0.0155, rel=1e-12)


@pytest.mark.parametrize("at", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
def test_a_time_out_of_range_in_utc_is_refused(client, at):
    for path, body in (("/v1/price", {"model": "DEEPSEEK-V4-PRO"}), ("/v1/compare", {}),
                       ("/v1/providers", {"model": "DEEPSEEK-V4-PRO"})):
        response = client.post(path, json=body | {"n_in": 1000, "n_out": 100, "at": at})
        problem(response, 400, "invalid_input", "at")


def test_providers_show_every_billed_field(client):
    data = post(client, "/v1/providers", {"model": "SONAR-REASONING", "n_in": 2000, "n_out": 500})
    maker = next(p for p in data["providers"] if p["is_origin"])
    assert (maker["request_fee"], maker["input"], maker["output"]) == (12.0, 1.0, 5.0)
    deepseek = post(client, "/v1/providers", {"model": "DEEPSEEK-V4-PRO", "n_in": 2000, "n_out": 500})
    assert json.loads(next(p for p in deepseek["providers"] if p["is_origin"])["peak"])["days"] == "mon-fri"
