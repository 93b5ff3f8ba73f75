"""Every failed run, whichever job ran it, is recorded for the API and posted to the webhook."""

import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from dagster import DagsterInstance, Definitions, build_run_status_sensor_context
from litestar.testing import TestClient

from assets.alerts import AlertSettings, failure_to_record, report_failed_runs
from assets.definitions import ASSETS, CHECKS, build_resources, refresh_job
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from serve.app import create_app
from tests.conftest import AS_OF
from tests.serve.conftest import api_settings
from warehouse.runs import RunStatus, last_run

T = datetime(2026, 11, 26, 6, tzinfo=UTC)


def test_the_hooks_own_record_and_a_later_runs_outcome_are_kept():
    assert failure_to_record("r1", "why", T, None) == RunStatus("failed", T, "why", "r1")
    assert failure_to_record("r1", "why", T, RunStatus("ok", T - timedelta(hours=1), run_id="r0")).status == "failed"
    assert failure_to_record("r1", "why", T, RunStatus("running", T - timedelta(minutes=1), run_id="r1")) is not None
    assert failure_to_record("r1", "why", T, RunStatus("failed", T, "step x failed", "r1")) is None
    assert failure_to_record("r1", "why", T, RunStatus("ok", T + timedelta(minutes=5), run_id="r2")) is None


class MissingArchive(PriceSources):
    def price_archive(self):
        raise FileNotFoundError("warehouse/seed/price_archive.csv.gz")


class Receiver(BaseHTTPRequestHandler):
    received: list = []

    def do_POST(self):  # noqa: N802 (the standard library's name)
        self.received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def webhook():
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    Receiver.received = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hook", Receiver.received
    server.shutdown()


@pytest.mark.slow  # runs the asset job until a source fails
def test_a_failed_run_of_the_asset_job_is_recorded_posted_and_served_as_degraded(warehouse_copy, webhook):
    url, received = webhook
    resources = build_resources(WarehouseResource(root=str(warehouse_copy)), RefreshSettings(as_of=AS_OF),
                                MissingArchive(), alerts=AlertSettings(webhook=url))
    defs = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], sensors=[report_failed_runs],
                       resources=resources)
    instance = DagsterInstance.ephemeral()
    # The UI's "Materialize all" runs the implicit asset job, which has no failure hook.
    result = defs.resolve_implicit_global_asset_job_def().execute_in_process(instance=instance, raise_on_error=False)
    assert not result.success
    assert last_run(warehouse_copy) is None or last_run(warehouse_copy).status != "failed"  # nothing recorded it yet
    context = build_run_status_sensor_context(
        sensor_name="report_failed_runs", dagster_event=result.get_run_failure_event(), dagster_instance=instance,
        dagster_run=result.dagster_run, resources=resources).for_run_failure()
    report_failed_runs(context)
    status = last_run(warehouse_copy)
    assert status.status == "failed" and status.run_id == result.run_id
    assert status.detail.startswith("run of __ASSET_JOB failed") and "price_archive" in status.detail
    assert [(m["event"], m["job"], m["run_id"]) for m in received] == [("run_failed", "__ASSET_JOB", result.run_id)]
    assert received[0]["detail"] == status.detail
    # The API keeps serving the last good snapshot and says why.
    app = create_app(api_settings(warehouse=str(warehouse_copy), stale_after_hours=24 * 365 * 100))
    with TestClient(app) as client:
        root = client.get("/").json()
    assert root["status"] == "degraded"
    assert f"the last pipeline run failed ({status.detail}); serving the last good snapshot" in root["status_reason"]


def test_an_unreachable_webhook_is_reported_not_raised():
    assert "could not be reached" in AlertSettings(webhook="http://127.0.0.1:9/hook").notify({"event": "x"})
    assert AlertSettings(webhook="").notify({"event": "x"}) is None
