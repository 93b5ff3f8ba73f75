"""Computed JSON answers sent straight from the request's bytes, for the busiest POST endpoints.

A POST handler in the framework pays for its generic machinery on every request: the headers
parsed into a mapping, the body read as a stream, converted into the handler's signature, and the
answer wrapped in a response object (measured: about half the time of a `/v1/price` answer). For
an endpoint marked `direct(RequestType, compute)`, this middleware does the same job in a few
steps: read the body (within the size limit), decode it once in msgspec's strict mode (a number
sent as a string is an error, never a guess), compute, encode. Problems raised on the way reach
the app's exception handler like any handler's, so errors look the same.

The framework's handler stays the operation's declaration (its body type and answer shape feed
the OpenAPI document) and, through `answer`, runs the same functions where this middleware is
not installed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from litestar import Request, Response

from serve.problems import Problem, invalid
from serve.respond import computed_envelope
from serve.state import LoadedSnapshot, SnapshotState

DIRECT = "direct_json"  # the key of a route handler's `opt` that marks it
_ERROR_PATH = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
JSON_HEADERS = [(b"content-type", b"application/json")]


@dataclass(frozen=True)
class Direct:
    request_type: type[msgspec.Struct]
    compute: Callable[[LoadedSnapshot, Any], Any]  # (snapshot, decoded body) -> the envelope's data


def direct(request_type: type[msgspec.Struct], compute: Callable[[LoadedSnapshot, Any], Any]) -> dict[str, Direct]:
    """The `opt` of a route handler answered by this middleware."""
    return {DIRECT: Direct(request_type, compute)}


def decode_strictly(raw: bytes, kind: type[msgspec.Struct]) -> Any:
    """The body in msgspec's strict mode; its errors as the 400s of contract §7."""
    try:  # no body at all reads as null: "expected an object" says more than "truncated"
        return msgspec.json.decode(raw or b"null", type=kind)
    except msgspec.ValidationError as error:
        match = _ERROR_PATH.match(str(error))
        raise invalid((match["path"] or "").lstrip(".") or "body", match["message"]) from None
    except msgspec.DecodeError as error:
        raise Problem(400, "malformed_request", f"the request could not be read: {error}",
                      [{"field": "body", "message": str(error)}]) from None


def answer(snapshot: LoadedSnapshot | None, spec: Direct, raw: bytes) -> bytes:
    """The encoded success envelope for a raw body: the one path both ways of serving share."""
    if snapshot is None:
        raise Problem(503, "no_snapshot", "no snapshot has been published yet; run `oracle refresh` and retry",
                      headers={"Retry-After": "60"})
    body = decode_strictly(raw, spec.request_type)
    return msgspec.json.encode(computed_envelope(snapshot, spec.compute(snapshot, body)))


async def handler_answer(request: Request) -> Response:
    """What a marked handler returns when this middleware is not installed."""
    spec: Direct = request.route_handler.opt[DIRECT]
    raw = await request.body()
    return Response(answer(request.app.state.snapshots.current(), spec, raw), media_type="application/json")


async def read_body(receive, limit: int) -> bytes:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Problem(400, "malformed_request", "the client closed the connection before sending the body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Problem(413, "payload_too_large", "the request body is larger than the server accepts")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class DirectAnswers:
    """Middleware: answers the routes marked `direct`; passes every other request on."""

    def __init__(self, app, snapshots: SnapshotState, max_body_bytes: int):
        self.app, self.snapshots, self.max_body_bytes = app, snapshots, max_body_bytes

    async def __call__(self, scope, receive, send) -> None:
        handler = scope.get("route_handler")
        spec = handler.opt.get(DIRECT) if scope["type"] == "http" and handler is not None else None
        if spec is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        raw = await read_body(receive, self.max_body_bytes)
        body = answer(self.snapshots.current(), spec, raw)
        await send({"type": "http.response.start", "status": 200,
                    "headers": [*JSON_HEADERS, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
