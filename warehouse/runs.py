"""The latest pipeline run's outcome, kept beside the warehouse's pointer for the API to report.

A run records `publishing` before its snapshot asset publishes, then `ok` or `failed` with the
reason. A record left at `publishing` by a process that died is told apart from a run still at
work by its host and pid (or by its age, for a run on another host).
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from warehouse.snapshot import iso_utc
from warehouse.storage import Storage

RUN_STATUS_FILE = "last_run.json"
PUBLISHING = "publishing"
PUBLISH_TIMEOUT = timedelta(minutes=10)  # a publish takes seconds; a record this old was cut short


@dataclass(frozen=True)
class RunStatus:
    """The latest pipeline run: `publishing` while its snapshot asset publishes, then `ok` (it
    published) or `failed`, with the reason. `host` and `pid` name the publishing process, so a
    run killed while publishing can be told from one still at work."""

    status: str
    finished: datetime  # when the status was recorded
    detail: str = ""
    run_id: str = ""
    host: str = ""
    pid: int = 0

    def to_json(self) -> str:
        return json.dumps({"status": self.status, "finished": iso_utc(self.finished), "detail": self.detail,
                           "run_id": self.run_id, "host": self.host, "pid": self.pid}, sort_keys=True)

    def interrupted(self, now: datetime, after: timedelta = PUBLISH_TIMEOUT) -> bool:
        """A `publishing` record whose process is gone (on this host), or older than `after`."""
        if self.status != PUBLISHING:
            return False
        if now - self.finished > after:
            return True
        return self.host == socket.gethostname() and self.pid > 0 and not _alive(self.pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def publishing(run_id: str, now: datetime) -> RunStatus:
    """The record a run leaves while it publishes."""
    return RunStatus(PUBLISHING, now, f"run {run_id} is publishing", run_id, socket.gethostname(), os.getpid())


def record_run(root: str | os.PathLike | Storage, status: RunStatus) -> None:
    """Write the latest run's outcome beside the manifest (atomically; readers see old or new)."""
    storage = Storage.of(root)
    storage.makedirs(storage.root)
    storage.write_bytes(storage.join(RUN_STATUS_FILE), status.to_json().encode())


def last_run(root: str | os.PathLike | Storage) -> RunStatus | None:
    """The latest recorded run, or None when none was recorded (or the record is unreadable)."""
    storage = Storage.of(root)
    try:
        raw = json.loads(storage.read_text(storage.join(RUN_STATUS_FILE)))
        finished = datetime.fromisoformat(raw["finished"].replace("Z", "+00:00"))
        return RunStatus(raw["status"], finished, raw.get("detail", ""), raw.get("run_id", ""),
                         raw.get("host", ""), int(raw.get("pid", 0)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
