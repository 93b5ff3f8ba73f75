"""Every failed run, whichever job ran it, is recorded for the API and posted to the webhook."""

import json
import threading
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from dagster import AssetKey, DagsterInstance, Definitions, build_run_status_sensor_context
from dagster._daemon.auto_run_reexecution.auto_run_reexecution import filter_runs_to_should_retry
from litestar.testing import TestClient

from assets.alerts import AlertSettings, failure_to_record, report_failed_runs
from assets.definitions import ASSETS, CHECKS, build_resources, refresh_job
from assets.instance import ensure_instance
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from serve.app import create_app
from tests.conftest import AS_OF
from tests.serve.conftest import api_settings
from tests.small_universe import SmallUniverse
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


def _sensor_on(result, instance, resources):
    context = build_run_status_sensor_context(
        sensor_name="report_failed_runs", dagster_event=result.get_run_failure_event(), dagster_instance=instance,
        dagster_run=instance.get_run_by_id(result.run_id), resources=resources).for_run_failure()
    report_failed_runs(context)


@pytest.mark.slow  # runs the refresh job until a blocking check fails
def test_the_webhook_and_the_record_say_which_check_failed_what_it_checks_and_link_the_run(warehouse_copy, webhook):
    url, received = webhook
    resources = build_resources(WarehouseResource(root=str(warehouse_copy)),
                                RefreshSettings(as_of=AS_OF, min_tickers=100_000, min_providers=8), SmallUniverse(),
                                alerts=AlertSettings(webhook=url, dagster_url="http://dagster.example:3000"))
    defs = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)
    instance = DagsterInstance.ephemeral()
    result = defs.resolve_job_def("refresh").execute_in_process(instance=instance, raise_on_error=False)
    assert not result.success
    link = f"http://dagster.example:3000/runs/{result.run_id}"
    recorded = last_run(warehouse_copy)  # by the refresh job's failure hook
    assert recorded.status == "failed" and recorded.detail.startswith("check coverage_floor of models failed")
    _sensor_on(result, instance, resources)
    [posted] = received
    for text in (posted["detail"], recorded.detail):
        assert "coverage_floor" in text and "The registry reaches the configured floors" in text
        assert "fewer than the floor of 100000" in text and text.endswith(f"(run {link})")
        assert "Steps failed" not in text
    assert posted["link"] == link


@pytest.mark.slow  # runs Dagster jobs on an instance with run retries
def test_an_unwritable_warehouse_posts_once_and_only_to_its_own_record(warehouse_copy, tmp_path, webhook):
    url, received = webhook
    healthy_before = last_run(warehouse_copy)
    home = tmp_path / "dagster"
    ensure_instance(home)  # the project's dagster.yaml: run retries on
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    resources = build_resources(WarehouseResource(root=str(warehouse_copy)), RefreshSettings(as_of=AS_OF),
                                SmallUniverse(), alerts=AlertSettings(webhook=url))
    defs = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)
    with DagsterInstance.local_temp(str(home)) as instance:
        assert instance.run_retries_enabled
        result = defs.resolve_job_def("refresh").execute_in_process(
            run_config={"resources": {"warehouse": {"config": {"root": str(blocked / "warehouse")}}}},
            instance=instance, raise_on_error=False)
        assert not result.success
        run = instance.get_run_by_id(result.run_id)
        assert list(filter_runs_to_should_retry([run], instance)) == []  # the same failure every time
        _sensor_on(result, instance, resources)
    [posted] = received
    assert "cannot be written" in posted["detail"] and "An exception was thrown" not in posted["detail"]
    assert last_run(warehouse_copy) == healthy_before  # the warehouse the sensor knows by default is another


@pytest.mark.slow  # publishes nothing, through Dagster
def test_the_refused_snapshot_alone_is_neither_recorded_nor_posted(warehouse_copy, webhook):
    url, received = webhook
    before = last_run(warehouse_copy)
    resources = build_resources(WarehouseResource(root=str(warehouse_copy)), RefreshSettings(as_of="2026-11-30"),
                                alerts=AlertSettings(webhook=url))
    defs = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)
    instance = DagsterInstance.ephemeral()
    result = defs.resolve_job_def("refresh").execute_in_process(
        instance=instance, asset_selection=[AssetKey("snapshot")], raise_on_error=False)
    assert not result.success
    _sensor_on(result, instance, resources)
    assert received == [] and last_run(warehouse_copy) == before
