"""Snapshot answers, encoded once per snapshot and sent again without running their handler.

A snapshot GET's `data` depends only on the snapshot, the path and the query (its ETag already
says so), so the first answer's encoded `data` is kept with the snapshot, keyed by the raw path
and query string. A repeat of the same request, under the same snapshot, is answered from here:
same bytes, same headers, with the envelope's `cache_age_seconds` written afresh. A new snapshot
starts with nothing kept, and a request the handler would refuse is never kept (only answers
made by `respond.snapshot_response` are). Access control runs before this, so a repeat is
counted and limited like any request.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from serve.state import LoadedSnapshot, SnapshotState

ANSWERS_KEPT = 2048  # per snapshot; beyond that the memo starts over
MEDIA_TYPE = b"application/json"


@dataclass(frozen=True)
class Answer:
    etag: str
    data: bytes  # the envelope's `data`, encoded
    stamp: bytes  # its `oracle_timestamp`, encoded
    cache_control: str


def answer_key(scope: dict) -> tuple[str, bytes]:
    return scope["path"], scope.get("query_string", b"")


def remembered(snapshot: LoadedSnapshot, scope: dict) -> Answer | None:
    return snapshot.cache.get("answers", {}).get(answer_key(scope))


def remember(snapshot: LoadedSnapshot, scope: dict, answer: Answer) -> None:
    kept = snapshot.cache.setdefault("answers", {})
    if len(kept) >= ANSWERS_KEPT:
        kept.clear()
    kept[answer_key(scope)] = answer


def envelope_bytes(snapshot: LoadedSnapshot, answer: Answer, now: float | None = None) -> bytes:
    """The success envelope of contract §8 around the answer's encoded parts, aged as of now."""
    age = max(0, int((time.time() if now is None else now) - snapshot.last_update.timestamp()))
    return b"".join([b'{"data":', answer.data, b',"oracle_timestamp":', answer.stamp, b',"cache_age_seconds":',
                     str(age).encode(), b"}"])


def matches(if_none_match: str, etag: str) -> bool:
    return etag in [tag.strip() for tag in if_none_match.split(",")]


class AnswerCache:
    """Middleware: a GET whose answer is kept for the current snapshot is sent from memory."""

    def __init__(self, app, snapshots: SnapshotState):
        self.app, self.snapshots = app, snapshots

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http" and scope["method"] == "GET":
            snapshot = self.snapshots.current()
            answer = remembered(snapshot, scope) if snapshot is not None else None
            if answer is not None:
                await _send(send, snapshot, answer, _if_none_match(scope))
                return
        await self.app(scope, receive, send)


def _if_none_match(scope: dict) -> str:
    for name, value in scope.get("headers", []):
        if name.lower() == b"if-none-match":
            return value.decode("latin-1")
    return ""


async def _send(send, snapshot: LoadedSnapshot, answer: Answer, if_none_match: str) -> None:
    headers = [(b"etag", answer.etag.encode()), (b"cache-control", answer.cache_control.encode())]
    if if_none_match and matches(if_none_match, answer.etag):
        await send({"type": "http.response.start", "status": 304, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    body = envelope_bytes(snapshot, answer)
    headers += [(b"content-type", MEDIA_TYPE), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
