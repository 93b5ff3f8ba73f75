"""Run the refresh job in process (the `oracle refresh` command), reporting each step as it ends.

The terminal gets one line per step: `done`, or `FAILED` with the step's own cause
(`assets.causes`), and the warnings the step logged (a live source that fell back). Dagster's
console logger is silenced (`QUIET`), so an expected failure (an unwritable warehouse, a failed
check, a malformed seed row) prints its cause once, not its stack traces: those stay in the run's
event log in the Dagster instance ($DAGSTER_HOME), where the UI shows them.
"""

import logging
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from dagster import (
    DagsterEventType,
    DagsterInstance,
    Definitions,
    HookContext,
    define_asset_job,
    failure_hook,
    success_hook,
)

from assets.causes import cause_of_step, causes_of_run, first_line, joined, refused
from assets.definitions import ASSETS, CHECKS, build_resources
from assets.live_settings import LiveSources
from assets.publish import record_failure
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from warehouse.runs import RefreshAtWork, refuse_if_another_at_work

# Only a critical message reaches the terminal through Dagster's console logger; the rest,
# traces included, is in the run's event log and is summarised by the lines written here.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


def _step_warnings(context: HookContext) -> list[str]:
    """The first line of each warning the step logged (kept in the run's event log)."""
    return [first_line(entry.user_message) for entry in context.instance.all_logs(context.run_id)
            if entry.step_key == context.step_key and entry.level == logging.WARNING and not entry.is_dagster_event]


def _printer(write: Callable[[str], None], failed: list[str]):
    @success_hook(name="report_success")
    def report_success(context: HookContext):
        write(f"  done    {context.op.name}")
        for warning in _step_warnings(context):
            write(f"          warning: {warning}")

    @failure_hook(name="report_failure")
    def report_failure(context: HookContext):
        error = context.op_exception
        if refused(error):
            cause = f"{context.op.name} published nothing: {first_line(error.description or '')}"
        else:
            cause = cause_of_step(context.op.name, error, context.instance, context.run_id)
        failed.append(cause)
        write(f"  FAILED  {cause}")

    return {report_success, report_failure}


def _run_cause(result, instance: DagsterInstance) -> str:
    """Why a run failed where no step did (a resource that could not start: an unwritable warehouse)."""
    failure = next((e for e in result.all_events if e.event_type == DagsterEventType.RUN_FAILURE), None)
    error = getattr(failure.event_specific_data, "error", None) if failure is not None else None
    causes, _ = causes_of_run(instance, result.run_id, error)
    return joined(causes) or (failure.message if failure is not None else "")


def refresh(warehouse_root: str | None = None, as_of: str = "", write: Callable[[str], None] = print,
            sources: PriceSources | None = None, replay: bool = False, live: LiveSources | None = None,
            floors: dict[str, int] | None = None) -> bool:
    """Materialise every asset and publish a snapshot. True when the snapshot was published.
    `sources` replaces the real readers (the pipeline benchmark's synthetic universes, the tests'
    small universe), and `floors` the registry's coverage floors for them (`RefreshSettings`); `replay`
    rebuilds the `as_of` day from the live sources' kept copies, fetching nothing; `live` sets the
    live sources and fetch limits (else the `ORACLE_LIVE_SOURCES` and `ORACLE_SOURCE_URL_*` settings)."""
    warehouse = WarehouseResource(root=warehouse_root or "")
    failed: list[str] = []
    job = define_asset_job("refresh", hooks=_printer(write, failed) | {record_failure})
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
    result = defs.resolve_job_def("refresh").execute_in_process(
        run_config=QUIET, instance=instance, raise_on_error=False
    )
    published = result.success and any(
        e.asset_key and e.asset_key.path[-1] == "snapshot" for e in result.get_asset_materialization_events()
    )
    if published:
        manifest = warehouse.store().current()
        write(f"Published snapshot {manifest.snapshot_id}:")
        for name, table in manifest.tables.items():
            write(f"  {name:<20} {table.rows:>9,} rows")
        return True
    if not result.success and not failed:
        write(f"  FAILED  {first_line(_run_cause(result, instance))}")
    kept = (f"its log, with the full traces, is run {result.run_id} in the Dagster instance at "
            f"{os.environ['DAGSTER_HOME']}" if os.environ.get("DAGSTER_HOME")
            else "set DAGSTER_HOME to keep the run's log, with the full traces")
    write(f"Refresh failed: nothing was published; the previous snapshot stays current ({kept}).")
    return False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(0 if refresh() else 1)
