"""The code location: every asset, its checks, the refresh job and its daily schedule."""

from collections.abc import Iterable, Sequence
from datetime import UTC, timedelta

from dagster import (
    AssetsDefinition,
    AssetSelection,
    AssetSpec,
    DagsterInvalidDefinitionError,
    DefaultScheduleStatus,
    Definitions,
    FreshnessPolicy,
    RunRequest,
    ScheduleEvaluationContext,
    apply_freshness_policy,
    define_asset_job,
    in_process_executor,
    load_assets_from_modules,
    schedule,
)

import assets.analytics
import assets.registry
import assets.sources
from assets.alerts import AlertSettings, report_failed_runs
from assets.checks import CHECKS
from assets.io_manager import column_schema, parquet_io_manager
from assets.live import FETCH_ASSETS
from assets.live_settings import LiveSources
from assets.publish import TABLES, record_failure, snapshot
from assets.resources import PriceSources, RefreshSettings, WarehouseResource, configured_warehouse
from assets.run_console import one_line_console
from assets.upstream import bundled_inputs
from warehouse.schemas import SCHEMAS

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
# Every asset is due daily: warn after 24 hours without a new materialisation, fail after 26, the
# age past which the API says its data is stale (`serve.settings.Settings.stale_after_hours`).
FRESHNESS = FreshnessPolicy.time_window(fail_window=timedelta(hours=26), warn_window=timedelta(hours=24))
OWNERS = ["team:inference-pricing-oracle"]


def for_operators(spec: AssetSpec) -> AssetSpec:
    """An asset as an operator reads it: due daily, owned, of a kind, and a table's columns."""
    name = spec.key.path[-1]
    columns = {"dagster/column_schema": column_schema(SCHEMAS[name])} if name in SCHEMAS else {}
    kinds = set() if spec.kinds else {"parquet"}  # the fetches say `http`; every other asset writes Parquet
    return apply_freshness_policy(spec, FRESHNESS).merge_attributes(owners=OWNERS, metadata=columns, kinds=kinds)


ASSETS = [definition.map_asset_specs(for_operators)
          for definition in [bundled_inputs, *TABLE_ASSETS, *FETCH_ASSETS.values(), snapshot]]

# A run's console shows its INFO events and up: its DEBUG events (about 350 a refresh) stay in the
# UI's event log.
CONSOLE_AT_INFO = {"loggers": {"console": {"config": {"log_level": "INFO"}}}}
# The refresh observes the bundled inputs (`assets.upstream`) before the source assets read them.
refresh_job = define_asset_job("refresh", selection=AssetSelection.all(include_sources=True), hooks={record_failure},
                               config=CONSOLE_AT_INFO,
                               description="Ingest every source, rebuild every table, check, and publish.")

@schedule(job=refresh_job, cron_schedule="0 6 * * *", execution_timezone="UTC",
          default_status=DefaultScheduleStatus.RUNNING)
def daily_refresh(context: ScheduleEvaluationContext) -> RunRequest:
    """The day's refresh, dated by the day it stands for (its scheduled time, in UTC), so a run
    that starts late, or a retry, is still that day's snapshot; one run per day."""
    day = context.scheduled_execution_time.astimezone(UTC).date().isoformat()
    return RunRequest(run_key=day, run_config={**CONSOLE_AT_INFO,
                                               "resources": {"settings": {"config": {"as_of": day}}}})


def build_resources(warehouse: WarehouseResource | None = None, settings: RefreshSettings | None = None,
                    sources: PriceSources | None = None, live: LiveSources | None = None,
                    alerts: AlertSettings | None = None) -> dict:
    return {
        "warehouse": warehouse or configured_warehouse(),
        "settings": settings or RefreshSettings(),
        "sources": sources or PriceSources(),
        "live": live or LiveSources(),
        "alerts": alerts or AlertSettings(),
        "io_manager": parquet_io_manager,
    }


# Every run executes its steps one after another in its run worker's process, whoever launched it
# (the schedule, the UI, `oracle refresh`): the steps share one machine's cores and most wait on
# the one before, so the multiprocess executor's process per step only added start-up (measured
# in docs/deployment.md). The one long step whose parts are
# independent, the backtest, shares them with worker processes itself (`assets.worker_processes`).
defs = Definitions(
    executor=in_process_executor,
    assets=ASSETS,
    asset_checks=CHECKS,
    jobs=[refresh_job],
    schedules=[daily_refresh],
    sensors=[report_failed_runs],
    resources=build_resources(),
    loggers={"console": one_line_console},  # every job's console, the UI's asset jobs included
)
