"""Which model a listed id names, who makes it, and whether the listing is the maker's own."""

import pytest

from pipelines.identity import MakerTable, ModelKey, Resolver, is_text_model, normal_form, split_vendor
from pipelines.sources import maker_table
from warehouse.seed_files import read_seed_csv


@pytest.fixture(scope="module")
def makers() -> MakerTable:
    return maker_table(read_seed_csv("makers"))


@pytest.mark.parametrize("listed, expected", [
    ("anthropic/claude-sonnet-4", ("anthropic", "claude-sonnet-4")),
    ("us.anthropic.claude-3-5-sonnet-20241022-v2:0", ("anthropic", "claude-3-5-sonnet-20241022-v2:0")),
    ("anthropic.claude-sonnet-4-20250514-v1:0", ("anthropic", "claude-sonnet-4-20250514-v1:0")),
    ("ca.amazon.nova-lite-v1:0", ("amazon", "nova-lite-v1:0")),
    ("us-gov.anthropic.claude-3-haiku-20240307-v1:0", ("anthropic", "claude-3-haiku-20240307-v1:0")),
    ("@cf/meta/llama-3-8b", ("meta", "llama-3-8b")),
    ("accounts/fireworks/models/deepseek-v3", (None, "deepseek-v3")),
    ("x-ai/grok-4", ("xai", "grok-4")),
    ("meta-llama/llama-3.1-8b-instruct", ("meta", "llama-3.1-8b-instruct")),
    ("models/gemini-2.5-pro", (None, "gemini-2.5-pro")),
    ("gpt-4.1", (None, "gpt-4.1")),
    ("claude-3.5-sonnet", (None, "claude-3.5-sonnet")),
    (" o3 ", (None, "o3")),
])
def test_split_vendor(listed, expected):
    assert split_vendor(listed) == expected


@pytest.mark.parametrize("model_id, expected", [
    ("claude-sonnet-4-20250514", "claude-sonnet-4"),  # -YYYYMMDD
    ("gpt-4o-2024-08-06", "gpt-4o"),  # -YYYY-MM-DD
    ("doubao-seed-1-6-251015", "doubao-seed-1-6"),  # -YYMMDD
    ("mistral-small-03-2025", "mistral-small"),  # -MM-YYYY
    ("gemini-2.5-flash-preview-05-20", "gemini-2-5-flash-preview"),  # -MM-DD
    ("grok-4-0709", "grok-4"),  # -MMDD
    ("mistral-large-2411", "mistral-large-2411"),  # -YYMM: Mistral's and Qwen's distinct models
    ("gemini-1.5-pro-002", "gemini-1-5-pro"),  # Gemini revision
    ("mistral-large-latest", "mistral-large-latest"),  # a pointer, resolved per date elsewhere
    ("claude-3-5-sonnet-20241022-v2:0", "claude-3-5-sonnet"),  # Bedrock packaging, then the date
    ("nova-pro-v1:0", "nova-pro"),
    ("claude-sonnet-4-0", "claude-sonnet-4"),  # trailing -0
    ("Claude_3.5_Sonnet", "claude-3-5-sonnet"),
    ("r1-1776", "r1-1776"),  # not a date
    ("gpt-4-32k", "gpt-4-32k"),
    ("gpt-4-32k-0613", "gpt-4-32k"),
    ("qwen3-235b-a22b-2507", "qwen3-235b-a22b-2507"),
    ("o3", "o3"),
    ("gpt-4-1106-preview", "gpt-4-1106-preview"),  # a date inside the id stays
])
def test_normal_form(model_id, expected):
    assert normal_form(model_id) == expected


@pytest.mark.parametrize("model_id, expected", [
    ("gpt-4o", True), ("claude-sonnet-4-20250514", True), ("claude-3-5-sonnet-20241022-v2:0", True),
    ("gpt-4o-mini-2024-07-18.ft-", False), ("ft:gpt-4o", False),
    ("deepseek-reasoner", True), ("o3-deep-research", True),
    ("text-embedding-3-small", False), ("gpt-4o-realtime-preview", False), ("whisper-1", False),
    ("gpt-4o-mini-tts", False), ("gpt-image-1", False), ("gemini-2.0-flash-live-001", False),
    ("mistral-ocr-latest", False), ("rerank-v3.5", False), ("ft:gpt-4o:acme:1", False),
    ("gpt-4o-audio-preview", False), ("omni-moderation-latest", False),
])
def test_is_text_model(model_id, expected):
    assert is_text_model(model_id) is expected


@pytest.mark.parametrize("bare, vendor, expected", [
    ("glm-5.3", "perplexity", "zai"),  # the brand beats a reseller's prefix
    ("llama-3-8b", "meta", "meta"),
    ("claude-sonnet-4", None, "anthropic"),
    ("o3", None, "openai"),
    ("sonar-pro", None, "perplexity"),
    ("custom-model", "openai", "openai"),  # no brand matches: the vendor, when it is a maker
    ("custom-model", "fireworks", None),  # ... and never a host
    ("custom-model", None, None),
])
def test_maker_of(makers, bare, vendor, expected):
    assert makers.maker_of(bare, vendor) == expected


def test_maker_of_through_split_vendor(makers):
    vendor, bare = split_vendor("perplexity/glm-5.3")
    assert makers.maker_of(bare, vendor) == "zai"


def test_maker_table_first_match_wins():
    table = MakerTable([("^foo", "a"), ("^foo-bar", "b")])
    assert table.maker_of("foo-bar-1") == "a"
    assert table.makers == {"a", "b"}


def test_resolver_maps_host_ids_onto_the_makers_model(makers):
    r = Resolver(makers)
    sonnet = ModelKey("anthropic", "claude-sonnet-4-20250514")
    assert r.learn("anthropic", "claude-sonnet-4-20250514") == sonnet
    assert r.learn("anthropic", "claude-sonnet-4-0") == sonnet  # the first id seen names the model
    assert r.key_of("anthropic", "claude-sonnet-4-20250514") == (sonnet, True)
    assert r.key_of("anthropic", "claude-sonnet-4-0") == (sonnet, True)
    assert r.key_of("openrouter", "anthropic/claude-sonnet-4") == (sonnet, False)
    assert r.key_of("amazon-bedrock", "us.anthropic.claude-sonnet-4-20250514-v1:0") == (sonnet, False)
    assert r.key_of("anthropic", "claude-opus-4") == (None, True)


def test_resolver_distinct_keeps_catalogue_models_apart(makers):
    r = Resolver(makers)
    large = r.learn("mistral", "mistral-large", distinct=True)
    large_2512 = r.learn("mistral", "mistral-large-2512", distinct=True)
    assert large == ModelKey("mistral", "mistral-large")
    assert large_2512 == ModelKey("mistral", "mistral-large-2512")
    assert r.key_of("mistral", "mistral-large-2512") == (large_2512, True)
    assert r.key_of("openrouter", "mistralai/mistral-large-2411") == (None, False)  # another model, unlisted
    assert r.key_of("openrouter", "mistralai/mistral-large") == (large, False)


def test_resolver_without_distinct_merges_snapshots(makers):
    r = Resolver(makers)
    r.learn("openai", "gpt-4o")
    assert r.learn("openai", "gpt-4o-2024-08-06") == ModelKey("openai", "gpt-4o")
    assert r.learn("mistral", "mistral-large-2512") == ModelKey("mistral", "mistral-large-2512")  # year-month: a model


def test_pointers_are_not_models_and_a_claim_names_a_model(makers):
    r = Resolver(makers)
    assert r.learn("mistral", "mistral-medium-latest") is None
    assert r.pointer_of("mistralai/mistral-medium-latest") == ("mistral", "mistral-medium-latest")
    assert r.key_of("mistral", "mistral-medium-latest") == (None, False)
    grok = r.learn("xai", "grok-4.20", distinct=True)
    r.claim("xai", "grok-4.20-beta-latest-reasoning", grok)
    assert r.key_of("openrouter", "x-ai/grok-4.20-beta-latest-reasoning") == (grok, False)
    chatgpt = r.learn("openai", "chatgpt-4o-latest", product=True)  # billed under the pointer name
    assert r.key_of("openai", "chatgpt-4o-latest") == (chatgpt, True)


def test_resolver_only_the_maker_creates_models(makers):
    r = Resolver(makers)
    assert r.learn("openrouter", "anthropic/claude-sonnet-4") is None
    assert r.learn("perplexity", "glm-5.3") is None  # a reseller of Z.ai's model
    assert r.learn("acme", "unbranded-1") is None  # no maker at all
    assert r.learn("openai", "text-embedding-3-small") is None  # not a text model
    assert r.key_of("openrouter", "anthropic/claude-sonnet-4") == (None, False)
    assert r.key_of("acme", "unbranded-1") == (None, False)
