"""Dated releases → archived listings: genai-prices spans and the change rows of model-prices and
LiteLLM, with each source's provider names and LiteLLM's preference between keys."""

from datetime import date

import pandas as pd

from pipelines.ingest_litellm import DATA_URL
from pipelines.ingest_releases import genai_span_listings, release_change_listings
from pipelines.listings import ARCHIVED, BATCH, SYNC

NAN = float("nan")
COLUMNS = ["source", "provider", "model_id", "mode", "version", "released", "change",
           "input", "output", "cache_read", "cache_write"]
LITELLM_RELEASES = ["1.0", "1.1", "1.2", "1.3", "1.4"]
META = {"sources": {
    "litellm": {"repository": "https://github.com/BerriAI/litellm",
                "releases": [{"version": v} for v in LITELLM_RELEASES]},
    "model-prices": {"repository": "https://github.com/wakamex/model-prices",
                     "releases": [{"version": "0.0.1"}, {"version": "0.0.2"}]},
}}
DAYS = {"1.0": date(2025, 1, 1), "1.1": date(2025, 1, 8), "1.2": date(2025, 1, 15), "1.3": date(2025, 1, 22),
        "1.4": date(2025, 1, 29), "0.0.1": date(2026, 10, 1), "0.0.2": date(2026, 10, 3)}


def _changes(*rows):
    frame = pd.DataFrame([(*r[:5], DAYS[r[4]], *r[5:]) for r in rows], columns=COLUMNS)
    return frame.astype({c: "float64" for c in COLUMNS[7:]})


def _summary(listings):
    return [(r.source, r.provider, r.source_model_id, r.mode, r.source_version, r.input, r.output) for r in listings]


def test_the_preferred_litellm_key_listed_at_each_release_carries_the_price():
    # deepseek-chat (preferred: the shorter key) leaves the map, deepseek/deepseek-chat carries the
    # price, is repriced, and deepseek-chat comes back at another price.
    changes = _changes(
        ("litellm", "deepseek", "deepseek-chat", "sync", "1.0", "listed", 0.14, 0.28, NAN, NAN),
        ("litellm", "deepseek", "deepseek-chat", "sync", "1.1", "delisted", NAN, NAN, NAN, NAN),
        ("litellm", "deepseek", "deepseek-chat", "sync", "1.3", "listed", 0.6, 1.7, 0.06, NAN),
        ("litellm", "deepseek", "deepseek/deepseek-chat", "sync", "1.1", "listed", 0.14, 0.28, NAN, NAN),
        ("litellm", "deepseek", "deepseek/deepseek-chat", "sync", "1.2", "price", 0.27, 1.1, 0.07, NAN),
    )
    listings = release_change_listings(changes, META)
    assert _summary(listings) == [
        ("litellm", "deepseek", "deepseek-chat", SYNC, "1.0", 0.14, 0.28),  # 1.1: the other key, same price
        ("litellm", "deepseek", "deepseek-chat", SYNC, "1.2", 0.27, 1.1),
        ("litellm", "deepseek", "deepseek-chat", SYNC, "1.3", 0.6, 1.7),
    ]
    last = listings[-1]
    assert (last.effective_date, last.source_released, last.provenance) == (date(2025, 1, 22),) * 2 + (ARCHIVED,)
    assert (last.cache_read, last.cache_write) == (0.06, None)
    assert last.source_url == DATA_URL.format(version="1.3")


def test_litellm_routes_land_on_ingest_litellms_provider_and_model_ids():
    changes = _changes(
        ("litellm", "vertex_ai-language-models", "gemini-1.5-flash", "sync", "1.0", "listed", 0.075, 0.3, NAN, NAN),
        ("litellm", "gemini", "gemini/gemini-1.5-flash", "sync", "1.0", "listed", 0.35, 1.05, NAN, NAN),
        ("litellm", "openai", "gpt-4o", "batch", "1.0", "listed", 1.25, 5.0, NAN, NAN),
        ("litellm", "openrouter", "openrouter/openai/gpt-4o", "sync", "1.0", "listed", 2.5, 10.0, NAN, NAN),
    )
    assert _summary(release_change_listings(changes, META)) == [
        ("litellm", "google", "gemini-1.5-flash", SYNC, "1.0", 0.075, 0.3),  # Vertex's key is the shorter
        ("litellm", "openai", "gpt-4o", BATCH, "1.0", 1.25, 5.0),
        ("litellm", "openrouter", "openai/gpt-4o", SYNC, "1.0", 2.5, 10.0),
    ]


def test_a_series_delisted_and_listed_again_at_its_price_states_nothing_new():
    changes = _changes(
        ("litellm", "openai", "o3", "sync", "1.0", "listed", 10.0, 40.0, 2.5, NAN),
        ("litellm", "openai", "o3", "sync", "1.1", "delisted", NAN, NAN, NAN, NAN),
        ("litellm", "openai", "o3", "sync", "1.2", "listed", 10.0, 40.0, 2.5, NAN),
        ("litellm", "openai", "o3", "sync", "1.4", "price", 2.0, 8.0, 0.5, NAN),
    )
    listings = release_change_listings(changes, META)
    assert [(r.effective_date, r.input) for r in listings] == [(date(2025, 1, 1), 10.0), (date(2025, 1, 29), 2.0)]


def test_model_prices_rows_keep_their_provider_through_canonical_provider():
    changes = _changes(
        ("model-prices", "x-ai", "grok-4", "sync", "0.0.1", "listed", 3.0, 15.0, 0.75, NAN),
        ("model-prices", "x-ai", "grok-4", "sync", "0.0.2", "price", 2.0, 10.0, 0.5, NAN),
        ("model-prices", "openai", "o3", "batch", "0.0.2", "listed", 1.0, 4.0, 0.25, NAN),
    )
    listings = release_change_listings(changes, META)
    assert _summary(listings) == [
        ("model-prices", "openai", "o3", BATCH, "0.0.2", 1.0, 4.0),
        ("model-prices", "xai", "grok-4", SYNC, "0.0.1", 3.0, 15.0),
        ("model-prices", "xai", "grok-4", SYNC, "0.0.2", 2.0, 10.0),
    ]
    assert {r.source_url for r in listings} == {"https://github.com/wakamex/model-prices"}


def test_genai_spans_become_listings_dated_their_first_release():
    spans = pd.DataFrame({
        "provider_id": ["x-ai", "openai", "openai"], "model_id": ["grok-3", "o3", "dall-e-3"],
        "first_version": ["0.0.20", "0", "0"], "last_version": ["0.2.3"] * 3,
        "first_released": [date(2025, 8, 9), date(2025, 7, 11), date(2025, 7, 11)],
        "last_released": [date(2026, 11, 10)] * 3,
        "input": [3.0, 2.0, NAN], "output": [15.0, 8.0, NAN], "cache_read": [0.75, 0.5, NAN],
        "cache_write": [NAN, NAN, NAN], "deprecated": pd.array([True, None, None], dtype="boolean"),
        "name": ["Grok 3", "", "DALL-E 3"], "context_window": pd.array([131072, None, None], dtype="Int64"),
        "aliases": ["", "", ""],
    })
    listings = genai_span_listings(spans, "https://github.com/pydantic/genai-prices")
    assert [(r.provider, r.source_model_id, r.effective_date, r.source_version) for r in listings] == [
        ("xai", "grok-3", date(2025, 8, 9), "0.0.20"), ("openai", "o3", date(2025, 7, 11), "0")]  # no price: none
    grok, o3 = listings
    assert (grok.source, grok.provenance, grok.mode, grok.source_released) == (
        "genai-prices", ARCHIVED, SYNC, date(2025, 8, 9))
    assert (grok.cache_read, grok.cache_write, grok.deprecated, grok.context_window, grok.display_name) == (
        0.75, None, True, 131072, "Grok 3")
    assert (o3.deprecated, o3.context_window, o3.display_name) == (None, None, None)
