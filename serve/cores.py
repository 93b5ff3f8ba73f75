"""Which core a server process's event loop and each of its compute workers run on.

Under load the event loop and each compute worker (serve/compute_pool.py) keep a core busy. Left
to the scheduler they move between cores, and the load's other processes with them, each move
costing the caches they had filled: measured on two cores, with comparisons and a forward curve
at 32 connections each, a comparison that takes 1.2 ms alone took 2.0 ms in the worker. With
the loop's thread on one core and the worker on the other, comparisons went from 445–496 to
514–573 a second and their p99 from 100–102 ms to 79–100 ms, the curve's unchanged.

So `oracle serve` (one server process: `--workers 1`) pins its loop's thread to the first core
it may use and its workers each to one of the next, when it may use a core for each
(`ORACLE_PIN_CORES`, 1 by default; 0 leaves them to the scheduler). Several server processes on
one machine (`--workers N`) are not pinned: their loops would share one core. Threads the loop
starts to compute (serve/threads.py) are freed to run on any core the process may use, as they
would without pinning, since a thread starts on its creator's cores.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class CorePlan:
    loop: int | None  # the core of the loop's thread; None: not pinned
    workers: tuple[int | None, ...]  # the core of each compute worker
    usable: frozenset[int]  # every core the process may use, for the threads it starts

    @classmethod
    def unpinned(cls, workers: int) -> CorePlan:
        return cls(None, (None,) * workers, frozenset())

    @classmethod
    def of(cls, workers: int, usable: list[int] | None = None) -> CorePlan:
        """The loop on the first usable core, each worker on one of the next; unpinned when
        there are fewer usable cores than the loop and its workers."""
        usable = sorted(usable if usable is not None else usable_cores())
        if not usable or len(usable) < workers + 1:
            return cls.unpinned(workers)
        return cls(usable[0], tuple(usable[1:workers + 1]), frozenset(usable))


def usable_cores() -> list[int]:
    """The cores this process may run on (a container's share, where it has one)."""
    return sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []


def pin_this_thread(core: int | None) -> None:
    if core is not None:
        os.sched_setaffinity(0, {core})  # 0: the calling thread, on Linux


_freed = threading.local()
USABLE: frozenset[int] = frozenset()  # set when the loop is pinned: where its computing threads may run


def pin_the_loop(plan: CorePlan) -> None:
    """From the loop's thread, at start-up."""
    global USABLE
    if plan.loop is not None:
        USABLE = plan.usable
        pin_this_thread(plan.loop)


def free_this_thread() -> None:
    """A computing thread started by a pinned loop runs on any usable core (once per thread)."""
    if USABLE and not getattr(_freed, "done", False):
        os.sched_setaffinity(0, USABLE)
        _freed.done = True
