"""Comparisons computed in worker processes (serve/compute_pool.py) are the same bytes as those
computed in the server's own process; a refusal comes back whole; a worker that serves another
snapshot, or has died, leaves the answer to the server."""

import asyncio
import os
import signal
from datetime import timedelta

import msgspec
import pytest
from litestar.testing import TestClient

from serve.api import pricing
from serve.app import create_app
from serve.compute_pool import ComputePool
from serve.direct import DIRECT, answer
from serve.problems import Problem
from serve.state import SnapshotState
from tests.serve.conftest import api_settings

pytestmark = pytest.mark.slow  # worker processes of its own

COMPARE = {"n_in": 30000.5, "n_out": 800, "eta": 0.6}
FOREVER = timedelta(days=36500)  # never stale here


@pytest.fixture(scope="module")
def pool(built_warehouse):
    made = ComputePool(str(built_warehouse), 1)
    asyncio.run(made.started())
    yield made
    made.close()


def _current(warehouse):
    return SnapshotState(str(warehouse), FOREVER).current()


def _ask(pool, snapshot_id, body):
    return asyncio.run(pool.answer(snapshot_id, "/v1/compare", msgspec.json.encode(body), "br"))


def test_a_workers_answer_is_the_servers_answer(pool, built_warehouse):
    snapshot = _current(built_warehouse)
    here = answer(snapshot, pricing.compare.opt[DIRECT], msgspec.json.encode(COMPARE))
    there = _ask(pool, snapshot.snapshot_id, COMPARE)
    assert there.data == here.data and there.stamp == here.stamp and len(there.data) > 5_000
    assert "br" in there.streams  # compressed in the worker for the encoding asked


def test_a_refusal_comes_back_whole(pool, built_warehouse):
    snapshot_id = _current(built_warehouse).snapshot_id
    with pytest.raises(Problem) as refused:
        _ask(pool, snapshot_id, {**COMPARE, "models": ["O3.B"]})  # a batch ticker in a sync comparison
    assert (refused.value.status, refused.value.code) == (400, "invalid_input")
    assert "O3.B" in refused.value.detail and refused.value.errors[0]["field"] == "models"


def test_another_snapshot_or_a_dead_worker_leaves_the_answer_to_the_server(pool, built_warehouse):
    snapshot_id = _current(built_warehouse).snapshot_id
    assert _ask(pool, "20000101T000000000000Z-00000000", COMPARE) is None
    for worker in pool.workers:
        os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.join(timeout=10)
    assert _ask(pool, snapshot_id, COMPARE) is None  # the worker has gone: a new one is started
    asyncio.run(pool.started())
    assert _ask(pool, snapshot_id, COMPARE).data  # and it answers


def test_the_server_with_worker_processes_answers_as_without(built_warehouse):
    answers = []
    for processes in (1, 0):
        settings = api_settings(warehouse=str(built_warehouse), stale_after_hours=1e6, compute_processes=processes)
        with TestClient(create_app(settings)) as client:
            response = client.post("/v1/compare", json=COMPARE, headers={"Accept-Encoding": "gzip"})
            assert response.status_code == 200 and response.headers["content-encoding"] == "gzip"
            body = response.json()
            body.pop("cache_age_seconds")
            answers.append(body)
    assert answers[0] == answers[1]
