"""Chain-linking of the index (methodology `ici-4.0`): the maths by hand, then every rebalance of
the small universe's history, where the old basket hands its level to the new one."""

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.ici import BATCH_SHARE, VARIANTS, as_known, blend, build_ici_history, in_service
from pipelines.ici_chain import chain, composition_effects, raw_level

NAN = np.nan


def test_the_level_moves_by_the_constituents_priced_on_both_days():
    weights = np.array([0.5, 0.3, 0.2])
    prices = np.array([
        [4.0, 2.0, NAN],   # day 0: the first level, the weighted average (0.5·4 + 0.3·2) / 0.8 = 3.25
        [2.0, 2.0, 10.0],  # day 1: C enters (no move from it); A halves: 3.25 · (1 + 0.6) / (2 + 0.6)
        [2.0, 2.0, 5.0],   # day 2: C halves: · (1 + 0.6 + 1) / (1 + 0.6 + 2)
        [NAN, NAN, NAN],   # day 3: nothing priced, no level
        [2.0, 2.0, 5.0],   # day 4: nothing priced the day before: the level carries over
    ])
    chained = chain(prices, weights)
    day1 = 3.25 * 1.6 / 2.6
    np.testing.assert_allclose(chained.values, [3.25, day1, day1 * 2.6 / 3.6, NAN, day1 * 2.6 / 3.6], rtol=1e-15)
    assert chained.carried_out == pytest.approx(day1 * 2.6 / 3.6, rel=1e-15)
    # Started from a level carried in, the first day takes it whatever its prices.
    assert chain(prices, weights, carried_in=7.0).values[0] == 7.0
    np.testing.assert_allclose(raw_level(prices, weights), [3.25, 3.6, 2.6, NAN, 2.6], rtol=1e-15)


def test_a_composition_effect_is_the_unlinked_jump_and_zero_without_a_change():
    levels = np.array([10.0, 10.0, 9.0, NAN, 9.0])
    raw = np.array([5.0, 4.0, 3.6, NAN, 3.6])
    changed = np.array([False, True, False, False, False])
    effects = composition_effects(levels, raw, changed)
    # Day 1: the raw average falls 5 → 4 while the level holds: unlinked, a −20% jump.
    np.testing.assert_allclose(effects, [NAN, -0.2, 0.0, NAN, NAN], rtol=1e-15)


# --- every rebalance of the small universe -------------------------------------------------------

@pytest.fixture(scope="module")
def built(store):
    observations, models = store.read_table("price_observations"), store.read_table("models")
    as_of = date.fromisoformat(store.current().extra["as_of"])
    rows, baskets = as_known(observations, models, as_of)
    history = build_ici_history(rows, models, observations, as_of, baskets=baskets)
    return in_service(rows, models), baskets, history, as_of


def _prices(rows: pd.DataFrame, basket: pd.DataFrame, day: date, variant: str) -> pd.Series:
    """Each constituent's price in the variant on `day`, written from the methodology: positive
    rates only, unified at a quarter of batch where a batch price exists."""
    one = rows[(rows["date"] == day) & rows["ticker"].isin(set(basket["ticker"]))
               & (rows["input"] > 0) & (rows["output"] > 0)]
    by_mode = {mode: one[one["mode"] == mode].set_index("ticker") for mode in ("sync", "batch")}
    sync, batch = (blend(m["input"], m["output"]) for m in (by_mode["sync"], by_mode["batch"]))
    if variant == "sync":
        return sync
    if variant == "batch":
        return batch
    return ((1 - BATCH_SHARE) * sync + BATCH_SHARE * batch.reindex(sync.index)).fillna(sync)


def _move(rows, basket, before: date, after: date, variant: str) -> float | None:
    """Σ w·p(after) / Σ w·p(before) over the basket's constituents priced on both days."""
    weights = basket.set_index("ticker")["weight"]
    old, new = _prices(rows, basket, before, variant), _prices(rows, basket, after, variant)
    both = old.index.intersection(new.index)
    if both.empty:
        return None
    return float((weights[both] * new[both]).sum() / (weights[both] * old[both]).sum())


@pytest.mark.parametrize("variant", VARIANTS)
def test_on_every_rebalance_the_old_baskets_level_is_the_new_baskets(built, variant):
    rows, baskets, history, as_of = built
    levels = history[history["type"] == variant].set_index("date")["value"]
    checked = 0
    starts = sorted(baskets)
    for old_day, rebalance in zip(starts, starts[1:], strict=False):
        eve, morrow = rebalance - timedelta(days=1), rebalance + timedelta(days=1)
        if pd.isna(levels[eve]) or morrow > as_of:
            continue
        # The old basket, priced on the eve and on the rebalance date, gives the level of R ...
        old_move = _move(rows, baskets[old_day], eve, rebalance, variant)
        from_old = levels[eve] * (old_move if old_move is not None else 1.0)
        assert levels[rebalance] == pytest.approx(from_old, rel=1e-12), rebalance
        # ... and the new basket starts from it: the next day moves by its own prices alone.
        new_move = _move(rows, baskets[rebalance], rebalance, morrow, variant)
        assert levels[morrow] == pytest.approx(from_old * (new_move if new_move is not None else 1.0),
                                               rel=1e-12), rebalance
        checked += 1
    assert checked >= (4 if variant != "batch" else 0)
    effects = history[(history["type"] == variant) & history["date"].isin(starts[1:])]["composition_effect"]
    if variant != "batch":
        assert (effects.dropna() != 0).any()  # some baskets did change the average
