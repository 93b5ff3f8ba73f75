"""The shape of the asset graph, its checks, job and schedule, pinned."""

import subprocess
import sys
from pathlib import Path

from assets.definitions import defs

ROOT = Path(__file__).resolve().parents[1]

EXPECTED_GRAPH = {
    "genai_prices": set(),
    "model_prices": set(),
    "price_archive": set(),
    "price_observations": {"genai_prices", "model_prices", "price_archive"},
    "models": {"price_observations", "genai_prices", "model_prices"},
    "providers": {"price_observations"},
    "price_history": {"price_observations"},
    "spots": {"price_history", "models"},
    "greeks": {"spots", "price_history", "models"},
    "forward_curves": {"greeks"},
    "ici": {"price_history", "models", "price_observations"},
    "ici_history": {"price_history", "models", "price_observations"},
    "events": {"price_history", "models"},
    "backtest": {"price_observations", "price_history", "models"},
    "backtest_summary": {"backtest"},
    "backtest_families": {"backtest"},
    "accuracy": {"backtest"},
    "snapshot": {"genai_prices", "model_prices", "price_archive", "price_observations", "models",
                 "providers", "price_history", "spots", "greeks", "forward_curves", "ici", "ici_history",
                 "events", "backtest", "backtest_summary", "backtest_families", "accuracy"},
}


def test_asset_graph_shape():
    graph = defs.resolve_asset_graph()
    shape = {
        key.path[-1]: {parent.path[-1] for parent in graph.get(key).parent_keys}
        for key in graph.get_all_asset_keys()
    }
    assert shape == EXPECTED_GRAPH


def test_blocking_checks_guard_the_tables():
    graph = defs.resolve_asset_graph()
    checks = {(key.asset_key.path[-1], key.name) for key in graph.asset_check_keys}
    assert checks == {
        ("price_observations", "observation_prices_valid"),
        ("models", "tickers_unique"),
        ("models", "coverage_floor"),
        ("price_history", "history_complete"),
        ("ici", "ici_weights_sum_to_one"),
        ("forward_curves", "forwards_well_formed"),
    }
    for check in defs.asset_checks:
        for spec in check.check_specs:
            assert spec.blocking, spec.name


def test_refresh_job_runs_daily_at_six_utc():
    schedule = defs.resolve_schedule_def("daily_refresh")
    assert schedule.job_name == "refresh"
    assert (schedule.cron_schedule, schedule.execution_timezone) == ("0 6 * * *", "UTC")


def test_dagster_validates_the_workspace():
    result = subprocess.run([Path(sys.executable).parent / "dagster", "definitions", "validate", "-w",
                             "workspace.yaml"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
