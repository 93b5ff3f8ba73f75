"""`as_of` on /v1/price and /v1/compare: the cost at the prices in force on a past day, from the
daily history. Pinned by hand to O3's cut of 2025-06-10 ($10/$40 per million input/output tokens
before, $2/$8 from that day) and GPT-4O's $2.50/$10, and checked against the history table."""

import pytest

from tests.conftest import AS_OF

PROFILE = {"n_in": 1000, "n_out": 500}


def _post(client, path, body):
    response = client.post(path, json=body)
    return response.status_code, response.json()


@pytest.mark.parametrize(("day", "cost"), [("2025-06-09", (1000 * 10 + 500 * 40) / 1e6),
                                           ("2025-06-10", (1000 * 2 + 500 * 8) / 1e6)])
def test_a_price_at_a_past_date_uses_the_prices_then(client, day, cost):
    status, body = _post(client, "/v1/price", {"model": "O3", **PROFILE, "as_of": day})
    assert status == 200 and body["data"]["spot_cost"] == pytest.approx(cost, rel=1e-12)
    assert body["data"]["as_of"] == day and body["data"]["beta_used"] == (40.0 if day < "2025-06-10" else 8.0)


def test_the_snapshot_date_is_todays_price(client):
    _, today = _post(client, "/v1/price", {"model": "O3", **PROFILE})
    _, same = _post(client, "/v1/price", {"model": "O3", **PROFILE, "as_of": AS_OF})
    assert same["data"]["spot_cost"] == today["data"]["spot_cost"] and same["data"]["as_of"] == AS_OF


def test_a_past_comparison_ranks_at_the_prices_then(client):
    status, body = _post(client, "/v1/compare", {**PROFILE, "as_of": "2025-06-09", "models": ["O3", "GPT-4O"]})
    assert status == 200
    assert [(m["ticker"], m["spot_cost"], m["beta"]) for m in body["data"]["models"]] == [
        ("GPT-4O", pytest.approx((1000 * 2.5 + 500 * 10) / 1e6), 10.0), ("O3", pytest.approx(0.03), 40.0)]
    assert body["data"]["as_of"] == "2025-06-09"


def test_every_model_of_a_past_comparison_is_priced_from_that_days_history(client, store):
    day = "2025-09-01"
    status, body = _post(client, "/v1/compare", {**PROFILE, "as_of": day})
    assert status == 200 and body["data"]["count"] > 15  # 18 of the small universe's models then
    checked = 0
    history = store.read_table("price_history")
    then = history[(history["date"].astype(str) == day) & (history["mode"] == "sync")].set_index("ticker")
    for model in body["data"]["models"]:
        row = then.loc[model["ticker"]]
        assert model["beta"] == row["output"], model["ticker"]
        plain = not isinstance(row["tiers"], str) and not isinstance(row["peak"], str) and not row["request_fee"] > 0
        if plain:  # tokens alone: the cost by hand (tiers, peak hours and request fees have their own tests)
            assert model["spot_cost"] == pytest.approx((1000 * row["input"] + 500 * row["output"]) / 1e6,
                                                       rel=1e-12), model["ticker"]
            checked += 1
    assert checked > 10
    unpriced = {row["ticker"] for row in body["data"]["excluded"] if row["reason"] == "no_price"}
    assert unpriced and all(ticker not in then.index or then.loc[ticker, "output"] != then.loc[ticker, "output"]
                            for ticker in unpriced)


@pytest.mark.parametrize(("body", "status", "says"), [
    ({"model": "O3", **PROFILE, "as_of": "2024-01-01"}, 404, "O3 has no sync price on 2024-01-01"),
    ({"model": "O3", **PROFILE, "as_of": "2099-01-01"}, 400, "after the snapshot date"),
    ({"model": "O3", **PROFILE, "as_of": "2025-06-09", "horizon_months": 3}, 400, "not both"),
    ({"model": "O3-3M", **PROFILE, "as_of": "2025-06-09"}, 400, "not both"),
    ({"model": "O3", **PROFILE, "as_of": "2025-6-9"}, 400, "as_of"),
    ({"model": "O3", **PROFILE, "as_of": 20250609}, 400, "as_of"),
])
def test_a_past_date_that_cannot_be_priced_says_why(client, body, status, says):
    got, answer = _post(client, "/v1/price", body)
    assert got == status and says in answer["detail"], answer
