"""The refresh as the daemon runs it, beside `oracle refresh`, measured in one sitting.

    python -m bench.scheduled [--repeats 2] [--json bench-scheduled.json]

The scheduled path: a Dagster instance with the project's settings (`assets/instance.py`) and its
daemon running on the project's workspace; the day's run is submitted with the run config and run
key the schedule `daily_refresh` gives, so it waits in the run queue, is dequeued by the daemon
and launched in a run worker process of its own, which executes the job with the code location's
executor. Its wall time runs from the run's creation to its end, as the instance records them
(the daemon's own start-up is left out: it is up before the schedule fires). The CLI path:
`oracle refresh` in a process of its own, from start to exit. The two alternate, each on a
warehouse of its own (the first round builds each from nothing, later rounds rebuild), so the
machine's state is shared between them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DAY = "2026-11-22"


def scheduled_request(day: str) -> tuple[dict, str]:
    """The run config and run key the schedule gives the run for `day` (06:00 UTC that day)."""
    from dagster import build_schedule_context

    from assets.definitions import daily_refresh

    at = datetime.fromisoformat(f"{day}T06:00:00+00:00")
    request = daily_refresh(build_schedule_context(scheduled_execution_time=at))
    return request.run_config, request.run_key


def run_scheduled(home: Path, env: dict, day: str, timeout: float) -> dict:
    """Submit the day's run to the daemon's queue; wait for its end; its times as the instance has them."""
    from dagster import DagsterInstance, DagsterRunStatus, RunsFilter

    config, run_key = scheduled_request(day)
    run_id = str(uuid.uuid4())
    launched = subprocess.run(
        [sys.executable, "-m", "dagster", "job", "launch", "-w", "workspace.yaml", "-j", "refresh", "--run-id", run_id,
         "--config-json", json.dumps(config), "--tags", json.dumps({"dagster/run_key": run_key})],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    if launched.returncode != 0:
        raise RuntimeError(f"dagster job launch failed: {launched.stderr.strip()[-500:]}")
    with DagsterInstance.from_config(str(home)) as instance:
        deadline = time.monotonic() + timeout
        while not instance.get_run_by_id(run_id).is_finished:
            if time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} did not finish in {timeout:.0f} s")
            time.sleep(0.5)
        (record,) = instance.get_run_records(filters=RunsFilter(run_ids=[run_id]))
        stats = instance.get_run_stats(run_id)
        status = instance.get_run_by_id(run_id).status
    created = record.create_timestamp.timestamp()
    return {"run_id": run_id, "ok": status == DagsterRunStatus.SUCCESS, "wall_s": record.end_time - created,
            "queued_s": (stats.launch_time or created) - created,
            "worker_s": (stats.end_time or 0) - (stats.launch_time or 0)}


def wait_for_queue_daemon(home: Path, daemon: subprocess.Popen, timeout: float = 120) -> None:
    """Until the daemon's run queue has beaten once: it is up, as it is before a schedule fires."""
    from dagster import DagsterInstance

    deadline = time.monotonic() + timeout
    with DagsterInstance.from_config(str(home)) as instance:
        while "QUEUED_RUN_COORDINATOR" not in instance.get_daemon_heartbeats():
            if daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Dagster daemon did not come up (exit code {daemon.poll()})")
            time.sleep(0.5)


def run_cli(env: dict, warehouse: str, day: str, timeout: float) -> dict:
    start = time.perf_counter()
    oracle = str(Path(sys.executable).with_name("oracle"))
    done = subprocess.run([oracle, "refresh", "--warehouse", warehouse, "--as-of", day],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    return {"ok": done.returncode == 0, "wall_s": time.perf_counter() - start}


def measure(repeats: int, timeout: float) -> dict:
    from dagster import DagsterInstance

    from assets.instance import ensure_instance

    with tempfile.TemporaryDirectory(prefix="oracle-bench-scheduled-") as tmp:
        home = Path(tmp) / "dagster_home"
        ensure_instance(home)
        with DagsterInstance.from_config(str(home)) as instance:  # its databases made once, before any daemon
            instance.get_runs(limit=1)
        env = {**os.environ, "DAGSTER_HOME": str(home), "ORACLE_WAREHOUSE": str(Path(tmp) / "scheduled")}
        daemon_command = [str(Path(sys.executable).with_name("dagster-daemon")), "run", "-w", "workspace.yaml"]
        daemon = subprocess.Popen(daemon_command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_for_queue_daemon(home, daemon)
            scheduled, cli = [], []
            for i in range(repeats):
                scheduled.append(run_scheduled(home, env, DAY, timeout))
                cli.append(run_cli(env, str(Path(tmp) / "cli"), DAY, timeout))
                print(f"  round {i + 1}: scheduled {scheduled[-1]['wall_s']:.1f} s, "
                      f"oracle refresh {cli[-1]['wall_s']:.1f} s", file=sys.stderr, flush=True)
        finally:
            os.killpg(daemon.pid, 15)
            daemon.wait(timeout=60)
    return {"scheduled": scheduled, "cli": cli,
            "scheduled_median_s": statistics.median(r["wall_s"] for r in scheduled),
            "cli_median_s": statistics.median(r["wall_s"] for r in cli)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed per refresh")
    parser.add_argument("--json", help="also write the figures and the machine here")
    args = parser.parse_args(argv)
    figures = measure(args.repeats, args.timeout)
    ratio = figures["scheduled_median_s"] / figures["cli_median_s"]
    print(f"scheduled run (daemon, run queue, run worker): {figures['scheduled_median_s']:.1f} s median; "
          f"oracle refresh: {figures['cli_median_s']:.1f} s median; ratio {ratio:.2f}")
    if args.json:
        host = {"cores": os.cpu_count(), "python": platform.python_version()}
        Path(args.json).write_text(json.dumps({"machine": host, **figures}, indent=2) + "\n")
    return 0 if all(r["ok"] for r in figures["scheduled"] + figures["cli"]) else 1


if __name__ == "__main__":
    sys.exit(main())
