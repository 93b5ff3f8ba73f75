"""One model, one ticker, and each name on one model: the identity decisions, each on hand-made
frames or on the seed rows that carry its evidence."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.aliases import curated_pointers
from pipelines.identity import ModelKey, Resolver
from pipelines.observations import own_prefixed_offers, published_overrides
from pipelines.pointers import resolve_pointers
from pipelines.quality import active_twins, names_on_several_tickers
from pipelines.registry import owned_names, published_ticker_targets
from pipelines.sources import maker_table
from warehouse.seed_files import read_seed_csv


@pytest.fixture
def resolver() -> Resolver:
    pointers = curated_pointers(read_seed_csv("pointer_ids"))
    return Resolver(maker_table(read_seed_csv("makers")), pointers=pointers)


# --- mistral-medium: a pointer, not the 2023 model -------------------------------------------------

def test_mistral_medium_and_mistral_medium_3_are_pointers_with_their_evidence(resolver):
    assert {("mistral", "mistral-medium"), ("mistral", "mistral-medium-3")} <= set(
        curated_pointers(read_seed_csv("pointer_ids")))
    assert resolver.learn("mistral", "mistral-medium") is None
    assert resolver.pointer_of("mistralai/mistral-medium") == ("mistral", "mistral-medium")
    assert resolver.key_of("openrouter", "mistralai/mistral-medium-3") == (None, False)  # a host's pointer: left out
    old = resolver.learn("mistral", "mistral-medium-2312", distinct=True)
    assert resolver.key_of("mistral", "mistral-medium-2312") == (old, True)  # only under its own id


def test_a_pointer_reason_is_required():
    frame = pd.DataFrame({"maker": ["mistral"], "pointer_id": ["mistral-medium"], "reason": [""]})
    with pytest.raises(ValueError, match="no reason"):
        curated_pointers(frame)


def _listing(model_id, model, day, price_in, price_out, source="litellm"):
    return {"_maker": "mistral", "_model": model, "source_model_id": model_id, "is_origin": True, "mode": "sync",
            "effective_date": day, "input": price_in, "output": price_out, "source": source, "authority": 20}


def test_mistral_medium_served_medium_1_then_medium_3_5_by_its_prices():
    """LiteLLM 1.53.1 (2024-11-28) prices mistral-medium at Medium 1's 2.70/8.10, 1.101.0
    (2026-09-14) at Medium 3.5's 1.50/7.50; its 2023 price (2.73/8.20) is no model's, and genai-prices'
    match rule (Medium 3 and 3.1) cannot name a model first seen in 2025 for a 2023 statement."""
    models = pd.DataFrame([
        _listing("mistral-medium-2312", "mistral-medium-2312", date(2026, 8, 31), 2.7, 8.1, "genai-prices"),
        _listing("mistral-medium-2505", "mistral-medium-3-1", date(2025, 5, 24), 0.4, 2.0),
        _listing("mistral-medium-3-5", "mistral-medium-3-5", date(2026, 4, 30), 1.5, 7.5),
    ])
    pointer = {"_pointer": "mistral-medium"}
    statements = pd.DataFrame([{**_listing("mistral-medium", None, day, i, o), **pointer} for day, i, o in [
        (date(2023, 12, 14), 2.73, 8.2), (date(2024, 11, 28), 2.7, 8.1), (date(2026, 9, 14), 1.5, 7.5)]])
    resolved = resolve_pointers(statements, models, lambda maker, pointer: "mistral-medium-3-1")
    assert list(resolved["_model"]) == [None, "mistral-medium-2312", "mistral-medium-3-5"]


def test_a_ticker_that_spells_a_pointer_answers_as_the_pointer(resolver):
    """MISTRAL-MEDIUM was published for mistral-medium-2312; looked up case-insensitively it is the
    id mistral-medium, which serves Medium 3.5 today. The 2312 model takes MISTRAL-MEDIUM-2312."""
    resolver.learn("mistral", "mistral-medium-2312", distinct=True)
    published = pd.DataFrame({"ticker": ["MISTRAL-MEDIUM"], "maker": ["mistral"], "model_id": ["mistral-medium-2312"]})
    assert published_overrides(published, resolver) == {}
    observations = pd.DataFrame({"ticker": ["MISTRAL-MEDIUM-2312", "MISTRAL-MEDIUM-3.5"], "provider": ["mistral"] * 2,
                                 "provider_model_id": ["mistral-medium-2312", "mistral-medium-3-5"],
                                 "is_origin": [True, True]})
    targets = published_ticker_targets(published, observations, {"mistral-medium": "MISTRAL-MEDIUM-3.5"})
    assert targets == {"MISTRAL-MEDIUM": "MISTRAL-MEDIUM-3.5"}


# --- SONAR and the Agent API's perplexity/sonar: two products ---------------------------------------

def test_the_agent_apis_perplexity_sonar_is_a_product_apart_from_sonar(resolver):
    """genai-prices 0.2.3's Perplexity catalogue lists sonar (1/1, 12 per 1,000 requests) and
    perplexity/sonar (0.25/2.50, web searches 2.50 per 1,000); OpenRouter resells sonar as
    perplexity/sonar at 1/1."""
    catalogue = pd.DataFrame({"provider": ["perplexity"] * 3 + ["openrouter"],
                              "source_model_id": ["perplexity/sonar", "sonar", "perplexity/glm-5.3",
                                                  "perplexity/sonar"]})
    assert own_prefixed_offers(catalogue) == [("perplexity", "perplexity/sonar")]
    agent = resolver.learn_offer("perplexity", "perplexity/sonar")
    sonar = resolver.learn("perplexity", "sonar", distinct=True)
    assert agent == ModelKey("perplexity", "perplexity/sonar") and sonar == ModelKey("perplexity", "sonar")
    assert resolver.key_of("perplexity", "perplexity/sonar") == (agent, True)
    assert resolver.key_of("openrouter", "perplexity/sonar") == (sonar, False)


def test_sonar_keeps_its_ticker_and_the_agent_product_has_its_own():
    overrides = read_seed_csv("model_overrides")
    assert overrides.loc[overrides["model_id"] == "perplexity/sonar", "ticker"].tolist() == ["SONAR-AGENT"]
    published = read_seed_csv("published_tickers")
    assert published.loc[published["ticker"] == "SONAR", "model_id"].tolist() == ["sonar"]
    rejected = read_seed_csv("rejected_statements")
    assert ((rejected["provider"] == "perplexity") & (rejected["model_id"] == "sonar")
            & (rejected["value"].astype(float) == 0.25)).any()  # model-prices' Agent API price under sonar


def test_a_name_that_is_one_models_own_id_is_no_alias_of_another():
    models = pd.DataFrame({"ticker": ["SONAR", "SONAR-AGENT"], "model_id": ["sonar", "perplexity/sonar"],
                           "aliases": [["perplexity/sonar", "sonar"], ["perplexity/sonar", "sonar-agent"]]})
    assert owned_names(models)["aliases"].tolist() == [["sonar"], ["perplexity/sonar", "sonar-agent"]]


# --- merges and pairs kept apart ------------------------------------------------------------------

@pytest.mark.parametrize("maker, alias_id, model_id", [
    ("upstage", "solar-mini-4", "solar-mini4"),  # SOLAR-MINI-4 answers as SOLAR-MINI4
    ("xai", "grok-4.1-fast", "grok-4-1-fast-reasoning"),  # GROK-4.1-FAST answers as GROK-4.1-FAST-REASONING
    ("stepfun", "step-3.5-flash-2603", "step-3.5-flash"),  # STEP-3.5-FLASH-2603 answers as STEP-3.5-FLASH
])
def test_merged_duplicates_are_curated_aliases(maker, alias_id, model_id):
    aliases = read_seed_csv("model_aliases")
    row = aliases[(aliases["maker"] == maker) & (aliases["alias_id"] == alias_id)]
    assert row["model_id"].tolist() == [model_id] and row["reason"].str.len().iloc[0] > 40


def test_pairs_kept_apart_are_not_merged():
    """CODESTRAL (25.01, codestral-2501) and CODESTRAL-2508 (25.08): genai-prices 0.2.3 lists two
    models, and Mistral's year-month ids name releases. DOUBAO-SEED-x (Volcengine, CNY) and SEED-x
    (BytePlus, USD): two offers of one line, in two regions at two prices, under dated ids of
    different builds; the relation is by name (DOUBAO-SEED-x ↔ SEED-x), not an alias."""
    aliases = read_seed_csv("model_aliases")
    joined = set(aliases["alias_id"]) | set(aliases["model_id"])
    assert not any(i.startswith(("codestral", "doubao-seed", "seed-")) for i in joined)
    published = set(read_seed_csv("published_tickers")["ticker"])
    pairs = [(t, t.removeprefix("DOUBAO-")) for t in published if t.startswith("DOUBAO-SEED-")]
    assert sum(seed in published for _, seed in pairs) == 7


# --- the registry rules themselves ----------------------------------------------------------------

def test_a_name_on_two_tickers_is_refused():
    models = pd.DataFrame({"ticker": ["MISTRAL-MEDIUM", "MISTRAL-MEDIUM-3.1"],
                           "model_id": ["mistral-medium-2312", "mistral-medium"],
                           "aliases": [np.array(["mistral-medium-2312"]), np.array(["mistral-medium-2505"])]})
    assert names_on_several_tickers(models) == ["mistral-medium names MISTRAL-MEDIUM, MISTRAL-MEDIUM-3.1"]
    assert names_on_several_tickers(models.iloc[1:]) == []


def test_two_active_tickers_with_one_name_and_one_price_are_refused():
    models = pd.DataFrame({"ticker": ["SOLAR-MINI-4", "SOLAR-MINI4", "SOLAR-MINI"],
                           "display_name": ["Solar Mini 4", "Solar Mini 4", "Solar Mini"],
                           "status": ["active"] * 3})
    spots = pd.DataFrame({"ticker": ["SOLAR-MINI-4", "SOLAR-MINI4", "SOLAR-MINI"], "input_sync": [0.1, 0.1, 0.15],
                          "beta_sync": [0.4, 0.4, 0.15]})
    assert active_twins(models, spots) == ["SOLAR-MINI-4, SOLAR-MINI4: Solar Mini 4 at 0.1/0.4"]
    assert active_twins(models.assign(status=["retired", "active", "active"]), spots) == []
