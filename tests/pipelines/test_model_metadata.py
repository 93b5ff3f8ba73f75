"""Names, limits, modalities and lifecycle from every source, on hand-built statements."""

from datetime import date

import pandas as pd
import pytest

from pipelines.model_metadata import enrich_models, name_from_ticker
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
])
MODELS = pd.DataFrame({"ticker": ["ASR", "BABBAGE-002", "GPT-5", "SONNET-4"],
                       "provider": ["alibaba", "openai", "openai", "anthropic"],
                       "model_id": ["qwen3-asr-flash", "babbage-002", "gpt-5", "claude-sonnet-4-20250514"]})


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
     "input_modalities": ["text", "image"], "output_modalities": ["text"], "deprecation_date": date(2026, 12, 11)},
    {"provider": "openai", "source_model_id": "babbage-002", "context_window": None, "max_output_tokens": 4_096,
     "input_modalities": ["text"], "output_modalities": ["text"], "deprecation_date": date(2026, 9, 28)},
])
RULES = Rules.from_frame(pd.DataFrame({"kind": ["input"], "pattern": ["-asr"], "value": ["audio"]}))


@pytest.fixture(scope="module")
def enriched():
    removed = {("anthropic", "claude-sonnet-4-20250514"), ("openai", "gpt-5-2025-08-07")}  # a snapshot id only
    return enrich_models(MODELS, OBSERVATIONS, LISTINGS, HISTORY, LITELLM, removed, date(2026, 10, 26), RULES,
                         AS_OF).set_index("ticker")


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
    # retirement announced; a removed snapshot id of GPT-5 does not retire the model
    assert rows.loc["GPT-5"].tolist() == ["deprecated", None, date(2026, 12, 11), None]
    # the flag in the release history (2026-11-10) came after the retirement date: the earlier stands
    assert rows.loc["BABBAGE-002"].tolist() == ["retired", date(2026, 9, 28), date(2026, 9, 28), date(2026, 9, 28)]
    # removed without a date: known retired from the publication of the source that says so
    assert rows.loc["SONNET-4"].tolist() == ["retired", date(2026, 10, 29), None, date(2026, 10, 26)]
    assert rows.loc["ASR"].tolist() == ["active", None, None, None]
