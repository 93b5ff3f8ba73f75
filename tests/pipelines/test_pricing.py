"""Task-cost maths (contract §3), each symbol pinned by hand-computed numbers."""

import math

import numpy as np
import pandas as pd
import pytest

from pipelines.pricing import (
    CacheValue,
    PriceBook,
    Rates,
    cache_value,
    effective_input_rate,
    kappa,
    parse_tiers,
    r_batch,
    r_cache,
    r_in,
    r_think,
    rates_for_prompt,
    spot_cost,
    spot_costs,
    task_cost,
    task_costs,
    unit_prices,
)

EXACT = 1e-12
FLAT = Rates(input=3.0, output=15.0, cache_read=0.30)
# Base 3/15/0.3; above 200k prompt tokens the whole request pays 6/22.5/0.6.
TIERED = Rates(3.0, 15.0, 0.3, tiers=((200_000, Rates(6.0, 22.5, 0.6)),))
TWO_TIERS_JSON = '[{"above":32000,"input":0.2,"output":2.0},{"above":128000,"input":0.4,"output":4.0}]'


def test_contract_test_vector():
    result = task_cost(FLAT, n_in=30_000, n_out=800, eta=0.6)
    assert result.beta_used == 15.0
    assert result.r_in_eff == pytest.approx(0.092, abs=EXACT)
    assert result.kappa == pytest.approx(4.45, abs=EXACT)
    assert result.spot_cost == pytest.approx(0.0534, abs=EXACT)
    assert result.cache_value.cost_without_cache == pytest.approx(0.102, abs=EXACT)
    assert result.cache_value.savings == pytest.approx(0.0486, abs=EXACT)
    assert result.cache_value.savings_pct == pytest.approx(100 * 0.0486 / 0.102, abs=EXACT)
    assert round(result.cache_value.savings_pct, 2) == 47.65


def test_the_symbols_one_by_one_on_the_test_vector():
    assert r_in(FLAT) == pytest.approx(0.2, abs=EXACT)
    assert r_cache(FLAT) == pytest.approx(0.02, abs=EXACT)
    assert r_think(FLAT) == 1.0
    assert effective_input_rate(FLAT, 30_000, 0.6) == pytest.approx(0.092, abs=EXACT)
    assert kappa(FLAT, 30_000, 800, 0.6) == pytest.approx(4.45, abs=EXACT)
    assert spot_cost(FLAT, 30_000, 800, 0.6) == pytest.approx(0.0534, abs=EXACT)
    # d spot_cost / d beta = kappa * n_out * 1e-6 without thinking: scale every price by 2.
    doubled = Rates(6.0, 30.0, 0.6)
    slope = (spot_cost(doubled, 30_000, 800, 0.6) - spot_cost(FLAT, 30_000, 800, 0.6)) / 15.0
    assert slope == pytest.approx(4.45 * 800e-6, abs=EXACT)


@pytest.mark.parametrize(
    ("n_in", "beta", "r_in_eff", "cost"),
    [
        # n_out 1000, eta 0: base (3*n_in + 15*1000)e-6; tier (6*n_in + 22.5*1000)e-6
        (199_999, 15.0, 0.2, 0.614997),
        (200_000, 15.0, 0.2, 0.615),  # exactly at the threshold: still base
        (200_001, 22.5, 6.0 / 22.5, 1.222506),  # one more token: every token at the tier rates
        (250_000, 22.5, 6.0 / 22.5, 1.5225),
    ],
)
def test_cliff_at_the_tier_boundary(n_in, beta, r_in_eff, cost):
    result = task_cost(TIERED, n_in, 1000)
    assert result.beta_used == beta
    assert result.r_in_eff == pytest.approx(r_in_eff, abs=EXACT)
    assert result.spot_cost == pytest.approx(cost, abs=EXACT)
    assert result.kappa == pytest.approx(1 + n_in / 1000 * r_in_eff, abs=EXACT)


@pytest.mark.parametrize(
    ("n_in", "expected"),
    [(32_000, (0.1, 1.0)), (32_001, (0.2, 2.0)), (128_000, (0.2, 2.0)), (128_001, (0.4, 4.0)), (0, (0.1, 1.0))],
)
def test_highest_tier_below_the_prompt_applies(n_in, expected):
    rates = Rates.from_row({"input": 0.1, "output": 1.0, "cache_read": None, "reasoning": None, "tiers": TWO_TIERS_JSON})
    applied = rates_for_prompt(rates, n_in)
    assert (applied.input, applied.output) == expected
    assert applied.tiers == ()


def test_a_field_missing_from_a_tier_keeps_the_base_rate():
    row = pd.Series({"input": 3.0, "output": 15.0, "cache_read": 0.3, "reasoning": np.nan,
                     "tiers": '[{"above":200000,"input":6.0,"output":22.5}]'})
    rates = Rates.from_row(row)
    assert rates.reasoning is None
    assert rates.tiers == ((200_000.0, Rates(6.0, 22.5, 0.3)),)
    # 250k prompt, half cached, no output: 250000 * (6*0.5 + 0.3*0.5) * 1e-6
    assert spot_cost(rates, 250_000, 0, eta=0.5) == pytest.approx(0.7875, abs=EXACT)


def test_from_row_with_other_column_names_and_no_tiers():
    row = {"beta_sync": 8.0, "input_sync": 2.0, "cache_read_sync": 0.5, "reasoning_sync": None, "tiers_sync": None}
    columns = {"output": "beta_sync", "input": "input_sync", "cache_read": "cache_read_sync",
               "reasoning": "reasoning_sync", "tiers": "tiers_sync"}
    assert Rates.from_row(row, columns) == Rates(2.0, 8.0, 0.5)
    assert parse_tiers(float("nan"), Rates(1, 2)) == ()


def test_r_cache_falls_back_to_r_in_without_a_cache_price():
    rates = Rates(input=2.0, output=8.0)
    assert r_cache(rates) == r_in(rates) == 0.25
    assert effective_input_rate(rates, 10_000, 0.7) == pytest.approx(0.25, abs=EXACT)
    assert spot_cost(rates, 10_000, 100, eta=0.7) == spot_cost(rates, 10_000, 100)  # (20000 + 800)e-6
    assert spot_cost(rates, 10_000, 100) == pytest.approx(0.0208, abs=EXACT)
    assert cache_value(rates, 10_000, 100, 0.7) == CacheValue(0.0208, 0.0, 0.0)


@pytest.mark.parametrize(
    ("reasoning", "r_think_expected", "cost"),
    [
        (3.0, 0.375, 0.0088),  # (2*1000 + 8*100 + 3*2000)e-6
        (None, 1.0, 0.0188),  # thinking billed as output: (2*1000 + 8*100 + 8*2000)e-6
    ],
)
def test_r_think_with_and_without_a_reasoning_price(reasoning, r_think_expected, cost):
    rates = Rates(input=2.0, output=8.0, reasoning=reasoning)
    assert r_think(rates) == r_think_expected
    assert spot_cost(rates, 1000, 100, n_think=2000) == pytest.approx(cost, abs=EXACT)
    assert task_cost(rates, 1000, 100, n_think=2000).spot_cost == pytest.approx(cost, abs=EXACT)


def test_kappa_is_none_without_output_tokens():
    assert kappa(FLAT, 1000, 0, 0.0) is None
    result = task_cost(FLAT, 1000, 0)
    assert result.kappa is None
    assert result.spot_cost == pytest.approx(0.003, abs=EXACT)  # 3 * 1000e-6


def test_zero_eta_has_no_cache_value():
    result = task_cost(FLAT, 30_000, 800, eta=0.0)
    assert result.cache_value is None
    assert result.spot_cost == pytest.approx(0.102, abs=EXACT)
    assert task_cost(FLAT, 30_000, 800, eta=1.0).cache_value.savings == pytest.approx(0.081, abs=EXACT)


def test_a_free_model_costs_nothing_and_has_no_ratios():
    free = Rates(0.0, 0.0)
    result = task_cost(free, 5000, 100, eta=0.5)
    assert (result.spot_cost, result.r_in_eff, result.kappa) == (0.0, None, None)
    assert result.cache_value == CacheValue(0.0, 0.0, 0.0)
    assert math.isnan(r_in(free))
    # Input priced while output is free: the cost stays defined.
    assert spot_cost(Rates(1.0, 0.0), 5000, 100) == pytest.approx(0.005, abs=EXACT)


@pytest.mark.parametrize(
    ("beta_batch", "beta_sync", "expected"),
    [(4.0, 8.0, 0.5), (2.0, 2.5, 0.8), (None, 8.0, math.nan), (float("nan"), 8.0, math.nan), (1.0, 0.0, math.nan)],
)
def test_r_batch(beta_batch, beta_sync, expected):
    assert r_batch(beta_batch, beta_sync) == pytest.approx(expected, nan_ok=True)


@pytest.mark.parametrize(
    ("n_in", "n_out", "eta", "n_think", "message"),
    [
        (-1, 100, 0.0, 0, "n_in"),
        (float("nan"), 100, 0.0, 0, "n_in"),
        (1000, float("inf"), 0.0, 0, "n_out"),
        (1000, -5, 0.0, 0, "n_out"),
        (1000, 100, 0.0, -1, "n_think"),
        (1000, 100, 0.0, float("nan"), "n_think"),
        (1000, 100, -0.1, 0, "eta"),
        (1000, 100, 1.5, 0, "eta"),
        (1000, 100, float("nan"), 0, "eta"),
        ("1000", 100, 0.0, 0, "n_in"),
        (True, 100, 0.0, 0, "n_in"),
    ],
)
def test_invalid_profiles_raise_value_error(n_in, n_out, eta, n_think, message):
    with pytest.raises(ValueError, match=message):
        task_cost(FLAT, n_in, n_out, eta, n_think)
    with pytest.raises(ValueError, match=message):
        spot_cost(FLAT, n_in, n_out, eta, n_think)
    with pytest.raises(ValueError, match=message):
        spot_costs(pd.DataFrame({"input": [3.0], "output": [15.0]}), n_in, n_out, eta, n_think)


@pytest.mark.parametrize(
    "fields",
    [{"input": -1.0, "output": 15.0}, {"input": 3.0, "output": None}, {"input": 3.0, "output": float("inf")},
     {"input": 3.0, "output": 15.0, "cache_read": -0.3}, {"input": float("nan"), "output": 15.0}],
)
def test_invalid_rates_raise_value_error(fields):
    with pytest.raises(ValueError, match="price"):
        Rates(**fields)


RATES_FRAME = pd.DataFrame(
    {
        "input": [3.0, 2.0, 0.1, 3.0, 1.0, np.nan, 0.0],
        "output": [15.0, 8.0, 1.0, 15.0, 4.0, np.nan, 0.0],
        "cache_read": [0.3, np.nan, 0.01, 0.3, 0.25, np.nan, np.nan],
        "reasoning": [np.nan, 3.0, np.nan, np.nan, np.nan, np.nan, np.nan],
        "tiers": [None, None, TWO_TIERS_JSON, '[{"above":200000,"input":6.0,"output":22.5}]', None, None, None],
    }
)


@pytest.mark.parametrize(
    "profile",
    [(30_000, 800, 0.6, 0), (250_000, 1000, 0.5, 500), (32_001, 10, 1.0, 0), (128_001, 0, 0.0, 7000), (0, 5, 0.0, 0)],
)
def test_vector_agrees_with_scalar(profile):
    vector = spot_costs(RATES_FRAME, *profile)
    assert math.isnan(vector[5])  # no price, no cost
    scalar = [spot_cost(Rates.from_row(row), *profile) for _, row in RATES_FRAME.drop(index=5).iterrows()]
    assert np.delete(vector, 5).tolist() == pytest.approx(scalar, rel=1e-15, abs=0)
    assert np.delete(vector, 5).tolist() == [task_cost(Rates.from_row(r), *profile).spot_cost
                                             for _, r in RATES_FRAME.drop(index=5).iterrows()]


def test_one_book_priced_up_and_down_the_thresholds_bills_each_prompts_own_tier():
    """A book keeps each band's tiered rates between requests: every prompt, on either side of
    each threshold (32k, 128k, 200k) and back again, is priced as by a fresh book and the scalar."""
    book = PriceBook.of(RATES_FRAME)
    prompts = [250_000, 32_000, 32_001, 0, 200_000, 200_001, 128_000, 128_001, 31_999, 250_000, 32_000]
    for n_in in prompts:
        kept = book.prices(n_in)
        fresh = PriceBook.of(RATES_FRAME).prices(n_in)
        for name, values in fresh.items():
            np.testing.assert_array_equal(kept[name], values)
        expected = [rates_for_prompt(Rates.from_row(row), n_in).output for _, row in RATES_FRAME.iterrows()
                    if not math.isnan(row["output"])]
        assert np.delete(kept["output"], 5).tolist() == expected
    assert book.prices(32_001)["output"][2] == 2.0 and book.prices(32_000)["output"][2] == 1.0


def test_one_book_keeps_each_bands_unit_prices_and_bills_as_a_fresh_one():
    """`task_costs` on one book, up and down the thresholds, is `spot_costs` on a fresh frame each
    time: the unit prices kept per band are each band's own."""
    book = PriceBook.of(RATES_FRAME)
    for n_in in [250_000, 32_000, 32_001, 0, 200_001, 128_001, 31_999, 250_000, 32_000]:
        np.testing.assert_array_equal(task_costs(book, n_in, 800, 0.6).spot_cost, spot_costs(RATES_FRAME, n_in, 800, 0.6))
        prices, units = book.priced_units(n_in)
        assert book.priced_units(n_in)[1] is units  # kept, not made again
        for name, values in unit_prices(PriceBook.of(RATES_FRAME).prices(n_in)).items():
            np.testing.assert_array_equal(units[name], values)


def test_vector_applies_each_rows_tier():
    costs = spot_costs(RATES_FRAME.iloc[[0, 3]], 250_000, 1000)
    # Same base rates; only the second row has a 200k tier: (3*250000 + 15*1000)e-6 vs (6*250000 + 22.5*1000)e-6
    assert costs.tolist() == pytest.approx([0.765, 1.5225], abs=EXACT)


def test_one_rates_bills_every_request_alike_whatever_a_caller_does_with_an_answer():
    """Each Rates works out its unit prices once and keeps them: an answer's own dicts are
    copies, so a caller changing one leaves the next request's bill as it was."""
    rates = Rates(3.0, 15.0, 0.3, request_fee=0.5)
    first = task_cost(rates, n_in=30_000, n_out=800, eta=0.6)
    first.unit_prices["output"] = 99.0
    first.lines["output"] = 99.0
    second = task_cost(rates, n_in=30_000, n_out=800, eta=0.6)
    # 12,000 fresh at $3/M, 18,000 cached at $0.30/M, 800 out at $15/M, one request at $0.5 per 1,000
    assert second.unit_prices["output"] == 15.0 and second.unit_prices["web_search"] is None
    assert second.lines["output"] == pytest.approx(0.012, abs=EXACT)
    assert second.spot_cost == pytest.approx(0.036 + 0.0054 + 0.012 + 0.0005, abs=EXACT)
    assert second.spot_cost == spot_cost(rates, n_in=30_000, n_out=800, eta=0.6)
    assert list(second.lines) == list(second.unit_prices) == list(second.quantities)  # the published order
