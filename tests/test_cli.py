"""The `oracle` command as a process: input it cannot work with is refused before any work, in
one line on stderr, with exit status 2; help shows the defaults."""

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from warehouse.seed_files import first_known_day

ROOT = Path(__file__).resolve().parents[1]


def oracle(*args: str, warehouse: Path | None = None) -> subprocess.CompletedProcess:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    if warehouse is not None:
        env["ORACLE_WAREHOUSE"] = str(warehouse)
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=ROOT)


def refused_in_one_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(("value", "says"), [
    ("2026-13-45", "--as-of '2026-13-45' is not a date (month must be in 1..12): give YYYY-MM-DD"),
    ("yesterday", "--as-of 'yesterday' is not a date"),
    ("2020-01-01", f"--as-of 2020-01-01 is before {first_known_day()}, the first day the bundled data knows"),
])
def test_a_day_that_is_no_date_or_before_the_data_is_refused_in_one_line(value, says, tmp_path):
    line = refused_in_one_line(oracle("refresh", "--as-of", value, warehouse=tmp_path))
    assert line.startswith(f"oracle refresh: {says}")
    assert not any(tmp_path.iterdir())  # nothing was built or staged


def test_a_day_after_today_needs_allow_future(tmp_path):
    ahead = (datetime.now(UTC).date() + timedelta(days=400)).isoformat()
    line = refused_in_one_line(oracle("refresh", "--as-of", ahead, warehouse=tmp_path))
    assert f"--as-of {ahead} is after today" in line and "--allow-future" in line


def test_a_replay_of_a_day_with_no_kept_copy_is_refused_naming_the_day(tmp_path):
    line = refused_in_one_line(oracle("refresh", "--replay", "2026-11-02", warehouse=tmp_path))
    assert line.startswith("oracle refresh: --replay 2026-11-02: no live source's copy is kept for that day")


def test_the_first_known_day_is_the_first_release_of_a_source_that_sets_prices():
    # genai-prices' first release (0, uploaded 2025-07-11): model-prices' releases come later, and
    # LiteLLM's map and the price archive never set a maker's price.
    assert first_known_day().isoformat() == "2025-07-11"


def test_serve_help_shows_each_default_and_its_variable():
    text = oracle("serve", "--help").stdout
    assert "(default: 127.0.0.1, from $ORACLE_HOST" in text.replace("\n", " ").replace("  ", " ")
    for words in ("(default: 8000, from $ORACLE_PORT", "$ORACLE_DATA, else data", "(default: 1, from"):
        assert words in " ".join(text.split()), words


def test_an_unwritable_warehouse_fails_in_one_line_without_a_trace(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = oracle("refresh", warehouse=blocker / "warehouse")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout and "Stack Trace" not in result.stderr + result.stdout
    failed = [line for line in result.stdout.splitlines() if "FAILED" in line]
    assert len(failed) == 1 and f"the warehouse at {blocker / 'warehouse'} cannot be written" in failed[0]
    assert len(result.stdout.splitlines()) <= 4 and result.stderr == ""
