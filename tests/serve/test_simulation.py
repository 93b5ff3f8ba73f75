"""Swap, Monte Carlo and budget simulation against the real snapshot, recomputed from its tables:
every forward from the forecast law by hand (tests/forecast_by_hand.py), never from the functions
the server calls."""

import math
from datetime import date

import numpy as np
import pytest

import serve.api.simulation as simulation
from pipelines.forecast import ChangeLaw, Process
from pipelines.pricing import Rates, task_cost
from pipelines.spots import rate_columns
from pipelines.tasks import TASK_TYPES
from serve.settings import Settings

AS_OF = date(2026, 11, 22)
ONE_DAY = 1 / 30.4375  # months
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

def swap_by_hand(by_hand, row, mode, task, tenor, notional, fixed=None):
    """The swap of `pipelines.swap`'s docstring, every expected rate from the law by hand:
    E[float(t)] = float(0)·L(t)·E[R_t] at t = 1 … tenor; greeks at `fixed`, else the fair rate."""
    ticker = row["ticker"]
    p = TASK_TYPES[task]
    float0 = spot_cost_of(row, mode, task) / (p.n_out * 1e-6)
    t = np.arange(1, tenor + 1, dtype=float)
    level = np.array([by_hand.level(ticker, mode, m) for m in t])
    notional_i = np.full(tenor, notional / tenor)

    def expected_at(months):
        return float0 * level * np.array([by_hand.expected_ratio(ticker, mode, m) for m in months])

    def npv(months, rate):
        return float(np.sum(np.exp(-Settings().discount_rate * months / 12) * notional_i
                            * (expected_at(months) - rate)) * 1e-6)

    df = np.exp(-Settings().discount_rate * t / 12)
    expected = expected_at(t)
    fair = float(np.sum(df * expected) / np.sum(df))
    contract = fair if fixed is None else fixed
    beta = row[f"beta_{mode}"]
    return {"float0": float0, "expected": expected, "df": df, "fair": fair, "level": level,
            "notional_usd": float(np.sum(notional_i * expected) * 1e-6),
            "delta": float(np.sum(df * notional_i * expected)) / beta * 1e-6,
            "theta_greek": npv(t - ONE_DAY, contract) - npv(t, contract),
            "pv01": -0.01 * float(np.sum(df * notional_i)) * 1e-6}


@pytest.mark.parametrize("ticker", ["SONNET-4", "DEEPSEEK-V4-PRO"])
def test_swap_fair_rate_and_greeks_are_recomputed_from_the_tables(client, greeks, by_hand, ticker):
    body = client.post("/v1/swap", json={**SWAP, "model": ticker})
    assert body.status_code == 200, body.text
    data = body.json()["data"]
    row = greeks.loc[ticker]
    hand = swap_by_hand(by_hand, row, "sync", "coding", 3, 120_000_000)
    if ticker == "SONNET-4":
        # By hand from the row's prices: coding is 8000 in (half cached), 1200 out.
        float0 = (row["beta_sync"] * 1200 + 8000 * (0.5 * row["input_sync"] + 0.5 * row["cache_read_sync"])) / 1200
        assert float0 == pytest.approx(26.0, abs=1e-12) and hand["float0"] == pytest.approx(26.0, rel=1e-12)
    else:  # a family that rose: the expected rate climbs with the chance of a change
        assert np.all(np.diff(hand["expected"]) > 0) and hand["expected"][0] > hand["float0"]
    assert data["floatingRate"] == pytest.approx(hand["float0"], rel=1e-12)
    assert data["fairFixedRate"] == pytest.approx(hand["fair"], rel=1e-12)
    assert data["notionalUsd"] == pytest.approx(hand["notional_usd"], rel=1e-12)
    assert data["npv"] == pytest.approx(0.0, abs=1e-9)
    assert data["greeks"]["vega"] == 0.0  # the law has no diffusion, and the npv reads only its mean
    assert data["greeks"] == pytest.approx({"delta": hand["delta"], "vega": 0.0, "theta_greek": hand["theta_greek"],
                                            "pv01": hand["pv01"]}, rel=1e-9, abs=1e-15)
    assert (data["model"], data["mode"], data["taskType"], data["tenorMonths"]) == (ticker, "sync", "coding", 3)
    assert data["discountRate"] == Settings().discount_rate
    assert "npvAtFixedRate" not in data and "fixedRate" not in data
    assert [f["date"] for f in data["schedule"]] == ["2026-12-22", "2027-01-22", "2027-02-21"]
    assert [f["months"] for f in data["schedule"]] == [1, 2, 3]
    assert [f["notional_tokens"] for f in data["schedule"]] == pytest.approx([40e6] * 3)
    assert [f["expected_floating_rate"] for f in data["schedule"]] == pytest.approx(list(hand["expected"]), rel=1e-12)
    assert [f["discount_factor"] for f in data["schedule"]] == pytest.approx(list(hand["df"]), rel=1e-12)


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


CURVE_TENORS = {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}


@pytest.mark.parametrize(("ticker", "mode"), [("DEEPSEEK-V4-PRO", "sync"), ("GEMINI-4-ARGON", "sync"),
                                              ("SONNET-4", "batch")])
def test_a_twelve_month_swap_follows_the_published_curve(client, greeks, curves, by_hand, ticker, mode):
    """12 monthly fixings: at the curve's tenors each expected rate is float(0)·beta_forward/spot of
    the published `forward_curves` row; between them it is the forward the price endpoint gives at
    that horizon (the law's chance of change read month by month, `processes`), and lies between
    its neighbouring curve points. The fair rate is Σ DF·N·E / Σ DF·N of those fixings."""
    name = ticker if mode == "sync" else f"{ticker}.B"
    response = client.post("/v1/swap", json={"model": name, "taskType": "coding", "tenor": "12M",
                                              "notionalTokens": 120_000_000})
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    schedule = data["schedule"]
    p = TASK_TYPES["coding"]
    float0 = spot_cost_of(greeks.loc[ticker], mode, "coding") / (p.n_out * 1e-6)
    assert (data["tenor"], data["tenorMonths"], len(schedule)) == ("12M", 12, 12)
    assert [f["months"] for f in schedule] == list(range(1, 13))
    assert [f["notional_tokens"] for f in schedule] == pytest.approx([10e6] * 12, rel=1e-15)
    assert [f["date"] for f in schedule] == [by_hand.horizon_day(m).isoformat() for m in range(1, 13)]
    assert schedule[-1]["date"] == "2027-11-22"  # round(12·30.4375) = 365 days on
    expected = np.array([f["expected_floating_rate"] for f in schedule])
    spot = greeks.loc[ticker, f"beta_{mode}"]
    on_curve = {months: float0 * curves.loc[(ticker, mode, tenor), "beta_forward"] / spot
                for tenor, months in CURVE_TENORS.items()}
    for months, rate in on_curve.items():
        assert expected[months - 1] == pytest.approx(rate, rel=1e-12), months
    for months in range(1, 13):
        hand = float0 * by_hand.level(ticker, mode, months) * by_hand.expected_ratio(ticker, mode, months)
        assert expected[months - 1] == pytest.approx(hand, rel=1e-12), months
        price = client.post("/v1/price", json={"model": name, "n_in": p.n_in, "n_out": p.n_out, "eta": p.eta,
                                               "horizon_months": months}).json()["data"]["forward"]
        assert expected[months - 1] == pytest.approx(price["cost"] / (p.n_out * 1e-6), rel=1e-12), months
    tenors = sorted(on_curve)
    for before, after in zip(tenors, tenors[1:]):
        if by_hand.level(ticker, mode, before) == by_hand.level(ticker, mode, after):
            low, high = sorted((on_curve[before], on_curve[after]))
            between = expected[before:after - 1]  # the fixings of the months strictly between
            assert np.all((between >= low * (1 - 1e-12)) & (between <= high * (1 + 1e-12))), (before, after)
    # The fair rate by hand from those fixings and DF = e^(−r·t/12), N = 10⁷ each.
    t = np.arange(1, 13, dtype=float)
    df = np.exp(-Settings().discount_rate * t / 12)
    assert [f["discount_factor"] for f in schedule] == pytest.approx(list(df), rel=1e-12)
    assert df[-1] == pytest.approx(math.exp(-Settings().discount_rate), rel=1e-15)
    assert data["fairFixedRate"] == pytest.approx(float(np.sum(df * 10e6 * expected) / np.sum(df * 10e6)), rel=1e-12)
    assert data["notionalUsd"] == pytest.approx(float(np.sum(expected) * 10e6 * 1e-6), rel=1e-12)
    assert data["greeks"]["pv01"] == pytest.approx(-0.01 * float(np.sum(df)) * 10e6 * 1e-6, rel=1e-12)
    assert data["npv"] == pytest.approx(0.0, abs=1e-9)
    if ticker == "DEEPSEEK-V4-PRO":  # a family that rose: every fixing above the last, the fair rate above today's
        assert np.all(np.diff(expected) > 0) and data["fairFixedRate"] > float0
    if ticker == "GEMINI-4-ARGON":  # 20 $/M announced from 2026-12-01 for a 10 $/M spot: every fixing at twice today's
        assert by_hand.level(ticker, mode, 1) == 2.0 and expected[0] == pytest.approx(2 * float0, rel=1e-12)


def test_a_twelve_month_swap_in_either_spelling(client):
    """SONNET-4's law never rose (its mean is held at 1) and nothing is announced: the fair rate of
    every tenor is today's floating rate, 26 $/M (coding on SONNET-4, by hand above)."""
    camel = client.post("/v1/swap", json={**SWAP, "tenor": "12M", "fixedRate": 30.0}).json()["data"]
    snake = client.post("/v1/swap", json={"model": "sonnet-4", "task_type": "coding", "tenor": " 12m",
                                          "notional_tokens": 120_000_000, "fixed_rate": 30.0}).json()["data"]
    assert camel == snake
    assert camel["tenorMonths"] == 12 and len(camel["schedule"]) == 12
    assert camel["fairFixedRate"] == pytest.approx(26.0, rel=1e-12)
    dfs = np.exp(-Settings().discount_rate * np.arange(1, 13) / 12)
    assert camel["npvAtFixedRate"] == pytest.approx(float(np.sum(dfs * 10e6 * (26.0 - 30.0))) * 1e-6, rel=1e-9)


def test_swap_on_the_batch_price(client, greeks):
    by_ticker = client.post("/v1/swap", json={**SWAP, "model": "SONNET-4.B"}).json()["data"]
    by_mode = client.post("/v1/swap", json={**SWAP, "mode": "batch"}).json()["data"]
    assert by_ticker == by_mode
    assert by_ticker["mode"] == "batch"
    assert by_ticker["floatingRate"] == pytest.approx(spot_cost_of(greeks.loc["SONNET-4"], "batch", "coding") / 1200e-6)
    assert by_ticker["theta"] == pytest.approx(greeks.loc["SONNET-4", "theta_batch"], rel=1e-14)


# --- Monte Carlo ---------------------------------------------------------------------------------

MC_PATHS = 100_000  # the most a request may ask for
# Three families that never rose (their change law's mean is at most 1; LLAMA-3.2-1B's host median
# moved up, but no maker raised a price), two that did (one of them with a price announced from
# 2027-01-01), one with a price announced from 2026-12-01, and a batch price.
MC_CASES = [("SONNET-4", "sync"), ("O3", "sync"), ("LLAMA-3.2-1B", "sync"), ("DEEPSEEK-V4-PRO", "sync"),
            ("GEMINI-3.6-FLASH", "sync"), ("GEMINI-4-ARGON", "sync"), ("SONNET-4", "batch")]


def test_the_monte_carlo_sample_holds_a_family_that_rose(by_hand):
    tickers = {ticker for ticker, _ in MC_CASES}
    assert len(tickers) >= 5
    assert {by_hand.law_name[case] for case in MC_CASES} == {"family_rose", "family_never_rose"}
    assert {"DEEPSEEK-V4-PRO", "GEMINI-3.6-FLASH"} <= set(by_hand.tickers_of("family_rose"))
    assert by_hand.law_name[("LLAMA-3.2-1B", "sync")] == "family_never_rose"


# Every horizon a Monte Carlo takes: the forward curves' tenors, to 12 months.
@pytest.mark.parametrize(("months", "tenor"), [(1, "1M"), (2, "2M"), (3, "3M"), (6, "6M"), (9, "9M"), (12, "12M")])
@pytest.mark.parametrize(("ticker", "mode"), MC_CASES)
def test_monte_carlo_mean_is_the_forward_within_three_standard_errors(client, greeks, curves, by_hand, ticker, mode,
                                                                    months, tenor):
    name = ticker if mode == "sync" else f"{ticker}.B"
    response = client.get(f"/v1/monte-carlo/{name}?taskCategory=coding&horizonMonths={months}&paths={MC_PATHS}"
                          f"&seed=7")
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    row = greeks.loc[ticker]
    spot, beta = spot_cost_of(row, mode, "coding"), row[f"beta_{mode}"]
    # By hand: spot_cost · L_h · E[R_h], E[R_h] = 1 + P_h·(m − 1) from the processes and change_laws rows.
    p = by_hand.p_change(ticker, mode, months)
    forward = spot * by_hand.level(ticker, mode, months) * (1 + p * (by_hand.law_mean(ticker, mode) - 1))
    published = curves.loc[(ticker, mode, tenor)]
    assert published["p_change"] > 0  # a law that can move the price: the mean is a test of the paths
    assert data["spotCost"] == pytest.approx(spot, rel=1e-12)
    assert data["spotBeta"] == beta
    assert data["theta"] == pytest.approx(row["theta" if mode == "sync" else "theta_batch"], rel=1e-12, abs=1e-15)
    assert data["forwardCost"] == pytest.approx(forward, rel=1e-12)
    assert data["forwardCost"] == pytest.approx(spot * published["beta_forward"] / beta, rel=1e-12)
    standard_error = data["cost"]["std"] / math.sqrt(MC_PATHS)
    assert data["meanStandardError"] == pytest.approx(standard_error, rel=1e-12)
    assert abs(data["cost"]["mean"] - forward) <= 3 * standard_error + 1e-15
    assert abs(data["cost"]["mean"] - spot * published["beta_forward"] / beta) <= 3 * standard_error + 1e-15
    assert data["beta"]["mean"] == pytest.approx(data["cost"]["mean"] * beta / spot, rel=1e-9)
    stats = [data["cost"][k] for k in ("p01", "p05", "p25", "p50", "p75", "p95", "p99")]
    assert stats == sorted(stats)
    assert len(data["histogram"]) == 20 and sum(b["count"] for b in data["histogram"]) == MC_PATHS
    assert data["histogram"][0]["lower"] <= stats[0] and data["histogram"][-1]["upper"] >= stats[-1]
    assert [f["month"] for f in data["fan"]] == list(range(1, months + 1))
    assert all(f["p05"] <= f["p25"] <= f["p50"] <= f["p75"] <= f["p95"] for f in data["fan"])
    assert data["fan"][-1]["mean"] == pytest.approx(data["beta"]["mean"], rel=1e-9)
    # The median path has not changed (P_h < ½): it sits at the scheduled price.
    assert data["fan"][-1]["p50"] == pytest.approx(by_hand.scheduled_beta(ticker, mode, months), rel=1e-12)
    # The law's chance of a change by h, and the simulated share of paths that changed (a price a
    # source has announced is known, not a change): a binomial share within three standard errors.
    assert data["probabilityOfChangeModel"] == pytest.approx(p, rel=1e-12)
    assert data["probabilityOfChangeModel"] == pytest.approx(published["p_change"], rel=1e-12)
    assert abs(data["probabilityOfChange"] - p) <= 3 * math.sqrt(p * (1 - p) / MC_PATHS)
    assert "changeThreshold" not in data
    assert (data["ticker"], data["mode"], data["taskCategory"], data["horizonMonths"], data["paths"], data["seed"]) == (
        ticker, mode, "coding", months, MC_PATHS, 7)


def test_monte_carlo_paths_are_the_laws_sampler_seeded_by_the_query(client, greeks, by_hand):
    """The paths are `Process.sample` on the months 1 … h with np.random.default_rng(seed), the law
    built here from the processes and change_laws rows, and the announced level on top."""
    ticker, months, paths, seed = "GEMINI-3.6-FLASH", 3, 5000, 99
    data = client.get(f"/v1/monte-carlo/{ticker}?taskCategory=chat&horizonMonths={months}&paths={paths}"
                      f"&seed={seed}").json()["data"]
    ratios, weights = by_hand.law(ticker, "sync")
    law = ChangeLaw(ratios, weights / weights.sum())
    grid = np.arange(1, months + 1, dtype=float)
    drawn = Process(by_hand.chances[(ticker, "sync")], law).sample(grid, paths, np.random.default_rng(seed))
    levels = np.array([by_hand.level(ticker, "sync", m) for m in grid])
    assert levels.tolist() == [1.0, 2.0, 2.0]
    costs = spot_cost_of(greeks.loc[ticker], "sync", "chat") * drawn[:, -1] * levels[-1]
    assert data["cost"]["mean"] == pytest.approx(costs.mean(), rel=1e-12)
    assert data["cost"]["p99"] == pytest.approx(np.percentile(costs, 99), rel=1e-12)
    assert data["probabilityOfChange"] == np.mean(drawn[:, -1] != 1.0)
    assert [f["mean"] for f in data["fan"]] == pytest.approx(
        list(greeks.loc[ticker, "beta_sync"] * (drawn * levels).mean(axis=0)), rel=1e-12)


def test_monte_carlo_is_deterministic_by_seed(client):
    url = "/v1/monte-carlo/SONNET-4?taskCategory=reasoning&horizonMonths=3&paths=5000"
    first, again = client.get(url + "&seed=42").json()["data"], client.get(url + "&seed=42").json()["data"]
    other = client.get(url + "&seed=43").json()["data"]
    assert first == again
    assert first["cost"] != other["cost"]
    twin = client.get("/v1/monte-carlo/claude-sonnet-4-20250514?task_category=reasoning&horizon_months=3"
                      "&paths=5000&seed=42").json()["data"]
    assert twin == first


def test_monte_carlo_to_twelve_months_in_either_spelling(client):
    url = "/v1/monte-carlo/deepseek-v4-pro?{}&paths=5000&seed=3"
    camel = client.get(url.format("taskCategory=chat&horizonMonths=12"))
    snake = client.get(url.format("task_category=chat&horizon_months=12"))
    assert camel.status_code == snake.status_code == 200, camel.text
    assert camel.json()["data"] == snake.json()["data"]
    data = camel.json()["data"]
    assert (data["ticker"], data["horizonMonths"], data["mode"]) == ("DEEPSEEK-V4-PRO", 12, "sync")
    assert [f["month"] for f in data["fan"]] == list(range(1, 13))


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

def test_simulate_expected_spend_is_analytic_and_the_bands_simulated(client, greeks, curves, by_hand):
    body = {"items": [ITEM, {"model": "GPT-4.1", "profile": {"n_in": 2000, "n_out": 500, "eta": 0.2},
                             "requests_per_month": 3000},
                      {"model": "SONNET-4", "taskType": "chat", "requests_per_month": 20000},
                      {"model": "DEEPSEEK-V4-PRO", "taskType": "chat", "requests_per_month": 50000}],
            "horizon_months": 3, "paths": 20000, "seed": 5}
    response = client.post("/v1/simulate", json=body)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    sonnet, deepseek = greeks.loc["SONNET-4"], greeks.loc["DEEPSEEK-V4-PRO"]
    gpt = Rates.from_row(greeks.loc["GPT-4.1"].to_dict(), columns=rate_columns("sync"))
    gpt_cost = task_cost(gpt, 2000, 500, 0.2).spot_cost
    monthly = {"SONNET-4": 10_000 * spot_cost_of(sonnet, "sync", "coding") + 20_000 * spot_cost_of(sonnet, "sync", "chat"),
               "GPT-4.1": 3000 * gpt_cost, "DEEPSEEK-V4-PRO": 50_000 * spot_cost_of(deepseek, "sync", "chat")}
    for month, tenor in zip(data["months"], ["1M", "2M", "3M"]):
        m = month["month"]
        # By hand: requests·spot_cost·E[R_m], E[R_m] = 1 + P_m·(mean − 1) (no price is announced for these).
        expected = sum(spend * by_hand.level(ticker, "sync", m) * by_hand.expected_ratio(ticker, "sync", m)
                       for ticker, spend in monthly.items())
        assert month["expected_spend"] == pytest.approx(expected, rel=1e-12)
        published = sum(spend * curves.loc[(ticker, "sync", tenor), "decay_factor"] for ticker, spend in monthly.items())
        assert month["expected_spend"] == pytest.approx(published, rel=1e-12)
        assert month["expected_spend"] > sum(monthly.values())  # the family that rose carries the mean up
        assert month["p05"] <= month["p25"] <= month["p50"] <= month["p75"] <= month["p95"]
    assert [m["month"] for m in data["months"]] == [1, 2, 3]
    assert data["total_expected_spend"] == pytest.approx(sum(m["expected_spend"] for m in data["months"]), rel=1e-12)
    workloads = data["workloads"]
    assert [(w["model"], w["task"]) for w in workloads] == [("SONNET-4", "coding"), ("GPT-4.1", "custom"),
                                                           ("SONNET-4", "chat"), ("DEEPSEEK-V4-PRO", "chat")]
    assert workloads[1]["task_profile"] == {"n_in": 2000.0, "n_out": 500.0, "eta": 0.2, "n_think": 0.0}
    assert workloads[1]["spot_cost"] == pytest.approx(gpt_cost, rel=1e-12)
    deepseek_spend = 50_000 * spot_cost_of(deepseek, "sync", "chat") * sum(
        by_hand.expected_ratio("DEEPSEEK-V4-PRO", "sync", m) for m in (1, 2, 3))
    assert workloads[3]["expected_spend_total"] == pytest.approx(deepseek_spend, rel=1e-12)
    assert workloads[3]["share"] == pytest.approx(deepseek_spend / data["total_expected_spend"], rel=1e-12)
    assert sum(w["share"] for w in workloads) == pytest.approx(1.0, abs=1e-12)
    assert sum(w["expected_spend_total"] for w in workloads) == pytest.approx(data["total_expected_spend"], rel=1e-12)
    assert (data["horizon_months"], data["paths"], data["seed"]) == (3, 20000, 5)
    assert client.post("/v1/simulate", json=body).json()["data"] == data


def test_a_twelve_month_budget_ends_on_the_published_12m_forward(client, greeks, curves):
    body = {"items": [{"model": "DEEPSEEK-V4-PRO", "taskType": "chat", "requests_per_month": 50_000}],
            "horizonMonths": 12, "paths": 2000, "seed": 1}
    months = client.post("/v1/simulate", json=body).json()["data"]["months"]
    row = greeks.loc["DEEPSEEK-V4-PRO"]
    for tenor, m in CURVE_TENORS.items():
        published = curves.loc[("DEEPSEEK-V4-PRO", "sync", tenor), "beta_forward"] / row["beta_sync"]
        assert months[m - 1]["expected_spend"] == pytest.approx(
            50_000 * spot_cost_of(row, "sync", "chat") * published, rel=1e-12)


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
    ({**SWAP, "tenor": "4M"}, "tenor"),
    ({**SWAP, "tenor": "13M"}, "tenor"),
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


@pytest.mark.parametrize("tenor", ["4M", "18M", "1Y"])
def test_a_tenor_off_the_curve_lists_the_valid_ones(client, tenor):
    body = assert_problem(client.post("/v1/swap", json={**SWAP, "tenor": tenor}), 400, "invalid_input", "tenor")
    assert body["detail"] == f"tenor: must be one of 1M, 2M, 3M, 6M, 9M, 12M, got '{tenor}'"
    assert body["valid"] == list(CURVE_TENORS)


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


@pytest.mark.parametrize(("method", "path", "kwargs"), [
    ("post", "/v1/swap", {"json": {**SWAP, "model": "O3", "notionalTokens": 7_654_321}}),
    ("get", "/v1/monte-carlo/O3?taskCategory=coding&horizonMonths=3&seed=7654321", {}),
    ("post", "/v1/simulate", {"json": {"items": [{**ITEM, "model": "O3", "requests_per_month": 7654321}],
                                       "horizon_months": 3}}),
])
def test_a_model_without_a_forecast_is_a_404_no_forecast(client, monkeypatch, method, path, kwargs):
    """Every priced model of the bundled data has a law; one without (no price history to fit it
    from) is refused, never priced as if its price could not change."""
    real = simulation.process_of
    monkeypatch.setattr(simulation, "process_of",
                        lambda snapshot, ticker, mode: None if ticker == "O3" else real(snapshot, ticker, mode))
    body = assert_problem(getattr(client, method)(path, **kwargs), 404, "no_forecast")
    assert "O3" in body["detail"]


def test_a_model_without_a_batch_price_is_the_same_404_on_every_endpoint(client, greeks):
    ticker = greeks[greeks["beta_batch"].isna()]["ticker"].iloc[0]
    assert_problem(client.post("/v1/swap", json={**SWAP, "model": ticker, "mode": "batch"}), 404, "no_batch_price")
    assert_problem(client.get(f"/v1/monte-carlo/{ticker}.B?taskCategory=chat&horizonMonths=1"), 404,
                   "no_batch_price")
    assert_problem(client.post("/v1/price", json={"model": ticker, "n_in": 1, "n_out": 1, "mode": "batch"}), 404,
                   "no_batch_price")
    assert_problem(client.get(f"/v1/forwards/{ticker}?mode=batch"), 404, "no_batch_price")


def test_a_batch_ticker_asked_in_sync_is_the_same_400_on_every_endpoint(client):
    """One resolver (`serve.model_mode`) answers every endpoint that prices one model in a mode."""
    answers = [
        client.post("/v1/swap", json={**SWAP, "model": "SONNET-4.B", "mode": "sync"}),
        client.get("/v1/monte-carlo/SONNET-4.B?taskCategory=chat&horizonMonths=1&mode=sync"),
        client.post("/v1/simulate", json={"items": [{"model": "SONNET-4.B", "mode": "sync", "taskType": "chat",
                                                     "requests_per_month": 10}], "horizon_months": 1}),
        client.post("/v1/price", json={"model": "SONNET-4.B", "n_in": 1, "n_out": 1, "mode": "sync"}),
        client.post("/v1/providers", json={"model": "SONNET-4.B", "n_in": 1, "n_out": 1, "mode": "sync"}),
        client.get("/v1/forwards/SONNET-4.B?mode=sync"),
        client.get("/v1/history/SONNET-4.B?mode=sync"),
    ]
    details = {assert_problem(answer, 400, "invalid_input")["detail"].removeprefix("items[0].") for answer in answers}
    assert details == {"mode: 'SONNET-4.B' is the batch ticker of SONNET-4, which prices batch; ask for SONNET-4 "
                       "for sync prices, or leave mode out"}, details


@pytest.mark.parametrize(("query", "field"), [
    ("horizonMonths=3", "taskCategory"),
    ("taskCategory=coding", "horizonMonths"),
    ("taskCategory=poetry&horizonMonths=3", "taskCategory"),
    ("task_category=poetry&horizonMonths=3", "task_category"),
    ("taskCategory=coding&horizonMonths=4", "horizonMonths"),
    ("taskCategory=coding&horizon_months=13", "horizon_months"),
    ("taskCategory=coding&horizonMonths=0", "horizonMonths"),
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
    if field.startswith("horizon") and query.endswith(("=4", "=13", "=0")):
        assert body["detail"].startswith(f"{field}: must be one of 1, 2, 3, 6, 9, 12, got ")
        assert body["valid"] == list(CURVE_TENORS.values())


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
    # The allowed values are the forward curves' tenors, to 12 months, and the documents say so.
    horizon = next(p for p in schema["paths"]["/v1/monte-carlo/{ticker}"]["get"]["parameters"]
                   if p["name"] == "horizonMonths")
    assert horizon["description"].startswith("Horizon in months: 1, 2, 3, 6, 9, 12 ")
    assert "(1, 2, 3, 6, 9, 12 months)" in schema["paths"]["/v1/monte-carlo/{ticker}"]["get"]["description"]
    tenor = schema["components"]["schemas"]["SwapRequest"]["properties"]["tenor"]
    assert tenor["description"].startswith("Tenor: 1M, 2M, 3M, 6M, 9M, 12M ")
    assert "(1M, 2M, 3M, 6M, 9M, 12M: up to 12 monthly fixings" in schema["paths"]["/v1/swap"]["post"]["description"]
    assert "from 1 to 12" in schema["paths"]["/v1/simulate"]["post"]["description"]


@pytest.mark.parametrize("n_out", [1e12, 1.0000001e12])
def test_a_task_profile_has_the_same_bounds_on_every_endpoint(client, n_out):
    """One token bound (`serve.params.Tokens`: a trillion tokens is a count, a little more is not)
    and one fit check (`serve.model_mode.check_fit`): past the model's context window, /v1/price
    and /v1/simulate answer the same 400."""
    price = client.post("/v1/price", json={"model": "LLAMA-3.2-1B", "n_in": 1, "n_out": n_out})
    budget = client.post("/v1/simulate", json={"items": [{"model": "LLAMA-3.2-1B", "profile": {"n_in": 1, "n_out": n_out},
                                                          "requests_per_month": 1}], "horizon_months": 1, "paths": 10})
    details = [assert_problem(answer, 400, "invalid_input")["detail"] for answer in (price, budget)]
    if n_out == 1e12:  # a count, too many for the model
        assert details[0] == "n_in: the profile needs 1,000,000,000,001 tokens (n_in + n_think + n_out), more than the " \
                             "model's context window of 131,072"
        assert details[1] == "items[0].profile: " + details[0].removeprefix("n_in: ")
    else:
        assert all("1000000000000" in detail for detail in details)


def test_a_task_type_the_model_cannot_serve_is_a_400_on_swap_and_monte_carlo(client, greeks):
    plain = greeks[~greeks["is_reasoning"].astype(bool) & greeks["beta_sync"].notna()]["ticker"].iloc[0]
    swap = client.post("/v1/swap", json={**SWAP, "model": plain, "taskType": "reasoning"})
    paths = client.get(f"/v1/monte-carlo/{plain}?taskCategory=reasoning&horizonMonths=1")
    assert assert_problem(swap, 400, "invalid_input", "taskType")["detail"] == \
        f"taskType: {plain} bills no thinking tokens (it is not a reasoning model); choose a task without thinking"
    assert_problem(paths, 400, "invalid_input", "taskCategory")
