"""Snapshot answers, encoded once per snapshot and sent again without running their handler.

A snapshot GET's `data` depends only on the snapshot, the path and the query (its ETag already
says so), so the first answer's encoded `data` is kept with the snapshot, keyed by the raw path
and query string. A repeat of the same request, under the same snapshot, is answered from here:
same bytes, same headers, with the envelope's `cache_age_seconds` written afresh. A new snapshot
starts with nothing kept, and a request the handler would refuse is never kept (only answers
made by `respond.snapshot_response` are). Access control runs before this, so a repeat is
counted and limited like any request.

An answer of `compression.MIN_BYTES` or more is sent compressed to a client that accepts it
(`Accept-Encoding`: brotli or gzip), from a stream compressed once per answer and encoding
(`compression.Stream`). Each encoding is its own representation with its own strong ETag (the
answer's tag with `-br` or `-gzip` inside the quotes), and `Vary: Accept-Encoding` says so to
caches. If-None-Match is compared weakly, as RFC 9110 §13.1.2 asks: `W/` is ignored, `*`
matches, and a tag of any encoding of the same answer matches, since the data is the same.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import anyio.to_thread

from serve.compression import BEST, MIN_BYTES, Stream, accepted_encoding
from serve.problems import LOG, internal_error, send_problem
from serve.state import LoadedSnapshot, SnapshotState

ANSWERS_KEPT = 2048  # per snapshot; beyond that the memo starts over
MEDIA_TYPE = b"application/json"
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
    # By encoding, (the age's tail, the whole envelope) as last sent: one more copy of the answer
    # per encoding asked, remade when the age moves on (`body`).
    aged: dict[str | None, tuple[bytes, bytes]] = field(default_factory=dict, compare=False)
    route_handler: object = field(default=None, compare=False)  # a snapshot GET's, for `KeptAnswers`

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


def remembered(snapshot: LoadedSnapshot, scope: dict) -> Answer | None:
    return snapshot.cache.get("answers", {}).get(answer_key(scope))


def remember(snapshot: LoadedSnapshot, scope: dict, answer: Answer) -> None:
    kept = snapshot.cache.setdefault("answers", {})
    if len(kept) >= ANSWERS_KEPT:
        kept.clear()
    kept[answer_key(scope)] = answer


def age_tail(snapshot: LoadedSnapshot, now: float | None = None) -> bytes:
    """The envelope's last field's value and its closing brace, as of now."""
    age = max(0, int((time.time() if now is None else now) - snapshot.last_update.timestamp()))
    return str(age).encode() + b"}"


def body(snapshot: LoadedSnapshot, answer: Answer, encoding: str | None, now: float | None = None) -> bytes:
    """The success envelope of contract §8 as sent, aged as of now, in one piece (compressed in
    `encoding`, where given). The age changes once a second, so the piece is made (the envelope
    joined with its age in one copy, or the compressed stream finished) once per second of age and
    encoding, and every request within that second sends the same bytes: one write to the socket,
    where head and tail apart were two (each a system call that wakes the client)."""
    tail = age_tail(snapshot, now)
    made = answer.aged.get(encoding)
    if made is None or made[0] != tail:
        whole = answer.envelope(tail) if encoding is None else answer.stream(encoding).finish(tail)
        made = answer.aged[encoding] = (tail, whole)  # one assignment: a thread reading sees either
    return made[1]


async def send_whole(send, status: int, headers: list[tuple[bytes, bytes]], content: bytes) -> None:
    """A response of one body part, its length given; a 304 has none and gives none (RFC 9110
    §8.6: a length there would have to be the 200's)."""
    if status != 304:
        headers = [*headers, (b"content-length", str(len(content)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


def tagged(etag: str, encoding: str | None) -> str:
    """The ETag of one encoding of an answer: `"abc"` becomes `"abc-gzip"`."""
    return etag if encoding is None else f'{etag[:-1]}-{encoding}"'


def matches(if_none_match: str, etag: str) -> bool:
    """Whether If-None-Match names this answer, in any of its encodings (weak comparison)."""
    known = {etag, *(tagged(etag, encoding) for encoding in ("gzip", "br"))}
    for tag in if_none_match.split(","):
        tag = tag.strip()
        if tag == "*" or tag.removeprefix("W/") in known:
            return True
    return False


def header(scope: dict, name: bytes) -> str:
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return value.decode("latin-1")
    return ""


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


def reply(snapshot: LoadedSnapshot, answer: Answer, asked: Asked) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """(status, headers but its length, body) of a kept answer for this request: 304 when
    the client has it, else the envelope in the encoding the client accepts."""
    encoding = answer.encoding_for(asked.encoding)
    headers = [(b"etag", tagged(answer.etag, encoding).encode()), (b"cache-control", answer.cache_control.encode())]
    if answer.compressible:
        headers.append((b"vary", b"Accept-Encoding"))
    if matches(asked.if_none_match, answer.etag):
        return 304, headers, b""
    if encoding is not None:
        headers.append((b"content-encoding", encoding.encode()))
    return 200, [*headers, (b"content-type", MEDIA_TYPE)], body(snapshot, answer, encoding)


async def send_kept(snapshot: LoadedSnapshot, answer: Answer, scope: dict, send) -> None:
    """A kept answer as this request asks for it (`reply`)."""
    asked = Asked.of(scope)
    encoding = answer.encoding_for(asked.encoding)
    if encoding is not None and encoding not in answer.streams and \
            len(answer.data) >= COMPRESS_OFF_LOOP_BYTES:  # tens of milliseconds, once
        await anyio.to_thread.run_sync(answer.stream, encoding)
    await send_whole(send, *reply(snapshot, answer, asked))


def kept_answer(snapshots: SnapshotState, scope: dict) -> tuple[LoadedSnapshot, Answer] | None:
    if scope["type"] != "http" or scope["method"] != "GET":
        return None
    snapshot = snapshots.current()
    answer = remembered(snapshot, scope) if snapshot is not None else None
    return None if answer is None else (snapshot, answer)


class AnswerCache:
    """Middleware: a GET whose answer is kept for the current snapshot is sent from memory."""

    def __init__(self, app, snapshots: SnapshotState):
        self.app, self.snapshots = app, snapshots

    async def __call__(self, scope, receive, send) -> None:
        found = kept_answer(self.snapshots, scope)
        if found is None:
            await self.app(scope, receive, send)
        else:
            await send_kept(*found, scope, send)


FOUND_SCOPE_KEY = "oracle_kept_answer"  # (snapshot, answer) found by `KeptAnswers`, until it is sent


class KeptAnswers:
    """Outermost, in front of the framework: a GET whose answer is kept for the current snapshot
    goes to `guarded` (the access log and access control, made as every route's, around
    `send_found`), past the framework's routing and its exception and CORS layers (measured in
    process, a kept forward curve: 24.5 µs a request through them, 17.6 µs here, and 15.4 µs for
    a bare framework handler answering the same bytes). Every other request goes on to the
    framework, and so does one that carries an `Origin` when CORS is on, since the framework adds
    CORS's headers.

    The answer keeps its route's handler, so access control counts the request under its
    endpoint as before. A failure before the answer starts (a counter store that cannot be
    reached) is logged and answered with the same 500 problem as the framework's."""

    def __init__(self, app, guarded, snapshots: SnapshotState, cors: bool):
        self.app, self.guarded, self.snapshots, self.cors = app, guarded, snapshots, cors

    async def __call__(self, scope, receive, send) -> None:
        found = kept_answer(self.snapshots, scope)
        if found is None or found[1].route_handler is None or (self.cors and header(scope, b"origin")):
            await self.app(scope, receive, send)
            return
        scope["route_handler"], scope[FOUND_SCOPE_KEY] = found[1].route_handler, found
        try:
            await self.guarded(scope, receive, send)
        except Exception:
            if FOUND_SCOPE_KEY not in scope:  # the answer had begun: there is no other to send
                raise
            LOG.exception("unhandled error on GET %s", scope["path"])
            await send_problem(send, internal_error())


async def send_found(scope, receive, send) -> None:
    """The innermost of `KeptAnswers`' chain: the answer it found."""
    await send_kept(*scope.pop(FOUND_SCOPE_KEY), scope, send)
