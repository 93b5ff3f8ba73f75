"""Worker threads: computing apart from waiting.

Python runs one thread's bytecode at a time, so work that computes for milliseconds (ranking
every model, a Monte Carlo run, a budget simulation) gains nothing from many threads at once: a
crowd of them only takes turns with the event loop, which then answers every other request late
(measured: a forward curve's p99 went past a second beside 32 connections of comparisons). So
that work runs in threads of its own (`Threads.computing()`), as many as the machine has cores
less the one the event loop needs, at least one, and the interpreter hands the loop its turn
within a millisecond rather than Python's default five. Waiting is not computing: key lookups
and key writes (a database round trip) have threads of their own (`Threads.waiting()`), and
file reads keep the framework's default ones, so a queue of computations never delays them.
"""

from __future__ import annotations

import os
import sys

import anyio.to_thread

from serve.cores import free_this_thread

WAITING_THREADS = 16
SWITCH_INTERVAL_SECONDS = 0.001  # how long a computing thread may hold the interpreter before the loop's turn


def computing_threads() -> int:
    return max(1, (os.cpu_count() or 1) - 1)


def hand_the_loop_its_turn() -> None:
    """At start-up: a computing thread yields the interpreter to the loop within a millisecond."""
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)


class Threads:
    """A bounded set of worker threads; its limit is made inside the event loop, where anyio can."""

    def __init__(self, threads: int):
        self.threads, self._limiter = threads, None

    @classmethod
    def computing(cls) -> Threads:
        return cls(computing_threads())

    @classmethod
    def waiting(cls) -> Threads:
        return cls(WAITING_THREADS)

    async def run(self, function, *args):
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        return await anyio.to_thread.run_sync(_anywhere, function, *args, limiter=self._limiter)


def _anywhere(function, *args):
    """`function` in a thread free of the loop's core, where the loop is pinned (serve/cores.py)."""
    free_this_thread()
    return function(*args)
