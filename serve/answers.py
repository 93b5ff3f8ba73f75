"""Snapshot answers, encoded once per snapshot and sent again without running their handler.

A snapshot GET's `data` depends only on the snapshot, the path and the query (its ETag already
says so), so the first answer's encoded `data` is kept with the snapshot, keyed by the raw path
and query string, on a shelf bounded in bytes (`AnswerShelf`, `Settings.kept_answer_bytes`). A
repeat of the same request, under the same snapshot, is answered from there by the app's
`before_request` hook (`kept_answer`), inside the framework and behind the same middleware as
every request (access control counts and limits it): same bytes, same headers, with the
envelope's `cache_age_seconds` written afresh. A new snapshot starts with nothing kept, and a
request the handler would refuse is never kept (only answers made by `respond.snapshot_response`
are).

An answer of `compression.MIN_BYTES` or more is sent compressed to a client that accepts it
(`Accept-Encoding`: brotli or gzip), from a stream compressed once per answer and encoding
(`compression.Stream`). Each encoding is its own representation with its own strong ETag (the
answer's tag with `-br` or `-gzip` inside the quotes), and `Vary: Accept-Encoding` says so to
caches. If-None-Match is compared weakly, as RFC 9110 §13.1.2 asks: `W/` is ignored, `*`
matches, and a tag of any encoding of the same answer matches, since the data is the same.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

import anyio.to_thread
from litestar import Request, Response
from litestar.response.base import ASGIResponse

from serve.compression import BEST, ENCODINGS, MIN_BYTES, Stream, accepted_encoding
from serve.state import LoadedSnapshot

MEDIA_TYPE = "application/json"
COMPRESS_OFF_LOOP_BYTES = 64 * 1024  # a first compression this large runs in a worker thread


@dataclass(frozen=True)
class Answer:
    etag: str
    data: bytes  # the envelope's `data`, encoded
    stamp: bytes  # its `oracle_timestamp`, encoded
    cache_control: str
    streams: dict[str, Stream] = field(default_factory=dict, compare=False)  # by encoding, made when asked
    level: tuple[int, int] = BEST  # how hard they are compressed
    beside: bytes = b""  # fields after the timestamp, encoded with their leading comma (a list's `total`, `next`)
    # By (encoding, not modified), (the age's tail, the response) as last made (`reply`): one more
    # copy of the answer per encoding asked, remade when the age moves on.
    responses: dict[tuple[str | None, bool], tuple[bytes, KeptResponse]] = field(default_factory=dict,
                                                                                  compare=False)

    @property
    def cost(self) -> int:
        """The bytes this answer may come to hold: its data, the envelope sent plain, and for each
        encoding a compressed form and its aged copy (each at most the data's size)."""
        return len(self.data) * (2 + (2 * len(ENCODINGS) if self.compressible else 0))

    @property
    def compressible(self) -> bool:
        return len(self.data) >= MIN_BYTES

    def encoding_for(self, accepted: str | None) -> str | None:
        """The encoding this answer is sent in, for the one a client accepts: none when it is too
        short to gain from one."""
        return accepted if accepted is not None and self.compressible else None

    def envelope(self, age: bytes = b"") -> bytes:
        """The envelope up to its age, and `age` (the age's value and closing brace) after it, in
        one copy."""
        return b"".join([b'{"data":', self.data, b',"oracle_timestamp":', self.stamp, self.beside,
                         b',"cache_age_seconds":', age])

    def stream(self, encoding: str) -> Stream:
        made = self.streams.get(encoding)
        if made is None:  # two requests racing here both compress; either result is the same
            made = self.streams[encoding] = Stream.of(encoding, self.envelope(), self.level)
        return made


def answer_key(scope: dict) -> tuple[str, bytes]:
    return scope["path"], scope.get("query_string", b"")


class AnswerShelf:
    """Answers kept for one snapshot, at most `budget` bytes and `most` of them; past either, the
    answer used least recently goes first. Each answer is charged `Answer.cost`, what it may come to
    hold (its encoded data, and the envelope and compressed forms made from it as it is sent), so
    the memory a snapshot's answers take is bounded whatever clients ask for. The count is bounded
    too: tens of thousands of small answers kept would make each of the interpreter's full garbage
    collections a pause of tens of milliseconds."""

    def __init__(self, budget: int, most: int = 2048):
        self.budget, self.most, self.size = budget, most, 0
        self._kept: OrderedDict[Hashable, Answer] = OrderedDict()
        self._lock = threading.Lock()  # handlers may run in worker threads

    def get(self, key: Hashable) -> Answer | None:
        with self._lock:
            answer = self._kept.get(key)
            if answer is not None:
                self._kept.move_to_end(key)
            return answer

    def keep(self, key: Hashable, answer: Answer) -> None:
        cost = answer.cost
        if cost > self.budget:
            return  # larger than the whole shelf: made again when asked
        with self._lock:
            replaced = self._kept.pop(key, None)
            if replaced is not None:
                self.size -= replaced.cost
            while self._kept and (self.size + cost > self.budget or len(self._kept) >= self.most):
                self.size -= self._kept.popitem(last=False)[1].cost
            self._kept[key] = answer
            self.size += cost

    def __len__(self) -> int:
        return len(self._kept)


SHELF = "answers"  # its key in the snapshot's cache


def shelf_of(snapshot: LoadedSnapshot, budget: int, key: Hashable = SHELF) -> AnswerShelf:
    """The snapshot's shelf kept under `key` in its cache, made on first use."""
    shelf = snapshot.cache.get(key)
    if shelf is None:  # two threads racing here each make one; the last assignment is kept
        shelf = snapshot.cache[key] = AnswerShelf(budget)
    return shelf


def age_tail(snapshot: LoadedSnapshot) -> bytes:
    """The envelope's last field's value and its closing brace, as of now."""
    return str(snapshot.age_seconds()).encode() + b"}"


def body(answer: Answer, encoding: str | None, tail: bytes) -> bytes:
    """The success envelope of contract §8 ending in `tail` (its age), in one piece: joined in one
    copy, or the compressed stream finished (compressed in `encoding`, where given)."""
    return answer.envelope(tail) if encoding is None else answer.stream(encoding).finish(tail)


def tagged(etag: str, encoding: str | None) -> str:
    """The ETag of one encoding of an answer: `"abc"` becomes `"abc-gzip"`."""
    return etag if encoding is None else f'{etag[:-1]}-{encoding}"'


def matches(if_none_match: str, etag: str) -> bool:
    """Whether If-None-Match names this answer, in any of its encodings (weak comparison)."""
    if not if_none_match:  # most requests send none
        return False
    known = {etag, *(tagged(etag, encoding) for encoding in ("gzip", "br"))}
    return any(tag == "*" or tag.removeprefix("W/") in known
               for tag in (part.strip() for part in if_none_match.split(",")))


@dataclass(frozen=True, slots=True)
class Asked:
    """What a request's headers ask of a kept answer: an encoding it accepts, and the tags it has."""

    encoding: str | None
    if_none_match: str

    @classmethod
    def of(cls, scope: dict) -> Asked:
        """Read in one pass over the headers (the first of each, as `header` reads them)."""
        accept = if_none_match = None
        for key, value in scope.get("headers", []):
            key = key.lower()
            if key == b"accept-encoding" and accept is None:
                accept = value.decode("latin-1")
            elif key == b"if-none-match" and if_none_match is None:
                if_none_match = value.decode("latin-1")
        return cls(accepted_encoding(accept or ""), if_none_match or "")


class KeptResponse(Response):
    """A kept answer as the framework's response class: made once per encoding, status and second
    of age (`reply`), its ASGI response built then and handed as it is to every request that asks
    for the same, since nothing in it depends on the request (the rate-limit headers are added as
    it is sent). A HEAD request gets the same head without the body."""

    def __init__(self, status: int, headers: list[tuple[str, str]], content: bytes):
        super().__init__(content=None)
        self.head = (status, headers)
        self.made = ASGIResponse(status_code=status, headers=headers, body=content)

    def to_asgi_response(self, app, request, **kwargs) -> ASGIResponse:
        if request.method != "HEAD":
            return self.made
        status, headers = self.head
        return ASGIResponse(status_code=status, headers=headers, is_head_response=True)


def reply(snapshot: LoadedSnapshot, answer: Answer, asked: Asked) -> KeptResponse:
    """A kept answer for this request: 304 when the client has it, else the envelope in the
    encoding the client accepts. A snapshot answer carries its ETag and Cache-Control; a computed
    one (a POST's) has neither."""
    encoding = answer.encoding_for(asked.encoding)
    not_modified = bool(answer.etag) and matches(asked.if_none_match, answer.etag)
    tail = age_tail(snapshot)
    made = answer.responses.get((encoding, not_modified))
    if made is None or made[0] != tail:  # one assignment: a thread reading sees either
        made = answer.responses[encoding, not_modified] = (tail, _made(answer, encoding, not_modified, tail))
    return made[1]


def _made(answer: Answer, encoding: str | None, not_modified: bool, tail: bytes) -> KeptResponse:
    headers = [("etag", tagged(answer.etag, encoding)), ("cache-control", answer.cache_control)] if answer.etag else []
    if answer.compressible:
        headers.append(("vary", "Accept-Encoding"))
    if not_modified:
        return KeptResponse(304, headers, b"")
    if encoding is not None:
        headers.append(("content-encoding", encoding))
    content = body(answer, encoding, tail)
    return KeptResponse(200, [*headers, ("content-type", MEDIA_TYPE), ("content-length", str(len(content)))], content)


async def kept_answer(request: Request) -> Response | None:
    """The app's `before_request` hook: a snapshot GET whose answer is kept for the current
    snapshot is answered from the shelf, inside its route, after access control and before its
    handler's parameters are read (the answer was kept for these exact path and query bytes, which
    its handler accepted). Anything else goes on to the handler."""
    if request.method not in ("GET", "HEAD"):
        return None
    snapshot = request.app.state.snapshots.current()
    shelf = snapshot.cache.get(SHELF) if snapshot is not None else None
    answer = shelf.get(answer_key(request.scope)) if shelf is not None else None
    if answer is None:
        return None
    asked = Asked.of(request.scope)
    encoding = answer.encoding_for(asked.encoding)
    if encoding is not None and encoding not in answer.streams and \
            len(answer.data) >= COMPRESS_OFF_LOOP_BYTES:  # tens of milliseconds, once
        await anyio.to_thread.run_sync(answer.stream, encoding)
    return reply(snapshot, answer, asked)
