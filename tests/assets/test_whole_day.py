"""A published snapshot is whole and of its day, whatever the UI launched: a subset for a new day
publishes nothing and says why, a re-execution from failure publishes the new day, and a run that
publishes nothing by design leaves the API's report as it was. Each drives Dagster's own runs."""

from datetime import UTC, date, datetime, timedelta

import pytest
from dagster import (
    AssetKey,
    DagsterInstance,
    Definitions,
    ReexecutionOptions,
    execute_job,
    in_process_executor,
    reconstructable,
)

import assets.analytics
from assets.definitions import ASSETS, CHECKS, build_resources, defs, refresh_job
from assets.resources import RefreshSettings, WarehouseResource
from assets.whole_day import upstream_tables, why_not_whole
from serve.state import SnapshotState
from tests.conftest import AS_OF
from tests.small_universe import FLOORS, SmallUniverse
from warehouse.runs import last_run
from warehouse.snapshot import SnapshotStore

NEXT_DAY = (date.fromisoformat(AS_OF) + timedelta(days=1)).isoformat()


def _defs(root, as_of):
    resources = build_resources(WarehouseResource(root=str(root)), RefreshSettings(as_of=as_of, **FLOORS),
                                SmallUniverse())
    return Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)


def _api_status(root, hours_later=0):
    """`/`'s status and reason, as the API would say it `hours_later` (a run worker long gone)."""
    later = datetime.now(UTC) + timedelta(hours=hours_later)
    state = SnapshotState(root, stale_after=timedelta(days=365 * 100), clock=lambda: later)
    freshness = state.freshness()
    return freshness.status, freshness.reason, state.current()


def test_a_table_built_on_a_table_the_run_did_not_build_is_named():
    upstream = {"spots": frozenset({"price_history", "models"}), "models": frozenset(), "price_history": frozenset()}
    assert why_not_whole({"models", "price_history", "spots"}, upstream, NEXT_DAY) is None
    assert why_not_whole({"models"}, upstream, NEXT_DAY) is None  # spots is carried, under its own day
    reason = why_not_whole({"spots"}, upstream, NEXT_DAY)
    assert "spots for 2026-11-23 from tables it did not build (models, price_history)" in reason
    assert "this run built no table" in why_not_whole(set(), upstream, NEXT_DAY)


def test_what_a_table_stands_on_is_read_from_the_asset_graph():
    graph = defs.resolve_job_def("refresh").asset_layer.asset_graph
    upstream = upstream_tables(graph, ["spots", "price_history", "price_archive", "source_fetches"])
    assert upstream["spots"] == {"price_history", "price_archive", "source_fetches"}
    assert upstream["price_archive"] == frozenset()


@pytest.mark.slow  # runs Dagster jobs
def test_a_subset_for_the_next_day_publishes_nothing_says_why_and_leaves_the_api_ok(warehouse_copy):
    before, recorded = (warehouse_copy / "manifest.json").read_bytes(), last_run(warehouse_copy)
    result = _defs(warehouse_copy, NEXT_DAY).resolve_implicit_global_asset_job_def().execute_in_process(
        asset_selection=[AssetKey("spots"), AssetKey("snapshot")], raise_on_error=False)
    assert not result.success
    failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
    assert failure.step_key == "snapshot"
    assert "from tables it did not build" in failure.event_specific_data.user_failure_data.description
    assert (warehouse_copy / "manifest.json").read_bytes() == before
    assert last_run(warehouse_copy) == recorded
    status, reason, served = _api_status(warehouse_copy, hours_later=2)
    assert (status, reason) == ("ok", "")
    assert served.table("spots")["beta_sync"].notna().any()  # ok is said over priced spots only


@pytest.mark.slow  # runs Dagster jobs
def test_one_table_materialised_leaves_the_api_ok(warehouse_copy):
    recorded = last_run(warehouse_copy)
    result = _defs(warehouse_copy, AS_OF).resolve_implicit_global_asset_job_def().execute_in_process(
        asset_selection=[AssetKey("price_archive")])
    assert result.success
    assert last_run(warehouse_copy) == recorded
    assert _api_status(warehouse_copy, hours_later=2)[:2] == ("ok", "")


# A re-execution is launched from a job Dagster can rebuild by name: the warehouse comes from
# ORACLE_WAREHOUSE and the day from ORACLE_AS_OF, set by the test.
def refresh_of_the_small_universe():
    resources = build_resources(settings=RefreshSettings(**FLOORS), sources=SmallUniverse())
    return Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources,
                       executor=in_process_executor).resolve_job_def("refresh")


@pytest.mark.slow  # runs the refresh job twice
def test_a_reexecution_from_failure_publishes_the_new_day(warehouse_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("ORACLE_WAREHOUSE", str(warehouse_copy))
    monkeypatch.setenv("ORACLE_AS_OF", NEXT_DAY)
    accuracy_table, calls = assets.analytics.accuracy_table, []

    def fails_once(*args, **kwargs):  # a late step: the re-execution runs it and the snapshot alone
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the accuracy table failed once")
        return accuracy_table(*args, **kwargs)

    monkeypatch.setattr(assets.analytics, "accuracy_table", fails_once)
    previous = SnapshotStore(warehouse_copy).current()
    (tmp_path / "dagster").mkdir()
    with DagsterInstance.local_temp(str(tmp_path / "dagster")) as instance:
        job = reconstructable(refresh_of_the_small_universe)
        with execute_job(job, instance=instance, raise_on_error=False) as first:
            assert not first.success
        assert SnapshotStore(warehouse_copy).current() == previous
        options = ReexecutionOptions.from_failure(first.run_id, instance)
        with execute_job(job, instance=instance, reexecution_options=options, raise_on_error=False) as again:
            assert again.success
            assert {e.step_key for e in again.all_events if e.step_key} == {"accuracy", "snapshot"}
    store = SnapshotStore(warehouse_copy)
    manifest = store.current()
    assert manifest.extra["as_of"] == NEXT_DAY and "carried" not in manifest.extra
    assert max(store.read_table("price_history")["date"]) == date.fromisoformat(NEXT_DAY)
    assert store.read_table("spots")["beta_sync"].notna().any()
    previous_history = store.storage.join(previous.snapshot_id, "price_history.parquet")
    assert manifest.tables["price_history"].sha256 != previous.tables["price_history"].sha256, previous_history
    assert _api_status(warehouse_copy)[:2] == ("ok", "")
