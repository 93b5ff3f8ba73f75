"""The inference cost swap, each symbol pinned by hand-computed numbers."""

import math
from datetime import date

import numpy as np
import pytest

from pipelines.pricing import Rates
from pipelines.swap import (
    ONE_DAY,
    TENORS,
    discount_factors,
    exposure_multiplier,
    fixing_dates,
    fixing_months,
    fixing_notionals,
    floating_rate,
    price_swap,
)

EXACT = 1e-12
FLAT = Rates(input=3.0, output=15.0, cache_read=0.30)
# The contract's test vector: kappa 4.45, so float(0) = 15·4.45 = 66.75 $/M of output tokens.
PROFILE = dict(n_in=30_000, n_out=800, eta=0.6, n_think=0.0)
AS_OF = date(2026, 11, 22)


def quote(rates=FLAT, theta=0.0, tenor=3, notional=3e6, rate=0.05, fixed=None, **profile):
    p = {**PROFILE, **profile}
    return price_swap(rates, theta, p["n_in"], p["n_out"], p["eta"], p["n_think"], tenor, notional, rate, AS_OF, fixed)


def test_floating_rate_is_the_cost_per_million_output_tokens():
    assert floating_rate(FLAT, **PROFILE) == pytest.approx(66.75, abs=EXACT)
    assert exposure_multiplier(FLAT, **PROFILE) == pytest.approx(4.45, abs=EXACT)
    # Thinking billed at 10 $/M: (15·1000 + 3·2000 + 10·6000)/1000 = 81; m = kappa 1.4 + 6000·(10/15)/1000 = 5.4.
    thinking = Rates(3.0, 15.0, 0.30, reasoning=10.0)
    assert floating_rate(thinking, 2_000, 1_000, 0.0, 6_000) == pytest.approx(81.0, abs=EXACT)
    assert exposure_multiplier(thinking, 2_000, 1_000, 0.0, 6_000) == pytest.approx(5.4, abs=EXACT)
    assert exposure_multiplier(Rates(0.0, 0.0), 100, 10) is None
    with pytest.raises(ValueError):
        floating_rate(FLAT, 100, 0)


def test_schedule_pieces():
    assert TENORS == {"1M": 1, "3M": 3, "6M": 6}
    assert list(fixing_months(3)) == [1.0, 2.0, 3.0]
    assert list(fixing_notionals(3e6, fixing_months(3))) == [1e6, 1e6, 1e6]
    # round(i·30.4375): 30, 61, 91, 122, 152, 183 days.
    assert fixing_dates(AS_OF, fixing_months(6)) == [date(2026, 12, 22), date(2027, 1, 22), date(2027, 2, 21),
                                                    date(2027, 3, 24), date(2027, 4, 23), date(2027, 5, 24)]
    assert discount_factors(np.array([12.0]), 0.05)[0] == pytest.approx(math.exp(-0.05), abs=EXACT)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError):
            fixing_months(bad)
    for bad in (0, -5, math.nan, math.inf):
        with pytest.raises(ValueError):
            fixing_notionals(bad, fixing_months(3))


def test_without_decay_the_fair_rate_is_the_floating_rate_today():
    q = quote(theta=0.0)
    assert q.floating_rate == pytest.approx(66.75, abs=EXACT)
    assert q.fair_fixed_rate == pytest.approx(66.75, abs=EXACT)
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.notional_usd == pytest.approx(3e6 * 66.75e-6, abs=EXACT)  # 200.25
    assert q.tenor_months == 3 and q.discount_rate == 0.05
    assert q.fixed_rate is None and q.npv_at_fixed_rate is None
    dfs = [0.9958420018, 0.9917012926, 0.9875778005]  # exp(−0.05·t/12), t = 1, 2, 3
    assert [f.discount_factor for f in q.schedule] == pytest.approx(dfs, abs=1e-10)
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx([66.75] * 3, abs=EXACT)
    assert [f.notional_tokens for f in q.schedule] == [1e6] * 3
    assert [f.date for f in q.schedule] == [date(2026, 12, 22), date(2027, 1, 22), date(2027, 2, 21)]
    # pv01 = −0.01·Σ DF·N·1e-6 = −0.01·2.9751210949
    assert q.pv01 == pytest.approx(-0.01 * sum(dfs), abs=1e-11)
    assert q.pv01 == pytest.approx(-0.029751210949, abs=1e-11)
    # delta = Σ DF·N·m·1e-6 = 4.45·Σ DF
    assert q.delta == pytest.approx(4.45 * sum(dfs), abs=1e-9)
    assert q.vega == 0.0
    # At the fair rate and θ = 0 each fixing's leg is worth 0 on any day: no time decay.
    assert q.theta_greek == pytest.approx(0.0, abs=1e-12)


def test_with_decay_by_hand():
    # θ = 0.1/month, two fixings of 1e6 tokens, no discounting.
    q = quote(theta=0.1, tenor=2, notional=2e6, rate=0.0, fixed=60.0)
    e1, e2 = 66.75 * math.exp(-0.1), 66.75 * math.exp(-0.2)  # 60.39790 and 54.65028
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx([e1, e2], abs=EXACT)
    assert q.fair_fixed_rate == pytest.approx((e1 + e2) / 2, abs=EXACT)
    assert q.fair_fixed_rate == pytest.approx(57.5240877109, abs=1e-9)
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.fixed_rate == 60.0
    assert q.npv_at_fixed_rate == pytest.approx((e1 - 60) + (e2 - 60), abs=1e-12)
    assert q.npv_at_fixed_rate == pytest.approx(-4.9518245781, abs=1e-9)
    assert q.notional_usd == pytest.approx(e1 + e2, abs=1e-12)
    assert q.delta == pytest.approx(4.45 * (math.exp(-0.1) + math.exp(-0.2)), abs=1e-12)
    assert q.pv01 == pytest.approx(-0.02, abs=EXACT)
    # One day on: each expected rate has one day less to decay; K = 60 (the given rate) and DF = 1.
    d = 1 / 30.4375
    later = 66.75 * (math.exp(-0.1 * (1 - d)) + math.exp(-0.1 * (2 - d)))
    assert ONE_DAY == pytest.approx(d, abs=EXACT)
    assert q.theta_greek == pytest.approx(later - e1 - e2, abs=1e-10)
    assert q.theta_greek > 0  # falling prices: a day less of decay is worth more to the fixed payer


def test_with_decay_and_discounting():
    q = quote(theta=-0.02, tenor=6, notional=6e6, rate=0.05)
    t = np.arange(1, 7)
    df, e = np.exp(-0.05 * t / 12), 66.75 * np.exp(0.02 * t)
    assert q.fair_fixed_rate == pytest.approx(float(np.sum(df * e) / np.sum(df)), abs=EXACT)
    assert q.fair_fixed_rate > 66.75  # rising prices lift the fixed rate
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.pv01 == pytest.approx(-0.01 * float(np.sum(df)), abs=EXACT)


def test_pv01_is_the_npv_of_one_hundredth_more_fixed_rate():
    base, bumped = quote(theta=0.05, fixed=50.0), quote(theta=0.05, fixed=50.01)
    assert bumped.npv_at_fixed_rate - base.npv_at_fixed_rate == pytest.approx(base.pv01, abs=1e-12)


@pytest.mark.parametrize("theta", [0.0, 0.07, -0.03])
def test_delta_equals_a_finite_difference_in_beta(theta):
    # Every price of the model scales with β: bump them all by h relative.
    h = 1e-6
    bumped_rates = Rates(3.0 * (1 + h), 15.0 * (1 + h), 0.30 * (1 + h))
    base, bumped = quote(theta=theta, fixed=55.0), quote(rates=bumped_rates, theta=theta, fixed=55.0)
    slope = (bumped.npv_at_fixed_rate - base.npv_at_fixed_rate) / (15.0 * h)
    assert base.delta == pytest.approx(slope, rel=1e-6)


def test_theta_greek_equals_the_npv_a_day_nearer_to_each_fixing():
    q = quote(theta=0.08, tenor=6, notional=6e6, rate=0.05, fixed=40.0)
    t = np.arange(1, 7, dtype=float)

    def value(months):
        return float(np.sum(np.exp(-0.05 * months / 12) * 1e6 * (66.75 * np.exp(-0.08 * months) - 40.0)) * 1e-6)

    assert q.theta_greek == pytest.approx(value(t - 1 / 30.4375) - value(t), abs=1e-12)


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        quote(fixed=math.nan)
    with pytest.raises(ValueError):
        quote(rate=math.inf)
    with pytest.raises(ValueError):
        quote(theta=math.nan)
