"""Event streams against a real `oracle serve`: beyond the per-address cap a stream is a 429 while
`/health` still answers; a stream that ends gives its place back; heartbeats arrive while nothing
is published; a stream ends at its maximum life with an `end` event. Every stream read here is
bounded by a read timeout and a deadline."""

from __future__ import annotations

import contextlib
import time

import httpx
import pytest

from tests.e2e.conftest import stop_server
from tests.servers import start_server

pytestmark = pytest.mark.slow
PER_ADDRESS, LIFE, BEAT = 2, 4.0, 0.4
TIMEOUT = httpx.Timeout(5, read=10)


@pytest.fixture(scope="module")
def base(built_warehouse, tmp_path_factory):
    process, url = start_server(built_warehouse, tmp_path_factory.mktemp("stream-data"),
                                stream_max_per_address=str(PER_ADDRESS), stream_max_life_seconds=str(LIFE),
                                stream_heartbeat_seconds=str(BEAT))
    yield url
    stop_server(process)


@contextlib.contextmanager
def opened(client: httpx.Client, base: str):
    """A stream, open once its first line (`retry:`) has arrived, closed on leaving."""
    with client.stream("GET", f"{base}/v1/events/stream") as response:
        assert response.status_code == 200
        lines = response.iter_lines()
        assert next(lines) == "retry: 5000"
        yield lines


def _lines_until(lines, deadline: float) -> list[str]:
    """The stream's lines until it ends or `deadline` (time.monotonic) passes."""
    read = []
    for line in lines:
        read.append(line)
        if time.monotonic() > deadline:
            break
    return read


def _accepted_within(base: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    with httpx.Client(timeout=TIMEOUT) as client:
        while time.monotonic() < deadline:
            with client.stream("GET", f"{base}/v1/events/stream") as response:
                if response.status_code == 200:
                    return True
            time.sleep(0.1)
    return False


def test_streams_beyond_the_address_cap_are_429_and_health_still_answers(base):
    with httpx.Client(timeout=TIMEOUT) as client, opened(client, base), opened(client, base):
        refused = client.get(f"{base}/v1/events/stream")
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_streams"
        assert 1 <= int(refused.headers["Retry-After"]) <= LIFE
        assert client.get(f"{base}/health").status_code == 200
    # Both clients gone: their places are given back (well before the streams' life would end).
    assert _accepted_within(base, LIFE / 2)


def test_heartbeats_arrive_while_nothing_is_published(base):
    with httpx.Client(timeout=TIMEOUT) as client, opened(client, base) as lines:
        read = _lines_until(lines, time.monotonic() + 4 * BEAT)
    assert read.count(": keepalive") >= 2


def test_a_stream_ends_at_its_maximum_life_with_an_end_event(base):
    started = time.monotonic()
    with httpx.Client(timeout=TIMEOUT) as client, opened(client, base) as lines:
        read = _lines_until(lines, started + LIFE + 10)
    took = time.monotonic() - started
    assert LIFE - 0.5 <= took < LIFE + 5  # ended by the server, not by the deadline
    end = read[read.index("event: end") - 1:]
    assert end[0].startswith("id: ") and end[0].endswith(":") and "maximum life of 4 s" in end[2]
