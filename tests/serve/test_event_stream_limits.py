"""Event streams are bounded: per client address and in all (429 and 503, with Retry-After), each
for a maximum life, after which it ends with an `end` event that resumes; heartbeats while quiet;
a stream's place is given back however it ends, collected unstarted included."""

import asyncio
import gc
import time

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.event_stream import StreamSlots, held_while_streaming, stream_slots
from serve.problems import Problem
from tests.serve.conftest import api_settings

LIFE, BEAT = 0.6, 0.15


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _refusal(slots: StreamSlots, address: str) -> Problem:
    with pytest.raises(Problem) as refused:
        slots.take(address)
    return refused.value


def test_the_caps_per_address_and_in_all_refuse_saying_when_to_retry():
    clock = Clock()
    slots = StreamSlots(per_address=2, total=3, life_seconds=600, clock=clock)
    first = slots.take("10.0.0.1")
    clock.now += 100
    slots.take("10.0.0.1")
    too_many = _refusal(slots, "10.0.0.1")
    assert (too_many.status, too_many.code, too_many.headers["Retry-After"]) == (429, "too_many_streams", "500")
    assert "retry after 500 s" in too_many.detail and too_many.extra["limit"] == 2
    slots.take("10.0.0.2")  # another address is not held to the first's cap
    full = _refusal(slots, "10.0.0.3")
    assert (full.status, full.code, full.headers["Retry-After"]) == (503, "streams_full", "30")
    first.release()
    first.release()  # twice gives back one place, not two
    assert slots.open_count() == 2 and slots.open_count("10.0.0.1") == 1
    slots.take("10.0.0.3")
    assert _refusal(slots, "10.0.0.4").status == 503


def test_a_stream_collected_unstarted_gives_its_place_back():
    slots = StreamSlots(per_address=1, total=10, life_seconds=60)

    async def never_sent():
        yield b"x"

    body = held_while_streaming(never_sent(), slots.take("10.0.0.1"))
    assert slots.open_count() == 1
    del body
    gc.collect()
    assert slots.open_count() == 0


def test_a_stream_that_ends_or_fails_gives_its_place_back():
    slots = StreamSlots(per_address=1, total=10, life_seconds=60)

    async def failing():
        yield b"x"
        raise ConnectionResetError

    async def read(body):
        return [message async for message in body]

    assert asyncio.run(read(held_while_streaming(_one(b"x"), slots.take("a")))) == [b"x"]
    assert slots.open_count() == 0
    with pytest.raises(ConnectionResetError):
        asyncio.run(read(held_while_streaming(failing(), slots.take("a"))))
    assert slots.open_count() == 0


async def _one(message: bytes):
    yield message


@pytest.fixture(scope="module")
def short_lived(built_warehouse):
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=24 * 365 * 100,
                                  stream_max_life_seconds=LIFE, stream_heartbeat_seconds=BEAT,
                                  stream_max_per_address=1, stream_max_total=2))
    with TestClient(app) as client:
        yield client


def _slots_of(client) -> StreamSlots:
    return stream_slots(client.app.state, client.app.state.settings)


@pytest.mark.slow  # waits out a stream's beats and life
def test_a_stream_beats_while_quiet_and_ends_at_its_life_with_an_id_to_resume_from(short_lived):
    started = time.monotonic()
    response = short_lived.get("/v1/events/stream", timeout=10)
    took = time.monotonic() - started
    assert response.status_code == 200 and LIFE <= took < LIFE + 2
    messages = response.text.split("\n\n")
    assert messages[0] == "retry: 5000" and messages.count(": keepalive") >= 2
    end = dict(line.split(": ", 1) for line in messages[-2].splitlines())
    assert end["event"] == "end" and end["id"].endswith(":") and "maximum life of 0.6 s" in end["data"]
    resumed = short_lived.get("/v1/events/stream", headers={"Last-Event-ID": end["id"]}, timeout=10)
    assert "reset" not in resumed.text  # the id names a snapshot still kept: the next stream resumes
    assert _slots_of(short_lived).open_count() == 0


@pytest.mark.slow  # opens streams up to both caps
def test_the_handler_refuses_beyond_the_caps(short_lived):
    slots = _slots_of(short_lived)
    mine = slots.take("testclient")  # the test client's address, as access control decides it
    refused = short_lived.get("/v1/events/stream")
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_streams"
    assert int(refused.headers["Retry-After"]) >= 1 and "close one" in refused.json()["detail"]
    mine.release()
    others = [slots.take("10.9.9.8"), slots.take("10.9.9.9")]
    full = short_lived.get("/v1/events/stream")
    assert full.status_code == 503 and full.json()["code"] == "streams_full" and full.headers["Retry-After"]
    others[0].release()
    assert short_lived.get("/v1/events/stream", timeout=10).status_code == 200
    others[1].release()
