"""Price truth on the real snapshot: one model one ticker, pointers as aliases, and every ticker
ever published still answering. Each case names its evidence."""

import pandas as pd
import pytest

from serve.lookup import ModelLookup
from warehouse.seed_files import read_seed_csv


@pytest.fixture(scope="module")
def lookup(store) -> ModelLookup:
    return ModelLookup(store.read_table("models"))


@pytest.fixture(scope="module")
def spots(store) -> pd.DataFrame:
    return store.read_table("spots").set_index("ticker")


def test_every_published_ticker_still_answers(lookup):
    published = read_seed_csv("published_tickers")
    assert len(published) == 452
    unresolved = []
    for ticker in published["ticker"]:
        try:
            lookup.resolve(ticker)
        except LookupError:
            unresolved.append(ticker)
    assert unresolved == []


@pytest.mark.parametrize("name", [
    "GROK-4.20-BETA-LATEST-REASONING", "GROK-4.20-BETA-LATEST-NON-REASONING",
    "GROK-4.20-EXPERIMENTAL-BETA-0304-REASONING", "GROK-4.20-EXPERIMENTAL-BETA-0304-NON-REASONING",
    "GROK-4.20-0309-REASONING", "grok-4.20-0309-non-reasoning",
])
def test_grok_4_20_beta_names_are_the_model_after_its_cut(lookup, spots, name):
    """genai-prices 0.2.3: xAI cut Grok 4.20 to 1.25/2.50 on 2026-04-30; the beta and experimental
    names are its pre-release names (model_aliases.csv), the 0309 ids its catalogue ids."""
    ticker = lookup.resolve(name).ticker
    assert ticker == "GROK-4.20"
    assert spots.loc[ticker, ["input_sync", "beta_sync"]].tolist() == [1.25, 2.5]


def test_mistral_small_is_small_3_2_not_the_2603_model(lookup, spots):
    """mistral-small-2506 is Small 3.2 at 0.10/0.30 in genai-prices, model-prices and LiteLLM;
    mistral-small-2603 (0.15/0.60) is another model with a ticker of its own."""
    small = lookup.resolve("MISTRAL-SMALL").ticker
    assert spots.loc[small, ["input_sync", "beta_sync"]].tolist() == [0.1, 0.3]
    assert lookup.resolve("mistral-small-2506").ticker == small
    other = lookup.resolve("mistral-small-2603").ticker
    assert other != small and spots.loc[other, ["input_sync", "beta_sync"]].tolist() == [0.15, 0.6]


def test_pointers_resolve_to_the_model_they_serve_today(lookup, store):
    """gemini-flash-latest: genai-prices 0.2.3 matches it to gemini-3.8-flash, and model-prices
    prices it at 3.8 Flash's 0.75/3.75 since 2026-08-21."""
    assert lookup.resolve("gemini-flash-latest").ticker == "GEMINI-3.8-FLASH"
    assert lookup.resolve("GEMINI-FLASH").ticker == "GEMINI-3.8-FLASH"  # its old ticker
    aliases = store.read_table("model_aliases")
    flash = aliases[aliases["alias"] == "gemini-flash-latest"].sort_values("valid_from")
    assert flash["ticker"].tolist()[-1] == "GEMINI-3.8-FLASH" and pd.isna(flash["valid_to"].tolist()[-1])


@pytest.mark.parametrize("ticker", ["MISTRAL-LARGE", "MISTRAL-MEDIUM", "GEMINI-3.5-FLASH-LITE", "GEMINI-3.8-FLASH"])
def test_no_phantom_change_from_a_repointed_alias(store, ticker):
    """mistral-large-latest moved from Large 2411 (2/6) to Large 2512 (0.5/1.5) on 2025-12-08 and
    gemini-flash-lite-latest through three models: neither is a price change of any model."""
    events = store.read_table("events")
    mine = events[(events["ticker"] == ticker) & (events["mode"] == "sync")]
    assert not mine["kind"].isin(["price_cut", "price_increase"]).any() or ticker == "MISTRAL-LARGE"
    if ticker == "MISTRAL-LARGE":  # only Mistral Large's 2024 cuts (8/24 → 3/9 → 2/6), none since
        cuts = mine[mine["kind"] == "price_cut"]
        assert (pd.to_datetime(cuts["effective_date"]) < "2025-01-01").all()
