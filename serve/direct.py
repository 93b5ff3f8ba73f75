"""Request bodies decoded strictly, query parameters checked, and computed answers kept.

Every POST body is JSON (else 415) and is decoded in msgspec's strict mode: a number sent as a
string is an error, never a guess. An endpoint marked `direct(RequestType, compute)` is answered
by its handler through `handler_answer`: the raw body, renamed from the original oracle's field
names and decoded once (by `StrictBodies`, which leaves both in the scope), is computed (in a
worker thread when `offload`), and the encoded answer kept per snapshot and raw body (`_memo`),
so a repeat (a dashboard's preset, a client's polling) is not computed again. The other POST
endpoints are marked `strict(RequestType)`. `StrictBodies` checks the body of both the same way
before the framework decodes it for the handler (the framework's own decoding is lenient), and
sends its refusal itself, through the middleware around it, so the access log and the
rate-limit headers see it as the 4xx it is.

`check_query` (from the app's `before_request` hook, after a kept answer was looked for) refuses a
query parameter its endpoint does not read, and an integer not written in digits.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

import msgspec
from litestar import Request, Response

from serve.answers import Answer, AnswerShelf, Asked, reply, shelf_of
from serve.compression import FAST, accepted_encoding
from serve.original_names import with_our_names
from serve.problems import Problem, invalid, no_snapshot, send_problem
from serve.respond import computed_envelope
from serve.state import LoadedSnapshot

DIRECT = "direct_json"  # the key of a route handler's `opt` that marks it
STRICT = "strict_body"  # the key of a framework handler's `opt` naming its body type, checked first
DECODED = "oracle_body"  # the scope's entry of a checked body: (its raw bytes, renamed; it decoded)
_ERROR_PATH = re.compile(r"^(?P<message>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
JSON_HEADERS = [(b"content-type", b"application/json")]


@dataclass(frozen=True)
class Direct:
    request_type: type[msgspec.Struct]
    compute: Callable[[LoadedSnapshot, Any], Any]  # (snapshot, decoded body) -> the envelope's data
    # Computed in a worker thread: an answer that takes milliseconds (ranking every model) would
    # otherwise hold the event loop, and every other request with it, for that long.
    offload: bool = False


def direct(request_type: type[msgspec.Struct], compute: Callable[[LoadedSnapshot, Any], Any],
           offload: bool = False) -> dict[str, Any]:
    """The `opt` and middleware of a route handler answered by `handler_answer`."""
    return {"opt": {DIRECT: Direct(request_type, compute, offload)}, "middleware": [StrictBodies]}


def strict(request_type: type[msgspec.Struct]) -> dict[str, Any]:
    """The `opt` and middleware of a framework handler whose body `StrictBodies` decodes strictly
    before the handler runs (the framework's own decoding is lenient: it would take "100" for 100)."""
    return {"opt": {STRICT: request_type}, "middleware": [StrictBodies]}


def require_json(headers) -> None:
    """A body is JSON: a Content-Type other than application/json (or a +json type) is a 415.
    No Content-Type at all is read as JSON."""
    for name, value in headers:
        if name.lower() == b"content-type":
            media = value.split(b";", 1)[0].strip().lower().decode("latin-1")
            if media != "application/json" and not media.endswith("+json"):
                raise Problem(415, "unsupported_media_type", "the body must be JSON, sent with "
                              f"Content-Type: application/json (got {media or 'none'})")
            return


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


MEMO_BYTES = 16 * 1024 * 1024  # per endpoint and snapshot


def _memo(snapshot: LoadedSnapshot, spec: Direct) -> AnswerShelf:
    """The answers of one endpoint under one snapshot, by raw body: an answer depends only on the
    two, so a repeat (a dashboard's preset, a client's polling) is sent without computing anything."""
    return shelf_of(snapshot, MEMO_BYTES, ("direct", id(spec)))  # a handler's spec lives as long as the app


def answer(snapshot: LoadedSnapshot | None, spec: Direct, raw: bytes, body: Any, encoding: str | None = None) -> Answer:
    """The encoded parts of the success envelope for a raw body, `body` once decoded
    (`serve.answers.Answer`, with no caching headers: a POST answer is not cached by clients),
    compressed already for `encoding`."""
    if snapshot is None:
        raise no_snapshot()
    memo = _memo(snapshot, spec)
    made = memo.get(raw)
    if made is None:
        envelope = computed_envelope(snapshot, spec.compute(snapshot, body))
        made = Answer("", msgspec.json.encode(envelope["data"]), msgspec.json.encode(envelope["oracle_timestamp"]),
                      "", level=FAST)
        memo.keep(raw, made)
    if made.encoding_for(encoding) is not None:
        made.stream(encoding)
    return made


async def handler_answer(request: Request) -> Response:
    """The answer of a handler marked `direct`: its body checked and renamed, then `answer`, in
    a worker thread when the endpoint is marked `offload` and the answer is not kept already."""
    spec: Direct = request.route_handler.opt[DIRECT]
    raw, body = request.scope[DECODED]  # checked, renamed and decoded already (`StrictBodies`)
    encoding = accepted_encoding(request.headers.get("accept-encoding", ""))
    snapshot = request.app.state.snapshots.current()
    if spec.offload and snapshot is not None and _memo(snapshot, spec).get(raw) is None:
        made = await request.app.state.computing.run(answer, snapshot, spec, raw, body, encoding)
    else:
        made = answer(snapshot, spec, raw, body, encoding)
    return reply(snapshot, made, Asked(encoding, ""))


async def read_body(receive, limit: int, seconds: float = float("inf")) -> bytes:
    """The whole body, at most `limit` bytes of it, within `seconds` (a client that trickles its
    body in holds a connection and a buffer for no longer)."""
    try:  # asyncio's own timer: the server runs on asyncio, and anyio's cancel scope cost more than the read
        async with asyncio.timeout(seconds if seconds != float("inf") else None):
            return await _read_whole(receive, limit)
    except TimeoutError:
        raise Problem(408, "body_timeout", f"the request body did not arrive within {seconds:g} s; "
                      "send it whole, at once") from None


async def _read_whole(receive, limit: int) -> bytes:
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


_WHOLE_NUMBER = re.compile(r"-?\d{1,19}")  # every 64-bit integer; the parameter's own bounds say the rest
# Where a handler keeps what `_queries` worked out: on the handler itself (its `opt`), not in a
# table keyed by id(), which a handler of an app since collected may have held (tests make many apps).
_QUERIES = "oracle_queries"
_PATH_PARAMETER = re.compile(r"{([^}]+)}")
_RESERVED = frozenset({"request", "socket", "headers", "cookies", "query", "state", "scope", "data", "body"})


def _queries(handler) -> tuple[frozenset[str], frozenset[str]]:
    """(the query parameters a handler reads, its dependencies' included; those of them that are
    integers), worked out once per handler."""
    known = handler.opt.get(_QUERIES)
    if known is None:
        dependencies = handler.resolve_dependencies()
        path_names = {part.split(":")[0] for path in handler.paths for part in _PATH_PARAMETER.findall(path)}
        declared, integers = set(), set()
        for signature in (handler.parsed_fn_signature, *(p.parsed_fn_signature for p in dependencies.values())):
            for name, field in signature.parameters.items():
                definition = field.kwarg_definition
                if name in _RESERVED or name in path_names or name in dependencies or \
                        getattr(definition, "header", None) or getattr(definition, "cookie", None):
                    continue
                query = getattr(definition, "query", None) or name
                declared.add(query)
                types = [inner.annotation for inner in field.inner_types] if field.inner_types else [field.annotation]
                if int in types:
                    integers.add(query)
        known = handler.opt[_QUERIES] = (frozenset(declared), frozenset(integers))
    return known


def check_query(scope, handler) -> None:
    """Every query parameter of a `/v1` request is one its endpoint reads (a misspelt filter would
    otherwise be ignored, and the answer look like the one asked for), and an integer is written
    in digits: the framework would read `1e5` as 100000 and `100.0` as 100, a guess where the
    client should hear what it sent wrong."""
    if not scope.get("query_string") or not scope["path"].startswith("/v1"):
        return
    declared, integers = _queries(handler)
    for name, value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
        if name not in declared:
            accepted = f"it takes {', '.join(sorted(declared))}" if declared else "it takes no query parameters"
            problem = invalid(name, f"'{name}' is not a query parameter of {scope['method']} {scope['path']}; "
                                    f"{accepted}")
            problem.extra["allowed"] = sorted(declared)
            raise problem
        if name in integers and not _WHOLE_NUMBER.fullmatch(value):
            raise invalid(name, f"must be a whole number written in digits, got '{value[:40]}'")


def _replay(raw: bytes, receive):
    """`receive` for an app after the body was read here: the body once, then the connection's own."""
    pending = [{"type": "http.request", "body": raw, "more_body": False}]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


def _body_type(scope) -> type[msgspec.Struct] | None:
    """The body type of a POST marked `strict` or `direct`."""
    handler = scope.get("route_handler")
    if scope["type"] != "http" or scope["method"] != "POST" or handler is None:
        return None
    spec = handler.opt.get(DIRECT)
    return spec.request_type if spec is not None else handler.opt.get(STRICT)


class StrictBodies:
    """Middleware of the handlers marked `strict` or `direct` (no other request passes through it):
    the body of such a POST is JSON, read within the app's limits on its size and time, renamed
    from the original oracle's names and decoded strictly before the handler reads it; a body
    refused here is answered here, with its problem, through the middleware around this one."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        checked = _body_type(scope)
        if checked is None:
            await self.app(scope, receive, send)
            return
        settings = scope["litestar_app"].state.settings
        try:
            require_json(scope.get("headers", []))
            raw = with_our_names(await read_body(receive, settings.max_body_bytes, settings.body_timeout_seconds),
                                 checked)
            scope[DECODED] = (raw, decode_strictly(raw, checked))
        except Problem as refused:
            await send_problem(send, refused)
            return
        await self.app(scope, _replay(raw, receive), send)
