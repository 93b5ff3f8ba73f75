"""Several server processes behind one limit: two `oracle serve` processes share PostgreSQL for
keys and Redis for counters, as two workers or two machines behind a load balancer would."""

import os
import signal
from pathlib import Path

import httpx
import pytest

from tests.servers import start_server

pytestmark = pytest.mark.slow  # real `oracle serve` processes, PostgreSQL and Redis

FREE_LIMIT = 60


def test_two_server_processes_share_one_free_limit_and_one_key_store(built_warehouse, tmp_path, postgres_url,
                                                                     redis_url):
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    shared = {"key_store_url": postgres_url, "counter_store_url": redis_url,
              "free_requests_per_hour": str(FREE_LIMIT)}
    servers = [start_server(built_warehouse, tmp_path / f"data{i}", **shared) for i in range(2)]
    try:
        (_, first), (_, second) = servers
        # A key made through one process (counted apart from the free tier) ...
        made = httpx.post(f"{first}/v1/keys", json={"name": "shared"}, timeout=10)
        assert made.status_code == 201, made.text
        key = made.json()["data"]["key"]
        remaining = []
        for i in range(FREE_LIMIT):
            answer = httpx.get(f"{(second, first)[i % 2]}/v1/spots/O3", timeout=10)
            assert answer.status_code == 200, answer.text
            remaining.append(int(answer.headers["ratelimit-remaining"]))
        assert remaining == list(range(FREE_LIMIT - 1, -1, -1))  # one count across both processes
        for base in (first, second):
            over = httpx.get(f"{base}/v1/spots/O3", timeout=10)
            assert over.status_code == 429 and int(over.headers["retry-after"]) > 0
        # ... is known to the other at once, with its own tier's limit.
        used = httpx.get(f"{second}/v1/spots/O3", headers={"X-API-Key": key}, timeout=10)
        assert used.status_code == 200 and used.headers["ratelimit-limit"] == "1000"
        usage = httpx.get(f"{first}/v1/keys/usage", headers={"X-API-Key": key}, timeout=10).json()["data"]
        assert usage["window"]["requests"] == 2  # the usage call itself is the second request
    finally:
        for process, _ in servers:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def test_two_workers_of_one_server_share_one_free_limit_through_redis(built_warehouse, tmp_path, redis_url):
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    process, base = start_server(built_warehouse, tmp_path / "data", "--workers", "2",
                                 counter_store_url=redis_url, free_requests_per_hour=str(FREE_LIMIT))
    try:
        workers = _children(process.pid)
        assert len(workers) >= 2, workers  # uvicorn's supervisor runs (at least) the two workers
        answers = [httpx.get(f"{base}/v1/spots/O3", timeout=10) for _ in range(FREE_LIMIT + 1)]
        assert [a.status_code for a in answers] == [200] * FREE_LIMIT + [429]
        assert [int(a.headers["ratelimit-remaining"]) for a in answers[:-1]] == list(range(FREE_LIMIT - 1, -1, -1))
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
