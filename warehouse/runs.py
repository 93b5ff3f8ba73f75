"""The latest pipeline run's outcome, kept beside the warehouse's pointer for the API to report.

A run that will publish records `running` when it stages its first table, `publishing` before its
snapshot asset publishes, then `ok` or `failed` with the reason, or `refused` when its snapshot
asset found it could not publish a whole day and published nothing (by design: not a failure of
the data served). A record left at `running` or `publishing` by a
process that died is told apart from a run still at work by its host and pid (or by its age, for
a run on another host).
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta

from warehouse.snapshot import STALE_STAGING_SECONDS, SnapshotStore, iso_utc
from warehouse.storage import Storage

RUN_STATUS_FILE = "last_run.json"
RUNNING, PUBLISHING, FAILED, REFUSED = "running", "publishing", "failed", "refused"
PUBLISH_TIMEOUT = timedelta(minutes=10)  # a publish takes seconds; a record this old was cut short
RUN_TIMEOUT = timedelta(hours=1)  # a refresh takes minutes; a `running` record this old was cut short


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

    def interrupted(self, now: datetime) -> bool:
        """A `running` or `publishing` record whose process is gone (on this host), or older than
        such a step can take."""
        if self.status not in (RUNNING, PUBLISHING):
            return False
        if now - self.finished > (PUBLISH_TIMEOUT if self.status == PUBLISHING else RUN_TIMEOUT):
            return True
        return self.host == socket.gethostname() and self.pid > 0 and not _alive(self.pid)

    def at_work(self, now: datetime) -> bool:
        """A run still running or publishing: its staging folder is its own."""
        return self.status in (RUNNING, PUBLISHING) and not self.interrupted(now)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def running(run_id: str, now: datetime) -> RunStatus:
    """The record a run leaves from its first staged table, so that one killed before it
    publishes leaves a trace."""
    return RunStatus(RUNNING, now, f"run {run_id} is running", run_id, socket.gethostname(), os.getpid())


class RefreshAtWork(RuntimeError):
    """Another refresh is at work on the warehouse: one refresh at a time."""


def refuse_if_another_at_work(store: SnapshotStore, run_id: str, now: datetime) -> None:
    """RefreshAtWork when the recorded run is another one still at work (running or publishing,
    its process alive on this host, or its record younger than the step can take elsewhere)."""
    previous = last_run(store.storage)
    if previous is not None and previous.run_id != run_id and previous.at_work(now):
        where = f" (pid {previous.pid} on {previous.host})" if previous.pid else ""
        raise RefreshAtWork(f"another refresh, run {previous.run_id}{where}, has been {previous.status} on this "
                            f"warehouse since {iso_utc(previous.finished)}: one refresh at a time")


def start_run(store: SnapshotStore, run_id: str, now: datetime) -> list[str]:
    """Record `run_id` as running (once) and remove what no live run owns: the staging folder of
    a recorded run that failed or was cut short, and any untouched for an hour. Returns the runs
    removed. RefreshAtWork, recording nothing, when another run is still at work."""
    previous = last_run(store.storage)
    if previous is not None and previous.run_id == run_id:
        return []
    refuse_if_another_at_work(store, run_id, now)
    ended = previous is not None and (previous.status == FAILED or previous.interrupted(now))
    record_run(store.storage, running(run_id, now))
    return store.clean_staging(keep={run_id}, older_than=STALE_STAGING_SECONDS,
                               also={previous.run_id} if ended else set())


def clean(store: SnapshotStore, now: datetime) -> list[str]:
    """Remove every staging folder but a live recorded run's (`oracle refresh --clean`)."""
    previous = last_run(store.storage)
    return store.clean_staging(keep={previous.run_id} if previous is not None and previous.at_work(now) else set())


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
