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

    def __init__(self, url: str, reason: str, attempts: int, status: int | None = None, body: bytes | None = None):
        super().__init__(f"{url}: {reason} (after {attempts} attempt{'s' if attempts > 1 else ''})")
        self.url, self.reason, self.attempts, self.status = url, reason, attempts, status
        self.body = body  # what the server sent, where it was read whole but refused


class _Failure(Exception):
    """One attempt's failure: `transient` ones are worth another attempt."""

    def __init__(self, reason: str, transient: bool, status: int | None = None):
        super().__init__(reason)
        self.reason, self.transient, self.status = reason, transient, status


def _read(url: str, policy: FetchPolicy) -> tuple[int, bytes]:
    """One GET: the status and at most one byte more than the cap of the body."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=policy.timeout_seconds) as response:  # noqa: S310 (http(s) only)
            return response.status, response.read(policy.max_bytes + 1)
    except urllib.error.HTTPError as error:
        kind = "server" if error.code >= 500 else "client"
        raise _Failure(f"{kind} error {error.code}", error.code >= 500, error.code) from None
    except TimeoutError as error:
        raise _Failure(f"timed out after {policy.timeout_seconds:g} s", True) from error
    except (urllib.error.URLError, ConnectionError, http.client.HTTPException) as error:  # a cut body included
        raise _Failure(f"connection failed: {getattr(error, 'reason', None) or error!r}", True) from error


def fetch(url: str, check: Callable[[object], int], policy: FetchPolicy = FetchPolicy(),
          sleep: Callable[[float], None] = time.sleep) -> Fetched:
    """GET `url` and check its JSON with `check` (which counts the models or raises ValueError)."""
    if not url.startswith(("http://", "https://")):
        raise FetchFailed(url, "only http and https addresses are read", 0)
    for attempt in range(1, policy.retries + 2):
        try:
            status, body = _read(url, policy)
        except _Failure as failure:
            if not failure.transient or attempt > policy.retries:
                raise FetchFailed(url, failure.reason, attempt, failure.status) from None
            sleep(policy.backoff_seconds * 2 ** (attempt - 1))
            continue
        fetched_at = datetime.now(UTC)
        if len(body) > policy.max_bytes:
            raise FetchFailed(url, f"body is over the cap of {policy.max_bytes:,} bytes", attempt, status)
        try:
            models = check(json.loads(body))
        except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
            raise FetchFailed(url, f"invalid payload: {error}", attempt, status, body) from None
        return Fetched(url, status, body, fetched_at, attempt, models)
    raise AssertionError("unreachable")  # the loop returns or raises
