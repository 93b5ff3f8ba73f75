"""The problem answers each `/v1` operation can give, written into the OpenAPI document.

Every `/v1` request passes access control, so every operation can answer 401 (a key presented
but unknown or revoked) and 429 (over the limit, with Retry-After); every one that reads the
snapshot can answer 503 before the first snapshot. Operations with parameters or a body answer
400 for invalid input, those with a body 413 for an oversize one, and those that name a model
404 for a model nobody calls by that name. All are RFC 9457 problem details
(`application/problem+json`). Handlers keep any response they document themselves.
"""

from __future__ import annotations

import msgspec
from litestar.handlers import HTTPRouteHandler
from litestar.openapi import ResponseSpec

from serve.problems import MEDIA_TYPE


class FieldError(msgspec.Struct):
    field: str
    message: str


class ProblemDetails(msgspec.Struct, kw_only=True):
    """RFC 9457 problem details as serve.problems writes them (some problems add fields)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    error: str
    errors: list[FieldError] | None = None


def problem(description: str) -> ResponseSpec:
    return ResponseSpec(data_container=ProblemDetails, media_type=MEDIA_TYPE, description=description,
                        generate_examples=False)


DESCRIPTIONS = {
    400: "Invalid input (code invalid_input, with `errors` [{field, message}]) or an unreadable body "
         "(code malformed_request).",
    401: "The API key presented is unknown or revoked (code invalid_key), or an operation on a key was "
         "called without one (code missing_key).",
    404: "No model is called that (code unknown_model, with `suggestions`), or the model has no price in "
         "the mode asked for (no_batch_price, no_price).",
    413: "The body is larger than the server accepts.",
    429: "Over the hourly limit of the tier or address (code rate_limited), with Retry-After.",
    503: "No snapshot has been published yet.",
}
# The operations that take a model's name (in the path, the query or the body) and answer 404 when
# no model answers to it (a comparison lists such a name among those it left out instead).
NAME_A_MODEL = {"/v1/spots/{ticker:path}", "/v1/greeks/{ticker:path}", "/v1/forwards/{ticker:path}",
                "/v1/history/{ticker:path}", "/v1/monte-carlo/{ticker:path}", "/v1/events", "/v1/disputes",
                "/v1/scheduled", "/v1/models/{ticker:path}", "/v1/price", "/v1/providers", "/v1/swap",
                "/v1/simulate", "/v1/backtest", "/v1/events/stream"}
NAME_A_TABLE = {"/v1/export/{table:str}", "/v1/webhooks/{webhook_id:str}"}
NEED_NO_SNAPSHOT = {"/v1/keys", "/v1/keys/usage", "/v1/webhooks", "/v1/webhooks/{webhook_id:str}"}
HANDLER_ARGUMENTS = {"request", "data"}


def statuses_of(handler: HTTPRouteHandler) -> set[int]:
    path = sorted(handler.paths)[0]
    takes_body = bool({"POST", "PUT", "PATCH"} & set(handler.http_methods))
    takes_parameters = bool(set(handler.parsed_fn_signature.parameters) - HANDLER_ARGUMENTS)
    may_answer = {503: path not in NEED_NO_SNAPSHOT, 400: takes_body or takes_parameters, 413: takes_body,
                  404: path in NAME_A_MODEL or path in NAME_A_TABLE}
    return {401, 429} | {status for status, answered in may_answer.items() if answered}


def document_problems(handlers: list[HTTPRouteHandler]) -> None:
    """Add the problem answers of every `/v1` operation to its handler's documented responses."""
    for handler in handlers:
        if not any(path.startswith("/v1") for path in handler.paths):
            continue
        documented = dict(handler.responses or {})
        for status in sorted(statuses_of(handler)):
            documented.setdefault(status, problem(DESCRIPTIONS[status]))
        handler.responses = documented
