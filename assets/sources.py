"""The source assets: each reads one real source, its bundled copy and, when it is read live, every
day's kept copy (`assets.live`), and records its name and version."""

from datetime import date

from dagster import AssetExecutionContext, asset

from assets.live import FETCH_ASSETS, active_sources, daily_copies, refuse_if_every_source_failed, source_states
from assets.live_read import parsers
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from pipelines.ingest_archive import archive_listings
from pipelines.ingest_genai import genai_listings
from pipelines.ingest_litellm import SOURCE as LITELLM_SOURCE
from pipelines.ingest_litellm import litellm_listings
from pipelines.ingest_model_prices import SOURCE as MODEL_PRICES_SOURCE
from pipelines.ingest_model_prices import model_prices_listings
from pipelines.ingest_releases import genai_span_listings, new_evidence, release_change_listings
from pipelines.listings import Listing, listings_frame
from pipelines.live import as_observations
from pipelines.peak import peak_days
from pipelines.release_dating import release_dating, releases_of
from pipelines.upstream_formats import GENAI_PRICES, LITELLM, MODEL_PRICES, OPENROUTER, OPENROUTER_ENDPOINTS, UPSTREAMS
from warehouse.raw_store import fetch_table

GROUP = "sources"


@asset(group_name=GROUP, kinds={"parquet"}, deps=list(FETCH_ASSETS.values()))
def source_fetches(context: AssetExecutionContext, settings: RefreshSettings, warehouse: WarehouseResource,
                   live: LiveSources):
    """Every live fetch up to the snapshot day: address, time, status, bytes, content hash, models
    counted and, for a failed one, why and which copy was used instead. When every live source
    failed on the day, it fails the run before any source is read: nothing would be published."""
    raw, day = warehouse.raw(), settings.as_of_date().isoformat()
    refuse_if_every_source_failed(source_states(active_sources(live, settings, raw), raw, day))
    records = [r for source in (*UPSTREAMS, OPENROUTER_ENDPOINTS) for r in raw.records(source)
               if r.as_of and r.as_of <= day]
    context.add_output_metadata({"fetches": len(records), "failed": sum(r.outcome != "ok" for r in records)})
    return fetch_table(records)


def _read_live(context: AssetExecutionContext, source: str, sources: PriceSources, settings: RefreshSettings,
               live: LiveSources, warehouse: WarehouseResource) -> tuple[list[Listing], dict]:
    """Every kept copy of a live source as observations, and what the UI shows of them; a copy that
    can no longer be read is skipped with a warning."""
    series, unreadable = daily_copies(source, live, settings, warehouse, parsers(sources)[source])
    for problem in unreadable:
        context.log.warning(f"{source}: a kept copy could not be read and is left out: {problem}")
    observed = [o for copies, current in series for o in as_observations(copies, current)]
    shown = {"live_days": len({copy.day for copies, _ in series for copy in copies}),
             "live_newest": max((copies[-1].fetched_at for copies, _ in series), default="not read live"),
             "live_unreadable_copies": len(unreadable)}
    return observed, shown


@asset(group_name=GROUP, kinds={"parquet"},
       deps=[FETCH_ASSETS[GENAI_PRICES], "source_fetches", "genai_prices_package", "release_history_files",
             "curated_tables"])
def genai_prices(context: AssetExecutionContext, sources: PriceSources, settings: RefreshSettings,
                 live: LiveSources, warehouse: WarehouseResource):
    """The genai-prices catalogue: every provider's current prices, dated changes and batch variants;
    current prices dated by the first release that listed them, and every earlier price a release
    listed, `archived` on that release's day. Read live, each day's copy adds that day's prices
    (the newest `current`, earlier ones `archived`)."""
    providers, version = sources.genai_prices()
    spans, meta = sources.genai_release_history()
    dating = release_dating(spans, releases_of(meta), version)
    as_of = settings.as_of_date()
    observed, shown = _read_live(context, GENAI_PRICES, sources, settings, live, warehouse)
    context.add_output_metadata({"source": "genai-prices", "source_version": version,
                                 "source_released": str(dating.released or "not in the release history"), **shown})
    own = genai_listings(providers, as_of, dating, peak_days(sources.seed_table("peak_days"), as_of))
    released = new_evidence(genai_span_listings(spans, meta["repository"]), own)
    return listings_frame(own + released + observed)


@asset(group_name=GROUP, kinds={"parquet"},
       deps=[FETCH_ASSETS[MODEL_PRICES], "source_fetches", "model_prices_package", "release_history_files"])
def model_prices(context: AssetExecutionContext, sources: PriceSources, settings: RefreshSettings,
                 live: LiveSources, warehouse: WarehouseResource):
    """The model-prices timeline: dated lab prices with a source URL and basis per entry; each price
    a release listed, `archived` on the release's day; read live, the newest published snapshot's
    timeline besides."""
    snapshot, version = sources.model_prices()
    changes, changes_meta = sources.release_changes()
    observed, shown = _read_live(context, MODEL_PRICES, sources, settings, live, warehouse)
    context.add_output_metadata({"source": "model-prices", "source_version": version,
                                 "data_updated_at": snapshot.get("updated_at", ""), **shown})
    own = model_prices_listings(snapshot, version)
    released = new_evidence(release_change_listings(changes[changes["source"] == MODEL_PRICES_SOURCE], changes_meta),
                            own)
    return listings_frame(own + released + observed)


@asset(group_name=GROUP, kinds={"parquet"}, deps=["price_archive_file"])
def price_archive(context: AssetExecutionContext, sources: PriceSources):
    """Monthly archived copies of OpenRouter's public catalogue since mid-2023 (shipped seed file)."""
    archive, meta = sources.price_archive()
    context.add_output_metadata({"source": meta["source"], "source_version": meta["source_version"],
                                 "file_sha256": meta["file_sha256"]})
    return listings_frame(archive_listings(archive, meta["source_version"]))


@asset(group_name=GROUP, kinds={"parquet"}, deps=[FETCH_ASSETS[OPENROUTER], "source_fetches"])
def openrouter_prices(context: AssetExecutionContext, sources: PriceSources, settings: RefreshSettings,
                      live: LiveSources, warehouse: WarehouseResource):
    """OpenRouter's public models API and its open-weight models' endpoint lists, read live: its
    list prices and its hosts' offers, one catalogue per day (empty unless the live source is
    enabled; its monthly archive is `price_archive`)."""
    listed, shown = _read_live(context, OPENROUTER, sources, settings, live, warehouse)
    hosted, _ = _read_live(context, OPENROUTER_ENDPOINTS, sources, settings, live, warehouse)
    context.add_output_metadata({"source": "openrouter", **shown, "host_offers": len(hosted)})
    return listings_frame(listed + hosted)


@asset(group_name=GROUP, kinds={"parquet"},
       deps=[FETCH_ASSETS[LITELLM], "source_fetches", "litellm_prices_file", "release_history_files"])
def litellm_prices(context: AssetExecutionContext, sources: PriceSources, settings: RefreshSettings,
                   live: LiveSources, warehouse: WarehouseResource):
    """LiteLLM's price map (shipped seed file; its releases' price changes since 2023, sampled at most
    a week apart; read live, each day's map besides): list prices as of a release or fetch day, a
    cross-check and a vote, never a price of its own."""
    entries, meta = sources.litellm_prices()
    changes, changes_meta = sources.release_changes()
    observed, shown = _read_live(context, LITELLM, sources, settings, live, warehouse)
    context.add_output_metadata({"source": meta["source"], "source_version": meta["source_version"],
                                 "source_released": meta["released"], "file_sha256": meta["file_sha256"], **shown})
    bundled = litellm_listings(entries, meta["source_version"], date.fromisoformat(meta["released"]))
    released = new_evidence(release_change_listings(changes[changes["source"] == LITELLM_SOURCE], changes_meta),
                            bundled)
    return listings_frame(bundled + released + observed)
