"""Reconciled observations, the model registry, the providers of each model, and daily history."""

from dagster import asset

from assets.resources import PriceSources, RefreshSettings
from pipelines.history import build_price_history
from pipelines.identity import Resolver
from pipelines.observations import build_observations
from pipelines.providers import build_providers
from pipelines.registry import Rules, build_models
from pipelines.sources import all_listings, maker_table, ticker_overrides

GROUP = "registry"


@asset(group_name=GROUP, kinds={"parquet"})
def price_observations(genai_prices, model_prices, price_archive, sources: PriceSources):
    """Every source's prices in one table, keyed by ticker, with disagreements marked."""
    resolver = Resolver(maker_table(sources.seed_table("makers")))
    overrides = ticker_overrides(sources.seed_table("model_overrides"))
    return build_observations(all_listings(genai_prices, model_prices, price_archive), resolver, overrides)


@asset(group_name=GROUP, kinds={"parquet"})
def models(price_observations, genai_prices, model_prices, sources: PriceSources):
    """The registry: one record per ticker (contract §1)."""
    rules = Rules.from_frame(sources.seed_table("model_rules"))
    return build_models(price_observations, all_listings(genai_prices, model_prices), rules)


@asset(group_name=GROUP, kinds={"parquet"})
def providers(price_observations, settings: RefreshSettings):
    """Each model's maker and hosts at their latest price."""
    return build_providers(price_observations, settings.as_of_date())


@asset(group_name=GROUP, kinds={"parquet"})
def price_history(price_observations, settings: RefreshSettings):
    """Daily price per ticker and mode, with a provenance marker on every point."""
    return build_price_history(price_observations, settings.as_of_date())
