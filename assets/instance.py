"""The Dagster instance's settings (`$DAGSTER_HOME/dagster.yaml`), written by `make` and `oracle up`.

- One run at a time: a second refresh launched while one runs waits in the run queue, so two
  runs never stage and publish at once (`run_queue.max_concurrent_runs`, which the queued
  run coordinator and the daemon both read).
- A run whose process crashed or was killed is retried once; a run that failed a step or a
  blocking check is not (`run_retries`): retrying would fail the same way, or publish what the
  check refused. Nor is a run that cannot write its warehouse, which fails before any step
  (Dagster would count that a crash): it marks itself `dagster/max_retries: 0`
  (`assets.resources.WarehouseResource.setup_for_execution`).
- Python loggers that Dagster captures into a run's event log record from INFO up
  (`python_logs.python_log_level`).

An existing `dagster.yaml` that an operator wrote is left as it is; the one the project wrote
before these settings existed (telemetry alone) is replaced.

    python -m assets.instance DAGSTER_HOME
"""

from __future__ import annotations

import sys
from pathlib import Path

INSTANCE_YAML = """\
telemetry:
  enabled: false
run_queue:
  max_concurrent_runs: 1
run_retries:
  enabled: true
  max_retries: 1
  retry_on_asset_or_op_failure: false
python_logs:
  python_log_level: INFO
"""
EARLIER_DEFAULT = "telemetry:\n  enabled: false\n"


def ensure_instance(home: str | Path) -> Path:
    """`home`/dagster.yaml with these settings, unless an operator's own file is there."""
    path = Path(home) / "dagster.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() == EARLIER_DEFAULT:
        path.write_text(INSTANCE_YAML)
    return path


if __name__ == "__main__":
    print(ensure_instance(sys.argv[1]))
