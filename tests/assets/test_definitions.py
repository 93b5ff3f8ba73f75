"""The shape of the asset graph, its checks, job and schedule, pinned; the tables declared once."""

import subprocess
import sys
from pathlib import Path

import pytest
from dagster import DagsterInvalidDefinitionError, asset

from assets.definitions import TABLE_ASSETS, check_tables, defs
from assets.publish import TABLES
from pipelines.upstream_formats import UPSTREAMS
from warehouse.index_record import RECORD_TABLES
from warehouse.schemas import SCHEMAS

ROOT = Path(__file__).resolve().parents[2]

FETCHES = {"fetch_genai_prices", "fetch_model_prices", "fetch_openrouter", "fetch_litellm"}
SOURCES = {"genai_prices", "model_prices", "price_archive", "litellm_prices", "openrouter_prices"}
# The bundled inputs the source assets read, observed at the start of every refresh.
BUNDLED = {"genai_prices_package", "model_prices_package", "price_archive_file", "litellm_prices_file",
           "models_dev_file", "release_history_files", "curated_tables"}
TABLE_GRAPH = {
    "source_fetches": FETCHES,
    # Each live source's reader waits for every fetch (`source_fetches`), which stops the run when all failed.
    "genai_prices": {"fetch_genai_prices", "source_fetches", "genai_prices_package", "release_history_files",
                     "curated_tables"},
    "model_prices": {"fetch_model_prices", "source_fetches", "model_prices_package", "release_history_files"},
    "price_archive": {"price_archive_file"},
    "litellm_prices": {"fetch_litellm", "source_fetches", "litellm_prices_file", "release_history_files"},
    "openrouter_prices": {"fetch_openrouter", "source_fetches"},
    "price_observations": {*SOURCES, "curated_tables"},
    "model_aliases": {*SOURCES, "curated_tables"},
    "models": {"price_observations", "model_aliases", "genai_prices", "model_prices", "providers", "curated_tables",
               "models_dev_file"},
    "metadata_disputes": {"price_observations", "genai_prices", "model_prices", "models_dev_file"},
    "providers": {"price_observations"},
    "price_history": {"price_observations"},
    "price_disputes": {"price_observations", "price_history"},
    "spots": {"price_history", "models", "price_observations"},
    "processes": {"price_history", "models", "spots", "events"},
    "change_laws": {"price_history", "models", "spots", "events"},
    "greeks": {"spots", "processes", "change_laws", "price_history", "models", "events"},
    "scheduled_changes": {"price_observations", "spots"},
    "forward_curves": {"processes", "change_laws", "spots", "scheduled_changes"},
    "lines": {"price_history", "models"},
    "line_forwards": {"lines", "processes", "change_laws", "spots", "scheduled_changes"},
    # today's rows, the last rebalance's basket, the chained level of the history
    "ici": {"price_history", "models", "ici_constituents", "ici_history"},
    "ici_history": {"models", "price_observations"},  # each day as known then (`pipelines.known_history`)
    "ici_constituents": {"models", "price_observations"},
    "events": {"price_history", "models", "model_aliases", "scheduled_changes", "price_observations"},
    "backtest": {"price_observations", "price_history", "models", "events"},
    "backtest_summary": {"backtest"},
    "backtest_families": {"backtest"},
    "backtest_reliability": {"backtest"},
    "line_backtest": {"price_observations", "price_history", "models", "events"},  # one multi-asset with backtest
    "accuracy": {"backtest", "line_backtest"},
}
# The snapshot waits for every table an asset builds, and only for those; it writes the index's
# record itself.
EXPECTED_GRAPH = {**TABLE_GRAPH, **{fetch: set() for fetch in FETCHES}, **{bundled: set() for bundled in BUNDLED},
                  "snapshot": set(SCHEMAS) - set(RECORD_TABLES)}


def test_asset_graph_shape():
    graph = defs.resolve_asset_graph()
    shape = {
        key.path[-1]: {parent.path[-1] for parent in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }
    assert shape == EXPECTED_GRAPH


def test_blocking_checks_guard_the_tables_and_warnings_flag_surprises():
    graph = defs.resolve_asset_graph()
    checks = {(key.asset_key.path[-1], key.name) for key in graph.asset_check_keys}
    blocking = {
        ("price_observations", "observation_prices_valid"),
        ("models", "tickers_unique"),
        ("models", "names_unique"),
        ("models", "coverage_floor"),
        ("price_history", "history_complete"),
        ("ici", "ici_weights_sum_to_one"),
        ("forward_curves", "forwards_well_formed"),
    }
    warnings = {("models", "registry_did_not_shrink"), ("ici_history", "index_moved_little")}
    fetched = {(f"fetch_{source.replace('-', '_')}", "read") for source in UPSTREAMS}  # in the fetch steps
    assert checks == blocking | warnings | fetched
    for check in defs.asset_checks:
        for spec in check.check_specs:
            assert spec.blocking == ((spec.asset_key.path[-1], spec.name) in blocking), spec.name


def test_refresh_job_runs_daily_at_six_utc():
    schedule = defs.resolve_schedule_def("daily_refresh")
    assert schedule.job_name == "refresh"
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("0 6 * * *", "UTC")


def test_a_scheduled_run_is_dated_by_the_day_it_stands_for_even_when_late():
    from datetime import UTC, datetime

    from dagster import build_schedule_context

    schedule = defs.resolve_schedule_def("daily_refresh")
    late = build_schedule_context(scheduled_execution_time=datetime(2026, 11, 27, 6, tzinfo=UTC))
    (request,) = schedule.evaluate_tick(late).run_requests
    assert request.run_key == "2026-11-27"
    assert request.run_config == {"loggers": {"console": {"config": {"log_level": "INFO"}}},
                                  "resources": {"settings": {"config": {"as_of": "2026-11-27"}}}}


@pytest.mark.slow  # starts Dagster's own command
def test_dagster_validates_the_workspace():
    result = subprocess.run([Path(sys.executable).parent / "dagster", "definitions", "validate", "-w",
                             "workspace.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def _table_names(table_assets):
    return {key.path[-1] for definition in table_assets for key in definition.keys}


def test_every_table_asset_has_a_schema_and_every_schema_an_asset():
    assert _table_names(TABLE_ASSETS) == set(TABLES) == set(TABLE_GRAPH) == set(SCHEMAS) - set(RECORD_TABLES)


def test_schemas_are_declared_in_pipeline_order():
    order = list(TABLES)
    late = {name: sorted(parent for parent in TABLE_GRAPH[name] - FETCHES - BUNDLED if order.index(parent) > order.index(name))
            for name in order}
    assert {name: parents for name, parents in late.items() if parents} == {}


@asset
def orphan():
    """A table asset nobody gave a schema."""


def test_a_table_asset_without_a_schema_is_refused_by_name():
    with pytest.raises(DagsterInvalidDefinitionError, match=r"no schema in warehouse/schemas.py SCHEMAS: \['orphan'\]"):
        check_tables([*TABLE_ASSETS, orphan], TABLES)


def test_a_schema_without_a_table_asset_is_refused_by_name():
    without_spots = [definition for definition in TABLE_ASSETS if "spots" not in _table_names([definition])]
    with pytest.raises(DagsterInvalidDefinitionError, match=r"SCHEMAS with no asset in assets\.sources.*\['spots'\]"):
        check_tables(without_spots, TABLES)
    with pytest.raises(DagsterInvalidDefinitionError) as refused:
        check_tables([*without_spots, orphan], TABLES)
    assert "['orphan']" in str(refused.value) and "['spots']" in str(refused.value)


def test_every_asset_is_due_daily_and_failed_runs_of_every_job_are_watched():
    from datetime import timedelta

    from dagster import DefaultSensorStatus

    specs = defs.resolve_all_asset_specs()
    assert {spec.key.path[-1] for spec in specs} >= {"snapshot", *TABLES}
    for spec in specs:
        policy = spec.freshness_policy
        assert (policy.fail_window.to_timedelta(), policy.warn_window.to_timedelta()) == (
            timedelta(hours=26), timedelta(hours=24)), spec.key
    (sensor,) = defs.sensors
    assert sensor.name == "report_failed_runs" and sensor.default_status == DefaultSensorStatus.RUNNING
    # That it watches every job, the implicit asset job included, is tests/assets/test_alerts.py's.


def test_every_asset_has_owners_a_kind_and_each_table_its_column_schema():
    from assets.io_manager import column_schema

    for spec in defs.resolve_all_asset_specs():
        name = spec.key.path[-1]
        assert spec.owners == ["team:inference-pricing-oracle"] and spec.kinds, name
        if name in SCHEMAS:
            columns = spec.metadata["dagster/column_schema"]
            assert columns == column_schema(SCHEMAS[name])
            assert [c.name for c in columns.columns] == SCHEMAS[name].names
    assert column_schema(SCHEMAS["ici_published"]).columns[0].type == "date32[day]"


def test_every_job_runs_in_process_whoever_launches_it():
    for job in (defs.resolve_job_def("refresh"), defs.resolve_implicit_global_asset_job_def()):
        assert job.executor_def.name == "in_process", job.name


def test_the_ui_shows_the_warehouse_as_its_variable_or_the_default_path(monkeypatch):
    from dagster import EnvVar

    from assets.definitions import build_resources

    monkeypatch.setenv("ORACLE_WAREHOUSE", "/srv/oracle/snapshots")
    assert build_resources()["warehouse"].root == EnvVar("ORACLE_WAREHOUSE")  # read again for each run
    monkeypatch.delenv("ORACLE_WAREHOUSE")
    assert build_resources()["warehouse"].root == "warehouse/snapshots"
