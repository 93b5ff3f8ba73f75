"""Properties of the task-cost maths over generated prices and profiles (hypothesis).

The rates are drawn as providers set them: positive output price, input and reasoning prices
anywhere from free to well above it, a cache price no dearer than the input price, and context
tiers whose rates are no cheaper than the base (a long prompt never gets cheaper per token).
"""

import json
import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.pricing import PriceBook, Rates, cache_value, kappa, spot_cost, task_cost, task_costs

pytestmark = pytest.mark.slow  # hundreds of generated cases per property

PRICE = st.floats(min_value=0.0, max_value=500.0, allow_nan=False, allow_infinity=False)
POSITIVE_PRICE = st.floats(min_value=1e-3, max_value=500.0, allow_nan=False, allow_infinity=False)
# Token counts: none, or from a thousandth (averages over many requests) to two million.
TOKENS = st.just(0.0) | st.floats(min_value=1e-3, max_value=2e6, allow_nan=False, allow_infinity=False)
ETA = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
SCALE = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)
EXAMPLES = settings(max_examples=300, deadline=None)


@st.composite
def rates(draw, tiered: bool = True) -> Rates:
    output = draw(POSITIVE_PRICE)
    input_price = draw(PRICE)
    cache = draw(st.none() | st.floats(min_value=0.0, max_value=1.0).map(lambda share: share * input_price))
    think = draw(st.none() | PRICE)
    base = Rates(input_price, output, cache, think)
    if not tiered or not draw(st.booleans()):
        return base
    tiers, floor = [], base
    for above in sorted(set(draw(st.lists(st.floats(min_value=1e3, max_value=1e6), min_size=1, max_size=3)))):
        bump = draw(st.floats(min_value=1.0, max_value=3.0))  # each tier at least as dear as the one below
        floor = Rates(floor.input * bump, floor.output * bump,
                      None if floor.cache_read is None else floor.cache_read * bump,
                      None if floor.reasoning is None else floor.reasoning * bump)
        tiers.append((above, floor))
    return Rates(input_price, output, cache, think, tiers=tuple(tiers))


def scaled(r: Rates, factor: float) -> Rates:
    def times(x):
        return None if x is None else x * factor

    return Rates(r.input * factor, r.output * factor, times(r.cache_read), times(r.reasoning),
                 tiers=tuple((above, scaled(t, factor)) for above, t in r.tiers))


@EXAMPLES
@given(rates(), TOKENS, TOKENS, ETA, TOKENS)
def test_cost_is_never_negative(r, n_in, n_out, eta, n_think):
    assert spot_cost(r, n_in, n_out, eta, n_think) >= 0


@EXAMPLES
@given(rates(), TOKENS, TOKENS, ETA, TOKENS, TOKENS, st.sampled_from(["n_in", "n_out", "n_think"]))
def test_cost_never_falls_as_a_token_count_grows(r, n_in, n_out, eta, n_think, extra, which):
    profile = {"n_in": n_in, "n_out": n_out, "n_think": n_think}
    more = {**profile, which: profile[which] + extra}
    before = spot_cost(r, profile["n_in"], profile["n_out"], eta, profile["n_think"])
    after = spot_cost(r, more["n_in"], more["n_out"], eta, more["n_think"])
    assert after >= before * (1 - 1e-12)


@EXAMPLES
@given(rates(), TOKENS, TOKENS, ETA, TOKENS, SCALE)
def test_cost_is_linear_in_beta(r, n_in, n_out, eta, n_think, factor):
    # Every price is a fixed ratio of beta (r_in, r_cache, r_think), so scaling beta scales them all.
    base = spot_cost(r, n_in, n_out, eta, n_think)
    assert spot_cost(scaled(r, factor), n_in, n_out, eta, n_think) == pytest.approx(factor * base, rel=1e-12,
                                                                                    abs=1e-300)


@EXAMPLES
@given(rates(), TOKENS, TOKENS, ETA, TOKENS)
def test_the_cache_value_lies_between_nothing_and_the_uncached_cost(r, n_in, n_out, eta, n_think):
    value = cache_value(r, n_in, n_out, eta, n_think)
    assert 0 <= value.savings <= value.cost_without_cache
    assert 0 <= value.savings_pct <= 100


@EXAMPLES
@given(rates(), TOKENS, st.floats(min_value=1.0, max_value=2e6), ETA)
def test_kappa_is_at_least_one(r, n_in, n_out, eta):
    assert kappa(r, n_in, n_out, eta) >= 1


@EXAMPLES
@given(st.lists(rates(), min_size=1, max_size=8), TOKENS, TOKENS, ETA, TOKENS)
def test_the_vectorised_costs_equal_the_scalar_ones(many, n_in, n_out, eta, n_think):
    frame = pd.DataFrame({
        "input": [r.input for r in many], "output": [r.output for r in many],
        "cache_read": [math.nan if r.cache_read is None else r.cache_read for r in many],
        "reasoning": [math.nan if r.reasoning is None else r.reasoning for r in many],
        "tiers": [_tiers_json(r) for r in many],
    })
    vector = task_costs(PriceBook.of(frame), n_in, n_out, eta, n_think)
    for i, r in enumerate(many):
        one = task_cost(r, n_in, n_out, eta, n_think)
        assert vector.spot_cost[i] == pytest.approx(one.spot_cost, rel=1e-12, abs=1e-300)
        assert vector.beta_used[i] == one.beta_used
        expected = math.nan if one.kappa is None else one.kappa
        assert vector.kappa[i] == pytest.approx(expected, rel=1e-12, nan_ok=True)


def _tiers_json(r: Rates) -> str | None:
    if not r.tiers:
        return None
    return json.dumps([{"above": above, "input": t.input, "output": t.output,
                        **({"cache_read": t.cache_read} if t.cache_read is not None else {}),
                        **({"reasoning": t.reasoning} if t.reasoning is not None else {})}
                       for above, t in r.tiers])


def test_peak_hours_and_a_context_tier_price_the_same_by_both_paths():
    """Peak rates replace the base rates; a tier reached bills the tier's rates (both paths)."""
    from datetime import time

    from pipelines.peak import PeakHours, PeakPricing
    from pipelines.pricing import in_period
    peak = PeakPricing(PeakHours(((time(1), time(4)),)), {"input": 2.0, "output": 8.0}, {"input": 1.0, "output": 4.0})
    row = {"input": 1.0, "output": 4.0, "tiers": '[{"above":100000,"input":3.0,"output":12.0}]', "peak": peak.to_json()}
    rates = Rates.from_row(row)
    book = PriceBook.of(pd.DataFrame([row]))
    for n_in, period, expected in ((1000, "peak", 1000 * 2 + 100 * 8), (1000, "off_peak", 1000 + 100 * 4),
                                   (200000, "peak", 200000 * 3 + 100 * 12)):
        scalar = task_cost(in_period(rates, period), n_in, 100).spot_cost
        vector = task_costs(book, n_in, 100, period=period).spot_cost[0]
        assert scalar == vector == pytest.approx(expected * 1e-6, rel=1e-12)
