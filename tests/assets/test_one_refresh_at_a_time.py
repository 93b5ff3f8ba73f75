"""One refresh at a time on a warehouse: a second one started while the first is at work is
refused, saying which run holds it; a run whose process is gone holds nothing."""

import os
import socket
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from assets.refresh import refresh
from warehouse.runs import RefreshAtWork, RunStatus, last_run, record_run, start_run
from warehouse.snapshot import SnapshotStore

NOW = datetime.now(UTC)


def _at_work(root, pid=None):
    record_run(root, RunStatus("running", NOW, "run other is running", "other", socket.gethostname(),
                               pid or os.getpid()))


def test_a_second_refresh_is_refused_at_once_and_does_nothing(tmp_path):
    _at_work(tmp_path)
    said = []
    assert refresh(str(tmp_path), "2026-11-22", write=said.append) is False
    assert said[0].startswith("Nothing was done: another refresh, run other (pid") and "one refresh at a time" in said[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["last_run.json"]
    assert last_run(tmp_path).run_id == "other"  # the run at work keeps its record


def test_a_run_that_reaches_its_first_table_while_another_is_at_work_is_refused(tmp_path):
    _at_work(tmp_path)
    with pytest.raises(RefreshAtWork, match="run other"):
        start_run(SnapshotStore(tmp_path), "second", NOW)
    assert last_run(tmp_path).run_id == "other"


def test_a_run_whose_process_is_gone_holds_nothing(tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    _at_work(tmp_path, pid=gone.pid)
    assert start_run(SnapshotStore(tmp_path), "second", NOW) == []
    recorded = last_run(tmp_path)
    assert (recorded.status, recorded.run_id, recorded.pid) == ("running", "second", os.getpid())
