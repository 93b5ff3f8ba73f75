"""The registry on the whole bundled data: models that sources retire under another of their ids
are retired, say which source said so, and drop out of a default comparison; models LiteLLM
says take images say so."""

from datetime import date

import pytest

from assets.resources import PriceSources
from pipelines.ingest_litellm import litellm_metadata
from pipelines.model_metadata import id_keys, keyed
from pipelines.quotes import RETIRED, scope_masks

# A source marks each of these retired under an id other than the ticker's own (a dated
# snapshot, the API id beside an undated name, a `-latest` form), and no other id of it lives on.
RETIRED_UNDER_ANOTHER_ID = {
    # (OPUS-3 is no longer here: a pointer id is never a model id, so its model_id is
    # claude-3-opus-20240229 itself, not claude-3-opus-latest.)
    "HAIKU-3": "claude-3-haiku-20240307",
    "SONNET-3": "claude-3-sonnet-20240229", "SONNET-3.5": "claude-3-5-sonnet-2024",
    "MISTRAL-7B": "open-mistral-7b", "MIXTRAL-8X7B": "open-mixtral-8x7b", "MISTRAL-LARGE": "mistral-large-2411",
    "CODEX-MINI": "codex-mini-latest", "GROK-CODE-FAST-1": "grok-code-fast-1",
    "GPT-4O-SEARCH-PREVIEW": "gpt-4o-search-preview-2025-03-11",
}


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: the models named here are in no small universe."""
    return full_store


def test_models_retired_under_another_id_are_retired_with_a_date_and_a_source(store):
    models = store.read_table("models").set_index("ticker")
    for ticker, retired_id in RETIRED_UNDER_ANOTHER_ID.items():
        row = models.loc[ticker]
        assert row["model_id"] != retired_id, ticker
        assert row["status"] == "retired" and row["retired_by"] is not None, ticker
        assert retired_id in row["status_source"], (ticker, row["status_source"])
    # Every status other than active says where it comes from.
    assert models.loc[models["status"] != "active", "status_source"].notna().all()
    # A model one of whose snapshots is retired while it lives on under another stays as it was.
    assert (models.loc[["GROK-4.20", "OPUS-4.6"], "status"] == "active").all()


def test_a_default_comparison_leaves_them_out_as_retired(store):
    spots = store.read_table("spots")
    rows = spots[spots["ticker"].isin(RETIRED_UNDER_ANOTHER_ID)]
    assert len(rows) == len(RETIRED_UNDER_ANOTHER_ID)
    masks = scope_masks(rows["input_modalities"].tolist(), rows["output_modalities"].tolist(),
                        rows["status"].tolist(), include_retired=False)
    assert masks[RETIRED].all()


def test_at_most_two_percent_of_the_models_litellm_says_take_images_are_published_text_only(store):
    models = store.read_table("models").set_index("ticker")
    entries, meta = PriceSources().litellm_prices()
    stated = keyed(litellm_metadata(entries, date.fromisoformat(meta["released"])),
                   id_keys(store.read_table("price_observations")))
    seeing = set(stated.loc[stated["input_modalities"].map(lambda m: "image" in list(m)), "ticker"])
    text_only = [t for t in seeing if "image" not in list(models.loc[t, "input_modalities"])]
    assert len(seeing) > 200 and len(text_only) <= 0.02 * len(seeing), sorted(text_only)
