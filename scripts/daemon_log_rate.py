"""How many lines Dagster's processes write an hour, as `oracle up` runs them: `dagster dev` on
the project's workspace, a fresh instance, an empty warehouse, and `--failing` runs that fail in
their first steps (an impossible `as_of`), launched through the instance's queue so the daemon
starts them as it starts the schedule's run.

    python scripts/daemon_log_rate.py MINUTES [--failing N] [--keep LOG]

Prints the lines an hour: all of them, the stack-trace lines, "No heartbeat received", and the
failure sensor's tick lines. A benchmark: run it on purpose, not in the tests.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAILING_CONFIG = "resources:\n  settings:\n    config:\n      as_of: '2026-13-45'\n"
TRACE = re.compile(r'^\s+File "|^\s{4}\S|^Stack Trace:|^Traceback|^\s+\^+\s*$')


def _count(lines: list[str], hours: float) -> dict[str, float]:
    def rate(predicate) -> float:
        return round(sum(1 for line in lines if predicate(line)) / hours, 1)

    return {"lines_per_hour": rate(lambda line: True),
            "trace_lines_per_hour": rate(lambda line: bool(TRACE.search(line))),
            "no_heartbeat_per_hour": rate(lambda line: "No heartbeat received" in line),
            "sensor_tick_lines_per_hour": rate(lambda line: "sensor: report_failed_runs" in line
                                               or "Sensor report_failed_runs skipped" in line)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("minutes", type=float)
    parser.add_argument("--failing", type=int, default=0, help="failing runs to launch, spread over the time")
    parser.add_argument("--keep", help="write the whole log here")
    parser.add_argument("--port", default="3921", help="the Dagster UI's port")
    args = parser.parse_args()
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv").exists() else sys.executable
    with tempfile.TemporaryDirectory() as scratch:
        home, warehouse, config = Path(scratch, "home"), Path(scratch, "warehouse"), Path(scratch, "failing.yaml")
        subprocess.run([python, "-m", "assets.instance", str(home)], cwd=ROOT, check=True, capture_output=True)
        config.write_text(FAILING_CONFIG)
        env = {**os.environ, "DAGSTER_HOME": str(home), "ORACLE_WAREHOUSE": str(warehouse), "PYTHONPATH": str(ROOT)}
        log = Path(scratch, "dagster.log")
        with log.open("w") as out:
            dagster = subprocess.Popen([python, "-m", "dagster", "dev", "-w", "workspace.yaml", "-h", "127.0.0.1",
                                        "-p", args.port], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                       start_new_session=True)
            started = time.monotonic()
            seconds = args.minutes * 60
            for n in range(args.failing):
                time.sleep(max(0.0, started + seconds * (n + 0.5) / args.failing - 60 - time.monotonic()))
                subprocess.run([python, "-m", "dagster", "job", "launch", "-w", "workspace.yaml", "-j", "refresh",
                                "-c", str(config)], cwd=ROOT, env=env, capture_output=True, check=False)
            time.sleep(max(0.0, started + seconds - time.monotonic()))
            hours = (time.monotonic() - started) / 3600
            os.killpg(dagster.pid, signal.SIGTERM)
            try:
                dagster.wait(timeout=30)
            except subprocess.TimeoutExpired:  # a run still going: what it wrote so far is counted
                os.killpg(dagster.pid, signal.SIGKILL)
                dagster.wait()
        lines = log.read_text(errors="replace").splitlines()
        if args.keep:
            Path(args.keep).write_text("\n".join(lines) + "\n")
    figures = {"minutes": round(hours * 60, 1), "failing_runs": args.failing, "lines": len(lines),
               **_count(lines, hours)}
    for name, value in figures.items():
        print(f"{name:28} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
