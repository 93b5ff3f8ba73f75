"""The small test universe stays what it is for: a cut of the bundled data that still exercises
every rule the full data does (tests/small_universe.py), and whose id list is the one its tickers
have in the full data today."""

import json

import pytest

from pipelines.quality import active_twins, names_on_several_tickers
from tests.small_universe import IDS_FILE, TICKERS, ids_of


@pytest.fixture(scope="module")
def tables(store):
    names = ("models", "price_observations", "model_aliases", "price_disputes", "scheduled_changes", "events",
             "ici_constituents", "spots")
    return {name: store.read_table(name) for name in names}


def test_every_ticker_and_nothing_else(tables):
    assert sorted(tables["models"]["ticker"]) == sorted(TICKERS)
    assert 20 <= len(TICKERS) <= 45


def test_every_source_and_its_reader(tables):
    assert set(tables["price_observations"]["source"]) == {
        "genai-prices", "model-prices", "model-price-radar-mcp", "litellm", "host-median"}


def test_every_rule_has_a_case(tables):
    observations, spots, events = tables["price_observations"], tables["spots"], tables["events"]
    aliases = tables["model_aliases"]
    # pointer ids, one of them moving by date, and curated aliases
    assert aliases["valid_to"].notna().any() and aliases["alias"].str.endswith("-latest").any()
    assert set(tables["price_disputes"]["rule"]) >= {"agrees", "later_statement", "cross_check", "rejected"}
    for column in ("tiers_sync", "peak_sync", "request_fee_sync", "web_search_fee_sync", "cache_write_sync",
                   "citation_sync", "beta_batch"):
        assert spots[column].notna().any(), column
    assert len(tables["scheduled_changes"]) > 0
    assert (observations["source"] == "host-median").any()
    assert set(tables["models"]["status"]) == {"active", "deprecated", "retired"}
    assert spots.loc[spots["ticker"] == "DOUBAO-SEED-1.6", "tiers_sync"].notna().all()  # converted from CNY
    # dated history with real changes, and a restatement that was undone
    assert {"price_cut", "price_increase", "alias_moved"} <= set(events["kind"]) and events["reverted"].any()
    assert observations["superseded"].any()
    assert tables["ici_constituents"]["rebalance_date"].nunique() > 4  # the index rebalances


def test_the_id_list_is_what_the_full_data_gives_the_tickers(full_warehouse):
    """After a change of the bundled data, regenerate it: python -m tests.small_universe WAREHOUSE."""
    assert json.loads(IDS_FILE.read_text())["ids"] == ids_of(str(full_warehouse))


def test_one_name_one_model_and_no_active_twins(tables):
    """Each name a model answers to names it alone, and no two active tickers share a display name
    and sync prices (the full data's check: tests/pipelines/test_price_truth.py)."""
    assert names_on_several_tickers(tables["models"]) == []
    assert active_twins(tables["models"], tables["spots"]) == []
