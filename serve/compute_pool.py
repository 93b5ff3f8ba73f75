"""Long computed answers in processes of their own, beside the server's event loop.

A thread computing a comparison shares the interpreter with the event loop: under load they take
turns, and both slow down (measured: with a forward curve at 32 connections beside comparisons at
32 more, the comparisons got a quarter of one core and the curve's p99 went past 50 ms). A process
has an interpreter of its own and runs on another core. Each worker process reads the warehouse's
current snapshot itself (checked as the server checks it, `serve.state`) and answers the routes
marked `direct(..., offload=True)` from the raw body, with the same function as the server
(`serve.direct.answer`), so the bytes are the same; a problem (a 4xx) travels back whole.

A worker whose current snapshot is not the one the server serves (a snapshot published a moment
ago) says so, and the server computes that answer in a thread instead. Workers are started when
the server starts (and read the snapshot then), so the first comparison does not wait for them.
Each holds its own copy of the snapshot's tables: memory grows by one snapshot per process.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import timedelta

from serve.answers import Answer

_worker_state = None  # in a worker process: its SnapshotState
_worker_specs: dict = {}  # in a worker process: route path -> its Direct spec


class OtherSnapshot(Exception):
    """The worker's current snapshot is not the one asked for."""


def _exit_with(parent: int) -> None:
    """A worker outlives no server: killed outright, the server cannot tell it to stop."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def _start(warehouse: str, parent: int) -> None:
    """In a new worker: the snapshot state, and the specs of the routes it may answer."""
    global _worker_state
    threading.Thread(target=_exit_with, args=(parent,), name="exit-with-server", daemon=True).start()
    from serve.api.pricing import ROUTES
    from serve.direct import DIRECT
    from serve.state import SnapshotState

    _worker_state = SnapshotState(warehouse, timedelta(days=36500))  # staleness is the server's to judge
    _worker_specs.update({path: handler.opt[DIRECT] for handler in ROUTES if DIRECT in handler.opt
                          for path in handler.paths})
    _worker_state.current()  # read and check the snapshot now, not on the first request


def _answer(snapshot_id: str, path: str, raw: bytes, encoding: str | None) -> Answer:
    from serve.direct import answer

    snapshot = _worker_state.current()
    if snapshot is None or snapshot.snapshot_id != snapshot_id:
        raise OtherSnapshot(snapshot_id)
    return answer(snapshot, _worker_specs[path], raw, encoding)


class ComputePool:
    """`processes` worker processes (spawned: the server's own threads are never forked)."""

    def __init__(self, warehouse: str, processes: int):
        self.warehouse, self.processes = warehouse, processes
        self._executor: ProcessPoolExecutor | None = None

    def start(self) -> None:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.processes, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_start, initargs=(self.warehouse, os.getpid()))
            for _ in range(self.processes):  # each worker starts (and reads the snapshot) now
                self._executor.submit(int)

    async def answer(self, snapshot_id: str, path: str, raw: bytes, encoding: str | None) -> Answer | None:
        """The answer computed in a worker, or None when the worker serves another snapshot."""
        self.start()
        try:
            return await asyncio.wrap_future(self._executor.submit(_answer, snapshot_id, path, raw, encoding))
        except OtherSnapshot:
            return None
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh, answer here this time
            self.close()
            return None

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
