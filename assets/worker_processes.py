"""An ordered map shared between this process and others, for a refresh's long independent steps.

A refresh runs its steps one after another in one process (`assets.definitions`), so on a machine
of several cores all but one sit idle. The backtest's anchors are independent of each other and
took about a quarter of a large universe's refresh: `ordered_map` computes every `workers + 1`-th
item here and hands the others to `workers` processes of their own, a few items ahead, and yields
the results in order, so no more than a few are held at once.

The function is sent to each worker once, when it starts, with everything it reads (pickled), so
each worker holds a copy: memory grows by the function's data per worker. The workers are started
afresh ("spawn"), never forked from a process whose other threads may hold locks; so, as with any
spawned process, a worker imports the script that started the refresh, and a script must guard
what it runs (`if __name__ == "__main__"`), as `oracle`, `dagster` and the benchmarks do. A worker
that fails fails the map, with its error.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

_function: Callable[[Any], Any] | None = None  # in a worker: what it computes


def _install(function: Callable[[Any], Any]) -> None:
    global _function
    _function = function


def _call(item: Any) -> Any:
    return _function(item)


def spare_cores() -> int:
    """The cores this process may use, less its own."""
    return max(len(os.sched_getaffinity(0)) - 1, 0) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1) - 1


def ordered_map(function: Callable[[Any], Any], items: Iterable[Any], workers: int) -> Iterator[Any]:
    """`map(function, items)`, computed here and in `workers` other processes; with no workers,
    the built-in map."""
    items = list(items)
    if workers < 1 or len(items) < 2:
        yield from map(function, items)
        return
    turn = workers + 1  # of each `turn` items in a row, the first is computed here
    ahead = 2 * turn  # items handed out before they are needed: each worker has the next one ready
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_install, initargs=(function,)) as pool:
        handed: dict[int, Future] = {}
        next_handed = 0
        for index, item in enumerate(items):
            while next_handed < min(index + ahead, len(items)):
                if next_handed % turn:
                    handed[next_handed] = pool.submit(_call, items[next_handed])
                next_handed += 1
            yield handed.pop(index).result() if index % turn else function(item)
