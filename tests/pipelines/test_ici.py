"""The Inference Cost Index rule on hand-made data, every number worked out by hand."""

import hashlib
import json
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.ici import (
    CAP,
    DETAIL_COLUMNS,
    ICI_COLUMNS,
    ICI_CONSTITUENT_COLUMNS,
    ICI_HISTORY_COLUMNS,
    METHODOLOGY_VERSION,
    blend,
    build_ici,
    build_ici_constituents,
    build_ici_history,
    cap_weights,
    index_level,
    last_rebalance,
    levels_on,
    rebalance_dates,
    select_constituents,
    verification_hash,
)


def series(ticker, first, last, input_, output, mode="sync"):
    """Daily price-history rows of one (ticker, mode) from `first` to `last`, stated on `first`."""
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    return pd.DataFrame({"ticker": ticker, "mode": mode, "date": days, "input": input_, "output": output,
                         "observed_on": first})


def history(*parts):
    return pd.concat(parts, ignore_index=True)


def models(*rows, tier_basis="rule", released=None):
    """(ticker, provider, tier[, retired_by]); never retired by default; tiers by a curated rule;
    `released`: ticker → the registry's release date (none by default)."""
    rows = [(*row, None)[:4] for row in rows]
    frame = pd.DataFrame(rows, columns=["ticker", "provider", "tier", "retired_by"]).assign(tier_basis=tier_basis)
    return frame.assign(released_on=frame["ticker"].map(released or {}))


def hosts(*rows):
    """Observations: (ticker, provider, is_origin, effective_date, superseded)."""
    return pd.DataFrame(rows, columns=["ticker", "provider", "is_origin", "effective_date", "superseded"])


# --- weights -------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("raw", "cap", "expected"),
    [
        # Nothing above the cap: plain normalisation.
        ([1, 1, 1, 1, 1, 1, 1], 0.15, [1 / 7] * 7),
        ([2, 1, 1, 1, 1, 1, 1, 1, 1], 0.2, [0.2] + [0.1] * 8),
        # One pass: 0.4 → 0.15, the freed 0.25 spread over six equal weights: 0.85 / 6 each.
        ([4, 1, 1, 1, 1, 1, 1], 0.15, [0.15] + [0.85 / 6] * 6),
        # Two passes: [.5 .3 .1 .1] → cap the first, 0.7 over 3:1:1 gives 0.42 → cap it too,
        # 0.4 over the last two.
        ([5, 3, 1, 1], 0.3, [0.3, 0.3, 0.2, 0.2]),
        # Exactly feasible (n·cap = 1): everything ends at the cap.
        ([3, 1, 1, 1], 0.25, [0.25] * 4),
        # Infeasible (3 × 0.15 < 1): equal weights.
        ([10, 1, 1], 0.15, [1 / 3] * 3),
        ([7], 0.15, [1.0]),
    ],
)
def test_cap_weights(raw, cap, expected):
    weights = cap_weights(raw, cap)
    np.testing.assert_allclose(weights, expected, rtol=0, atol=1e-15)
    assert weights.sum() == pytest.approx(1.0, abs=1e-15)


def test_cap_weights_rejects_negative_or_zero_raw_weights():
    with pytest.raises(ValueError):
        cap_weights([1, -1, 3], 0.5)
    with pytest.raises(ValueError):
        cap_weights([0, 0], 0.5)


# --- arithmetic of a day -------------------------------------------------------------------------

def test_blend_is_three_input_tokens_per_output_token():
    assert blend(3.0, 15.0) == 6.0  # (9 + 15) / 4
    assert blend(0.5, 1.5) == 0.75
    assert list(blend(pd.Series([2.0, 10.0]), pd.Series([8.0, 30.0]))) == [3.5, 15.0]


BASKET = pd.DataFrame({"ticker": ["A", "B", "C"], "weight": [0.5, 0.3, 0.2]})
# Blends: A sync 3.5, batch 1.75; B sync 1.25, no batch; C sync 15, batch 7.5.
D = date(2026, 11, 22)
# Stated on D, except A's batch price (10 days before) and B's (400 days before): carried forward.
DAY = pd.DataFrame([
    ("A", "sync", 2.0, 8.0, D), ("A", "batch", 1.0, 4.0, D - timedelta(days=10)),
    ("B", "sync", 1.0, 2.0, D - timedelta(days=400)),
    ("C", "sync", 10.0, 30.0, D), ("C", "batch", 5.0, 15.0, D),
    ("Z", "sync", 99.0, 99.0, D - timedelta(days=900)),  # not a constituent
], columns=["ticker", "mode", "input", "output", "observed_on"]).assign(date=D)


def _day(*args, **kwargs):
    day = index_level(*args, **kwargs)
    return day.value, day.detail, day.carried_forward, day.oldest_input_days


def test_sync_level_is_the_weighted_sync_blend():
    value, detail, carried, oldest = _day(BASKET, DAY, "sync")
    assert (carried, oldest) == (1, 400)  # B
    assert value == pytest.approx(0.5 * 3.5 + 0.3 * 1.25 + 0.2 * 15.0) == pytest.approx(5.125)
    assert list(detail.columns) == DETAIL_COLUMNS
    assert list(detail["ticker"]) == ["A", "B", "C"]
    assert list(detail["price"]) == [3.5, 1.25, 15.0]
    assert list(detail["contribution"]) == pytest.approx([1.75, 0.375, 3.0])


def test_a_chained_level_scales_the_contributions_by_its_link_factor():
    day = index_level(BASKET, DAY, "sync", level=10.25, rebalance=date(2026, 10, 1))
    assert day.value == 10.25 and day.link_factor == pytest.approx(2.0)  # 10.25 / 5.125
    assert list(day.detail["weight"]) == [0.5, 0.3, 0.2]
    assert list(day.detail["contribution"]) == pytest.approx([3.5, 0.75, 6.0])
    assert day.covers == "3 of the 3 constituents of the basket fixed on 2026-10-01 at their sync prices"
    batch = index_level(BASKET, DAY, "batch", rebalance=date(2026, 10, 1))
    assert batch.covers.startswith("only the 2 of the 3 constituents of the basket fixed on 2026-10-01 that have a "
                                   "batch price")


def test_a_rate_that_is_not_positive_prices_nothing():
    """A $0 (or missing) input or output is no price: the constituent is left out that day."""
    free = DAY.copy()
    free.loc[(free["ticker"] == "B") & (free["mode"] == "sync"), "input"] = 0.0
    free.loc[(free["ticker"] == "C") & (free["mode"] == "batch"), "output"] = np.nan
    value, detail, _, _ = _day(BASKET, free, "sync")
    assert list(detail["ticker"]) == ["A", "C"]
    assert value == pytest.approx((0.5 * 3.5 + 0.2 * 15.0) / 0.7)
    assert list(_day(BASKET, free, "batch")[1]["ticker"]) == ["A"]
    # Unified prices C at sync alone once its batch price has no output rate.
    assert _day(BASKET, free, "unified")[1].set_index("ticker")["price"].to_dict() == pytest.approx(
        {"A": 3.0625, "C": 15.0})


def test_batch_level_renormalises_over_constituents_with_a_batch_price():
    value, detail, carried, oldest = _day(BASKET, DAY, "batch")
    assert (carried, oldest) == (1, 10)  # A's batch price
    # B has no batch price: A and C keep 0.5 : 0.2, i.e. 5/7 and 2/7.
    assert list(detail["ticker"]) == ["A", "C"]
    assert list(detail["weight"]) == pytest.approx([5 / 7, 2 / 7])
    assert value == pytest.approx((0.5 * 1.75 + 0.2 * 7.5) / 0.7) == pytest.approx(3.392857142857143)


def test_unified_level_puts_a_quarter_of_volume_on_batch_where_it_exists():
    value, detail, carried, oldest = _day(BASKET, DAY, "unified")
    assert (carried, oldest) == (2, 400)  # A by its batch price, B
    # A: .75·3.5 + .25·1.75 = 3.0625; B: sync only, 1.25; C: .75·15 + .25·7.5 = 13.125.
    assert list(detail["price"]) == pytest.approx([3.0625, 1.25, 13.125])
    assert list(detail["weight"]) == [0.5, 0.3, 0.2]
    assert value == pytest.approx(0.5 * 3.0625 + 0.3 * 1.25 + 0.2 * 13.125) == pytest.approx(4.53125)


def test_a_constituent_without_a_price_that_day_is_dropped_and_weights_renormalised():
    value, detail, carried, oldest = _day(BASKET, DAY[DAY["ticker"] != "B"], "sync")
    assert (carried, oldest) == (0, 0)
    assert list(detail["ticker"]) == ["A", "C"]
    assert detail["weight"].sum() == pytest.approx(1.0)
    assert value == pytest.approx((0.5 * 3.5 + 0.2 * 15.0) / 0.7) == pytest.approx(6.785714285714286)


def test_a_day_with_no_batch_price_has_no_batch_level_and_an_unknown_variant_is_refused():
    value, detail, carried, oldest = _day(BASKET, DAY[DAY["mode"] == "sync"], "batch")
    assert np.isnan(value) and detail.empty and carried == 0 and np.isnan(oldest)
    with pytest.raises(ValueError, match="unknown ICI variant"):
        index_level(BASKET, DAY, "flex")


# --- constituents --------------------------------------------------------------------------------

R = date(2026, 4, 1)
EARLY, LATE = date(2026, 1, 1), date(2026, 3, 1)

SELECTION_MODELS = models(
    ("GPT-X", "openai", "frontier"),
    ("GPT-Z", "openai", "frontier"),          # as many hosts as GPT-X, released later: wins
    ("GPT-Y-PREVIEW", "openai", "frontier"),  # most hosts, but a preview
    ("GPT-NEW", "openai", "frontier"),        # priced only after R
    ("GPT-MID", "openai", "mid"),             # tier not in the index
    ("GPT-MINI", "openai", "efficient"),      # no host at all, still the only efficient one
    ("OPUS-B", "anthropic", "frontier"),
    ("OPUS-A", "anthropic", "frontier"),      # same hosts and start as OPUS-B: first ticker wins
    ("GEMINI-FLASH-EXP", "google", "efficient"),
    ("GEMINI-FLASH", "google", "efficient"),
    ("AYA-EXPANSE", "cohere", "efficient"),   # EXP inside a word is no experiment
    ("GROK-BETA", "xai", "frontier"),         # the maker's only candidate is unfinished
    ("M-1", "minimax", "frontier"),           # not a major maker
    released={"GPT-X": date(2025, 6, 1), "GPT-Z": date(2025, 12, 1), "OPUS-A": date(2025, 5, 1),
              "OPUS-B": date(2025, 5, 1)},
)
SELECTION_HISTORY = history(
    series("GPT-X", EARLY, R, 1.0, 4.0), series("GPT-Z", LATE, R, 1.0, 4.0),
    series("GPT-Y-PREVIEW", EARLY, R, 1.0, 4.0), series("GPT-NEW", R + timedelta(days=1), R + timedelta(days=5), 1, 4),
    series("GPT-NEW", EARLY, R, 1.0, 4.0, mode="batch"),  # a batch price is not a sync price
    series("GPT-MID", EARLY, R, 1.0, 4.0), series("GPT-MINI", EARLY, R, 0.1, 0.4),
    series("OPUS-A", EARLY, R, 5.0, 25.0), series("OPUS-B", EARLY, R, 5.0, 25.0),
    series("GEMINI-FLASH-EXP", EARLY, R, 0.1, 0.4), series("GEMINI-FLASH", EARLY, R, 0.1, 0.4),
    series("AYA-EXPANSE", EARLY, R, 0.1, 0.4), series("GROK-BETA", EARLY, R, 5.0, 15.0),
    series("M-1", EARLY, R, 1.0, 4.0),
)
SELECTION_HOSTS = hosts(
    ("GPT-X", "openai", True, EARLY, False),        # the maker is no host
    ("GPT-X", "together", False, EARLY, False),
    ("GPT-X", "together", False, LATE, False),      # the same host twice counts once
    ("GPT-X", "fireworks", False, LATE, False),
    ("GPT-X", "azure", False, LATE, True),          # superseded
    ("GPT-X", "groq", False, R + timedelta(days=1), False),  # after R
    ("GPT-Z", "together", False, LATE, False),
    ("GPT-Z", "azure", False, R, False),            # dated on R itself counts
    *[("GPT-Y-PREVIEW", f"host{i}", False, EARLY, False) for i in range(5)],
    *[("GPT-NEW", f"host{i}", False, EARLY, False) for i in range(7)],
    *[("GPT-MID", f"host{i}", False, EARLY, False) for i in range(9)],
    ("OPUS-A", "aws", False, EARLY, False), ("OPUS-B", "aws", False, EARLY, False),
    ("GEMINI-FLASH-EXP", "openrouter", False, EARLY, False), ("GEMINI-FLASH-EXP", "vertex", False, EARLY, False),
    ("GEMINI-FLASH", "openrouter", False, EARLY, False),
    *[("M-1", f"host{i}", False, EARLY, False) for i in range(9)],
)


def test_one_constituent_per_maker_and_tier_chosen_by_hosts_then_latest_release_then_ticker():
    chosen = select_constituents(SELECTION_HISTORY, SELECTION_MODELS, SELECTION_HOSTS, R)
    assert list(chosen.columns) == ["ticker", "maker", "tier", "hosts", "weight"]
    assert chosen[["ticker", "maker", "tier", "hosts"]].values.tolist() == [
        ["AYA-EXPANSE", "cohere", "efficient", 0],
        ["GEMINI-FLASH", "google", "efficient", 1],
        ["GPT-MINI", "openai", "efficient", 0],
        ["GPT-Z", "openai", "frontier", 2],
        ["OPUS-A", "anthropic", "frontier", 1],
    ]
    # Five constituents cannot respect a 0.15 cap: equal weights.
    assert list(chosen["weight"]) == [0.2] * 5


def test_ties_go_to_the_later_release_not_to_the_later_start_of_a_series():
    """GEMINI-OLD (released 2023-12) has a history that starts only in March 2026; GEMINI-NEW
    (released 2025-06) has one since January. The later release wins, whatever the series' start;
    without a release date from the registry, the first day a source listed the model stands in."""
    prices = history(series("GEMINI-OLD", LATE, R, 0.125, 0.375), series("GEMINI-NEW", EARLY, R, 1.25, 10.0))
    world = models(("GEMINI-OLD", "google", "frontier"), ("GEMINI-NEW", "google", "frontier"),
                   released={"GEMINI-OLD": date(2023, 12, 13), "GEMINI-NEW": date(2025, 6, 17)})
    listed = hosts(("GEMINI-OLD", "vertex", False, EARLY, False), ("GEMINI-NEW", "vertex", False, EARLY, False))
    assert select_constituents(prices, world, listed, R)["ticker"].tolist() == ["GEMINI-NEW"]
    first_seen = world.drop(columns="released_on").assign(first_seen=[date(2024, 3, 26), date(2025, 5, 3)])
    assert select_constituents(prices, first_seen, listed, R)["ticker"].tolist() == ["GEMINI-NEW"]
    # The registry's release date comes first where it states one.
    swapped = first_seen.assign(released_on=[date(2026, 1, 5), None])
    assert select_constituents(prices, swapped, listed, R)["ticker"].tolist() == ["GEMINI-OLD"]


def test_a_candidate_needs_positive_sync_input_and_output_rates_on_r():
    """A model listed at $0 (a price not yet set) is no constituent: the maker's other model is."""
    prices = history(series("GLM-FREE", EARLY, R, 0.0, 0.0), series("GLM-HALF", EARLY, R, 0.0, 1.0),
                     series("GLM-PAID", EARLY, R, 0.2, 1.1))
    world = models(("GLM-FREE", "zai", "efficient"), ("GLM-HALF", "zai", "efficient"), ("GLM-PAID", "zai", "efficient"))
    listed = hosts(*[(t, f"host{i}", False, EARLY, False) for t in ("GLM-FREE", "GLM-HALF") for i in range(4)])
    assert select_constituents(prices, world, listed, R)["ticker"].tolist() == ["GLM-PAID"]


def test_hosts_count_distinct_non_origin_unsuperseded_providers_up_to_r():
    only_x = SELECTION_MODELS[SELECTION_MODELS["ticker"] == "GPT-X"]
    chosen = select_constituents(SELECTION_HISTORY, only_x, SELECTION_HOSTS, R)
    assert chosen["hosts"].tolist() == [2]  # together, fireworks
    later = select_constituents(SELECTION_HISTORY, only_x, SELECTION_HOSTS, R - timedelta(days=40))
    assert later["hosts"].tolist() == [1]  # on 20 Feb only together had listed it


def test_weights_are_one_plus_hosts_capped():
    makers = ["openai", "anthropic", "google", "xai", "mistral", "deepseek", "alibaba"]
    world = models(*[(f"M{i}", maker, "frontier") for i, maker in enumerate(makers)])
    prices = history(*[series(f"M{i}", R, R, 1.0, 1.0) for i in range(7)])
    listed = hosts(*[("M6", f"host{i}", False, R, False) for i in range(3)])
    chosen = select_constituents(prices, world, listed, R)
    # raw 1,1,1,1,1,1,4 → 0.4 capped at 0.15, the other six share 0.85.
    assert CAP == 0.15
    assert chosen.set_index("ticker")["weight"].to_dict() == pytest.approx(
        {**{f"M{i}": 0.85 / 6 for i in range(6)}, "M6": 0.15})


# --- calendar and history ------------------------------------------------------------------------

def test_rebalance_calendar_is_the_first_day_of_each_quarter():
    assert rebalance_dates(date(2024, 2, 15), date(2025, 1, 1)) == [
        date(2024, 4, 1), date(2024, 7, 1), date(2024, 10, 1), date(2025, 1, 1)]
    assert rebalance_dates(date(2024, 1, 1), date(2024, 1, 1)) == [date(2024, 1, 1)]
    assert rebalance_dates(date(2024, 1, 2), date(2024, 3, 31)) == []
    assert last_rebalance(date(2026, 11, 22)) == date(2026, 10, 1)
    assert last_rebalance(date(2026, 3, 31)) == date(2026, 1, 1)
    assert last_rebalance(date(2026, 7, 1)) == date(2026, 7, 1)


START, MID, END = date(2024, 2, 15), date(2024, 3, 10), date(2024, 4, 2)
HISTORY_MODELS = models(("GPT-OLD", "openai", "frontier"), ("GPT-NEW", "openai", "frontier"),
                        ("OPUS", "anthropic", "frontier"))
HISTORY_PRICES = history(
    series("GPT-OLD", date(2024, 1, 1), END, 10.0, 10.0),   # blend 10
    series("GPT-NEW", date(2024, 3, 1), END, 4.0, 4.0),     # blend 4, arrives mid-quarter
    series("OPUS", date(2024, 1, 1), END, 20.0, 20.0),      # blend 20
    series("OPUS", MID, END, 10.0, 10.0, mode="batch"),     # batch blend 10 from 10 March
)
HISTORY_HOSTS = hosts(*[("GPT-NEW", f"host{i}", False, date(2024, 3, 1), False) for i in range(3)])


def test_history_holds_the_basket_until_the_next_rebalance_and_treats_start_as_one():
    daily = build_ici_history(HISTORY_PRICES, HISTORY_MODELS, HISTORY_HOSTS, END, start=START)
    assert list(daily.columns) == ICI_HISTORY_COLUMNS
    days = (END - START).days + 1
    assert len(daily) == 3 * days
    by = {(row.type, row.date): row for row in daily.itertuples()}
    for variant in ("sync", "batch", "unified"):
        dates = list(daily.loc[daily["type"] == variant, "date"])
        assert dates == [START + timedelta(days=i) for i in range(days)]
    # From the start to 31 March: GPT-OLD and OPUS at 1/2 each (two cannot respect the cap);
    # GPT-NEW, priced from 1 March with more hosts, waits for 1 April.
    assert by[("sync", START)].value == 15.0 and by[("sync", date(2024, 3, 31))].value == 15.0
    assert by[("sync", START)].rebalance_date == START
    # On 1 April GPT-NEW replaces GPT-OLD. Chained, the level stays 15 (the old basket's prices
    # did not move); unlinked it would have jumped to (4 + 20) / 2 = 12: a composition effect of −20%.
    assert by[("sync", date(2024, 4, 1))].value == 15.0 and by[("sync", END)].value == 15.0
    assert by[("sync", date(2024, 4, 1))].rebalance_date == date(2024, 4, 1)
    assert by[("sync", date(2024, 4, 1))].composition_effect == pytest.approx(-0.2, abs=1e-15)
    assert by[("sync", date(2024, 3, 31))].composition_effect == 0.0
    assert np.isnan(by[("sync", START)].composition_effect)  # no day before it
    # Batch: nothing before 10 March, then OPUS alone, starting at its own price.
    assert np.isnan(by[("batch", date(2024, 3, 9))].value) and by[("batch", date(2024, 3, 9))].constituents == 0
    assert by[("batch", MID)].value == 10.0 and by[("batch", MID)].constituents == 1
    assert np.isnan(by[("batch", MID)].composition_effect)  # the variant's first level
    assert by[("batch", END)].value == 10.0
    # Unified: OPUS at .75·20 + .25·10 = 17.5 once batch exists, a price move of OPUS:
    # 15 · (10 + 17.5) / (10 + 20) = 13.75, then unchanged across the rebalance.
    assert by[("unified", date(2024, 3, 9))].value == 15.0
    assert by[("unified", MID)].value == pytest.approx(13.75, abs=1e-12)
    assert by[("unified", MID)].composition_effect == 0.0
    assert by[("unified", END)].value == pytest.approx(13.75, abs=1e-12)
    assert by[("unified", date(2024, 4, 1))].composition_effect == pytest.approx(10.75 / 13.75 - 1, abs=1e-12)
    # Inputs: every series is stated on its first day and carried forward after it.
    assert (by[("sync", START)].carried_forward, by[("sync", START)].oldest_input_days) == (2, 45)
    assert (by[("batch", MID)].carried_forward, by[("batch", MID)].oldest_input_days) == (0, 0)
    assert (by[("unified", MID)].carried_forward, by[("unified", MID)].oldest_input_days) == (2, 69)
    assert pd.isna(by[("batch", date(2024, 3, 9))].oldest_input_days)


def test_a_constituent_leaving_or_a_price_at_zero_mid_period_never_moves_the_level():
    """GPT-OLD is retired on 10 March and OPUS's price reads $0 on 20 March: each leaves the days
    it is not priced, and the level moves only when a price priced on both days moves."""
    world = HISTORY_MODELS.assign(retired_by=pd.to_datetime(["2024-03-10", None, None]))
    prices = HISTORY_PRICES.copy()
    prices.loc[(prices["ticker"] == "OPUS") & (prices["mode"] == "sync") & (prices["date"] == date(2024, 3, 20)),
               "input"] = 0.0
    daily = build_ici_history(prices, world, HISTORY_HOSTS, date(2024, 3, 31), start=START)
    sync = daily[daily["type"] == "sync"].set_index("date")
    assert sync.loc[date(2024, 3, 9), "value"] == 15.0
    assert sync.loc[date(2024, 3, 10), "value"] == 15.0  # OPUS alone, unchanged: the exit moves nothing
    assert sync.loc[date(2024, 3, 10), "composition_effect"] == pytest.approx(20 / 15 - 1)
    assert np.isnan(sync.loc[date(2024, 3, 20), "value"]) and sync.loc[date(2024, 3, 20), "constituents"] == 0
    assert sync.loc[date(2024, 3, 21), "value"] == 15.0  # back: the level carries over the gap


def test_current_index_matches_the_last_day_of_the_history():
    daily = build_ici_history(HISTORY_PRICES, HISTORY_MODELS, HISTORY_HOSTS, END, start=START)
    current = build_ici(HISTORY_PRICES, HISTORY_MODELS, HISTORY_HOSTS, END, levels=levels_on(daily, END))
    assert list(current.columns) == ICI_COLUMNS
    assert set(current["rebalance_date"]) == {date(2024, 4, 1)}
    assert current.groupby("type")["ticker"].apply(sorted).to_dict() == {
        "sync": ["GPT-NEW", "OPUS"], "batch": ["OPUS"], "unified": ["GPT-NEW", "OPUS"]}
    for variant, rows in current.groupby("type"):
        assert rows["weight"].sum() == pytest.approx(1.0, abs=1e-12)
        assert rows["value"].iloc[0] == pytest.approx(rows["contribution"].sum(), abs=1e-12)
        last = daily[(daily["type"] == variant) & (daily["date"] == END)]["value"].item()
        assert rows["value"].iloc[0] == pytest.approx(last, abs=1e-12)
        assert rows["methodology_version"].iloc[0] == METHODOLOGY_VERSION
    # Sync: the level 15 over the day's weighted average (4 + 20) / 2 = 12.
    assert current.loc[current["type"] == "sync", "link_factor"].tolist() == pytest.approx([1.25, 1.25])
    assert current.loc[current["type"] == "batch", "covers"].item().startswith("only the 1 of the 2 constituents")


# --- verification hash ---------------------------------------------------------------------------

HASHED = pd.DataFrame({"ticker": ["B", "A"], "weight": [0.4, 0.6], "price": [1.25, 3.5],
                       "contribution": [0.5, 2.1]})
CANONICAL = ('{"as_of":"2026-11-22","constituents":[["A",0.6,3.5],["B",0.4,1.25]],'
             '"methodology_version":"ici-1.0","type":"sync"}')


def test_hash_is_sha256_of_the_canonical_json_written_out_by_hand():
    expected = hashlib.sha256(CANONICAL.encode("utf-8")).hexdigest()
    assert verification_hash("sync", date(2026, 11, 22), "ici-1.0", HASHED) == expected
    payload = {"methodology_version": "ici-1.0", "type": "sync", "as_of": "2026-11-22",
               "constituents": [["A", 0.6, 3.5], ["B", 0.4, 1.25]]}
    assert json.dumps(payload, sort_keys=True, separators=(",", ":")) == CANONICAL


def test_from_ici_4_the_hash_covers_the_link_factor():
    canonical = ('{"as_of":"2026-11-22","constituents":[["A",0.6,3.5],["B",0.4,1.25]],"link_factor":1.5,'
                 '"methodology_version":"ici-4.0","type":"sync"}')
    expected = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    assert verification_hash("sync", date(2026, 11, 22), "ici-4.0", HASHED, 1.5) == expected
    assert verification_hash("sync", date(2026, 11, 22), "ici-4.0", HASHED, 1.25) != expected


def test_hash_changes_with_a_weight_the_type_or_the_version_but_not_row_order_or_float_noise():
    base = verification_hash("sync", date(2026, 11, 22), "ici-1.0", HASHED)
    moved = HASHED.assign(weight=[0.41, 0.59])
    assert verification_hash("sync", date(2026, 11, 22), "ici-1.0", moved) != base
    assert verification_hash("batch", date(2026, 11, 22), "ici-1.0", HASHED) != base
    assert verification_hash("sync", date(2026, 11, 22), "ici-1.1", HASHED) != base
    assert verification_hash("sync", date(2026, 11, 21), "ici-1.0", HASHED) != base
    assert verification_hash("sync", date(2026, 11, 22), "ici-1.0", HASHED.iloc[::-1]) == base
    noisy = HASHED.assign(weight=HASHED["weight"] + 1e-15)
    assert verification_hash("sync", date(2026, 11, 22), "ici-1.0", noisy) == base


@pytest.mark.parametrize("retired_by, chosen_frontier", [
    (R - timedelta(days=1), "GPT-X"),   # known retired before R: out of the basket
    (R, "GPT-X"),                       # known retired on R: out
    (R + timedelta(days=1), "GPT-Z"),   # known only later: still a constituent at R (no look-ahead)
    (None, "GPT-Z"),                    # not retired
])
def test_a_retired_model_leaves_the_basket_once_known_retired(retired_by, chosen_frontier):
    frame = SELECTION_MODELS.copy()
    frame["retired_by"] = frame["retired_by"].astype(object)
    frame.loc[frame["ticker"] == "GPT-Z", "retired_by"] = retired_by
    chosen = select_constituents(SELECTION_HISTORY, frame, SELECTION_HOSTS, R)
    assert chosen.loc[(chosen["maker"] == "openai") & (chosen["tier"] == "frontier"), "ticker"].tolist() == [
        chosen_frontier]


# --- point in time -------------------------------------------------------------------------------

def test_a_tier_by_price_is_the_tier_of_the_price_on_the_rebalance_date():
    """GPT-P was efficient by its price until 1 March (output 1.0 $/M), frontier after (12 $/M):
    classed with today's price it would have led the frontier basket before it was frontier."""
    prices = history(series("GPT-P", date(2026, 1, 1), date(2026, 2, 28), 0.5, 1.0),
                     series("GPT-P", date(2026, 3, 1), date(2026, 4, 30), 3.0, 12.0),
                     series("GPT-F", date(2026, 1, 1), date(2026, 4, 30), 5.0, 20.0),
                     series("GPT-E", date(2026, 1, 1), date(2026, 4, 30), 0.2, 0.8))
    world = pd.concat([models(("GPT-P", "openai", "frontier"), tier_basis="price"),  # today's tier
                       models(("GPT-F", "openai", "frontier"), ("GPT-E", "openai", "efficient"))],
                      ignore_index=True)
    world_hosts = hosts(*[("GPT-P", f"host{i}", False, date(2025, 6, 1), False) for i in range(3)])
    in_january = select_constituents(prices, world, world_hosts, date(2026, 1, 1))
    assert in_january[["ticker", "tier"]].values.tolist() == [["GPT-F", "frontier"], ["GPT-P", "efficient"]]
    in_april = select_constituents(prices, world, world_hosts, date(2026, 4, 1))
    assert in_april[["ticker", "tier"]].values.tolist() == [["GPT-E", "efficient"], ["GPT-P", "frontier"]]
    table = build_ici_constituents(prices, {date(2026, 1, 1): in_january, date(2026, 4, 1): in_april})
    assert list(table.columns) == ICI_CONSTITUENT_COLUMNS
    sync = table[table["type"] == "sync"]
    assert sync[["rebalance_date", "ticker", "tier", "hosts", "weight"]].values.tolist() == [
        # Two constituents cannot respect the cap: equal weights.
        [date(2026, 1, 1), "GPT-F", "frontier", 0, 0.5], [date(2026, 1, 1), "GPT-P", "efficient", 3, 0.5],
        [date(2026, 4, 1), "GPT-E", "efficient", 0, 0.5], [date(2026, 4, 1), "GPT-P", "frontier", 3, 0.5]]
    # Blends (3·input + output) / 4 on the rebalance date: 8.75, 0.625, then 0.35, 5.25.
    assert sync["price"].tolist() == pytest.approx([8.75, 0.625, 0.35, 5.25], abs=1e-15)
    assert table.loc[table["type"] == "batch", "price"].isna().all()  # no batch prices
    assert (table.loc[table["type"] == "unified", "price"].to_numpy() == sync["price"].to_numpy()).all()
