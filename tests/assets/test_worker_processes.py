"""`ordered_map`: the built-in map's results, in order, computed here and in worker processes."""

import os

import pytest

from assets.worker_processes import ordered_map, spare_cores

pytestmark = pytest.mark.slow  # starts worker processes


def square_and_where(n: int) -> tuple[int, int]:
    """n², and the process that computed it."""
    return n * n, os.getpid()


def refuse_seven(n: int) -> int:
    if n == 7:
        raise ValueError("seven is refused")
    return n


@pytest.mark.parametrize("workers", [1, 2])
def test_the_results_come_in_order_and_the_workers_compute_the_rest(workers):
    results = list(ordered_map(square_and_where, range(20), workers))
    assert [value for value, _ in results] == [n * n for n in range(20)]
    here = [n for n, (_, pid) in enumerate(results) if pid == os.getpid()]
    assert here == list(range(0, 20, workers + 1))  # every (workers + 1)-th item is computed here
    assert 1 <= len({pid for _, pid in results} - {os.getpid()}) <= workers


def test_without_workers_it_is_the_built_in_map():
    results = list(ordered_map(square_and_where, range(5), 0))
    assert results == [(n * n, os.getpid()) for n in range(5)]


def test_a_workers_error_is_the_maps():
    with pytest.raises(ValueError, match="seven is refused"):
        list(ordered_map(refuse_seven, range(10), 1))  # 7 is odd: the worker's


def test_spare_cores_leaves_this_process_its_own():
    assert spare_cores() == len(os.sched_getaffinity(0)) - 1
