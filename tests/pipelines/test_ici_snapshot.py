"""The Inference Cost Index on the real snapshot: every published figure recomputed from its inputs."""

import hashlib
import json
import math
from datetime import date, timedelta

import pandas as pd
import pytest

from pipelines.history import archive_tracks_on
from pipelines.ici import (
    MAJOR_MAKERS,
    METHODOLOGY_VERSION,
    TIERS,
    VARIANTS,
    as_known,
    build_ici,
    build_ici_history,
    in_service,
    index_universe,
    select_constituents,
)
from pipelines.known_history import known_at
from pipelines.listings import known_on
from pipelines.registry import default_tier
from tests.conftest import AS_OF

TODAY = date.fromisoformat(AS_OF)
START = date(2024, 1, 1)


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


@pytest.fixture(scope="module")
def tables(store):
    return store.read_table("price_history"), store.read_table("models"), store.read_table("price_observations")


@pytest.fixture(scope="module")
def current(tables):
    return build_ici(*tables, TODAY)


@pytest.fixture(scope="module")
def daily(tables):
    return build_ici_history(*tables, TODAY, start=START)


def _variant(frame, variant):
    rows = frame[frame["type"] == variant]
    assert len(rows) > 0, f"no {variant} constituents"
    return rows


@pytest.mark.parametrize("variant", VARIANTS)
def test_weights_sum_to_one_and_the_value_is_the_linked_weighted_sum_of_prices(current, variant):
    rows = _variant(current, variant)
    assert abs(math.fsum(rows["weight"]) - 1.0) <= 1e-12
    assert rows["value"].nunique() == 1 and rows["link_factor"].nunique() == 1
    recomputed = rows["link_factor"].iloc[0] * math.fsum(w * p for w, p in zip(rows["weight"], rows["price"],
                                                                                strict=True))
    assert rows["value"].iloc[0] == pytest.approx(recomputed, rel=1e-12)
    assert (rows["as_of"] == TODAY).all() and (rows["methodology_version"] == METHODOLOGY_VERSION).all()
    assert (rows["rebalance_date"] == date(2026, 10, 1)).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_hash_recomputes_from_the_published_constituents(current, variant):
    rows = _variant(current, variant).sort_values("ticker")
    payload = {
        "methodology_version": rows["methodology_version"].iloc[0],
        "type": variant,
        "as_of": rows["as_of"].iloc[0].isoformat(),
        "link_factor": round(rows["link_factor"].iloc[0], 12),
        "constituents": [[t, round(w, 12), round(p, 12)]
                         for t, w, p in zip(rows["ticker"], rows["weight"], rows["price"], strict=True)],
    }
    digest = hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    assert (rows["verification_hash"] == digest).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_price_is_the_blend_of_that_days_history_row(tables, current, variant):
    history = tables[0]
    today = history[history["date"] == TODAY].set_index(["ticker", "mode"])
    for row in _variant(current, variant).itertuples():
        sync = today.loc[(row.ticker, "sync")]
        sync_blend = (3 * sync["input"] + sync["output"]) / 4
        if (row.ticker, "batch") in today.index:
            batch = today.loc[(row.ticker, "batch")]
            batch_blend = (3 * batch["input"] + batch["output"]) / 4
        else:
            batch_blend = None
        expected = {"sync": sync_blend, "batch": batch_blend,
                    "unified": sync_blend if batch_blend is None else 0.75 * sync_blend + 0.25 * batch_blend}[variant]
        assert row.price == pytest.approx(expected, rel=1e-12), row.ticker


def test_batch_and_unified_prices_are_not_above_sync(current):
    # Levels of different baskets can order either way (batch keeps only the constituents with
    # a batch price); each constituent's own prices cannot.
    price = current.pivot_table(index="ticker", columns="type", values="price")
    batch = price["batch"].dropna()
    assert len(batch) and (batch <= price.loc[batch.index, "sync"]).all()
    assert (price["unified"] <= price["sync"]).all()


def test_batch_constituents_are_sync_constituents_with_a_batch_price(current):
    tickers = current.groupby("type")["ticker"].apply(set)
    assert tickers["batch"] <= tickers["sync"] == tickers["unified"]


def test_the_basket_holds_at_most_one_finished_model_per_major_maker_and_tier(tables):
    history, models, observations = tables
    basket = select_constituents(history, models, observations, date(2026, 10, 1))
    assert basket["maker"].isin(MAJOR_MAKERS).all() and basket["tier"].isin(TIERS).all()
    assert not basket.duplicated(["maker", "tier"]).any()
    assert not basket["ticker"].str.contains("PREVIEW|BETA").any()
    registry = models.set_index("ticker")
    assert (registry.loc[basket["ticker"], "provider"].to_numpy() == basket["maker"].to_numpy()).all()


@pytest.mark.parametrize("variant", VARIANTS)
def test_history_is_daily_without_gaps_and_ends_at_the_current_value(daily, current, variant):
    series = daily[daily["type"] == variant].reset_index(drop=True)
    assert list(series["date"]) == [START + timedelta(days=i) for i in range((TODAY - START).days + 1)]
    priced = series["value"].notna()
    # A level exists whenever a constituent is priced; batch prices are recorded only from mid-2025,
    # and from the first batch level on there is no day without one.
    assert (priced == (series["constituents"] > 0)).all()
    first = priced.idxmax()
    assert priced.iloc[first:].all()
    if variant != "batch":
        assert first == 0
    assert series["value"].iloc[-1] == pytest.approx(_variant(current, variant)["value"].iloc[0], abs=1e-12)
    assert series["rebalance_date"].iloc[-1] == date(2026, 10, 1)
    assert set(series["rebalance_date"]) == {START, *(date(y, m, 1) for y in (2024, 2025, 2026)
                                                       for m in (1, 4, 7, 10) if date(y, m, 1) <= TODAY)}


def test_history_levels_fall_from_2024_to_today(daily):
    levels = daily.pivot(index="date", columns="type", values="value")
    assert pd.notna(levels.loc[START, "sync"])
    assert levels.loc[TODAY, "sync"] < levels.loc[START, "sync"]


# --- point in time and the inputs' age -------------------------------------------------------------


@pytest.fixture(scope="module")
def baskets(store):
    return store.read_table("ici_constituents")


def test_every_published_basket_was_chosen_from_what_was_published_by_its_rebalance(tables, baskets):
    """Each basket holds only models published by its rebalance date, is the one the rule
    chooses from the history as known on that date, and a tier by price is the tier of the price
    known then. Chosen with today's knowledge instead, some baskets differ."""
    history, models, observations = tables
    universe = index_universe(observations, models)
    backfill = archive_tracks_on(universe, [TODAY])[0]
    first_known = pd.to_datetime(known_on(observations)).groupby(observations["ticker"].to_numpy()).min()
    by_price = set(models.loc[models["tier_basis"] == "price", "ticker"])
    differs_today = []
    for rebalance, published in baskets[baskets["type"] == "sync"].groupby("rebalance_date"):
        assert (first_known.reindex(published["ticker"]) <= pd.Timestamp(rebalance)).all(), rebalance
        view = known_at(universe, rebalance, backfill=backfill)
        known = select_constituents(view.history, models, view.observations, rebalance)
        assert known[["ticker", "maker", "tier", "hosts"]].values.tolist() == \
            published[["ticker", "maker", "tier", "hosts"]].values.tolist(), rebalance
        assert known["weight"].tolist() == pytest.approx(published["weight"].tolist(), abs=1e-15)
        output = view.history[(view.history["mode"] == "sync") & (view.history["date"] == rebalance)].set_index(
            "ticker")["output"]
        for ticker, tier in zip(published["ticker"], published["tier"], strict=True):
            if ticker in by_price:
                assert tier == default_tier(output[ticker]), (rebalance, ticker)
        today = select_constituents(history[history["date"] <= rebalance], models,
                                    observations[observations["effective_date"] <= rebalance], rebalance)
        differs_today.append(today["ticker"].tolist() != published["ticker"].tolist())
    assert any(differs_today)


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_level_counts_its_inputs_carried_forward_and_the_oldest_age(tables, current, variant):
    history = tables[0]
    today = history[history["date"] == TODAY].set_index(["ticker", "mode"])
    rows = _variant(current, variant)
    modes = {"sync": ["sync"], "batch": ["batch"], "unified": ["sync", "batch"]}[variant]
    stated = {t: min(today.loc[(t, m), "observed_on"] for m in modes if (t, m) in today.index) for t in rows["ticker"]}
    assert rows["carried_forward"].iloc[0] == sum(day < TODAY for day in stated.values()) > 0
    assert rows["oldest_input_days"].iloc[0] == max((TODAY - day).days for day in stated.values())


# --- ici-4.0: what a constituent may be -----------------------------------------------------------


@pytest.fixture(scope="module")
def known(tables):
    history, models, observations = tables
    rows, baskets = as_known(observations, models, TODAY)
    return in_service(rows, models), baskets, build_ici_history(rows, models, observations, TODAY, baskets=baskets)


def test_no_constituent_is_ever_weighted_on_a_zero_or_missing_rate(known):
    """Every day, the constituents a level counts are exactly the basket's members with a row of
    positive input and output rates in the variant's mode: a $0 listing (as GLM-5's first) is no price."""
    rows, baskets, daily = known
    starts = sorted(baskets)
    member_of = pd.concat([b.assign(rebalance_date=day) for day, b in baskets.items()])[["rebalance_date", "ticker"]]
    for mode in ("sync", "batch"):
        one = rows[rows["mode"] == mode].assign(
            rebalance_date=lambda f: [max(d for d in starts if d <= day) for day in f["date"]])
        one = one.merge(member_of, on=["rebalance_date", "ticker"])
        valid = one[(one["input"] > 0) & (one["output"] > 0)].groupby("date").size()
        levels = daily[daily["type"] == mode].set_index("date")["constituents"]
        assert (levels == valid.reindex(levels.index).fillna(0).astype(int)).all(), mode
    for day, basket in baskets.items():
        on_day = rows[(rows["date"] == day) & (rows["mode"] == "sync")].set_index("ticker")
        assert (on_day.loc[basket["ticker"], ["input", "output"]] > 0).all().all(), day


def test_gemini_1_0_pro_holds_no_frontier_slot_and_ties_go_to_the_later_release(tables, baskets):
    """GEMINI-PRO (Gemini 1.0 Pro, 0.125/0.375 $/M) is in no basket from 2025-10-01 on, and
    Google's frontier slot of 2025-10-01 holds a model first listed after it."""
    _, models, _ = tables
    sync = baskets[baskets["type"] == "sync"]
    assert "GEMINI-PRO" in set(models["ticker"])
    later = sync[sync["rebalance_date"] >= date(2025, 10, 1)]
    assert "GEMINI-PRO" not in set(later["ticker"])
    october = sync[(sync["rebalance_date"] == date(2025, 10, 1)) & (sync["maker"] == "google")]
    frontier = october.loc[october["tier"] == "frontier", "ticker"].tolist()
    assert frontier and frontier != ["GEMINI-PRO"]
    first_seen = models.set_index("ticker")["first_seen"].astype(str)
    assert first_seen[frontier[0]] > first_seen["GEMINI-PRO"]
