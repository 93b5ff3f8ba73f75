"""The four source assets: each reads one real source offline and records its name and version."""

from datetime import date

from dagster import AssetExecutionContext, asset

from assets.resources import PriceSources, RefreshSettings
from pipelines.ingest_archive import archive_listings
from pipelines.ingest_genai import genai_listings
from pipelines.ingest_litellm import litellm_listings
from pipelines.ingest_model_prices import model_prices_listings
from pipelines.listings import listings_frame
from pipelines.peak import peak_days
from pipelines.release_dating import release_dating, releases_of

GROUP = "sources"


@asset(group_name=GROUP, kinds={"parquet"})
def genai_prices(context: AssetExecutionContext, sources: PriceSources, settings: RefreshSettings):
    """The genai-prices catalogue: every provider's current prices, dated changes and batch variants;
    current prices dated by the first release that listed them."""
    providers, version = sources.genai_prices()
    spans, meta = sources.genai_release_history()
    dating = release_dating(spans, releases_of(meta), version)
    context.add_output_metadata({"source": "genai-prices", "source_version": version,
                                 "source_released": str(dating.released or "not in the release history")})
    as_of = settings.as_of_date()
    return listings_frame(genai_listings(providers, as_of, dating, peak_days(sources.seed_table("peak_days"), as_of)))


@asset(group_name=GROUP, kinds={"parquet"})
def model_prices(context: AssetExecutionContext, sources: PriceSources):
    """The model-prices timeline: dated lab prices with a source URL and basis per entry."""
    snapshot, version = sources.model_prices()
    context.add_output_metadata({"source": "model-prices", "source_version": version,
                                 "data_updated_at": snapshot.get("updated_at", "")})
    return listings_frame(model_prices_listings(snapshot, version))


@asset(group_name=GROUP, kinds={"parquet"})
def price_archive(context: AssetExecutionContext, sources: PriceSources):
    """Monthly archived copies of OpenRouter's public catalogue since mid-2023 (shipped seed file)."""
    archive, meta = sources.price_archive()
    context.add_output_metadata({"source": meta["source"], "source_version": meta["source_version"],
                                 "file_sha256": meta["file_sha256"]})
    return listings_frame(archive_listings(archive, meta["source_version"]))


@asset(group_name=GROUP, kinds={"parquet"})
def litellm_prices(context: AssetExecutionContext, sources: PriceSources):
    """LiteLLM's price map (shipped seed file): list prices as of its release, a cross-check and a
    vote, never a price of its own."""
    entries, meta = sources.litellm_prices()
    context.add_output_metadata({"source": meta["source"], "source_version": meta["source_version"],
                                 "source_released": meta["released"], "file_sha256": meta["file_sha256"]})
    return listings_frame(litellm_listings(entries, meta["source_version"], date.fromisoformat(meta["released"])))
