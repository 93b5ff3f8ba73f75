"""`follow: "line"` in a budget (`POST /v1/simulate`) on the small universe: each month's expected
spend, the bands of one workload and the line said in words, recomputed from the published
`line_forwards` table (methodology §5, "Line forwards"), and the refusals in /v1/price's words."""

from datetime import date, timedelta

import numpy as np
import pytest

from pipelines.pricing import Rates, task_cost
from pipelines.spots import rate_columns
from pipelines.tasks import TASK_TYPES
from tests.conftest import AS_OF

DAYS_PER_MONTH = 30.4375


@pytest.fixture(scope="module")
def forwards(store):
    return store.read_table("line_forwards").set_index(["current", "mode", "months"])


def chat_cost(store, ticker, mode):
    row = store.read_table("greeks").set_index("ticker").loc[ticker]
    p = TASK_TYPES["chat"]
    return task_cost(Rates.from_row(row, columns=rate_columns(mode)), p.n_in, p.n_out, p.eta, p.n_think).spot_cost


def simulate(client, items, horizon, paths=2000, seed=7):
    answer = client.post("/v1/simulate", json={"items": items, "horizon_months": horizon, "paths": paths, "seed": seed})
    assert answer.status_code == 200, answer.text
    return answer.json()["data"]


def month_of(months: int) -> str:
    """The horizon's month: the snapshot day plus round(months·30.4375) days, as YYYY-MM."""
    return (date.fromisoformat(AS_OF) + timedelta(days=round(months * DAYS_PER_MONTH))).strftime("%Y-%m")


@pytest.mark.parametrize(("ticker", "mode"), [("HAIKU-5.5", "sync"), ("GPT-4.1-MINI", "batch"),
                                              ("GEMINI-3.8-FLASH", "sync")])
def test_a_followed_lines_expected_spend_is_the_published_line_forward(client, store, forwards, ticker, mode):
    """Expected spend in month m: requests·spot_cost·β_line(m)/spot, the line forward's mean over its
    current model's spot; staying on the same model beside it keeps the model's own forward."""
    item = {"model": ticker, "mode": mode, "taskType": "chat", "requests_per_month": 10_000}
    data = simulate(client, [{**item, "follow": "line"}, item], 12)
    monthly = 10_000 * chat_cost(store, ticker, mode)
    curves = store.read_table("forward_curves").set_index(["ticker", "mode", "months"])
    followed = stayed = 0.0
    for month in data["months"]:
        m = float(month["month"])
        point = forwards.loc[(ticker, mode, m)]
        line = monthly * point["beta_forward"] / point["spot"]
        stay = monthly * point["fixed_forward"] / point["spot"]  # the model's own forward, as the line's fixed part
        if (ticker, mode, m) in curves.index:
            assert stay == pytest.approx(monthly * curves.loc[(ticker, mode, m), "beta_forward"] / point["spot"],
                                         rel=1e-9)
        assert month["expected_spend"] == pytest.approx(line + stay, rel=1e-9)
        followed, stayed = followed + line, stayed + stay
    first, second = data["workloads"]
    assert first["expected_spend_total"] == pytest.approx(followed, rel=1e-9)
    assert second["expected_spend_total"] == pytest.approx(stayed, rel=1e-9)
    assert (first["follow"], second["follow"]) == ("line", "model") and "line" not in second
    at = forwards.loc[(ticker, mode, 12.0)]
    change = at["beta_forward"] / at["spot"] - 1
    assert first["line"]["line"] == at["line"] and first["line"]["current"] == ticker
    assert first["line"]["p_successor"] == pytest.approx(at["p_successor"], rel=1e-12)
    assert first["line"]["expected_change"] == pytest.approx(change, rel=1e-9)
    said = f"{change:+.1%}".replace("-", "−")
    assert first["line"]["outlook"] == (f"following the line: expected {said} by {month_of(12)} "
                                        f"({at['p_successor']:.0%} chance of a successor by then)")


def line_law(by_hand, lines, point, mode):
    """The line's price over its current model's spot at a month, by hand: R (1 with chance
    1 − p_change, else a draw of the model's change law) times Q (1 with chance 1 − p_successor, else a
    successor's launch price over its predecessor's, each launched by the snapshot day weighing the
    same), at the announced level: (values, weights)."""
    ratios, weights = by_hand.law(point.name[0], mode)
    r = np.r_[1.0, ratios], np.r_[1 - point["p_change"], point["p_change"] * weights]
    launched = lines[[d is not None and d <= date.fromisoformat(AS_OF) for d in lines["launch_date"]]]
    successors = launched["successor_ratio"].dropna().to_numpy(float)
    q = np.r_[1.0, successors], np.r_[1 - point["p_successor"], np.full(len(successors),
                                                                         point["p_successor"] / len(successors))]
    level = point["scheduled"] / point["spot"]
    return level * np.outer(r[0], q[0]).reshape(-1), np.outer(r[1], q[1]).reshape(-1)


@pytest.mark.parametrize("ticker", ["HAIKU-5.5", "OPUS-4.5", "SOLAR-PRO4"])
def test_one_followers_band_is_the_line_forwards_law(client, store, forwards, by_hand, ticker):
    """Alone in a budget, a workload that follows its line spends, each month, its monthly cost times
    the line's law: each simulated percentile sits where that law's distribution reaches its level
    (within the sampling error of 20,000 paths), and so near the line forward's published band."""
    data = simulate(client, [{"model": ticker, "taskType": "chat", "requests_per_month": 10_000,
                              "follow": "line"}], 12, paths=20_000)
    monthly = 10_000 * chat_cost(store, ticker, "sync")
    lines = store.read_table("lines")
    for month in data["months"]:
        point = forwards.loc[(ticker, "sync", float(month["month"]))]
        values, weights = line_law(by_hand, lines, point, "sync")
        assert float(values @ weights) == pytest.approx(point["beta_forward"] / point["spot"], rel=1e-9)
        order = np.argsort(values, kind="stable")
        for level, name, published in ((0.05, "p05", "p05"), (0.5, "p50", "beta_median"), (0.95, "p95", "p95")):
            exact = values[order][np.searchsorted(np.cumsum(weights[order]), level - 1e-12)]
            assert exact == pytest.approx(point[published] / point["spot"], rel=1e-9)  # the published band
            x = month[name] / monthly
            below, upto = weights[values < x * (1 - 1e-9)].sum(), weights[values <= x * (1 + 1e-9)].sum()
            assert below <= level + 0.01 and upto >= level - 0.01, (month["month"], name)


def test_a_successor_forced_by_a_retirement_comes_on_every_path(client, store, forwards):
    """GPT-4.1-MINI retires 2027-01-14: from month 2 (2027-01-22) every path has moved to a successor,
    so the spend's band is the succession law's, scaled: its 5% and 95% over the spot."""
    data = simulate(client, [{"model": "GPT-4.1-MINI", "taskType": "chat", "requests_per_month": 10_000,
                              "follow": "line"}], 3, paths=20_000)
    assert data["workloads"][0]["line"]["p_successor"] == 1.0
    monthly = 10_000 * chat_cost(store, "GPT-4.1-MINI", "sync")
    point = forwards.loc[("GPT-4.1-MINI", "sync", 3.0)]
    assert point["p_successor"] == 1.0
    assert data["months"][2]["expected_spend"] == pytest.approx(monthly * point["beta_forward"] / point["spot"],
                                                                rel=1e-9)


def test_workloads_following_one_line_share_its_successor(client):
    """Two workloads on one line are one of their summed volume, path for path (one successor
    comes for both)."""
    item = {"model": "HAIKU-5.5", "taskType": "chat", "follow": "line"}
    apart = simulate(client, [{**item, "requests_per_month": 4_000}, {**item, "requests_per_month": 6_000}], 6)
    whole = simulate(client, [{**item, "requests_per_month": 10_000}], 6)
    for one, other in zip(apart["months"], whole["months"], strict=True):
        assert {k: pytest.approx(v, rel=1e-12) for k, v in one.items()} == other


def test_a_model_that_is_not_its_lines_current_one_is_refused_as_price_refuses_it(client):
    item = {"model": "SONNET-4", "taskType": "chat", "requests_per_month": 1000, "follow": "line"}
    refused = client.post("/v1/simulate", json={"items": [{"model": "HAIKU-5.5", "taskType": "chat",
                                                           "requests_per_month": 1000}, item], "horizon_months": 3})
    assert refused.status_code == 400
    error = refused.json()["errors"][0]
    assert error["field"] == "items[1].follow"
    priced = client.post("/v1/price", json={"model": "SONNET-4", "n_in": 10, "n_out": 10, "horizon_months": 3,
                                            "follow": "line"}).json()["errors"][0]
    assert error["message"] == priced["message"] == ("SONNET-4 is not the current model of its line anthropic/sonnet: "
                                                     "its current model is SONNET-4.5; price that to follow the line")
    wrong = client.post("/v1/simulate", json={"items": [{**item, "model": "HAIKU-5.5", "follow": "successor"}],
                                              "horizon_months": 3})
    assert wrong.status_code == 400 and "follow" in wrong.text
