"""A request as the operations describe it (`Call`), and how its answer is read: the part of the
success envelope the operation gives, or the typed error of a refusal."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import quote

import httpx

from oracle_client.errors import error_from

T = TypeVar("T")
# data: the envelope's `data`; whole: the whole JSON answer (a page, with `next` and `total`);
# bytes: a file; stream: server-sent events, read by the clients' own iterators.
Answer = Literal["data", "whole", "bytes", "stream"]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request: method, path, query, JSON body and headers (a None value is left out, so the
    API's default applies). `T` is what reading its answer gives."""

    method: str
    path: str
    query: Mapping[str, object] = field(default_factory=dict)
    body: Mapping[str, object] | None = None
    headers: Mapping[str, object] = field(default_factory=dict)
    answer: Answer = "data"

    def with_query(self, **changes: object) -> Call[T]:
        return replace(self, query={**self.query, **changes})

    def at(self, path_and_query: str) -> Call[T]:
        """The same call at a path that carries its own query (a page's `next`)."""
        return replace(self, path=path_and_query, query={})

    def arguments(self) -> dict[str, Any]:
        """httpx's request arguments."""
        arguments: dict[str, Any] = {}
        params = {k: _text(v) for k, v in self.query.items() if v is not None}
        if params:  # none at all: a path that carries its own query (`next`) keeps it
            arguments["params"] = params
        if self.body is not None:
            arguments["json"] = {k: _json(v) for k, v in self.body.items() if v is not None}
        headers = {k: _text(v) for k, v in self.headers.items() if v is not None}
        if headers:
            arguments["headers"] = headers
        return arguments


def _segment(value: object) -> str:
    """A path parameter, escaped whole (an alias such as `anthropic/claude-sonnet-4` has a slash)."""
    return quote(_text(value), safe="")


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, date | datetime):
        return value.isoformat()
    return str(value)


def _json(value: object) -> object:
    return value.isoformat() if isinstance(value, date | datetime) else value


def read_answer(call: Call[T], response: httpx.Response) -> T:
    """What `call` gives from `response`, or the typed error of a refusal."""
    if response.status_code >= 400:
        raise error_from(response)
    result: Any
    if call.answer == "bytes":
        result = response.content
    elif call.answer == "data":
        result = response.json()["data"]
    else:
        result = response.json()
    return result  # type: ignore[no-any-return]
