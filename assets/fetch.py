"""Reading a live upstream over HTTP: bounded in time, attempts and size, and checked before use.

The live sources are opt-in (the bundled data is the embedded default), so this is the only
place the pipeline talks to the network. A fetch either returns the body with the number of
models its shape check counted, or raises `FetchFailed` saying why, so the caller can fall back
to the source's last good raw copy (`warehouse.raw_store`):

- a server error (5xx), a timeout or a dropped connection is retried, at most `retries` more
  times, waiting `backoff`, 2·`backoff`, … between attempts;
- a client error (4xx), a body over `max_bytes` (read no further than one byte past the cap) or
  a body that is not JSON of the upstream's shape (`pipelines.upstream_formats`) is final:
  asking again would get the same answer.

Only the standard library is used: one GET per attempt, no cookies, no credentials.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

USER_AGENT = "inference-pricing-oracle (price data refresh)"


@dataclass(frozen=True)
class FetchPolicy:
    timeout_seconds: float = 20.0  # per connection and per read
    retries: int = 2  # further attempts after the first, for transient failures only
    backoff_seconds: float = 1.0  # before the first retry; doubled before each next one
    max_bytes: int = 64 * 1024 * 1024  # LiteLLM's map, the largest upstream, is a few MB


@dataclass(frozen=True)
class Fetched:
    url: str
    status: int
    body: bytes
    fetched_at: datetime  # UTC, when the body was read
    attempts: int
    models: int  # what the shape check counted


class FetchFailed(Exception):
    """A fetch that gave no usable body: `reason` in words, `status` where a server answered."""

    def __init__(self, url: str, reason: str, attempts: int, status: int | None = None):
        super().__init__(f"{url}: {reason} (after {attempts} attempt{'s' if attempts > 1 else ''})")
        self.url, self.reason, self.attempts, self.status = url, reason, attempts, status


class _Transient(Exception):
    def __init__(self, reason: str, status: int | None = None):
        super().__init__(reason)
        self.reason, self.status = reason, status


def _read(url: str, policy: FetchPolicy) -> tuple[int, bytes]:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=policy.timeout_seconds) as response:  # noqa: S310 (http(s) only)
            declared = response.headers.get("Content-Length")
            if declared is not None and declared.isdigit() and int(declared) > policy.max_bytes:
                raise FetchFailed(url, f"body of {int(declared):,} bytes is over the cap of {policy.max_bytes:,}", 1,
                                  response.status)
            body = response.read(policy.max_bytes + 1)
            return response.status, body
    except urllib.error.HTTPError as error:
        if error.code >= 500:
            raise _Transient(f"server error {error.code}", error.code) from None
        raise FetchFailed(url, f"client error {error.code}", 1, error.code) from None
    except TimeoutError as error:
        raise _Transient(f"timed out after {policy.timeout_seconds:g} s") from error
    except (urllib.error.URLError, ConnectionError, http.client.HTTPException) as error:  # a cut body included
        raise _Transient(f"connection failed: {getattr(error, 'reason', None) or error!r}") from error


def fetch(url: str, check: Callable[[object], int], policy: FetchPolicy = FetchPolicy(),
          sleep: Callable[[float], None] = time.sleep) -> Fetched:
    """GET `url` and check its JSON with `check` (which counts the models or raises ValueError)."""
    if not url.startswith(("http://", "https://")):
        raise FetchFailed(url, "only http and https addresses are read", 0)
    for attempt in range(1, policy.retries + 2):
        try:
            status, body = _read(url, policy)
        except _Transient as transient:
            if attempt > policy.retries:
                raise FetchFailed(url, transient.reason, attempt, transient.status) from None
            sleep(policy.backoff_seconds * 2 ** (attempt - 1))
            continue
        except FetchFailed as failed:
            raise FetchFailed(url, failed.reason, attempt, failed.status) from None
        fetched_at = datetime.now(UTC)
        if len(body) > policy.max_bytes:
            raise FetchFailed(url, f"body is over the cap of {policy.max_bytes:,} bytes", attempt, status)
        try:
            models = check(json.loads(body))
        except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
            raise FetchFailed(url, f"invalid payload: {error}", attempt, status) from None
        return Fetched(url, status, body, fetched_at, attempt, models)
    raise AssertionError("unreachable")  # the loop returns or raises
