"""Quotes: which models can serve a profile, the ranking, the forward cost and the provider
spread, on small hand-made frames with hand-computed numbers."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.forecast import ChangeLaw, Process
from pipelines.pricing import Rates
from pipelines.quotes import (
    CONTEXT_WINDOW,
    DEPRECATED,
    EXCLUDED_COLUMNS,
    NO_OUTPUT_PRICE,
    NO_PRICE,
    NO_THINKING,
    NOT_TEXT,
    RANK_COLUMNS,
    RETIRED,
    Profile,
    describe,
    forward_quote,
    model_rates,
    provider_quotes,
    rank,
    unfit_reasons,
)

EXACT = 1e-12
NAN = float("nan")
TIERS = '[{"above": 1000, "input": 2.0, "output": 4.0}]'
# A constant 10% monthly hazard, P(t) = 1 − 0.9^t; a change of 0.5, 0.8 or 1.1 (weights 0.2, 0.5, 0.3, mean 0.83).
FALLING = Process(1 - 0.9 ** np.arange(1, 13), ChangeLaw(np.array([0.5, 0.8, 1.1]), np.array([0.2, 0.5, 0.3])))


def spot(ticker, beta, input_, cache=NAN, reasoning=NAN, tiers=None, thinks=False, window=None,
         beta_batch=NAN, input_batch=NAN, status="active", inputs=("text",), outputs=("text",)):
    return dict(ticker=ticker, model_id=ticker.lower(), display_name=ticker.title(), provider="lab",
                status=status, input_modalities=list(inputs), output_modalities=list(outputs),
                is_reasoning=thinks, context_window=window, beta_sync=beta, input_sync=input_, cache_read_sync=cache,
                reasoning_sync=reasoning, tiers_sync=tiers, beta_batch=beta_batch, input_batch=input_batch,
                cache_read_batch=NAN, reasoning_batch=NAN, tiers_batch=None)


SPOTS = pd.DataFrame([
    spot("CHEAP", 1.0, 0.5, window=100_000),
    spot("CACHED", 15.0, 3.0, cache=0.3, thinks=True, beta_batch=7.5, input_batch=1.5),
    spot("TIERED", 2.0, 1.0, tiers=TIERS, window=1_000_000),
    spot("SMALL", 0.1, 0.1, window=1_000),
    spot("FREE", 0.0, 0.0),
    spot("UNPRICED", NAN, NAN),
]).astype({"context_window": "Int64"})


def test_profile_tokens_and_argument_order():
    profile = Profile(n_in=1000, n_out=200, eta=0.5, n_think=300)
    assert profile.tokens == 1500
    assert profile.args == (1000, 200, 0.5, 300)
    assert profile.as_dict() == {"n_in": 1000, "n_out": 200, "eta": 0.5, "n_think": 300}


@pytest.mark.parametrize(("priced", "beta", "thinks", "window", "expected"), [
    (True, 15.0, True, 200_000, []),
    (False, None, True, 200_000, [NO_PRICE]),
    (True, 0.0, True, None, [NO_OUTPUT_PRICE]),
    (True, 15.0, False, 200_000, [NO_THINKING]),
    (True, 15.0, True, 1_499, [CONTEXT_WINDOW]),
    (True, 15.0, True, 1_500, []),  # exactly the window still fits
    (True, 0.0, False, 100, [NO_OUTPUT_PRICE, NO_THINKING, CONTEXT_WINDOW]),
    (True, 15.0, True, pd.NA, []),  # an unknown window does not exclude
])
def test_unfit_reasons(priced, beta, thinks, window, expected):
    profile = Profile(1000, 200, 0.0, 300)
    assert unfit_reasons(profile, priced=priced, beta=beta, is_reasoning=thinks, context_window=window) == expected


def test_describe_says_how_many_tokens_against_which_window():
    text = describe(CONTEXT_WINDOW, Profile(10_000_000, 500), "sync", 200_000)
    assert "10,000,500 tokens" in text and "200,000" in text
    assert describe(NO_PRICE, Profile(1, 1), "batch") == "the model has no batch price"
    with pytest.raises(ValueError):
        describe("bogus", Profile(1, 1), "sync")


def test_model_rates_reads_a_mode_or_says_there_is_none():
    rows = SPOTS.to_dict("records")
    assert model_rates(rows[1], "sync") == Rates(3.0, 15.0, 0.3)
    assert model_rates(rows[1], "batch") == Rates(1.5, 7.5)
    assert model_rates(rows[0], "batch") is None
    assert model_rates(rows[5], "sync") is None
    assert model_rates(rows[2], "sync").tiers == ((1000.0, Rates(2.0, 4.0)),)


def test_forward_quote_by_hand():
    # P(t) = 1 − 0.9^t and a change of 0.5, 0.8 or 1.1 (weights 0.2, 0.5, 0.3, mean 0.83).
    # One month: P = 0.1, E[R] = 1 − 0.1·0.17 = 0.983; R is 0.5 (0.02), 0.8 (0.05), 1 (0.9) or 1.1 (0.03),
    # cumulative 0.02, 0.07, 0.97, 1: the 5% quantile is 0.8, the median and the 95% quantile 1.
    quote = forward_quote(spot_cost=2.0, beta=10.0, process=FALLING, months=1.0)
    assert quote.horizon_months == 1.0 and quote.scheduled_factor == 1.0
    assert quote.p_change == pytest.approx(0.1, abs=EXACT)
    assert quote.decay_factor == pytest.approx(0.983, abs=EXACT)
    assert quote.cost == pytest.approx(1.966, abs=EXACT)  # 2·0.983
    assert quote.beta_forward == pytest.approx(9.83, abs=EXACT)  # 10·0.983
    assert quote.theta_used == pytest.approx(0.0171462, abs=1e-7)  # −ln 0.983 over one month
    assert (quote.cost_p05, quote.cost_median, quote.cost_p95) == pytest.approx((1.6, 2.0, 2.0), abs=EXACT)


def test_forward_quote_from_an_announced_level_by_hand():
    # Six months, announced at 1.5× today's: P = 1 − 0.9^6 = 0.468559, E[R] = 1 − 0.468559·0.17 = 0.92034497.
    # R is 0.5 (0.0937118), 0.8 (0.2342795), 1 (0.531441) or 1.1 (0.1405677), cumulative 0.094, 0.328, 0.859, 1:
    # quantiles 0.5, 1 and 1.1 of the level 2·1.5 = 3.
    quote = forward_quote(spot_cost=2.0, beta=10.0, process=FALLING, months=6.0, scheduled_factor=1.5)
    assert quote.scheduled_factor == 1.5
    assert quote.p_change == pytest.approx(0.468559, abs=EXACT)
    assert quote.decay_factor == pytest.approx(0.92034497, abs=EXACT)
    assert quote.cost == pytest.approx(2.76103491, abs=EXACT)  # 3·0.92034497
    assert quote.beta_forward == pytest.approx(13.80517455, abs=EXACT)  # 10·1.5·0.92034497
    assert quote.theta_used == pytest.approx(0.01383445, abs=1e-8)  # −ln 0.92034497 / 6
    assert (quote.cost_p05, quote.cost_median, quote.cost_p95) == pytest.approx((1.5, 3.0, 3.3), abs=EXACT)
    # Between months the survival is log-linear: at 1.5 months P = 1 − 0.9·√0.9 = 1 − 0.8538149683
    # = 0.1461850317. R is 0.5 (0.029237), 0.8 (0.0730925), then 1 (0.8538150): cumulative 0.029, 0.102,
    # 0.956, so the quantiles are 0.8, 1 and 1.
    half = forward_quote(spot_cost=2.0, beta=10.0, process=FALLING, months=1.5)
    assert half.p_change == pytest.approx(0.1461850317, abs=1e-10)
    assert half.decay_factor == pytest.approx(1 - 0.17 * 0.1461850317, abs=1e-10)
    assert (half.cost_p05, half.cost_median, half.cost_p95) == pytest.approx((1.6, 2.0, 2.0), abs=EXACT)


def test_forward_quote_with_a_rising_law_by_hand():
    # P(1) = 0.5, a change of 0.9 or 1.5 at even odds (mean 1.2): E[R] = 1 + 0.5·0.2 = 1.1; R is 0.9 (0.25),
    # 1 (0.5) or 1.5 (0.25), cumulative 0.25, 0.75, 1: quantiles 0.9, 1, 1.5.
    rising = Process(1 - 0.5 ** np.arange(1, 13), ChangeLaw(np.array([0.9, 1.5]), np.array([0.5, 0.5])))
    quote = forward_quote(spot_cost=4.0, beta=8.0, process=rising, months=1.0)
    assert quote.p_change == pytest.approx(0.5, abs=EXACT)
    assert (quote.cost, quote.beta_forward) == pytest.approx((4.4, 8.8), abs=EXACT)
    assert (quote.cost_p05, quote.cost_median, quote.cost_p95) == pytest.approx((3.6, 4.0, 6.0), abs=EXACT)


def test_forward_quote_without_a_process():
    quote = forward_quote(1.0, 5.0, None, 3.0, scheduled_factor=2.0)
    assert quote.horizon_months == 3.0 and quote.scheduled_factor == 2.0
    assert (quote.cost, quote.beta_forward, quote.p_change, quote.decay_factor, quote.cost_median, quote.cost_p05,
            quote.cost_p95) == (None,) * 7
    for months in (0.0, -1.0, 12.5, math.inf, math.nan):
        with pytest.raises(ValueError):
            forward_quote(1.0, 5.0, FALLING, months)
        with pytest.raises(ValueError):
            forward_quote(1.0, 5.0, None, months)


def test_rank_prices_cheapest_first_and_excludes_with_reasons():
    # n_in 2000 (above TIERED's 1000-token tier), n_out 500, eta 0.5, no thinking:
    #   CHEAP   (1·500 + 2000·0.5)e-6                    = 0.0015,  r_in_eff 0.5,  kappa 1 + 4·0.5 = 3
    #   CACHED  (15·500 + 2000·(3·0.5 + 0.3·0.5))e-6     = 0.0108,  r_in_eff 0.11, kappa 1.44
    #   TIERED  tier 2/4: (4·500 + 2000·2)e-6            = 0.006,   r_in_eff 0.5,  kappa 3, beta 4
    #   SMALL   2500 tokens > window 1000; FREE β 0; UNPRICED no price.
    # The forward at two months: CHEAP on FALLING (E[R_2] = 1 − 0.19·0.17 = 0.9677), CACHED without a change but
    # announced at twice today's, TIERED expected 20% up; UNPRICED has no law (NaN).
    profile = Profile(2000, 500, 0.5)
    theta = np.array([0.1, 0.0, -0.1, 0.0, 0.0, NAN])
    ratio = np.array([FALLING.expected_ratio(2.0)[0], 1.0, 1.2, 1.0, 1.0, NAN])
    scheduled = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 1.0])
    ranking = rank(SPOTS, profile, "sync", theta=theta, forward_ratio=ratio, scheduled=scheduled)
    priced, excluded = ranking.priced(SPOTS), ranking.excluded
    assert list(priced.columns) == RANK_COLUMNS and list(excluded.columns) == EXCLUDED_COLUMNS
    assert list(priced["ticker"]) == ["CHEAP", "TIERED", "CACHED"]
    assert priced["spot_cost"].tolist() == pytest.approx([0.0015, 0.006, 0.0108], abs=EXACT)
    assert priced["r_in_eff"].tolist() == pytest.approx([0.5, 0.5, 0.11], abs=EXACT)
    assert priced["kappa"].tolist() == pytest.approx([3.0, 3.0, 1.44], abs=EXACT)
    assert priced["beta"].tolist() == [1.0, 4.0, 15.0]
    assert priced["theta"].tolist() == [0.1, -0.1, 0.0]  # shown as given
    # 0.0015·0.9677 = 0.00145155; 0.006·1.2 = 0.0072; 0.0108·2·1 = 0.0216
    assert priced["forward_cost"].tolist() == pytest.approx([0.00145155, 0.0072, 0.0216], abs=EXACT)
    assert np.isnan(ranking.forward_cost[5])
    # Without forward ratios there is no forward cost, with or without a schedule.
    assert np.isnan(rank(SPOTS, profile, "sync", scheduled=scheduled).forward_cost).all()
    assert excluded[["ticker", "reason"]].values.tolist() == [
        ["SMALL", CONTEXT_WINDOW], ["FREE", NO_OUTPUT_PRICE], ["UNPRICED", NO_PRICE]]


def test_rank_in_batch_mode_and_with_thinking():
    ranking = rank(SPOTS, Profile(1000, 100, 0.0, 50), "batch")
    priced, excluded = ranking.priced(SPOTS), ranking.excluded
    # CACHED in batch, thinking billed as output: (7.5·(100 + 50) + 1.5·1000)e-6 = 0.002625
    assert priced["ticker"].tolist() == ["CACHED"]
    assert priced["spot_cost"].tolist() == pytest.approx([0.002625], abs=EXACT)
    assert priced["forward_cost"].isna().all() and priced["theta"].isna().all()
    assert dict(zip(excluded["ticker"], excluded["reason"])) == dict.fromkeys(
        ["CHEAP", "TIERED", "SMALL", "FREE", "UNPRICED"], NO_PRICE)
    sync_excluded = rank(SPOTS, Profile(100, 100, 0.0, 50), "sync").excluded
    assert dict(zip(sync_excluded["ticker"], sync_excluded["reason"]))["CHEAP"] == NO_THINKING


def provider(name, input_, output, origin=False, when=date(2026, 11, 22), model_id=None, cache=NAN):
    return dict(ticker="M", provider=name, provider_model_id=model_id or f"{name}/m", is_origin=origin, mode="sync",
                effective_date=when, input=input_, output=output, cache_read=cache, reasoning=NAN, tiers=None,
                source="s", source_version="1", source_url=None, provenance="current")


def test_provider_quotes_spread_to_the_latest_origin_price():
    rows = pd.DataFrame([
        provider("lab", 4.0, 20.0, origin=True, when=date(2025, 1, 1), model_id="m-old"),
        provider("lab", 2.0, 10.0, origin=True, model_id="m"),
        provider("host-a", 1.0, 5.0),
        provider("host-b", 3.0, 15.0, cache=0.3),
    ])
    # n_in 1000, n_out 100, eta 0.5: lab (10·100 + 2·1000)e-6 = 0.003; host-a 0.0015; host-b (1500 + 1650)e-6
    quoted, origin = provider_quotes(rows, Profile(1000, 100, 0.5))
    assert (origin.provider, origin.provider_model_id) == ("lab", "m")
    assert origin.spot_cost == pytest.approx(0.003, abs=EXACT)
    assert quoted["provider_model_id"].tolist() == ["host-a/m", "m", "host-b/m", "m-old"]
    assert quoted["spot_cost"].tolist() == pytest.approx([0.0015, 0.003, 0.00315, 0.006], abs=EXACT)
    assert quoted["spread_to_origin"].tolist() == pytest.approx([-0.5, 0.0, 0.05, 1.0], abs=EXACT)


def test_provider_quotes_without_an_origin_have_no_spread():
    quoted, origin = provider_quotes(pd.DataFrame([provider("host-a", 1.0, 5.0), provider("host-b", 1.0, NAN)]),
                                     Profile(1000, 100))
    assert origin is None
    assert quoted["provider"].tolist() == ["host-a"]  # a row without an output price is left out
    assert quoted["spread_to_origin"].isna().all()


def test_a_text_comparison_leaves_out_non_text_retired_and_deprecated_models_with_the_reason():
    spots = pd.DataFrame([
        spot("CHEAP", 1.0, 0.5),
        spot("ASR", 0.035, 0.01, inputs=("audio",)),           # speech in, text out: not a text model
        spot("OLD", 0.5, 0.25, status="retired"),
        spot("LATE", 2.0, 1.0, status="deprecated"),           # on its way out: ranked only when asked
    ]).astype({"context_window": "Int64"})
    ranking = rank(spots, Profile(1000, 100), "sync")
    assert ranking.priced(spots)[["ticker", "status"]].values.tolist() == [["CHEAP", "active"]]
    excluded = ranking.excluded.set_index("ticker")
    assert excluded["reason"].to_dict() == {"ASR": NOT_TEXT, "OLD": RETIRED, "LATE": DEPRECATED}
    assert excluded.loc["ASR", "detail"].startswith("not a text model (input: audio; output: text)")
    assert "include_retired" in excluded.loc["OLD", "detail"]
    assert "deprecated" in excluded.loc["LATE", "detail"] and "include_retired" in excluded.loc["LATE", "detail"]
    with_retired = rank(spots, Profile(1000, 100), "sync", include_retired=True)
    assert with_retired.priced(spots)[["ticker", "status"]].values.tolist() == [
        ["OLD", "retired"], ["CHEAP", "active"], ["LATE", "deprecated"]]


def test_each_rows_first_reason_is_the_first_mask_that_holds_there():
    from pipelines.quotes import _first_reasons

    rng = np.random.default_rng(7)
    masks = [rng.random(500) < share for share in (0.02, 0.3, 0.05, 0.5, 0.01)]
    names = ["retired", "not_text", "unpriced", "context_window", "reasoning"]
    first = _first_reasons(500, masks)
    expected = np.select(masks, names, default="")  # numpy's own first-match rule
    assert [names[i] if i < len(names) else "" for i in first.tolist()] == expected.tolist()
    assert (first == len(names)).sum() == (expected == "").sum() > 0
