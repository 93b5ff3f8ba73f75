"""Publishing cannot serve the wrong thing: a run that built nothing publishes nothing, and a
warehouse chosen for one run is where every step of that run writes."""

import pytest
from dagster import AssetKey, Definitions

from assets.definitions import ASSETS, CHECKS, build_resources, refresh_job
from assets.resources import RefreshSettings
from tests.conftest import AS_OF
from tests.small_universe import FLOORS, SmallUniverse
from warehouse.snapshot import SnapshotStore

pytestmark = pytest.mark.slow  # publishes, or runs the whole refresh job


def _defs(resources):
    return Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)


def test_materialising_the_snapshot_alone_publishes_nothing_and_says_why(warehouse_copy, monkeypatch):
    monkeypatch.setenv("ORACLE_WAREHOUSE", str(warehouse_copy))
    before = (warehouse_copy / "manifest.json").read_bytes()
    defs = _defs(build_resources(settings=RefreshSettings(as_of="2026-11-30")))
    result = defs.resolve_implicit_global_asset_job_def().execute_in_process(
        asset_selection=[AssetKey("snapshot")], raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert "this run built no table" in str(failure.event_specific_data.error.message)
    assert (warehouse_copy / "manifest.json").read_bytes() == before


def test_a_warehouse_set_for_one_run_receives_every_table_and_the_snapshot(tmp_path, monkeypatch):
    default, chosen = tmp_path / "default", tmp_path / "chosen"
    monkeypatch.setenv("ORACLE_WAREHOUSE", str(default))
    defs = _defs(build_resources(settings=RefreshSettings(as_of=AS_OF, **FLOORS), sources=SmallUniverse()))
    result = defs.resolve_job_def("refresh").execute_in_process(
        run_config={"resources": {"warehouse": {"config": {"root": str(chosen)}}}})
    assert result.success
    assert not default.exists()  # nothing was staged, published or recorded in the default warehouse
    manifest = SnapshotStore(chosen).current()
    assert manifest is not None and len(manifest.tables) > 20
    staging = chosen / ".staging"
    assert not staging.exists() or not any(staging.iterdir())  # published, nothing left staged


def test_a_warehouse_that_cannot_be_written_stops_the_run_before_anything_is_computed(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    defs = _defs(build_resources(settings=RefreshSettings(as_of=AS_OF)))
    result = defs.resolve_job_def("refresh").execute_in_process(
        run_config={"resources": {"warehouse": {"config": {"root": str(blocked / "warehouse")}}}},
        raise_on_error=False)
    assert not result.success
    assert result.get_asset_materialization_events() == []
    failures = [e for e in result.all_events if e.is_failure or e.event_type_value == "RESOURCE_INIT_FAILURE"]
    assert any("cannot be written" in str(e.event_specific_data.error.message) for e in failures
               if getattr(e.event_specific_data, "error", None))
