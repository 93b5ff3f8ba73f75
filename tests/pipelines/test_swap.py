"""The inference cost swap, each symbol pinned by hand-computed numbers."""

import math
from datetime import date

import numpy as np
import pytest

from pipelines.forecast import HORIZON_MONTHS, ChangeLaw, Process
from pipelines.forwards import TENORS as CURVE_TENORS
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
K = np.arange(1, 13)
DAY = 1 / 30.4375  # a day, in months

# A change: halves the price (0.2), cuts it by a fifth (0.5) or lifts it 10% (0.3): m = 0.1 + 0.4 + 0.33 = 0.83.
CUTS = ChangeLaw(np.array([0.5, 0.8, 1.1]), np.array([0.2, 0.5, 0.3]))
# A change: 10% down or 50% up, even odds: m = 0.45 + 0.75 = 1.2.
RISES = ChangeLaw(np.array([0.9, 1.5]), np.array([0.5, 0.5]))
# A constant hazard of 10% a month: P(t) = 1 − 0.9^t at every t (log-linear survival between months is exact),
# so E[R_t] = 1 − 0.17·(1 − 0.9^t).
FALLING = Process(1 - 0.9**K, CUTS)
RISING = Process(1 - 0.8**K, RISES)  # E[R_t] = 1 + 0.2·(1 − 0.8^t)
STILL = Process(np.zeros(12), CUTS)  # P = 0: never a change, whatever the law
NO_MOVE = Process(1 - 0.9**K, ChangeLaw(np.array([1.0]), np.array([1.0])))  # changes that leave the price at 1


def falling(t):
    """E[R_t] of FALLING, straight from the formula."""
    return 1 - 0.17 * (1 - 0.9 ** np.asarray(t, dtype=float))


def quote(rates=FLAT, process=FALLING, tenor=3, notional=3e6, rate=0.05, fixed=None, levels=None, **profile):
    p = {**PROFILE, **profile}
    return price_swap(rates, process, p["n_in"], p["n_out"], p["eta"], p["n_think"], tenor, notional, rate, AS_OF,
                      fixed, levels)


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
    # The forward curves' tenors (it was 1M, 3M, 6M while the curves stopped at 6M): every fixing
    # within the law's 12 months.
    assert TENORS == CURVE_TENORS == {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}
    assert max(TENORS.values()) == HORIZON_MONTHS
    assert list(fixing_months(3)) == [1.0, 2.0, 3.0]
    assert list(fixing_notionals(3e6, fixing_months(3))) == [1e6, 1e6, 1e6]
    # round(i·30.4375): 30, 61, 91, 122, 152, 183 days.
    assert fixing_dates(AS_OF, fixing_months(6)) == [date(2026, 12, 22), date(2027, 1, 22), date(2027, 2, 21),
                                                    date(2027, 3, 24), date(2027, 4, 23), date(2027, 5, 24)]
    assert discount_factors(np.array([12.0]), 0.05)[0] == pytest.approx(math.exp(-0.05), abs=EXACT)
    assert ONE_DAY == pytest.approx(DAY, abs=EXACT)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError):
            fixing_months(bad)
    for bad in (0, -5, math.nan, math.inf):
        with pytest.raises(ValueError):
            fixing_notionals(bad, fixing_months(3))


@pytest.mark.parametrize("process", [STILL, NO_MOVE], ids=["p_zero", "ratio_one"])
def test_without_a_move_the_fair_rate_is_the_floating_rate_today(process):
    q = quote(process=process)
    assert q.floating_rate == pytest.approx(66.75, abs=EXACT)
    assert q.beta_used == 15.0
    assert q.fair_fixed_rate == pytest.approx(66.75, abs=EXACT)
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.notional_usd == pytest.approx(3e6 * 66.75e-6, abs=EXACT)  # 200.25
    assert q.tenor_months == 3 and q.discount_rate == 0.05
    assert q.fixed_rate is None and q.npv_at_fixed_rate is None
    dfs = [0.9958420018, 0.9917012926, 0.9875778005]  # exp(−0.05·t/12), t = 1, 2, 3
    assert [f.discount_factor for f in q.schedule] == pytest.approx(dfs, abs=1e-10)
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx([66.75] * 3, abs=EXACT)
    assert [f.notional_tokens for f in q.schedule] == [1e6] * 3
    assert [f.months for f in q.schedule] == [1.0, 2.0, 3.0]
    assert [f.date for f in q.schedule] == [date(2026, 12, 22), date(2027, 1, 22), date(2027, 2, 21)]
    # pv01 = −0.01·Σ DF·N·1e-6 = −0.01·2.9751210949
    assert q.pv01 == pytest.approx(-0.01 * sum(dfs), abs=1e-11)
    assert q.pv01 == pytest.approx(-0.029751210949, abs=1e-11)
    # delta = Σ DF·N·m·1e-6 = 4.45·Σ DF
    assert q.delta == pytest.approx(4.45 * sum(dfs), abs=1e-9)
    assert q.vega == 0.0
    # At the fair rate with nothing to move, a day nearer only discounts the 0 leg less: no time decay.
    assert q.theta_greek == pytest.approx(0.0, abs=1e-12)


def test_with_changes_by_hand():
    # FALLING, two fixings of 1e6 tokens, no discounting, K = 60:
    #   E[R_1] = 1 − 0.17·0.1 = 0.983,  e1 = 66.75·0.983 = 65.61525
    #   E[R_2] = 1 − 0.17·0.19 = 0.9677, e2 = 66.75·0.9677 = 64.593975
    q = quote(tenor=2, notional=2e6, rate=0.0, fixed=60.0)
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx([65.61525, 64.593975], abs=1e-11)
    assert [f.discount_factor for f in q.schedule] == [1.0, 1.0]
    assert q.fair_fixed_rate == pytest.approx(65.1046125, abs=1e-11)  # (65.61525 + 64.593975)/2
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.fixed_rate == 60.0
    assert q.npv_at_fixed_rate == pytest.approx(10.209225, abs=1e-11)  # 5.61525 + 4.593975 (N·1e-6 = 1)
    assert q.notional_usd == pytest.approx(130.209225, abs=1e-11)  # 65.61525 + 64.593975
    assert q.delta == pytest.approx(8.680615, abs=1e-11)  # 4.45·(0.983 + 0.9677)
    assert q.pv01 == pytest.approx(-0.02, abs=EXACT)  # −0.01·(1 + 1)
    # One day on, each fixing is a day nearer: E[R_(t−d)] − E[R_t] = 0.17·(0.9^(t−d) − 0.9^t), so
    # theta = 66.75·0.17·(0.9 + 0.81)·(0.9^(−d) − 1) = 19.404225·0.0034675345 = 0.0672848193.
    assert q.theta_greek == pytest.approx(0.0672848193, abs=1e-9)
    assert q.theta_greek > 0  # falling prices: a day less of the chance of a cut is worth more to the fixed payer


def test_with_changes_and_discounting():
    q = quote(tenor=3, notional=3e6, rate=0.05)
    t = np.arange(1, 4, dtype=float)
    df, e = np.exp(-0.05 * t / 12), 66.75 * falling(t)  # e = 65.61525, 64.593975, 63.6748275
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx([65.61525, 64.593975, 63.6748275],
                                                                           abs=1e-10)
    # K* = Σ DF·e / Σ DF = 192.2855… / 2.97512109… = 64.6307126220
    assert q.fair_fixed_rate == pytest.approx(float(np.sum(df * e) / np.sum(df)), abs=EXACT)
    assert q.fair_fixed_rate == pytest.approx(64.6307126220, abs=1e-9)
    assert q.npv == pytest.approx(0.0, abs=1e-12)
    assert q.notional_usd == pytest.approx(193.8840525, abs=1e-10)  # undiscounted: Σ e
    assert q.pv01 == pytest.approx(-0.01 * float(np.sum(df)), abs=EXACT)
    assert q.delta == pytest.approx(4.45 * float(np.sum(df * falling(t))), abs=1e-10)  # 12.8189464337
    assert q.delta == pytest.approx(12.8189464337, abs=1e-9)
    # Rising prices lift the fixed rate above today's floating rate: E[R_t] = 1 + 0.2·(1 − 0.8^t).
    up = quote(process=RISING, tenor=6, notional=6e6)
    t6 = np.arange(1, 7, dtype=float)
    df6, e6 = np.exp(-0.05 * t6 / 12), 66.75 * (1 + 0.2 * (1 - 0.8**t6))
    assert up.fair_fixed_rate == pytest.approx(float(np.sum(df6 * e6) / np.sum(df6)), abs=EXACT)
    assert up.fair_fixed_rate > 66.75


def test_a_twelve_month_swap_by_hand():
    # FALLING, 12 fixings of 1e6 tokens at 5%: E[R_12] = 1 − 0.17·(1 − 0.9^12) = 0.8780130212, so the
    # last fixing is 66.75·0.8780130212 = 58.6073691652 $/M at DF_12 = e^(−0.05) = 0.9512294245.
    q = quote(tenor=12, notional=12e6, rate=0.05)
    t = np.arange(1, 13, dtype=float)
    df, e = np.exp(-0.05 * t / 12), 66.75 * falling(t)
    assert q.tenor_months == 12 and len(q.schedule) == 12
    assert [f.months for f in q.schedule] == t.tolist()
    assert [f.notional_tokens for f in q.schedule] == [1e6] * 12
    # round(i·30.4375) days: the twelfth is round(365.25) = 365 days on.
    assert [f.date for f in q.schedule][-3:] == [date(2027, 9, 22), date(2027, 10, 23), date(2027, 11, 22)]
    assert q.schedule[-1].expected_floating_rate == pytest.approx(58.6073691652, abs=1e-9)
    assert q.schedule[-1].discount_factor == pytest.approx(0.9512294245, abs=1e-10)
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx(list(e), abs=1e-11)
    # K* = Σ DF·e / Σ DF = 718.8… / 11.6805697663 = 61.5406259164
    assert q.fair_fixed_rate == pytest.approx(float(np.sum(df * e) / np.sum(df)), abs=EXACT)
    assert q.fair_fixed_rate == pytest.approx(61.5406259164, abs=1e-9)
    assert q.notional_usd == pytest.approx(738.1136775130, abs=1e-9)  # Σ e
    assert q.pv01 == pytest.approx(-0.116805697663, abs=1e-11)  # −0.01·Σ DF
    assert q.npv == pytest.approx(0.0, abs=1e-11)


def test_announced_levels_scale_their_fixings():
    # The price announced at twice today's from month 2 on: L = 1, 2, 2.
    q = quote(tenor=3, notional=3e6, rate=0.0, levels=lambda months: np.where(months >= 2, 2.0, 1.0))
    e = [65.61525, 2 * 64.593975, 2 * 63.6748275]
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx(e, abs=1e-10)
    assert q.fair_fixed_rate == pytest.approx(sum(e) / 3, abs=1e-10)
    assert q.notional_usd == pytest.approx(sum(e), abs=1e-10)
    assert q.delta == pytest.approx(4.45 * (0.983 + 2 * 0.9677 + 2 * (1 - 0.17 * 0.271)), abs=1e-10)


def test_pv01_is_the_npv_of_one_hundredth_more_fixed_rate():
    base, bumped = quote(fixed=50.0), quote(fixed=50.01)
    assert bumped.npv_at_fixed_rate - base.npv_at_fixed_rate == pytest.approx(base.pv01, abs=1e-12)


@pytest.mark.parametrize("process", [STILL, FALLING, RISING], ids=["still", "falling", "rising"])
def test_delta_equals_a_finite_difference_in_beta(process):
    # Every price of the model scales with β: bump them all by h relative.
    h = 1e-6
    bumped_rates = Rates(3.0 * (1 + h), 15.0 * (1 + h), 0.30 * (1 + h))
    base = quote(process=process, tenor=6, notional=6e6, fixed=55.0)
    bumped = quote(rates=bumped_rates, process=process, tenor=6, notional=6e6, fixed=55.0)
    slope = (bumped.npv_at_fixed_rate - base.npv_at_fixed_rate) / (15.0 * h)
    assert base.delta == pytest.approx(slope, rel=1e-6)


def test_theta_greek_equals_the_npv_a_day_nearer_to_each_fixing():
    q = quote(tenor=6, notional=6e6, rate=0.05, fixed=40.0)
    t = np.arange(1, 7, dtype=float)

    def value(months):  # Σ DF·N·(66.75·E[R] − 40)·1e-6, N = 1e6
        return float(np.sum(np.exp(-0.05 * months / 12) * (66.75 * falling(months) - 40.0)))

    assert q.theta_greek == pytest.approx(value(t - DAY) - value(t), abs=1e-12)


def test_theta_greek_interpolates_the_survival_within_each_month():
    # A hazard that is 20% in month 1, nothing in month 2, and takes the survival from 0.8 to 0.5 in month 3;
    # every change a halving (m = 0.5): E[R_t] = 1 − 0.5·P(t), P(t) = 1 − S(t).
    process = Process(np.r_[0.2, 0.2, np.full(10, 0.5)], ChangeLaw(np.array([0.5]), np.array([1.0])))
    q = quote(process=process, tenor=3, notional=3e6, rate=0.0, fixed=60.0)
    assert [f.expected_floating_rate for f in q.schedule] == pytest.approx(
        [66.75 * 0.9, 66.75 * 0.9, 66.75 * 0.75], abs=1e-11)  # P = 0.2, 0.2, 0.5
    # A day before each fixing, log-linear survival: S(1 − d) = 0.8^(1−d), S(2 − d) = 0.8,
    # S(3 − d) = 0.8·(0.5/0.8)^(1−d). No discounting and K fixed: theta = 66.75·0.5·Σ (S(t − d) − S(t)).
    later = [0.8 ** (1 - DAY), 0.8, 0.8 * (0.5 / 0.8) ** (1 - DAY)]
    today = [0.8, 0.8, 0.5]
    assert q.theta_greek == pytest.approx(66.75 * 0.5 * (sum(later) - sum(today)), abs=1e-12)


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        quote(fixed=math.nan)
    with pytest.raises(ValueError):
        quote(rate=math.inf)
    with pytest.raises(ValueError):
        quote(notional=0.0)
    with pytest.raises(ValueError):
        quote(tenor=0)
    with pytest.raises(ValueError):
        quote(n_out=0)
