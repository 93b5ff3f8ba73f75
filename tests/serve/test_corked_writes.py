"""A connection's writes joined (serve/http_protocol.py `Corked`), and an answer's envelope sent
as one piece made once per second of age (serve/answers.py `body`)."""

import asyncio
import gzip
from datetime import UTC, datetime
from types import SimpleNamespace

from serve.answers import Answer, body
from serve.http_protocol import JOIN_BYTES, Corked


class Transport:
    """What asyncio's socket transport does with writes, recorded."""

    def __init__(self):
        self.calls: list[list[bytes]] = []  # each write's bytes: one system call apiece
        self.closing = False

    def write(self, data: bytes) -> None:
        self.calls.append([data])

    def writelines(self, parts: list[bytes]) -> None:  # uvloop's: one gathering write
        self.calls.append(list(parts))

    @property
    def writes(self) -> list[bytes]:
        """What each system call sent, whole."""
        return [b"".join(parts) for parts in self.calls]

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str):
        return ("127.0.0.1", 5) if name == "peername" else None


def _corked() -> tuple[Corked, Transport, asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    transport = Transport()
    return Corked(transport, loop), transport, loop


def _next_turn(loop: asyncio.AbstractEventLoop) -> None:
    loop.run_until_complete(asyncio.sleep(0))


def test_short_writes_leave_as_one_when_the_answer_is_complete():
    corked, transport, loop = _corked()
    corked.write(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n")
    corked.write(b"")  # an empty body part writes nothing
    corked.write(b"hello")
    assert transport.writes == []  # held
    corked.flush()  # the protocol's, when the answer is complete
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello"]
    _next_turn(loop)  # the flush due at the next turn finds nothing left
    assert len(transport.writes) == 1
    loop.close()


def test_what_is_still_held_leaves_at_the_loops_next_turn():
    corked, transport, loop = _corked()
    corked.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
    corked.write(b"5\r\nfirst\r\n")  # an event stream's first part, with more to come later
    _next_turn(loop)
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nfirst\r\n"]
    corked.write(b"6\r\nsecond\r\n")
    _next_turn(loop)
    assert transport.writes[1:] == [b"6\r\nsecond\r\n"]
    loop.close()


def test_a_long_write_leaves_with_what_is_held_in_one_call_and_is_not_copied():
    corked, transport, loop = _corked()
    head, long = b"HTTP/1.1 200 OK\r\n\r\n", b"x" * (JOIN_BYTES + 1)
    corked.write(head)
    corked.write(long)
    corked.write(b"tail")
    corked.flush()
    assert transport.calls == [[head, long], [b"tail"]]  # in order; the head and the body in one call
    assert transport.calls[0][1] is long
    corked.write(long)  # nothing held: the long write alone
    assert transport.calls[2] == [long] and transport.calls[2][0] is long
    loop.close()


def test_writes_joined_up_to_the_bound_and_not_past_it():
    corked, transport, loop = _corked()
    first, second = b"a" * (JOIN_BYTES - 10), b"b" * 10
    corked.write(first)
    corked.write(second)  # exactly the bound: joined
    corked.write(b"c")  # past it: what is held goes first, with it, not joined into it
    corked.flush()
    assert transport.calls == [[first + second, b"c"]]
    loop.close()


def test_closing_sends_what_is_held_first_and_a_gone_client_gets_nothing_more():
    corked, transport, loop = _corked()
    corked.write(b"bye")
    corked.close()
    assert transport.writes == [b"bye"] and transport.closing
    corked.write(b"late")
    corked.flush()
    assert transport.writes == [b"bye"]  # the transport is closing: dropped, never raised
    assert corked.get_extra_info("peername") == ("127.0.0.1", 5)  # the rest is the transport's own
    loop.close()


def _snapshot(last_update: datetime):
    return SimpleNamespace(last_update=last_update)


def test_an_envelope_is_made_once_per_second_of_age_and_encoding():
    published = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
    snapshot, now = _snapshot(published), published.timestamp() + 7.2
    answer = Answer('"t"', b'{"x":' + b"1," * 1000 + b'2}', b'"2026-11-22T06:00:00Z"', "public")
    first = body(snapshot, answer, None, now)
    envelope = b'{"data":' + answer.data + b',"oracle_timestamp":"2026-11-22T06:00:00Z","cache_age_seconds":'
    assert first == envelope + b"7}"
    assert first.startswith(b'{"data":{"x":1,') and first.endswith(b'"cache_age_seconds":7}')
    assert body(snapshot, answer, None, now + 0.5) is first  # the same second: the same bytes, not remade
    later = body(snapshot, answer, None, now + 1)
    assert later == envelope + b"8}"
    zipped = body(snapshot, answer, "gzip", now + 1)
    assert gzip.decompress(zipped) == later  # each encoding keeps its own
    assert body(snapshot, answer, "gzip", now + 1.3) is zipped
    assert body(snapshot, answer, None, now + 1.3) is later
