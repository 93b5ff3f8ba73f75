"""Worker threads: computing apart from waiting.

Python runs one thread's bytecode at a time, so work that computes for milliseconds (ranking
every model, a Monte Carlo run, a budget simulation) gains nothing from many threads at once: a
crowd of them only takes turns with the event loop, which then answers every other request late
(measured: a forward curve's p99 went past a second beside 32 connections of comparisons). So
the framework's own worker threads, which run that work (`sync_to_thread` handlers and
`anyio.to_thread.run_sync` without a limiter), are as many as the machine has cores less the one
the event loop needs, at least one. Waiting on a database is not computing: key lookups and key
writes have threads of their own (`STORE_THREADS`), so a queue of computations never delays them.
"""

from __future__ import annotations

import os
import sys

import anyio.to_thread

STORE_THREADS = 16
SWITCH_INTERVAL_SECONDS = 0.001  # how long a computing thread may hold the interpreter before the loop's turn


def compute_threads() -> int:
    return max(1, (os.cpu_count() or 1) - 1)


def size_worker_threads() -> None:
    """At start-up, inside the event loop: the default worker threads, sized for computing; and
    the loop's turn at the interpreter within a millisecond rather than Python's default five."""
    anyio.to_thread.current_default_thread_limiter().total_tokens = compute_threads()
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


class StoreThreads:
    """Threads for calls that wait on a store (a database round trip), apart from the computing ones."""

    def __init__(self, threads: int = STORE_THREADS):
        self.threads, self._limiter = threads, None

    async def run(self, function, *args):
        if self._limiter is None:  # made inside the event loop, where anyio can make it
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(function, *args, limiter=self._limiter)
