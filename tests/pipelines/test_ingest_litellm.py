"""LiteLLM entries (as the seed extract holds them) → listings and model metadata."""

import importlib.util
from datetime import date
from pathlib import Path

import pandas as pd
import pytest

from pipelines.ingest_litellm import (
    DATA_URL,
    litellm_listings,
    litellm_metadata,
    provider_id,
    source_model_id,
)
from pipelines.listings import BATCH, CURRENT, SYNC, listings_frame

RELEASED = date(2026, 11, 20)
VERSION = "1.110.2"

ENTRIES = [
    {"key": "gpt-4o-mini", "litellm_provider": "openai", "mode": "chat", "input": 0.15, "output": 0.6,
     "cache_read": 0.075, "batch_input": 0.075, "batch_output": 0.3, "max_input_tokens": 128000,
     "max_output_tokens": 16384, "deprecation_date": "2027-03-01",
     "fees": {"search_context_cost_per_query": {"search_context_size_high": 0.03, "search_context_size_low": 0.025,
                                                "search_context_size_medium": 0.0275}}},
    {"key": "xai/grok-4", "litellm_provider": "xai", "mode": "chat", "input": 3.0, "output": 15.0,
     "max_tokens": 256000, "supports_reasoning": True, "reasoning": 15.0,
     "tiers": [{"above": 128000, "input": 6.0, "output": 30.0}]},
    {"key": "gemini/gemini-1.5-pro", "litellm_provider": "gemini", "mode": "chat", "input": 1.25, "output": 5.0,
     "max_input_tokens": 2097152, "deprecation_date": "2025-09-24",
     "supported_modalities": ["text", "image", "audio", "video"], "supported_output_modalities": ["text"]},
    {"key": "openrouter/anthropic/claude-3.5-sonnet", "litellm_provider": "openrouter", "mode": "chat",
     "input": 3.0, "output": 15.0},
    {"key": "perplexity/sonar-small-online", "litellm_provider": "perplexity", "mode": "chat", "input": 0.0,
     "output": 0.28, "fees": {"input_cost_per_request": 0.005}},
    {"key": "text-embedding-3-small", "litellm_provider": "openai", "mode": "embedding", "input": 0.02,
     "output": 0.0, "max_input_tokens": 8191},
    {"key": "dall-e-3", "litellm_provider": "openai", "mode": "image_generation"},
    {"key": "ollama/llama3", "litellm_provider": "ollama", "mode": "chat", "input": 0.0, "output": 0.0},
    {"key": "gpt-5-codex", "litellm_provider": "openai", "mode": "responses", "input": 1.25},  # no output price
    {"key": "gemini/gemini-2.5-flash-preview-tts", "litellm_provider": "gemini", "mode": "chat", "input": 0.5,
     "output": 10.0, "supported_output_modalities": ["audio"]},
    {"key": "bedrock/claude-opus-latest", "alias_of": "anthropic.claude-opus-4-1"},
]


def _by_key(listings):
    return {(r.provider, r.source_model_id, r.mode): r for r in listings}


def _build_script():
    path = Path(__file__).resolve().parents[2] / "scripts" / "build_litellm_prices.py"
    spec = importlib.util.spec_from_file_location("build_litellm_prices", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_per_million_conversion_is_exact_to_the_decimal_stated():
    """The build script multiplies the file's decimals by 10^6 exactly: 1.5e-07 → 0.15, 2e-07 → 0.2."""
    raw = b'{"m": {"litellm_provider": "openai", "mode": "chat", "input_cost_per_token": 1.5e-07, ' \
          b'"output_cost_per_token": 3e-06, "cache_read_input_token_cost": 2e-07, ' \
          b'"cache_creation_input_token_cost": 1.0000000000000001e-07}}'
    (entry,) = _build_script().extract(raw)
    assert (entry["input"], entry["output"], entry["cache_read"], entry["cache_write"]) == (0.15, 3.0, 0.2, 0.1)
    assert 2e-07 * 1_000_000 == 0.19999999999999998  # what plain float arithmetic would have given


def test_a_text_model_gives_a_sync_and_a_batch_listing_dated_the_release():
    listings = _by_key(litellm_listings(ENTRIES, VERSION, RELEASED))
    sync, batch = listings[("openai", "gpt-4o-mini", SYNC)], listings[("openai", "gpt-4o-mini", BATCH)]
    assert (sync.input, sync.output, sync.cache_read) == (0.15, 0.6, 0.075)
    assert (batch.input, batch.output, batch.cache_read) == (0.075, 0.3, None)
    for row in (sync, batch):
        assert (row.effective_date, row.provenance, row.source, row.source_version) == (RELEASED, CURRENT, "litellm", VERSION)
        assert row.source_url == DATA_URL.format(version=VERSION)
        assert (row.context_window, row.deprecated, row.display_name) == (128000, False, None)
    # Fees per 1,000: the medium search context size's $0.0275 a query; none stated for batch.
    assert (sync.web_search_fee, sync.request_fee, batch.web_search_fee) == (27.5, None, None)


def test_a_fee_per_request_is_stated_per_thousand_requests():
    listings = _by_key(litellm_listings(ENTRIES, VERSION, RELEASED))
    assert listings[("perplexity", "sonar-small-online", SYNC)].request_fee == 5.0  # $0.005 a request


def test_prefixes_are_stripped_and_providers_respelled():
    keys = set(_by_key(litellm_listings(ENTRIES, VERSION, RELEASED)))
    assert ("xai", "grok-4", SYNC) in keys
    assert ("google", "gemini-1.5-pro", SYNC) in keys
    assert ("openrouter", "anthropic/claude-3.5-sonnet", SYNC) in keys


@pytest.mark.parametrize("key, provider, expected", [
    ("xai/grok-4", "xai", "grok-4"),
    ("gemini/gemini-2.5-pro", "gemini", "gemini-2.5-pro"),
    ("openrouter/anthropic/claude-3.5-sonnet", "openrouter", "anthropic/claude-3.5-sonnet"),
    ("vertex_ai/claude-opus-4", "vertex_ai-anthropic_models", "claude-opus-4"),
    ("bedrock/us-east-1/anthropic.claude-v2", "bedrock_converse", "us-east-1/anthropic.claude-v2"),
    ("amazon-nova/nova-pro-v1", "amazon_nova", "nova-pro-v1"),
    ("anthropic.claude-3-haiku-20240307-v1:0", "bedrock", "anthropic.claude-3-haiku-20240307-v1:0"),
    ("deepseek-ai/deepseek-v3", "together_ai", "deepseek-ai/deepseek-v3"),  # a maker's name is kept
])
def test_source_model_id(key, provider, expected):
    assert source_model_id(key, provider) == expected


@pytest.mark.parametrize("litellm, ours", [
    ("gemini", "google"), ("vertex_ai-language-models", "google"), ("vertex_ai", "google"),
    ("bedrock", "aws"), ("bedrock_converse", "aws"), ("text-completion-openai", "openai"),
    ("together_ai", "together"), ("fireworks_ai", "fireworks"), ("dashscope", "alibaba"),
    ("moonshot", "moonshotai"), ("cohere_chat", "cohere"), ("x-ai", "xai"), ("deepinfra", "deepinfra"),
])
def test_provider_id(litellm, ours):
    assert provider_id(litellm) == ours


def test_tiers_reasoning_and_context_from_max_tokens():
    grok = _by_key(litellm_listings(ENTRIES, VERSION, RELEASED))[("xai", "grok-4", SYNC)]
    assert grok.tiers == '[{"above":128000,"input":6.0,"output":30.0}]'
    assert (grok.reasoning, grok.context_window, grok.deprecated) == (15.0, 256000, None)


def test_a_deprecation_date_on_or_before_the_release_marks_the_listing_deprecated():
    gemini = _by_key(litellm_listings(ENTRIES, VERSION, RELEASED))[("google", "gemini-1.5-pro", SYNC)]
    assert gemini.deprecated is True


def test_only_priced_text_models_are_listed():
    models = {r.source_model_id for r in litellm_listings(ENTRIES, VERSION, RELEASED)}
    assert "text-embedding-3-small" not in models  # an embedding model
    assert "dall-e-3" not in models
    assert "llama3" not in models  # 0/0 marks a self-hosted runtime, not a price
    assert "gpt-5-codex" not in models  # no output price
    assert "gemini-2.5-flash-preview-tts" not in models  # chat mode, but it speaks: audio token prices
    assert "sonar-small-online" in models  # a zero input price beside a real output price is a price
    assert len(listings_frame(litellm_listings(ENTRIES, VERSION, RELEASED))) == 6


def test_one_listing_per_model_when_several_keys_name_it():
    """`deepseek-chat` and `deepseek/deepseek-chat` are one model: the shorter (default) key wins."""
    entries = [
        {"key": "deepseek/deepseek-chat", "litellm_provider": "deepseek", "mode": "chat", "input": 0.3, "output": 1.2},
        {"key": "deepseek-chat", "litellm_provider": "deepseek", "mode": "chat", "input": 0.28, "output": 0.42},
    ]
    (listing,) = litellm_listings(entries, VERSION, RELEASED)
    assert (listing.source_model_id, listing.input, listing.output) == ("deepseek-chat", 0.28, 0.42)


def test_metadata_has_every_model_with_its_mode_and_modalities():
    meta = litellm_metadata(ENTRIES, RELEASED).set_index("litellm_key")
    assert "bedrock/claude-opus-latest" not in meta.index  # an alias carries nothing
    assert len(meta) == 10
    assert meta.loc["gemini/gemini-2.5-flash-preview-tts", "output_modalities"] == ["audio"]
    emb = meta.loc["text-embedding-3-small"]
    assert (emb["mode"], emb["input_modalities"], emb["output_modalities"]) == ("embedding", ["text"], ["embedding"])
    assert meta.loc["dall-e-3", "output_modalities"] == ["image"]
    gemini = meta.loc["gemini/gemini-1.5-pro"]
    assert (gemini["provider"], gemini["source_model_id"]) == ("google", "gemini-1.5-pro")
    assert gemini["input_modalities"] == ["text", "image", "audio", "video"]
    assert (gemini["deprecation_date"], bool(gemini["deprecated"])) == (date(2025, 9, 24), True)
    mini = meta.loc["gpt-4o-mini"]
    assert (mini["input_modalities"], mini["output_modalities"]) == (["text"], ["text"])  # the default
    assert (mini["context_window"], mini["max_output_tokens"]) == (128000, 16384)
    assert bool(meta.loc["xai/grok-4", "is_reasoning"]) is True
    assert pd.isna(meta.loc["gpt-4o-mini", "is_reasoning"])  # unstated


def test_capability_flags_add_the_inputs_they_name():
    """Most entries give no `supported_modalities`: gpt-4o's says `supports_vision`, an audio
    model's `supports_audio_input`; a stated list keeps what it states and gains what a flag says."""
    entries = [
        {"key": "gpt-4o", "litellm_provider": "openai", "mode": "chat", "supports_vision": True,
         "supports_pdf_input": True},
        {"key": "gpt-4o-audio-preview", "litellm_provider": "openai", "mode": "chat", "supports_audio_input": True},
        {"key": "gemini/gemini-x", "litellm_provider": "gemini", "mode": "chat", "supported_modalities": ["text", "video"],
         "supports_vision": True},
        {"key": "gpt-text", "litellm_provider": "openai", "mode": "chat", "supports_vision": False},
    ]
    meta = litellm_metadata(entries, RELEASED).set_index("litellm_key")["input_modalities"].to_dict()
    assert meta == {"gpt-4o": ["text", "image"], "gpt-4o-audio-preview": ["text", "audio"],
                    "gemini/gemini-x": ["text", "video", "image"], "gpt-text": ["text"]}


def test_metadata_columns_and_types():
    meta = litellm_metadata(ENTRIES, RELEASED)
    assert list(meta.columns) == ["litellm_key", "provider", "source_model_id", "mode", "context_window",
                                  "max_output_tokens", "input_modalities", "output_modalities", "deprecation_date",
                                  "deprecated", "is_reasoning"]
    assert str(meta["context_window"].dtype) == "Int64" and str(meta["is_reasoning"].dtype) == "boolean"
    assert litellm_metadata([], RELEASED).empty
