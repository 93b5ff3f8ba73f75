"""Names, limits, modalities and lifecycle from every source, on hand-built statements."""

from datetime import date

import pandas as pd
import pytest

from pipelines.model_metadata import (
    enrich_models,
    id_keys,
    lifecycle,
    lifecycle_ids,
    lifecycle_notices,
    modalities,
    name_from_ticker,
    reasoning,
)
from pipelines.registry import Rules

AS_OF = date(2026, 11, 22)


@pytest.mark.parametrize("ticker, name", [
    ("GPT-5-CODEX", "GPT-5 Codex"), ("QWEN2.5-14B-INSTRUCT", "Qwen2.5 14B Instruct"),
    ("DOUBAO-SEED-1.6-FLASH", "Doubao Seed 1.6 Flash"), ("O1-PRO", "o1 Pro"), ("GPT-4O-MINI", "GPT-4o Mini"),
    ("QWEN3-ASR-FLASH", "Qwen3 ASR Flash"),
])
def test_name_from_ticker(ticker, name):
    assert name_from_ticker(ticker) == name


def observation(ticker, provider, model_id, is_origin=True):
    return {"ticker": ticker, "provider": provider, "provider_model_id": model_id, "is_origin": is_origin}


OBSERVATIONS = pd.DataFrame([
    observation("GPT-5", "openai", "gpt-5"), observation("GPT-5", "azure", "gpt-5", False),
    observation("ASR", "alibaba", "qwen3-asr-flash"),
    observation("SONNET-4", "anthropic", "claude-sonnet-4-20250514"),
    observation("BABBAGE-002", "openai", "babbage-002"),
    observation("ADA", "openai", "ada"), observation("CLAUDE-2", "anthropic", "claude-2"),
])
MODELS = pd.DataFrame({"ticker": ["ADA", "ASR", "BABBAGE-002", "CLAUDE-2", "GPT-5", "SONNET-4"],
                       "provider": ["openai", "alibaba", "openai", "anthropic", "openai", "anthropic"],
                       "model_id": ["ada", "qwen3-asr-flash", "babbage-002", "claude-2", "gpt-5",
                                    "claude-sonnet-4-20250514"]})
# Makers' notices as the seed file holds them (text), one published after the snapshot date.
NOTICES = lifecycle_notices(pd.DataFrame([
    {"provider": "openai", "model_id": "ADA", "published_on": "2023-07-06", "retired_on": "2024-01-04"},
    {"provider": "openai", "model_id": "gpt-5", "published_on": "2026-11-01", "retired_on": "2027-03-01"},
    {"provider": "anthropic", "model_id": "claude-2", "published_on": "2026-12-01", "retired_on": "2027-06-01"},
]))


def listing(provider, model_id, name=None, window=None, deprecated=None, source="genai-prices"):
    return {"provider": provider, "source_model_id": model_id, "display_name": name, "context_window": window,
            "deprecated": deprecated, "source": source}


LISTINGS = pd.DataFrame([
    listing("openai", "gpt-5", "GPT-5", 400_000),
    listing("azure", "gpt-5", "Azure: GPT-5 (global)", 272_000),
    listing("alibaba", "qwen3-asr-flash", "qwen3-asr-flash"),  # the id again: no name
    listing("anthropic", "claude-sonnet-4-20250514", "Claude Sonnet 4", 200_000, deprecated=True),
    listing("openai", "babbage-002", None, None),
])
HISTORY = pd.DataFrame([
    {"provider_id": "anthropic", "model_id": "claude-sonnet-4-20250514", "deprecated": True, "name": None,
     "context_window": None, "first_released": date(2026, 10, 29)},
    {"provider_id": "openai", "model_id": "babbage-002", "deprecated": True, "name": None,
     "context_window": 16_384, "first_released": date(2026, 11, 10)},
])
LITELLM = pd.DataFrame([
    {"provider": "openai", "source_model_id": "gpt-5", "context_window": 272_000, "max_output_tokens": 128_000,
     "input_modalities": ["text", "image"], "output_modalities": ["text"], "deprecation_date": date(2026, 12, 11),
     "is_reasoning": True},
    {"provider": "openai", "source_model_id": "babbage-002", "context_window": None, "max_output_tokens": 4_096,
     "input_modalities": ["text"], "output_modalities": ["text"], "deprecation_date": date(2026, 9, 28),
     "is_reasoning": False},
])
RULES = Rules.from_frame(pd.DataFrame({"kind": ["input"], "pattern": ["-asr"], "value": ["audio"]}))


@pytest.fixture(scope="module")
def enriched():
    removed = {("anthropic", "claude-sonnet-4-20250514"), ("openai", "gpt-5-2025-08-07")}  # a snapshot id only
    return enrich_models(MODELS, OBSERVATIONS, LISTINGS, HISTORY, LITELLM, NOTICES, removed, date(2026, 10, 26),
                         RULES, AS_OF).set_index("ticker")


def test_reasoning_from_the_rules_else_litellm_at_the_maker_else_not(enriched):
    assert enriched.loc["GPT-5", ["is_reasoning", "is_reasoning_source"]].tolist() == [
        True, "litellm supports_reasoning: 1 of 1 of its maker's entries"]
    assert enriched.loc["BABBAGE-002", ["is_reasoning", "is_reasoning_source"]].tolist() == [
        False, "litellm supports_reasoning: 0 of 1 of its maker's entries"]
    assert enriched.loc["ASR", ["is_reasoning", "is_reasoning_source"]].tolist() == [
        False, "default: false (no source states it)"]
    ruled = Rules.from_frame(pd.DataFrame({"kind": ["reasoning"], "pattern": ["gpt-5"], "value": ["false"]}))
    said = reasoning(MODELS, LITELLM, id_keys(OBSERVATIONS), ruled).set_index("ticker")
    assert said.loc["GPT-5", ["is_reasoning", "is_reasoning_source"]].tolist() == [False, "model_rules: false"]


def test_names_come_from_the_sources_else_from_the_ticker(enriched):
    assert enriched.loc["GPT-5", ["display_name", "display_name_source"]].tolist() == ["GPT-5", "genai-prices"]
    assert enriched.loc["ASR", ["display_name", "display_name_source"]].tolist() == [
        "ASR", "derived from the ticker"]


def test_limits_prefer_the_makers_statement_then_the_largest_elsewhere(enriched):
    assert enriched.loc["GPT-5", "context_window"] == 400_000  # the maker's, not LiteLLM's 272k
    assert enriched.loc["GPT-5", "max_output_tokens"] == 128_000
    assert enriched.loc["BABBAGE-002", "context_window"] == 16_384  # from the release history


def test_modalities_from_litellm_else_rules_else_text(enriched):
    assert enriched.loc["GPT-5", "input_modalities"] == ["image", "text"]
    assert enriched.loc["ASR", "input_modalities"] == ["audio"]
    assert enriched.loc["SONNET-4", ["input_modalities", "output_modalities"]].tolist() == [["text"], ["text"]]


def test_lifecycle_from_every_source(enriched):
    rows = enriched[["status", "deprecated_on", "retired_on", "retired_by"]]
    # retirement announced (LiteLLM's date; a maker's notice dates the deprecation, see below); a
    # removed snapshot id of GPT-5 does not retire the model
    assert rows.loc["GPT-5"].tolist() == ["deprecated", date(2026, 11, 1), date(2026, 12, 11), None]
    # the flag in the release history (2026-11-10) came after the retirement date: the earlier stands
    assert rows.loc["BABBAGE-002"].tolist() == ["retired", date(2026, 9, 28), date(2026, 9, 28), date(2026, 9, 28)]
    # removed without a date: known retired from the publication of the source that says so
    assert rows.loc["SONNET-4"].tolist() == ["retired", date(2026, 10, 29), None, date(2026, 10, 26)]
    assert rows.loc["ASR"].tolist() == ["active", None, None, None]


def test_a_makers_notice_deprecates_and_retires_a_model_the_price_sources_still_list(enriched):
    rows = enriched[["status", "deprecated_on", "retired_on", "retired_by"]]
    # announced 2023-07-06, retired 2024-01-04: retired, known so from the retirement day
    assert rows.loc["ADA"].tolist() == ["retired", date(2023, 7, 6), date(2024, 1, 4), date(2024, 1, 4)]
    # a notice's later date does not displace LiteLLM's earlier one; its publication dates the deprecation
    assert rows.loc["GPT-5"].tolist() == ["deprecated", date(2026, 11, 1), date(2026, 12, 11), None]
    # a notice published after the snapshot date is not yet known
    assert rows.loc["CLAUDE-2"].tolist() == ["active", None, None, None]


def test_a_models_status_is_read_from_its_other_ids_unless_one_of_them_lives_on():
    """A model named by an undated id and retired under its dated one is retired, saying which
    source said so; one whose other snapshot model-prices still lists is not; an open-weight
    model lives on at its hosts whatever its maker's API does; a live pointer proves nothing."""
    models = pd.DataFrame({"ticker": ["OLD", "MULTI", "OPEN", "PTR"],
                           "provider": ["anthropic", "openai", "google", "openai"],
                           "model_id": ["claude-old", "gpt-m", "gemma-x", "p-1"],
                           "pricing_basis": ["maker", "maker", "host_median", "maker"]})
    ids = {"OLD": ["claude-old", "claude-old-20240101"], "MULTI": ["gpt-m", "gpt-m-2024-05-13", "gpt-m-2024-08-06"],
           "OPEN": ["gemma-x", "gemma-x-it"], "PTR": ["p-1", "p-1-2025", "p-latest"]}
    provider = dict(zip(models["ticker"], models["provider"], strict=True))
    keys = id_keys(pd.DataFrame([observation(t, provider[t], i) for t, names in ids.items() for i in names]))
    removed = {("anthropic", "claude-old-20240101"), ("openai", "gpt-m-2024-05-13"), ("google", "gemma-x-it"),
               ("openai", "p-1-2025")}
    listed = {("openai", "gpt-m-2024-08-06"), ("openai", "p-latest")}
    empty_listings = pd.DataFrame(columns=["provider", "source_model_id", "deprecated", "source"])
    empty_history = pd.DataFrame(columns=["provider", "model_id", "deprecated", "first_released"])
    empty_litellm = pd.DataFrame(columns=["provider", "source_model_id", "deprecation_date"])
    rows = lifecycle(models, empty_listings, empty_history, empty_litellm, NOTICES.iloc[:0], removed,
                     date(2026, 10, 26), AS_OF, lifecycle_ids(models, keys, listed)).set_index("ticker")
    assert rows["status"].to_dict() == {"OLD": "retired", "MULTI": "active", "OPEN": "active", "PTR": "retired"}
    assert rows.loc["OLD", "retired_by"] == date(2026, 10, 26)
    assert rows.loc["OLD", "status_source"] == "model-prices gives claude-old-20240101 the status removed"
    assert pd.isna(rows.loc["MULTI", "status_source"])
    # Read from its own id alone (no `ids`), the undated name carries no status.
    assert lifecycle(models, empty_listings, empty_history, empty_litellm, NOTICES.iloc[:0], removed,
                     date(2026, 10, 26), AS_OF)["status"].tolist() == ["active"] * 4


def test_a_makers_notice_reaches_the_model_through_its_other_ids_and_may_name_no_retirement_date():
    """A notice under the dated id the maker retired is read for the model named by its undated id;
    a notice that names no shutdown day deprecates from its publication and retires nothing."""
    models = pd.DataFrame({"ticker": ["OLD", "CMD", "LATER"], "provider": ["anthropic", "cohere", "perplexity"],
                           "model_id": ["claude-old", "command", "r-1"]})
    keys = id_keys(pd.DataFrame([observation("OLD", "anthropic", "claude-old"),
                                 observation("OLD", "anthropic", "claude-old-20240101"),
                                 observation("CMD", "cohere", "command"), observation("LATER", "perplexity", "r-1")]))
    notices = lifecycle_notices(pd.DataFrame([
        {"provider": "anthropic", "model_id": "claude-old-20240101", "published_on": "2025-06-30",
         "retired_on": "2026-01-05"},
        {"provider": "cohere", "model_id": "command", "published_on": "2025-09-15", "retired_on": ""},
        {"provider": "perplexity", "model_id": "r-1", "published_on": "2026-12-01", "retired_on": ""},
    ]))
    empty_listings = pd.DataFrame(columns=["provider", "source_model_id", "deprecated", "source"])
    empty_history = pd.DataFrame(columns=["provider", "model_id", "deprecated", "first_released"])
    empty_litellm = pd.DataFrame(columns=["provider", "source_model_id", "deprecation_date"])
    rows = lifecycle(models, empty_listings, empty_history, empty_litellm, notices, set(), None, AS_OF,
                     lifecycle_ids(models, keys, set())).set_index("ticker")
    assert rows.loc["OLD", ["status", "deprecated_on", "retired_on", "retired_by"]].tolist() == [
        "retired", date(2025, 6, 30), date(2026, 1, 5), date(2026, 1, 5)]
    assert rows.loc["OLD", "status_source"] == ("the maker's notice of 2025-06-30 retires claude-old-20240101 "
                                                "on 2026-01-05")
    assert rows.loc["CMD", ["status", "deprecated_on", "retired_on", "retired_by"]].tolist() == [
        "deprecated", date(2025, 9, 15), None, None]
    assert rows.loc["CMD", "status_source"] == ("the maker's notice of 2025-09-15 deprecates command, "
                                                "naming no retirement date")
    assert rows.loc["LATER", "status"] == "active"  # published after the snapshot date


def test_inputs_are_the_union_of_the_makers_entries_else_of_the_hosts():
    """The maker's dated id says vision, its undated id text: the model takes images. A host's
    audio claim does not count beside the maker's own entries; with no maker entry, hosts' do."""
    models = pd.DataFrame({"ticker": ["M", "H"], "provider": ["openai", "qwen"], "model_id": ["m", "h"]})
    keys = id_keys(pd.DataFrame([observation("M", "openai", "m"), observation("M", "openai", "m-2024"),
                                 observation("M", "replicate", "openai/m", False),
                                 observation("H", "together", "qwen/h", False)]))
    litellm = pd.DataFrame([
        {"provider": "openai", "source_model_id": "m", "input_modalities": ["text"], "output_modalities": ["text"]},
        {"provider": "openai", "source_model_id": "m-2024", "input_modalities": ["text", "image"],
         "output_modalities": ["text"]},
        {"provider": "replicate", "source_model_id": "openai/m", "input_modalities": ["text", "audio"],
         "output_modalities": ["text"]},
        {"provider": "together", "source_model_id": "qwen/h", "input_modalities": ["text", "image"],
         "output_modalities": ["text"]},
    ])
    rows = modalities(models, litellm, keys, RULES).set_index("ticker")["input_modalities"].to_dict()
    assert rows == {"M": ["image", "text"], "H": ["image", "text"]}


def test_every_bundled_notice_names_a_maker_a_source_and_dates_in_order():
    """Each row: a maker of makers.csv, the maker's page (https), a publication day, and a
    retirement day no earlier (or none, where the maker named no shutdown day)."""
    from warehouse.seed_files import read_seed_csv
    notices = lifecycle_notices(read_seed_csv("lifecycle_notices"))
    makers = set(read_seed_csv("makers")["maker"])
    assert len(notices) >= 25 and set(notices["provider"]) <= makers
    assert notices["source_url"].str.fullmatch(r"https://[a-z0-9.-]+\.[a-z]{2,}/\S*").all()
    assert notices["published_on"].notna().all()
    dated = notices[notices["retired_on"].notna()]
    assert (dated["published_on"] <= dated["retired_on"]).all()
    assert notices["retired_on"].isna().sum() == 1  # cohere's command: deprecated, no shutdown day named
    assert not notices.duplicated(["provider", "model_id"]).any()
