"""The makers' pages, LiteLLM's older releases and models.dev's older copy among the metadata
sources: their place in the order, their provenance and the point in time, on hand-made frames."""

from datetime import date

import pandas as pd
import pytest

from pipelines.ingest_litellm import release_limits
from pipelines.ingest_models_dev import models_dev_metadata
from pipelines.model_facts import maker_statements
from pipelines.model_metadata import (
    LITELLM_RELEASES,
    MAKER_PAGE,
    TOKENLENS,
    UNKNOWN,
    metadata_disputes,
    metadata_statements,
    names_and_limits,
)

OBSERVATIONS = pd.DataFrame([
    {"ticker": t, "provider": p, "provider_model_id": i, "is_origin": o} for t, p, i, o in (
        ("OLD", "cohere", "command", True), ("BASE", "openai", "davinci-002", True),
        ("GONE", "inception", "mercury", True), ("PAGE", "perplexity", "r1-1776", True))])
MODELS = pd.DataFrame({"ticker": ["BASE", "GONE", "OLD", "PAGE"],
                       "provider": ["openai", "inception", "cohere", "perplexity"],
                       "model_id": ["davinci-002", "mercury", "command", "r1-1776"]})
LISTINGS = pd.DataFrame([{"provider": "openai", "source_model_id": "davinci-002", "display_name": None,
                          "context_window": 16_384, "source": "genai-prices"}])
HISTORY = pd.DataFrame(columns=["provider_id", "model_id", "name", "context_window"])
LITELLM = pd.DataFrame(columns=["provider", "source_model_id", "context_window", "max_output_tokens"])

def stated(provider, key, version, day, window=None, tokens=None, output=None, change="stated"):
    return {"litellm_provider": provider, "key": key, "max_input_tokens": window, "max_tokens": tokens,
            "max_output_tokens": output, "version": version, "released": day, "change": change}


STATED = pd.DataFrame([
    # LiteLLM's `command`: 2048 in 0.11.1, 4096 from 1.53.1, dropped by 1.60.0.
    stated("cohere", "command", "1.53.1", date(2024, 11, 28), 4096, 4096, 4096),
    stated("cohere", "command", "0.11.1", date(2023, 10, 20), None, 2048),
    stated("cohere", "command", "1.60.0", date(2025, 2, 1), change="dropped"),
    stated("text-completion-openai", "davinci-002", "0.11.1", date(2023, 10, 20), None, 4097),
    stated("text-completion-openai", "davinci-002", "1.53.1", date(2024, 11, 28), change="dropped"),
    # Still listed: its current entry speaks for it, not its history.
    stated("inception", "mercury", "1.80.0", date(2025, 11, 1), 32_000),
])
for column in ("max_input_tokens", "max_tokens", "max_output_tokens"):
    STATED[column] = STATED[column].astype("Int64")

FACTS = pd.DataFrame([
    {"provider": "openai", "model_id": "davinci-002", "field": "display_name", "value": "davinci-002",
     "source_url": "https://example.org/davinci-002", "published_on": "", "checked_on": "2026-12-04", "note": ""},
    {"provider": "perplexity", "model_id": "r1-1776", "field": "context_window", "value": "128000",
     "source_url": "https://example.org/r1-1776", "published_on": "2025-02-18", "checked_on": "", "note": ""},
    {"provider": "openai", "model_id": "davinci-002", "field": "context_window", "value": "8192",
     "source_url": "https://example.org/davinci-002", "published_on": "", "checked_on": "2026-12-04", "note": ""},
])


def catalogue(*rows):
    frame = pd.DataFrame([{"provider": p, "model_id": i, "name": n, "context_window": w, "max_output_tokens": None,
                           "input_modalities": ["text"], "output_modalities": ["text"], "status": ""}
                          for p, i, n, w in rows])
    for column in ("context_window", "max_output_tokens"):
        frame[column] = frame[column].astype("Int64")
    return models_dev_metadata(frame)


def statements(as_of=date(2026, 12, 4), models_dev=None):
    more = {MAKER_PAGE: maker_statements(FACTS, as_of), LITELLM_RELEASES: release_limits(STATED, as_of),
            TOKENLENS: catalogue(("inception", "mercury", "Mercury", 128_000))}
    return metadata_statements(OBSERVATIONS, LISTINGS, HISTORY, LITELLM, models_dev, more)


def test_a_release_states_the_limits_of_a_model_litellm_later_dropped():
    rows = names_and_limits(MODELS, statements()).set_index("ticker")
    assert rows.loc["OLD", ["context_window", "context_window_source"]].tolist() == [
        4096, "litellm releases 1.53.1 (2024-11-28) at cohere"]
    # Before LiteLLM dropped it, its map (not its history) speaks for it.
    listed = names_and_limits(MODELS, statements(date(2025, 1, 31))).set_index("ticker")
    assert listed.loc["OLD", "context_window_source"] == UNKNOWN
    assert release_limits(STATED, date(2026, 12, 4))["source_model_id"].tolist() == ["command", "davinci-002"]


def test_the_makers_page_comes_first_and_its_name_counts_even_when_it_is_the_id():
    rows = names_and_limits(MODELS, statements()).set_index("ticker")
    assert rows.loc["BASE", ["display_name", "display_name_source"]].tolist() == [
        "davinci-002", "maker's page https://example.org/davinci-002 (2026-12-04)"]
    # Before genai-prices and the release, the maker's own word.
    assert rows.loc["BASE", ["context_window", "context_window_source"]].tolist() == [
        8192, "maker's page https://example.org/davinci-002 (2026-12-04) at openai"]
    assert rows.loc["PAGE", "context_window"] == 128_000
    disputes = metadata_disputes(statements())
    base = disputes[disputes["ticker"] == "BASE"]
    assert set(base["value"]) == {8192, 16_384, 4097} and set(base["chosen_value"]) == {8192}


def test_a_makers_row_is_known_from_its_day():
    assert maker_statements(FACTS, date(2025, 2, 17)).empty
    assert maker_statements(FACTS, date(2025, 2, 18))["source_model_id"].tolist() == ["r1-1776"]


def test_tokenlens_fills_what_models_dev_leaves_unstated_and_comes_after_it():
    rows = names_and_limits(MODELS, statements()).set_index("ticker")
    assert rows.loc["GONE", ["display_name", "context_window_source"]].tolist() == [
        "Mercury", "tokenlens at inception"]
    newer = catalogue(("inception", "mercury", "Mercury Now", 32_000))
    rows = names_and_limits(MODELS, statements(models_dev=newer)).set_index("ticker")
    assert rows.loc["GONE", ["display_name", "context_window"]].tolist() == ["Mercury Now", 32_000]


def test_a_fact_that_is_not_a_statement_is_refused():
    bad = FACTS.assign(source_url="http://example.org/x")
    with pytest.raises(ValueError, match="https source_url"):
        maker_statements(bad, date(2026, 12, 4))
    with pytest.raises(ValueError, match="whole number"):
        maker_statements(FACTS.assign(field="context_window", value="128k"), date(2026, 12, 4))


def test_a_build_before_every_statement_reads_none_and_still_builds():
    day = date(2020, 1, 1)
    more = {MAKER_PAGE: maker_statements(FACTS, day), LITELLM_RELEASES: release_limits(STATED, day),
            TOKENLENS: catalogue(("inception", "mercury", "Mercury", 128_000)).iloc[0:0]}
    said = metadata_statements(OBSERVATIONS, LISTINGS, HISTORY, LITELLM, None, more)
    assert set(said["source"]) == {"genai-prices"}
    assert names_and_limits(MODELS, said).set_index("ticker").loc["OLD", "context_window_source"] == UNKNOWN
