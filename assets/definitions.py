"""The code location: every asset, its checks, the refresh job and its daily schedule."""

from collections.abc import Iterable, Sequence

from dagster import (
    AssetsDefinition,
    AssetSelection,
    DagsterInvalidDefinitionError,
    DefaultScheduleStatus,
    Definitions,
    ScheduleDefinition,
    define_asset_job,
    load_assets_from_modules,
)

import assets.analytics
import assets.registry
import assets.sources
from assets.checks import CHECKS
from assets.io_manager import parquet_io_manager
from assets.live import FETCH_ASSETS
from assets.live_settings import LiveSources
from assets.publish import TABLES, record_failure, snapshot
from assets.resources import PriceSources, RefreshSettings, WarehouseResource

# The modules whose every asset is a warehouse table (written by the Parquet IO manager).
TABLE_MODULES = (assets.sources, assets.registry, assets.analytics)


def check_tables(table_assets: Sequence[AssetsDefinition], tables: Iterable[str]) -> None:
    """Refuse a table asset without a schema, or a declared table without an asset, naming each."""
    built = {key.path[-1] for asset in table_assets for key in asset.keys}
    declared = set(tables)
    problems = []
    if built - declared:
        problems.append(f"assets with no schema in warehouse/schemas.py SCHEMAS: {sorted(built - declared)}")
    if declared - built:
        modules = ", ".join(module.__name__ for module in TABLE_MODULES)
        problems.append(f"tables in warehouse/schemas.py SCHEMAS with no asset in {modules}: "
                        f"{sorted(declared - built)}")
    if problems:
        raise DagsterInvalidDefinitionError("; ".join(problems))


TABLE_ASSETS = load_assets_from_modules(TABLE_MODULES)
check_tables(TABLE_ASSETS, TABLES)
ASSETS = [*TABLE_ASSETS, *FETCH_ASSETS.values(), snapshot]

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
                    sources: PriceSources | None = None, live: LiveSources | None = None) -> dict:
    warehouse = warehouse or WarehouseResource()
    return {
        "warehouse": warehouse,
        "settings": settings or RefreshSettings(),
        "sources": sources or PriceSources(),
        "live": live or LiveSources(),
        "io_manager": parquet_io_manager,
    }


defs = Definitions(
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[refresh_job],
    schedules=[daily_refresh],
    resources=build_resources(),
)
