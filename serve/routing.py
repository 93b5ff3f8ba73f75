"""The API's GET routes answer HEAD too (RFC 9110 §9.3.2): the same handler, access control and
headers, and no body, which uvicorn leaves out of a HEAD's answer while keeping its length. A
never-ending answer (the event stream) keeps the framework's GET alone: a HEAD of it would never end."""

from __future__ import annotations

from typing import Any

from litestar import route
from litestar.enums import HttpMethod


def get(path: str | list[str], **options: Any):
    """`litestar.get`, answering HEAD as well."""
    return route(path, http_method=[HttpMethod.GET, HttpMethod.HEAD], **options)
