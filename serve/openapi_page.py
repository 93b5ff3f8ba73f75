"""The OpenAPI document as a client generator needs it, and `/schema` as a page with no script.

The framework writes each operation from its handler; `finish` adds, once, what only the whole
service knows: the two ways to present a key (security schemes `apiKey`, the X-API-Key header,
and `bearer`; a key is optional except on the key endpoints), the headers every `/v1` answer
carries (RateLimit-* and X-RateLimit-*; ETag, Cache-Control and a 304 on the snapshot GETs;
Retry-After on a 429), operation ids named after their handlers (`listSpots`), and an example
request for every operation. `/schema` is an HTML page made on the server from the same
document: every operation, its parameters and example, readable with no script from anywhere.
"""

from __future__ import annotations

import html
import json
from typing import Any

from litestar import Request
from litestar.enums import MediaType, OpenAPIMediaType
from litestar.openapi.plugins import OpenAPIRenderPlugin

API_KEY, BEARER = "apiKey", "bearer"
SECURITY_SCHEMES = {
    API_KEY: {"type": "apiKey", "in": "header", "name": "X-API-Key",
              "description": "A key from POST /v1/keys. Without one, a client address has the free tier's limit."},
    BEARER: {"type": "http", "scheme": "bearer", "description": "The same key as `Authorization: Bearer <key>`."},
}
# Operations on the key presented (usage, revocation, its webhooks): a key is required.
KEY_REQUIRED = {"/v1/keys/usage", "/v1/keys", "/v1/webhooks", "/v1/webhooks/{webhook_id}"}
UNCACHED = {"/v1/export/{table}", "/v1/events/stream"}  # GETs answered afresh each time: no ETag, no 304
# Answers that are not JSON: the framework documents a streamed answer as JSON, so say what it is.
NOT_JSON = {
    "/v1/export/{table}": {"application/vnd.apache.parquet": {"schema": {"type": "string", "format": "binary"}},
                           "text/csv": {"schema": {"type": "string"}}},
    "/v1/events/stream": {"text/event-stream": {"schema": {  # one event (OpenAPI 3.1 has no itemSchema)
        "type": "object", "description": "One server-sent event: a price event, or a reset (read /v1/events).",
        "properties": {"event": {"type": "string", "enum": ["price_event", "reset"]},
                       "data": {"type": "string", "description": "The event as /v1/events gives it, as JSON; for a "
                                                                 "reset, its reason"},
                       "id": {"type": "string", "description": "<snapshot id>:<event id>, for Last-Event-ID"},
                       "retry": {"type": "integer", "description": "Milliseconds to wait before reconnecting"}}}}},
}
RATE_HEADERS = {
    "RateLimit-Limit": "Requests allowed in the hourly window.",
    "RateLimit-Remaining": "Requests left in the window.",
    "RateLimit-Reset": "Seconds until the window resets.",
    "X-RateLimit-Limit": "The same limit, as the original oracle named it.",
    "X-RateLimit-Remaining": "The same remainder, as the original oracle named it.",
    "X-RateLimit-Reset": "When the window resets, in seconds since the epoch.",
}
CACHE_HEADERS = {"ETag": "The answer's tag; send it as If-None-Match to get a 304 while it is current.",
                 "Cache-Control": "How long a cache may keep the answer."}
# An example request per operation that takes a body (the ones without take their parameters' examples).
BODY_EXAMPLES = {
    "/v1/price": {"model": "SONNET-4", "n_in": 30000, "n_out": 800, "eta": 0.6, "horizon_months": 3},
    "/v1/compare": {"n_in": 2000, "n_out": 500, "eta": 0.2, "models": ["SONNET-4", "GPT-4O", "O3"]},
    "/v1/providers": {"model": "GPT-OSS-120B", "n_in": 2000, "n_out": 500},
    "/v1/swap": {"model": "SONNET-4", "taskType": "coding", "tenor": "3M", "notionalTokens": 5000000,
                 "fixedRate": 40},
    "/v1/simulate": {"items": [{"model": "O3", "taskType": "reasoning", "requests_per_month": 100000}],
                     "horizon_months": 3, "paths": 2000, "seed": 1},
    "/v1/keys": {"name": "budget team"},
    "/v1/webhooks": {"url": "https://example.com/oracle-events", "ticker": "SONNET-4", "kind": "price_cut"},
}
PARAMETER_EXAMPLES = {"ticker": "SONNET-4", "table": "spots", "mode": "sync", "since": "2025-06-01", "limit": 20,
                      "from": "2025-06-01", "to": "2025-06-30", "as_known": "2025-06-30", "offset": 0, "q": "sonnet",
                      "provider": "anthropic", "tier": "frontier", "status": "active", "modality": "text",
                      "fields": "beta_sync,input_sync", "kind": "price_cut", "type": "unified", "date": "2025-08-01",
                      "format": "csv", "taskCategory": "coding", "horizonMonths": 3, "paths": 2000, "seed": 1,
                      "task_category": "coding", "horizon_months": 3, "webhook_id": "4f7c2e0a9b1d4c3e8f6a5b2c1d0e9f8a",
                      "Last-Event-ID": "20261122T060000000000Z-1a2b3c4d:O3:sync:output:2025-06-10",
                      "tenor": "3M", "method": "oracle", "family": "openai/o-series", "points": "changes",
                      "interval": "month", "field": "output", "anchor_from": "2025-01-01", "anchor_to": "2025-06-30",
                      "cursor": "WyIyMDI1LTA2LTEwIiwiTzMiLCJzeW5jIiwib3V0cHV0IiwiTzM6c3luYzpvdXRwdXQ6MjAyNS0wNi0xMCJd",
                      "maker": "anthropic", "name": "sonnet"}


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """Add to the framework's document what the whole service knows (idempotent)."""
    if document.get("components", {}).get("securitySchemes"):
        return document
    document.setdefault("components", {})["securitySchemes"] = SECURITY_SCHEMES
    seen: set[str] = set()
    for path, operations in document["paths"].items():
        operations.pop("head", None)  # a HEAD is its GET without the body (serve/routing.py): documented once
        for method, operation in operations.items():
            if method not in {"get", "post", "put", "delete", "patch"}:
                continue
            _name(operation, seen)
            if not path.startswith("/v1"):
                continue
            if path in NOT_JSON:
                operation["responses"]["200"]["content"] = NOT_JSON[path]
            _partial_records(document, operation)
            keyed = [{API_KEY: []}, {BEARER: []}]
            free = path == "/v1/keys" and method == "post"  # a key is made without one
            operation["security"] = keyed if path in KEY_REQUIRED and not free else [*keyed, {}]
            _headers(operation, cached=method == "get" and path not in KEY_REQUIRED and path not in UNCACHED)
            _example(path, operation)
    return document


def _partial_records(document: dict[str, Any], operation: dict[str, Any]) -> None:
    """A list that takes `fields` answers records with only those fields: its items are the whole
    record or `<Record>Fields`, the same record with no field required."""
    if not any(parameter["name"] == "fields" for parameter in operation.get("parameters", [])):
        return
    schemas = document["components"]["schemas"]
    listing = schemas[operation["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].split("/")[-1]]
    items = listing["properties"]["data"]["items"]
    if "$ref" not in items:
        return
    record = items["$ref"].split("/")[-1]
    partial = {key: value for key, value in schemas[record].items() if key != "required"}
    schemas[f"{record}Fields"] = {**partial, "title": f"{record}Fields",
                                  "description": f"A {record} with only the fields `fields` asked for."}
    listing["properties"]["data"]["items"] = {"anyOf": [items, {"$ref": f"#/components/schemas/{record}Fields"}]}


def operation_id(handler, method, path_components) -> str:
    """`listSpots` for the handler `list_spots` (the framework's own would be `V1SpotsListSpots`);
    its HEAD twin, which `finish` leaves out of the document, is named apart."""
    head, *rest = handler.handler_name.strip("_").split("_")
    return head + "".join(part.title() for part in rest) + ("Head" if method == "HEAD" else "")


def _name(operation: dict[str, Any], seen: set[str]) -> None:
    """Each id once: a handler serving two methods or paths gets the method added to the second."""
    name = operation.get("operationId", "")
    while name in seen:
        name += "Again"
    operation["operationId"] = name
    seen.add(name)


def _headers(operation: dict[str, Any], cached: bool) -> None:
    responses = operation.setdefault("responses", {})
    described = {**RATE_HEADERS, **(CACHE_HEADERS if cached else {})}
    for status, response in responses.items():
        if status.startswith("2"):
            response.setdefault("headers", {}).update(
                {name: {"description": text, "schema": {"type": "string"}} for name, text in described.items()})
    if "429" in responses:
        responses["429"].setdefault("headers", {})["Retry-After"] = {
            "description": "Seconds to wait before asking again.", "schema": {"type": "integer"}}
    if cached:
        responses["304"] = {"description": "Not modified: the If-None-Match tag names the current answer (weakly "
                                           "compared; `*` matches).",
                            "headers": {"ETag": {"description": CACHE_HEADERS["ETag"], "schema": {"type": "string"}}}}


def _example(path: str, operation: dict[str, Any]) -> None:
    for parameter in operation.get("parameters", []):
        if parameter["name"] in PARAMETER_EXAMPLES and "example" not in parameter:
            parameter["example"] = PARAMETER_EXAMPLES[parameter["name"]]
    body = operation.get("requestBody")
    if body is not None and path in BODY_EXAMPLES:
        for content in body.get("content", {}).values():
            content["example"] = BODY_EXAMPLES[path]


class DocumentJson(OpenAPIRenderPlugin):
    """`/schema/openapi.json`: the finished document."""

    def __init__(self) -> None:
        super().__init__(path="/openapi.json", media_type=OpenAPIMediaType.OPENAPI_JSON)

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        return self.render_json(request, finish(openapi_schema))


class DocumentPage(OpenAPIRenderPlugin):
    """`/schema`: every operation on one page, written on the server; no script, nothing fetched."""

    def __init__(self) -> None:
        super().__init__(path="/", media_type=MediaType.HTML)

    def render(self, request: Request, openapi_schema: dict[str, Any]) -> bytes:
        document = finish(openapi_schema)
        info = document["info"]
        parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{html.escape(info['title'])} API"
                 "</title><meta name=viewport content='width=device-width, initial-scale=1'><style>body{font:15px/1.5 "
                 "system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code,pre{background:#f3f3f3;"
                 "padding:0 .2em}pre{padding:.5em;overflow:auto}h2{border-top:1px solid #ccc;padding-top:1em}"
                 "</style></head><body>",
                 f"<h1>{html.escape(info['title'])} {html.escape(info['version'])}</h1>",
                 f"<p>{html.escape(info.get('description', ''))}</p>",
                 "<p>The machine-readable document: <a href='/schema/openapi.json'>/schema/openapi.json</a>. "
                 "Present a key as <code>X-API-Key</code> or <code>Authorization: Bearer</code>; without one, "
                 "the free tier applies.</p>"]
        for path, operations in document["paths"].items():
            for method, operation in operations.items():
                parts.append(_operation_html(path, method, operation))
        parts.append("</body></html>")
        return "".join(parts).encode()


def _operation_html(path: str, method: str, operation: dict[str, Any]) -> str:
    out = [f"<h2 id='{html.escape(operation.get('operationId', ''))}'><code>{method.upper()} {html.escape(path)}"
           f"</code> {html.escape(operation.get('summary', ''))}</h2>",
           f"<p>{html.escape(operation.get('description', ''))}</p>"]
    parameters = operation.get("parameters", [])
    if parameters:
        out.append("<ul>" + "".join(
            f"<li><code>{html.escape(p['name'])}</code> ({p['in']}{', required' if p.get('required') else ''}): "
            f"{html.escape(p.get('description', ''))}"
            + (f" e.g. <code>{html.escape(str(p['example']))}</code>" if "example" in p else "") + "</li>"
            for p in parameters) + "</ul>")
    for content in operation.get("requestBody", {}).get("content", {}).values():
        if "example" in content:
            out.append(f"<pre>{html.escape(json.dumps(content['example'], indent=1))}</pre>")
    statuses = ", ".join(sorted(operation.get("responses", {})))
    out.append(f"<p>Answers: {statuses}.</p>")
    return "".join(out)
