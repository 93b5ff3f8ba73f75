"""Run the refresh job in process (the `oracle refresh` command), reporting each step as it ends."""

import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from dagster import (
    DagsterInstance,
    Definitions,
    HookContext,
    define_asset_job,
    failure_hook,
    success_hook,
)

from assets.definitions import ASSETS, CHECKS, build_resources
from assets.live_settings import LiveSources
from assets.publish import record_failure
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from warehouse.runs import RefreshAtWork, refuse_if_another_at_work


def _printer(write: Callable[[str], None]):
    @success_hook(name="report_success")
    def report_success(context: HookContext):
        write(f"  done    {context.op.name}")

    @failure_hook(name="report_failure")
    def report_failure(context: HookContext):
        write(f"  FAILED  {context.op.name}: {context.op_exception}")

    return {report_success, report_failure}


def refresh(warehouse_root: str | None = None, as_of: str = "", write: Callable[[str], None] = print,
            sources: PriceSources | None = None, replay: bool = False, live: LiveSources | None = None,
            floors: dict[str, int] | None = None) -> bool:
    """Materialise every asset and publish a snapshot. True when the snapshot was published.
    `sources` replaces the real readers (the pipeline benchmark's synthetic universes, the tests'
    small universe), and `floors` the registry's coverage floors for them (`RefreshSettings`); `replay`
    rebuilds the `as_of` day from the live sources' kept copies, fetching nothing; `live` sets the
    live sources and fetch limits (else the `ORACLE_LIVE_SOURCES` and `ORACLE_SOURCE_URL_*` settings)."""
    warehouse = WarehouseResource(root=warehouse_root or "")
    job = define_asset_job("refresh", hooks=_printer(write) | {record_failure})
    settings = RefreshSettings(as_of=as_of, replay=replay, **(floors or {}))
    defs = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[job],
                       resources=build_resources(warehouse, settings, sources, live))
    instance = DagsterInstance.get() if os.environ.get("DAGSTER_HOME") else DagsterInstance.ephemeral()
    try:  # said at once; the first staged table checks it again (`warehouse.runs.start_run`)
        refuse_if_another_at_work(warehouse.store(), "", datetime.now(UTC))
    except RefreshAtWork as busy:
        write(f"Nothing was done: {busy}.")
        return False
    write(f"Refreshing the warehouse at {warehouse.store().url}")
    quiet = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    result = defs.resolve_job_def("refresh").execute_in_process(
        run_config=quiet, instance=instance, raise_on_error=False
    )
    published = result.success and any(
        e.asset_key and e.asset_key.path[-1] == "snapshot" for e in result.get_asset_materialization_events()
    )
    if published:
        manifest = warehouse.store().current()
        write(f"Published snapshot {manifest.snapshot_id}:")
        for name, table in manifest.tables.items():
            write(f"  {name:<20} {table.rows:>9,} rows")
    else:
        write("Refresh failed: nothing was published; the previous snapshot stays current.")
    return published


if __name__ == "__main__":  # pragma: no cover
    sys.exit(0 if refresh() else 1)
