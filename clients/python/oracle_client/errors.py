"""The API's refusals as exceptions, one class per kind a caller acts on; all are `OracleError`.

The server answers every refusal with RFC 9457 problem details: `code` (a stable word), `detail`,
and, by kind, `errors` (a 400's fields), `suggestions` (a 404's closest names) and the
`Retry-After` header (a 429). A request that never reached it is `ConnectionFailed`.
"""

from __future__ import annotations

from typing import Any

import httpx


class OracleError(Exception):
    """A refused or failed request: the HTTP `status` (None when no answer came), the problem's
    `code` and `detail`, `retry_after` (seconds, on a 429) and the whole problem `body`."""

    def __init__(self, status: int | None, code: str, detail: str, retry_after: float | None = None,
                 body: dict[str, Any] | None = None, url: str | None = None):
        super().__init__(f"{status} {code}: {detail}" if status is not None else f"{code}: {detail}")
        self.status, self.code, self.detail, self.retry_after = status, code, detail, retry_after
        self.body: dict[str, Any] = body or {}
        self.url = url


class BadRequest(OracleError):
    """400: the request was invalid; `errors` says which fields and why."""

    @property
    def errors(self) -> list[dict[str, str]]:
        """[{field, message}] for each invalid field (empty when the API named none)."""
        return list(self.body.get("errors") or [])


class Unauthorized(OracleError):
    """401: the key is unknown or revoked, or the operation needs a key and none was sent."""


class NotFound(OracleError):
    """404: no model (or webhook, table, path) by that name; `suggestions` are the closest names."""

    @property
    def suggestions(self) -> list[str]:
        return list(self.body.get("suggestions") or [])


class RateLimited(OracleError):
    """429: over the hourly limit; `retry_after` is how many seconds to wait."""

    retry_after: float


class ServiceUnavailable(OracleError):
    """503: the server has no snapshot to serve yet."""


class ConnectionFailed(OracleError):
    """No answer: the server could not be reached (refused, unresolved, timed out). The httpx
    error is the `__cause__`."""


BY_STATUS: dict[int, type[OracleError]] = {400: BadRequest, 401: Unauthorized, 404: NotFound, 429: RateLimited,
                                           503: ServiceUnavailable}


def retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None


def error_from(response: httpx.Response) -> OracleError:
    """The error of a 4xx or 5xx answer."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        body = {}
    kind = BY_STATUS.get(response.status_code, OracleError)
    wait = retry_after(response)
    if kind is RateLimited and wait is None:
        wait = 60.0  # a 429 without the header: the API always sends it, so this is a proxy's
    try:
        url: str | None = str(response.request.url)
    except RuntimeError:  # an answer made without a request (a test's)
        url = None
    return kind(response.status_code, str(body.get("code", "error")), str(body.get("detail", response.text[:200])),
                wait, body, url)


def connection_failed(error: httpx.TransportError, url: str) -> ConnectionFailed:
    reason = str(error) or type(error).__name__
    return ConnectionFailed(None, "connection_failed", f"could not reach {url}: {reason}", url=url)
