"""Alerts: every failed run is recorded for the API and, when asked, posted to a webhook.

The refresh job's failure hook records a failed step as it happens; but a run of another job (the
implicit asset job that the UI's "Materialize" launches) has no hook, and a run that dies before
any step fails fires none. The run-failure sensor covers every job of the code location: it
records the failure in the run record of the warehouse that run used (the one its resources
named, `WAREHOUSE_TAG`, else its run config's, else the code location's own), so `/` says
`degraded` there and nowhere else, unless the hook has already recorded this run's failure, or a
later run has recorded its own outcome since; and it posts the failure as JSON to
`ORACLE_ALERT_WEBHOOK` when that is set (a chat or paging service's incoming webhook, say). Both
say why in the failing step's own words, with the run's link (`assets.causes`). A run that
refused to publish by design (`assets.whole_day`) is neither recorded nor posted: the data served
is untouched. A webhook that fails is logged, never retried into a loop.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from datetime import UTC, datetime

from dagster import (
    ConfigurableResource,
    DagsterRun,
    DefaultSensorStatus,
    RunFailureSensorContext,
    run_failure_sensor,
)

from assets.causes import causes_of_run, joined, run_link
from assets.publish import without_paths
from assets.resources import WAREHOUSE_TAG, WarehouseResource
from warehouse.runs import RunStatus, last_run, record_run

WEBHOOK_TIMEOUT_SECONDS = 10


class AlertSettings(ConfigurableResource):
    """`webhook`: where a failure is posted (empty means `ORACLE_ALERT_WEBHOOK`; unset, nowhere);
    `dagster_url`: the Dagster UI's address, which a failed run's link starts with (else its id)."""

    webhook: str = ""
    # The Dagster UI's address (http://host:3000), for a run's link; empty means `ORACLE_DAGSTER_URL`.
    dagster_url: str = ""

    def url(self) -> str:
        return self.webhook or os.environ.get("ORACLE_ALERT_WEBHOOK", "")

    def ui_url(self) -> str:
        return self.dagster_url or os.environ.get("ORACLE_DAGSTER_URL", "")

    def notify(self, payload: dict) -> str | None:
        """POST `payload` as JSON; None when it was delivered (or there is nowhere to send it),
        else why not."""
        url = self.url()
        if not url:
            return None
        request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=WEBHOOK_TIMEOUT_SECONDS) as response:  # noqa: S310
                return None if 200 <= response.status < 300 else f"the webhook answered {response.status}"
        except (urllib.error.URLError, OSError, ValueError) as error:
            return f"the webhook could not be reached: {error}"


def failure_to_record(run_id: str, detail: str, when: datetime, recorded: RunStatus | None) -> RunStatus | None:
    """The run record to write for a failed run, or None to keep the one there: the hook's own
    record of this run's failure says more, and a later run's outcome is newer news."""
    if recorded is not None and recorded.run_id == run_id and recorded.status == "failed":
        return None
    if recorded is not None and recorded.run_id != run_id and recorded.finished > when:
        return None
    return RunStatus("failed", when, detail, run_id)


def run_warehouse(run: DagsterRun, default: WarehouseResource) -> WarehouseResource:
    """The warehouse `run` used: the one its resources named (`WAREHOUSE_TAG`), else the one its run
    config chose, else the code location's own (`default`), which the run then used too."""
    named = run.tags.get(WAREHOUSE_TAG)
    if named:
        return WarehouseResource(root=named)
    config = ((run.run_config or {}).get("resources", {}).get("warehouse") or {}).get("config") or {}
    root = config.get("root", "")
    if isinstance(root, dict):  # {"env": NAME}: read where the run read it
        root = os.environ.get(root.get("env", ""), "")
    return WarehouseResource(root=root) if root else default


# The daemon logs two lines a tick whether or not a run failed; every two minutes is prompt enough
# for a daily refresh, and writes a quarter of the lines the default 30 seconds would.
SENSOR_INTERVAL_SECONDS = 120


@run_failure_sensor(name="report_failed_runs", default_status=DefaultSensorStatus.RUNNING,
                    minimum_interval_seconds=SENSOR_INTERVAL_SECONDS,
                    description="Records every failed run of this code location in its warehouse for the API, and "
                                "posts it to ORACLE_ALERT_WEBHOOK when set.")
def report_failed_runs(context: RunFailureSensorContext, warehouse: WarehouseResource, alerts: AlertSettings):
    run = context.dagster_run
    run_error = getattr(context.failure_event.event_specific_data, "error", None)
    causes, by_design = causes_of_run(context.instance, run.run_id, run_error)
    if by_design:
        context.log.info(f"run {run.run_id} published nothing, by design: {joined(causes)}")
        return
    link = run_link(run.run_id, alerts.ui_url())
    cause = joined(causes) or context.failure_event.message or ""
    detail = f"{without_paths(f'run of {run.job_name} failed: {cause}')[:500]} (run {link})"
    when = datetime.now(UTC)
    store = run_warehouse(run, warehouse).store()
    try:
        status = failure_to_record(run.run_id, detail, when, last_run(store.storage))
        if status is not None:
            record_run(store.storage, status)
    except OSError as error:  # the warehouse the run could not write: the webhook still says so
        context.log.warning(f"failure of run {run.run_id} not recorded in {store.url}: {error}")
    problem = alerts.notify({"event": "run_failed", "job": run.job_name, "run_id": run.run_id, "link": link,
                             "detail": detail, "at": when.isoformat(timespec="seconds")})
    if problem:
        context.log.warning(f"failure of run {run.run_id} not posted: {problem}")
