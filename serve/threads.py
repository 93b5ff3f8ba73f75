"""Worker threads: computing apart from waiting.

Python runs one thread's bytecode at a time, so work that computes for milliseconds (ranking
every model, a Monte Carlo run, a budget simulation) gains nothing from many threads at once: a
crowd of them only takes turns with the event loop, which then answers every other request late.
So that work runs in a bounded set of threads of its own (`Threads.computing()`), as many as the
machine has cores less the one the event loop needs, at least one; more capacity comes from more
server processes (`oracle serve --workers N`). Waiting is not computing: key lookups and key
writes (a database round trip) have threads of their own (`Threads.waiting()`), and file reads
keep the framework's default ones, so a queue of computations never delays them.
"""

from __future__ import annotations

import os

import anyio.to_thread

WAITING_THREADS = 16


class Threads:
    """A bounded set of worker threads; its limit is made inside the event loop, where anyio can."""

    def __init__(self, threads: int):
        self.threads, self._limiter = threads, None

    @classmethod
    def computing(cls) -> Threads:
        return cls(max(1, (os.cpu_count() or 1) - 1))

    @classmethod
    def waiting(cls) -> Threads:
        return cls(WAITING_THREADS)

    async def run(self, function, *args):
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(function, *args, limiter=self._limiter)
