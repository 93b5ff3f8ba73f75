"""models.dev among the metadata sources: the limits rule, its provenance, its disputes, the union
of modalities and the point in time, on hand-made statements."""

from datetime import date

import pandas as pd

from pipelines.ingest_models_dev import known_statements, models_dev_metadata, provider_id
from pipelines.model_metadata import (
    UNKNOWN,
    id_keys,
    metadata_disputes,
    metadata_statements,
    modalities,
    names_and_limits,
)
from pipelines.registry import Rules


def observation(ticker, provider, model_id, is_origin=True):
    return {"ticker": ticker, "provider": provider, "provider_model_id": model_id, "is_origin": is_origin}


OBSERVATIONS = pd.DataFrame([
    observation("VISION", "cohere", "vision"), observation("VISION", "openrouter", "cohere/vision", False),
    observation("HOSTED", "qwen", "hosted"), observation("HOSTED", "together", "qwen/hosted", False),
    observation("HOSTED", "deepinfra", "qwen/hosted", False),
    observation("RARE", "ai21", "rare"), observation("NONE", "openai", "none"),
])
MODELS = pd.DataFrame({"ticker": ["HOSTED", "NONE", "RARE", "VISION"], "provider": ["qwen", "openai", "ai21", "cohere"],
                       "model_id": ["hosted", "none", "rare", "vision"]})
LISTINGS = pd.DataFrame([
    {"provider": "cohere", "source_model_id": "vision", "display_name": None, "context_window": 256_000,
     "source": "genai-prices"},
    {"provider": "together", "source_model_id": "qwen/hosted", "display_name": None, "context_window": 32_768,
     "source": "genai-prices"},
])
HISTORY = pd.DataFrame(columns=["provider_id", "model_id", "name", "context_window"])
LITELLM = pd.DataFrame([
    {"provider": "openrouter", "source_model_id": "cohere/vision", "context_window": 128_000,
     "max_output_tokens": 4_000, "input_modalities": ["text"], "output_modalities": ["text"]},
])


def md(provider, model_id, name=None, window=None, output=None, inputs=("text",)):
    return {"provider": provider, "model_id": model_id, "name": name or "", "context_window": window,
            "max_output_tokens": output, "input_modalities": list(inputs), "output_modalities": ["text"],
            "status": ""}


CATALOGUE = pd.DataFrame([
    md("cohere", "vision", "Command Vision", 128_000, 8_000, ("text", "image", "pdf")),
    md("deepinfra", "qwen/hosted", None, 131_072),
    # Providers the project does not follow, naming the maker's id behind a vendor prefix.
    md("nano-gpt", "rare", "Rare Large", 256_000), md("kilo", "ai21/rare", "AI21: Rare", 256_000),
    md("edenai", "ai21/rare", None, 250_000),
])
CATALOGUE["context_window"] = CATALOGUE["context_window"].astype("Int64")
CATALOGUE["max_output_tokens"] = CATALOGUE["max_output_tokens"].astype("Int64")
MODELS_DEV = models_dev_metadata(CATALOGUE)


def statements():
    return metadata_statements(OBSERVATIONS, LISTINGS, HISTORY, LITELLM, MODELS_DEV)


def test_models_dev_provider_ids_and_modalities():
    assert [provider_id(p) for p in ("amazon-bedrock", "google-vertex", "togetherai", "xai")] == [
        "aws", "google", "together", "xai"]
    assert MODELS_DEV.iloc[0]["input_modalities"] == ["text", "image"]  # a PDF is a file, not a modality


def test_the_makers_statement_first_then_the_largest_host_then_what_most_others_state():
    rows = names_and_limits(MODELS, statements()).set_index("ticker")
    # The maker's own: genai-prices before models.dev (source order), whatever a host says.
    assert rows.loc["VISION", ["context_window", "context_window_source"]].tolist() == [
        256_000, "genai-prices at cohere"]
    # No maker statement: the largest a followed host states, with the source that states it.
    assert rows.loc["HOSTED", ["context_window", "context_window_source"]].tolist() == [
        131_072, "models.dev at deepinfra"]
    # Only providers the project does not follow: the value most of them state.
    assert rows.loc["RARE", ["context_window", "context_window_source"]].tolist() == [256_000, "models.dev at nano-gpt"]
    assert rows.loc["RARE", ["display_name", "display_name_source"]].tolist() == ["Rare Large", "models.dev"]
    # The maker's models.dev entry states the maximum output; no source states NONE's limits.
    assert rows.loc["VISION", ["max_output_tokens", "max_output_tokens_source"]].tolist() == [
        8_000, "models.dev at cohere"]
    assert pd.isna(rows.loc["NONE", "context_window"])
    assert rows.loc["NONE", ["context_window_source", "max_output_tokens_source"]].tolist() == [UNKNOWN, UNKNOWN]


def test_a_tie_among_other_providers_takes_the_smaller_value():
    catalogue = pd.DataFrame([md("nano-gpt", "rare", None, 256_000), md("edenai", "ai21/rare", None, 250_000)])
    catalogue["context_window"] = catalogue["context_window"].astype("Int64")
    said = metadata_statements(OBSERVATIONS, LISTINGS.iloc[:0], HISTORY, LITELLM.iloc[:0],
                               models_dev_metadata(catalogue))
    assert names_and_limits(MODELS, said).set_index("ticker").loc["RARE", "context_window"] == 250_000


def test_disputes_record_what_each_source_said_and_what_the_rule_chose():
    disputes = metadata_disputes(statements())
    vision = disputes[(disputes["ticker"] == "VISION") & (disputes["field"] == "context_window")]
    assert sorted(zip(vision["source"], vision["provider"], vision["value"], strict=True)) == [
        ("genai-prices", "cohere", 256_000), ("litellm", "openrouter", 128_000), ("models.dev", "cohere", 128_000)]
    assert set(vision["chosen_value"]) == {256_000} and set(vision["rule"]) == {"maker_first"}
    # Other providers' statements count where they decided: RARE's 256k against edenai's 250k.
    rare = disputes[disputes["ticker"] == "RARE"]
    assert set(rare["rule"]) == {"most_stated_elsewhere"} and set(rare["value"]) == {256_000, 250_000}
    assert "NONE" not in set(disputes["ticker"])


def test_input_modalities_are_the_union_of_every_source_each_named():
    keys = id_keys(OBSERVATIONS)
    rules = Rules.from_frame(pd.DataFrame({"kind": ["input"], "pattern": ["^ai21/"], "value": ["audio"]}))
    rows = modalities(MODELS, LITELLM, keys, rules, MODELS_DEV).set_index("ticker")
    # The maker's models.dev entry says image; LiteLLM's host entry does not count beside it.
    assert rows.loc["VISION", ["input_modalities", "input_modalities_source"]].tolist() == [
        ["image", "text"], "models.dev: image, text"]
    # The maker's entries of both sources: their union, each source named.
    maker_entry = pd.DataFrame([{"provider": "cohere", "source_model_id": "vision", "input_modalities": ["text", "audio"],
                                 "output_modalities": ["text"]}])
    both = modalities(MODELS, maker_entry, keys, rules, MODELS_DEV).set_index("ticker").loc["VISION"]
    assert both[["input_modalities", "input_modalities_source"]].tolist() == [
        ["audio", "image", "text"], "litellm: audio, text; models.dev: image, text"]
    assert rows.loc["RARE", ["input_modalities", "input_modalities_source"]].tolist() == [
        ["audio"], "model_rules: audio"]
    assert rows.loc["NONE", ["input_modalities", "input_modalities_source"]].tolist() == [
        ["text"], "default: text (no source states any)"]


def test_a_build_before_the_packages_upload_day_reads_none_of_it():
    assert len(known_statements(MODELS_DEV, date(2026, 8, 18), date(2026, 8, 18))) == len(MODELS_DEV)
    assert known_statements(MODELS_DEV, date(2026, 8, 18), date(2026, 8, 17)).empty
