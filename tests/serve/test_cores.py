"""Which core the event loop and each compute worker run on (serve/cores.py)."""

import os
import threading

import pytest

from serve import cores
from serve.cores import CorePlan, free_this_thread, pin_this_thread


@pytest.mark.parametrize(("workers", "usable", "loop", "theirs"), [
    (1, [0, 1], 0, (1,)),
    (1, [0, 1, 2, 3], 0, (1,)),  # more cores than needed: the rest stay free
    (3, [0, 1, 2, 3], 0, (1, 2, 3)),
    (1, [5, 2], 2, (5,)),  # a container's share: its own cores, in order
    (0, [0], 0, ()),  # no workers: the loop alone
])
def test_the_loop_takes_the_first_usable_core_and_each_worker_one_of_the_next(workers, usable, loop, theirs):
    plan = CorePlan.of(workers, usable)
    assert (plan.loop, plan.workers, plan.usable) == (loop, theirs, frozenset(usable))


@pytest.mark.parametrize(("workers", "usable"), [(1, [0]), (2, [0, 1]), (1, [])])
def test_with_too_few_cores_nothing_is_pinned(workers, usable):
    assert CorePlan.of(workers, usable) == CorePlan(None, (None,) * workers, frozenset())


needs_two = pytest.mark.skipif(len(cores.usable_cores()) < 2, reason="pinning is seen only with two cores or more")


@needs_two
def test_a_computing_thread_started_by_a_pinned_loop_runs_on_any_usable_core(monkeypatch):
    usable = frozenset(cores.usable_cores())
    monkeypatch.setattr(cores, "USABLE", usable)
    seen = {}

    def started_by_the_pinned_loop():
        pin_this_thread(min(usable))  # as a thread started by the loop's thread begins
        seen["before"] = os.sched_getaffinity(0)
        free_this_thread()
        seen["after"] = os.sched_getaffinity(0)

    thread = threading.Thread(target=started_by_the_pinned_loop)
    thread.start()
    thread.join()
    assert seen == {"before": {min(usable)}, "after": set(usable)}


def test_an_unpinned_loop_leaves_its_threads_alone(monkeypatch):
    monkeypatch.setattr(cores, "USABLE", frozenset())
    before = os.sched_getaffinity(0)
    free_this_thread()
    assert os.sched_getaffinity(0) == before
