"""Errors as RFC 9457 problem details, in one place.

Every error body has `type`, `title`, `status`, `detail`, a stable `code`, `error` (the same
text as `detail`, which clients of the original oracle read) and, for invalid input, `errors`
[{field, message}]. Handlers raise `Problem`; Litestar's own exceptions (validation, malformed
JSON, unknown path, wrong method, oversize body) are mapped here too. Anything else is a bug:
it is logged with its trace and answered with a plain 500 that reveals nothing internal.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

LOG = logging.getLogger("oracle.serve")
MEDIA_TYPE = "application/problem+json"
TITLES = {400: "Invalid input", 401: "Unauthorized", 404: "Not found", 405: "Method not allowed",
          408: "Request timeout", 409: "Conflict", 413: "Request body too large", 415: "Unsupported media type",
          429: "Too many requests", 503: "Service unavailable"}
CODES = {404: "not_found", 405: "method_not_allowed", 413: "payload_too_large", 429: "rate_limited",
         503: "unavailable"}


class Problem(Exception):
    def __init__(self, status: int, code: str, detail: str, errors: list[dict[str, str]] | None = None,
                 headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail
        self.errors, self.headers, self.extra = errors, headers or {}, extra


def no_snapshot() -> Problem:
    """A 503 before the first snapshot is published: the one wording every caller gives."""
    return Problem(503, "no_snapshot", "no snapshot has been published yet; run `oracle refresh` and retry",
                   headers={"Retry-After": "60"})


def invalid(field: str, message: str) -> Problem:
    """A 400 about one field of the request."""
    return Problem(400, "invalid_input", f"{field}: {message}", errors=[{"field": field, "message": message}])


def problem_body(problem: Problem) -> dict[str, Any]:
    """The RFC 9457 body of a problem: the one place its fields are named."""
    return {
        "type": f"/problems/{problem.code}",
        "title": TITLES.get(problem.status, "Error"),
        "status": problem.status,
        "detail": problem.detail,
        "code": problem.code,
        "error": problem.detail,
        **({} if problem.errors is None else {"errors": problem.errors}),
        **problem.extra,
    }


def problem_response(problem: Problem) -> Response:
    return Response(problem_body(problem), status_code=problem.status, media_type=MEDIA_TYPE,
                    headers=problem.headers)


# Litestar's parser messages, said in the API's own words where they are cryptic.
FRIENDLIER = {
    "Invalid RFC3339 encoded date": "expected a date as YYYY-MM-DD",
    "Invalid RFC3339 encoded datetime": "expected a timestamp in ISO 8601 form",
    "'data'": "the request needs a JSON object body",
}


def _field_error(error: dict[str, Any]) -> dict[str, str]:
    """One of Litestar's validation errors as {field, message}, in the API's own words."""
    key, message = str(error.get("key") or "body"), str(error.get("message", "invalid"))
    return {"field": "body" if key == "data" else key.removesuffix("_"), "message": FRIENDLIER.get(message, message)}


def handle(request: Request, exc: Exception) -> Response:
    if isinstance(exc, Problem):
        return problem_response(exc)
    if isinstance(exc, ValidationException):
        errors = ([_field_error(e) for e in exc.extra or [] if isinstance(e, dict)]
                  or [{"field": "body", "message": exc.detail}])
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return problem_response(Problem(400, "invalid_input", detail, errors))
    if isinstance(exc, HTTPException):
        status = exc.status_code
        if status == 400:  # Litestar's malformed-JSON and similar body errors
            return problem_response(Problem(400, "malformed_request", f"the request could not be read: {exc.detail}",
                                            [{"field": "body", "message": str(exc.detail)}]))
        detail = {404: f"no resource at {request.url.path}; see / for the endpoints",
                  405: f"{request.method} is not allowed on {request.url.path}",
                  413: "the request body is larger than the server accepts"}.get(status, str(exc.detail))
        where = {"path": request.url.path} if status == 404 else {}  # the original oracle's context member
        return problem_response(Problem(status, CODES.get(status, "http_error"), detail, headers=exc.headers,
                                        **where))
    LOG.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem_response(internal_error())


def internal_error() -> Problem:
    """What a client hears of a bug: nothing internal (the trace is logged)."""
    return Problem(500, "internal_error", "the server failed to answer; the failure is logged")


async def send_problem(send, problem: Problem, headers: list[tuple[bytes, bytes]] = ()) -> None:
    """Answer with problem details straight from ASGI middleware, where no handler runs."""
    body = json.dumps(problem_body(problem)).encode()
    raw = [(b"content-type", MEDIA_TYPE.encode()), (b"content-length", str(len(body)).encode()), *headers]
    await send({"type": "http.response.start", "status": problem.status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
