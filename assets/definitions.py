"""The code location: every asset, its checks, the refresh job and its daily schedule."""

from dagster import AssetSelection, DefaultScheduleStatus, Definitions, ScheduleDefinition, define_asset_job

from assets.analytics import (
    accuracy,
    backtest,
    backtest_families,
    backtest_summary,
    events,
    forward_curves,
    greeks,
    ici,
    ici_history,
    spots,
)
from assets.checks import CHECKS
from assets.io_manager import ParquetIOManager
from assets.publish import record_failure, snapshot
from assets.registry import models, price_history, price_observations, providers
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from assets.sources import genai_prices, model_prices, price_archive

ASSETS = [genai_prices, model_prices, price_archive, price_observations, models, providers, price_history,
          spots, greeks, forward_curves, ici, ici_history, events, backtest, backtest_summary, backtest_families,
          accuracy, snapshot]

refresh_job = define_asset_job("refresh", selection=AssetSelection.all(), hooks={record_failure},
                               description="Ingest every source, rebuild every table, check, and publish.")

daily_refresh = ScheduleDefinition(
    name="daily_refresh",
    job=refresh_job,
    cron_schedule="0 6 * * *",
    execution_timezone="UTC",
    default_status=DefaultScheduleStatus.RUNNING,
)


def build_resources(warehouse: WarehouseResource | None = None, settings: RefreshSettings | None = None,
                    sources: PriceSources | None = None) -> dict:
    warehouse = warehouse or WarehouseResource()
    return {
        "warehouse": warehouse,
        "settings": settings or RefreshSettings(),
        "sources": sources or PriceSources(),
        "io_manager": ParquetIOManager(warehouse=warehouse),
    }


defs = Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[refresh_job],
    schedules=[daily_refresh],
    resources=build_resources(),
)
