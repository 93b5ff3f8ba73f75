"""Long computed answers in processes of their own, beside the server's event loop.

A thread computing a comparison shares the interpreter with the event loop: under load they take
turns, and both slow down (measured: with a forward curve at 32 connections beside comparisons at
32 more, the comparisons got a quarter of one core and the curve's p99 went past 50 ms). A process
has an interpreter of its own and runs on another core. Each worker process reads the warehouse's
current snapshot itself (checked as the server checks it, `serve.state`) and answers the routes
marked `direct(..., offload=True)` from the raw body, with the same function as the server
(`serve.direct.answer`), so the bytes are the same; a problem (a 4xx) travels back whole.

The event loop talks to each worker over two pipes of its own, read and written without blocking
from the loop itself. The standard library's process pool passes every task through two threads
of the server's process, which took turns with the loop for the interpreter: a comparison
computed in 1.8 ms came back after 4.5 ms, and at full load a worker answered a comparison every
2.6 ms.

A worker whose current snapshot is not the one the server serves (a snapshot published a moment
ago) says so, and the server computes that answer in a thread instead; so it does while a worker
is starting, and after one has died (a new one is started). Workers are started with the server
and are used once they have read the snapshot. Each holds its own copy of the snapshot's tables:
memory grows by one snapshot per process. A worker ends when the server's end of its pipe closes,
however the server ended.
"""

from __future__ import annotations

import asyncio
import fcntl
import multiprocessing
import os
import pickle
import signal
import struct

from serve.answers import Answer

# A frame as multiprocessing's Connection writes and reads it: a signed 4-byte length, then the bytes.
FRAME_HEADER = struct.Struct("!i")
READY = -1  # the request id of a worker's first frame: it has read the snapshot
PIPE_BYTES = 1 << 20  # Linux's default ceiling for an unprivileged process


class OtherSnapshot(Exception):
    """The worker's current snapshot is not the one asked for."""


class WorkerGone(Exception):
    """The worker died (killed, out of memory) before it answered."""


def _serve(requests, answers, warehouse: str, core: int | None = None) -> None:
    """A worker's life: read the snapshot, then answer each request in turn until the server goes.
    `core`: the one it runs on (serve/cores.py), if pinned."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # an interrupt is the server's to handle; its pipe's end ends us
    from datetime import timedelta

    from serve.cores import pin_this_thread

    pin_this_thread(core)

    from serve.api.pricing import ROUTES
    from serve.direct import DIRECT, answer
    from serve.heap import freeze_what_lives
    from serve.state import SnapshotState

    state = SnapshotState(warehouse, timedelta(days=36500))  # staleness is the server's to judge
    specs = {path: handler.opt[DIRECT] for handler in ROUTES if DIRECT in handler.opt for path in handler.paths}
    state.current()  # read and check the snapshot now, not on the first request
    freeze_what_lives()
    answers.send_bytes(pickle.dumps((READY, True, None)))
    while True:
        try:
            request_id, snapshot_id, path, raw, encoding = pickle.loads(requests.recv_bytes())
        except EOFError:
            return
        try:
            snapshot = state.current()
            if snapshot is None or snapshot.snapshot_id != snapshot_id:
                raise OtherSnapshot(snapshot_id)
            outcome = (request_id, True, answer(snapshot, specs[path], raw, encoding))
        except Exception as refused:  # noqa: BLE001 - a refusal (or a fault) is the server's to answer
            outcome = (request_id, False, refused)
        answers.send_bytes(pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL))


def _widen(pipe: int) -> None:
    """A pipe that holds a whole answer (a comparison's is about 110 KB), so the worker writes it in
    one go and the loop reads it in one turn, not 64 KB at a time; as wide as the system lets."""
    try:
        fcntl.fcntl(pipe, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:  # a system limit below ours: the default width still works
        pass


class Worker:
    """One worker process and the loop's side of its two pipes."""

    def __init__(self, warehouse: str, core: int | None = None):
        context = multiprocessing.get_context("spawn")  # the server's own threads are never forked
        their_requests, self._requests = context.Pipe(duplex=False)
        self._answers, their_answers = context.Pipe(duplex=False)
        self.core = core
        self.process = context.Process(target=_serve, args=(their_requests, their_answers, warehouse, core),
                                       name="oracle-compute", daemon=True)
        self.process.start()
        their_requests.close()  # only the worker holds these ends now: when ours close, it sees the end
        their_answers.close()
        for end in (self._requests, self._answers):
            os.set_blocking(end.fileno(), False)
        _widen(self._answers.fileno())
        self.ready = self.gone = False
        self.pending: dict[int, asyncio.Future] = {}
        self._next_id = 0
        self._inbox, self._outbox = bytearray(), bytearray()
        self._loop: asyncio.AbstractEventLoop | None = None

    def watch(self) -> None:
        """Read answers from the running loop (a test may run several loops, one after another)."""
        loop = asyncio.get_running_loop()
        if loop is not self._loop and not self.gone:
            self._loop = loop
            loop.add_reader(self._answers.fileno(), self._read)

    def ask(self, *request) -> asyncio.Future:
        self._next_id += 1
        future = self._loop.create_future()
        self.pending[self._next_id] = future
        message = pickle.dumps((self._next_id, *request), pickle.HIGHEST_PROTOCOL)
        self._write(FRAME_HEADER.pack(len(message)) + message)
        return future

    def _write(self, frame: bytes) -> None:
        if self._outbox:  # the pipe was full: keep the order
            self._outbox += frame
            return
        try:
            written = os.write(self._requests.fileno(), frame)
        except BlockingIOError:
            written = 0
        except OSError:
            self._end()
            return
        if written < len(frame):
            self._outbox += frame[written:]
            self._loop.add_writer(self._requests.fileno(), self._flush)

    def _flush(self) -> None:
        try:
            written = os.write(self._requests.fileno(), self._outbox)
        except BlockingIOError:
            return
        except OSError:
            self._end()
            return
        del self._outbox[:written]
        if not self._outbox:
            self._loop.remove_writer(self._requests.fileno())

    def _read(self) -> None:
        try:
            chunk = os.read(self._answers.fileno(), 1 << 20)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._end()
            return
        self._inbox += chunk
        while len(self._inbox) >= FRAME_HEADER.size:
            (length,) = FRAME_HEADER.unpack_from(self._inbox)
            end = FRAME_HEADER.size + length
            if len(self._inbox) < end:
                return
            with memoryview(self._inbox) as frame:
                request_id, answered, value = pickle.loads(frame[FRAME_HEADER.size:end])
            del self._inbox[:end]
            if request_id == READY:
                self.ready = True
                continue
            future = self.pending.pop(request_id, None)
            if future is not None and not future.done():
                future.set_result(value) if answered else future.set_exception(value)

    def _end(self) -> None:
        """The worker has gone: every request waiting on it fails, and its pipes are closed."""
        if self.gone:
            return
        self.gone = True
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._answers.fileno())
            if self._outbox:
                self._loop.remove_writer(self._requests.fileno())
        for future in self.pending.values():
            if not future.done():
                future.set_exception(WorkerGone())
        self.pending.clear()
        self._requests.close()
        self._answers.close()
        self.process.join(timeout=0)  # reaped now if it is dead already

    def close(self) -> None:
        self._end()
        self.process.join(timeout=1)
        if self.process.is_alive():
            self.process.terminate()


class ComputePool:
    """`processes` worker processes; each request goes to the ready one with the fewest waiting.
    `cores`: the core of each (serve/cores.py), None for any."""

    def __init__(self, warehouse: str, processes: int, cores: tuple[int | None, ...] = ()):
        self.warehouse, self.processes = warehouse, processes
        self.cores = cores or (None,) * processes
        self.workers: list[Worker] = []

    async def start(self) -> None:
        """Start a worker for each one missing (at start-up, and in place of one that died, on its core)."""
        self.workers = [worker for worker in self.workers if not worker.gone]
        taken = [worker.core for worker in self.workers]
        free = [core for core in self.cores if core is None or core not in taken]
        self.workers += [Worker(self.warehouse, free[i]) for i in range(self.processes - len(self.workers))]
        for worker in self.workers:
            worker.watch()

    async def started(self, timeout: float = 60.0) -> None:
        """Wait until every worker has read the snapshot (a caller that must not be answered in a thread)."""
        await self.start()
        async with asyncio.timeout(timeout):
            while not all(worker.ready for worker in self.workers):
                await asyncio.sleep(0.05)

    async def answer(self, snapshot_id: str, path: str, raw: bytes, encoding: str | None) -> Answer | None:
        """The answer computed in a worker, or None when no worker is ready or it serves another snapshot."""
        if len(self.workers) < self.processes or any(worker.gone for worker in self.workers):
            await self.start()
        for worker in self.workers:
            worker.watch()
        ready = [worker for worker in self.workers if worker.ready]
        if not ready:
            return None
        worker = min(ready, key=lambda candidate: len(candidate.pending))
        try:
            return await worker.ask(snapshot_id, path, raw, encoding)
        except (OtherSnapshot, WorkerGone):
            return None

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
        self.workers = []
