"""Who is calling and how much they may: keys, the free tier and rate limits on `/v1`.

For every `/v1` request: a key presented as `X-API-Key` or `Authorization: Bearer` must be a
known, unrevoked key (else 401, never a silent fall-back to the free tier); the request then
counts against its tier's hourly limit, or, without a key, against the client address's free
limit, or, when it comes from a dashboard page (`DASHBOARD_COOKIE`), against the address's
dashboard limit, so that browsing the pages does not spend the free tier. Every answer carries
RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, and their X-RateLimit-* twins
(`rate_headers`); one over the limit is a 429 with Retry-After. `/`, `/health` and the OpenAPI
document are not under `/v1` and so are never counted. Keys are never logged or echoed.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from serve.access.batched import BatchedKeyStore
from serve.access.memory_counter import MemoryCounterStore
from serve.access.stores import CounterStore, KeyRecord
from serve.access_log import CLIENT_SCOPE_KEY, AccessLog
from serve.problems import Problem, send_problem
from serve.settings import Settings

WINDOW_SECONDS = 3600
Headers = list[tuple[bytes, bytes]]  # as ASGI sends them
SCOPE_KEY = "oracle_access"
# Set by every dashboard page (serve/dashboard/routes.py) and sent back by the browser with the
# page's /v1 requests. It is a marker, not a secret: any client may send it, and what it gets is
# what a visitor browsing the pages gets, a per-address budget of its own
# (`Settings.dashboard_requests_per_hour`), never another address's or a key's.
DASHBOARD_COOKIE = "oracle_dashboard"


@dataclass(slots=True)  # made on every request: slots and no frozen checks keep that cheap
class Access:
    """What the middleware decided, left in the request scope for the key endpoints."""

    tier: str
    limit: int
    count: int
    reset_at: float
    key: KeyRecord | None = None


def presented_key(headers: dict[str, str]) -> str | None:
    if headers.get("x-api-key"):
        return headers["x-api-key"].strip()
    scheme, _, value = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


ACCESS_HEADERS = frozenset({b"x-api-key", b"authorization", b"x-forwarded-for", b"cookie"})


def from_dashboard(headers: dict[str, str]) -> bool:
    """Whether the request carries the dashboard's cookie (RFC 6265: `name=value; name=value`)."""
    cookies = headers.get("cookie")
    return bool(cookies) and any(part.strip() == f"{DASHBOARD_COOKIE}=1" for part in cookies.split(";"))


KEY_HEADERS = ("x-api-key", "authorization")
TWICE = "oracle_twice"  # the entry of `access_headers` naming a key header sent more than once


def access_headers(raw: list[tuple[bytes, bytes]]) -> dict[str, str]:
    """The few request headers access control reads (a request carries many it does not). A key
    header sent twice is named under TWICE: which key was meant cannot be told."""
    found: dict[str, str] = {}
    for name, value in raw:
        name = name.lower()
        if name in ACCESS_HEADERS:
            text = name.decode("latin-1")
            if text in found and text in KEY_HEADERS:
                found[TWICE] = text
            found[text] = value.decode("latin-1")
    return found


def client_address(scope: dict, headers: dict[str, str], trusted: frozenset[str]) -> str:
    """The socket's peer, or, when that peer is a trusted proxy, the nearest untrusted address
    of X-Forwarded-For (proxies append, so the list is read from the right)."""
    peer = (scope.get("client") or ("unknown", 0))[0]
    if peer not in trusted or "x-forwarded-for" not in headers:
        return peer
    for hop in reversed([h.strip() for h in headers["x-forwarded-for"].split(",") if h.strip()]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a forged or garbled chain is not believed
        if hop not in trusted:
            return hop
    return peer

@dataclass(slots=True)
class Decision:
    """What access control decided for one request: a refusal to send in its place (401 or 429),
    or the `Access` it goes on with; the rate-limit headers its answer carries either way."""

    refusal: Problem | None
    headers: Headers
    access: Access | None = None
    creating: bool = False  # a key creation, counted against the address only if it succeeds


class AccessControl:
    """Middleware, outermost: decides each request's access (`decide`), answers a refusal itself,
    adds the rate-limit headers to every other answer, and, with a log, writes the request's line
    once its answer is sent, through one wrapper of `send`."""

    def __init__(self, app, settings: Settings, keys: BatchedKeyStore, counters: CounterStore,
                 log: AccessLog | None = None, clock: Callable[[], float] = time.time):
        self.app, self.settings, self.keys, self.counters, self.clock = app, settings, keys, counters, clock
        self.log = log
        self.trusted = frozenset(p.strip() for p in settings.trusted_proxies.split(",") if p.strip())
        # Counters kept in this process are counted without an await, as most requests are.
        self._in_process = isinstance(counters, MemoryCounterStore)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = {"status": 0, "bytes": 0, "took": 0.0, "started": time.perf_counter()}
        try:
            decision = await self.decide(scope)
            if decision.refusal is not None:
                await send_problem(self._watched(send, sent, []), decision.refusal, decision.headers)
                return
            if decision.access is not None:
                scope[SCOPE_KEY] = decision.access
            if decision.creating:
                send = self._count_creation(send, scope[CLIENT_SCOPE_KEY], self.clock())
            await self.app(scope, receive, self._watched(send, sent, decision.headers))
        finally:
            if self.log is not None:
                self.log.add(scope, sent)

    def _watched(self, send, sent: dict, added: Headers):
        """`send` with `added` headers on the answer's start and, for the log, its status, time to
        start and body bytes noted in `sent`; `send` itself when there is nothing to do."""
        if self.log is None:
            return _with_headers(send, added) if added else send

        async def watched(message):
            if message["type"] == "http.response.start":
                sent["status"], sent["took"] = message["status"], time.perf_counter() - sent["started"]
                message = _headers_added(message, added)
            elif message["type"] == "http.response.body":
                sent["bytes"] += len(message.get("body", b""))
            await send(message)

        return watched

    async def decide(self, scope) -> Decision:
        """Who is calling (the client address is left in the scope for the access log) and whether
        a `/v1` request may go on, counting it."""
        headers = access_headers(scope.get("headers", []))
        client = scope[CLIENT_SCOPE_KEY] = client_address(scope, headers, self.trusted)  # for the access log too
        if not scope["path"].startswith("/v1"):
            return Decision(None, [])
        if TWICE in headers:
            return Decision(Problem(400, "duplicate_key", f"the {headers[TWICE]} header was sent more than once; "
                                    "send one key, in one header"), [])
        now = self.clock()
        key = presented_key(headers)
        record = None
        if key is not None:
            record = self.keys.remembered(key) or await self.keys.find(key)
            if record is None or record.revoked is not None:
                failed, reset = await self.counters.hit(f"authfail:{client}", WINDOW_SECONDS, now)
                if failed > self.settings.failed_auths_per_hour:
                    return _limited("failed authentication", self.settings.failed_auths_per_hour, reset, now, [])
                state = "revoked" if record is not None else "not recognised"
                return Decision(Problem(401, "invalid_key", f"the API key presented is {state}; create one with "
                                        "POST /v1/keys, or call without a key on the free tier"),
                                rate_headers(self.settings.failed_auths_per_hour, failed, reset, now))
            self.keys.record_use(record.key_id, _endpoint(scope), datetime.fromtimestamp(now, UTC))
        tier = record.tier if record else "free"
        dashboard = record is None and from_dashboard(headers)
        creating = scope["method"] == "POST" and scope["path"].rstrip("/") == "/v1/keys"
        if creating:
            # Only a creation that succeeds counts (`_count_creation`): a bad request costs nothing.
            made, reset = await self.counters.hit(f"create:{client}", WINDOW_SECONDS, now, amount=0)
            if made >= self.settings.key_creations_per_hour:
                return _limited("key creation", self.settings.key_creations_per_hour, reset, now, [])
        if creating and record is None:
            # Without a key, creating one counts only against its own per-address limit: a client
            # over the free tier's limit is told to get a key, so it must still be able to.
            limit, count = self.settings.key_creations_per_hour, made + 1
        elif dashboard:
            limit = self.settings.dashboard_requests_per_hour
            count, reset = await self.counters.hit(f"dashboard:{client}", WINDOW_SECONDS, now)
        else:
            limit = self.settings.limit_of(tier)
            bucket = f"key:{record.key_id}" if record else f"ip:{client}"
            count, reset = self.counters.count(bucket, WINDOW_SECONDS, now) if self._in_process else \
                await self.counters.hit(bucket, WINDOW_SECONDS, now)
        rate = rate_headers(limit, count, reset, now)
        if count > limit:
            return _limited("dashboard's" if dashboard else f"{tier} tier", limit, reset, now, rate)
        return Decision(None, rate, Access(tier, limit, count, reset, record), creating)

    def _count_creation(self, send, client: str, now: float):
        """`send`, counting a key creation against the client's limit once it has succeeded."""
        async def counted(message):
            if message["type"] == "http.response.start" and 200 <= message["status"] < 300:
                await self.counters.hit(f"create:{client}", WINDOW_SECONDS, now)
            await send(message)

        return counted


def _limited(what: str, limit: int, reset: float, now: float, rate: Headers) -> Decision:
    wait = max(1, math.ceil(reset - now))
    when = datetime.fromtimestamp(reset, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    problem = Problem(429, "rate_limited",
                      f"the {what} limit of {limit} requests per hour is reached; retry after {wait} s ({when})",
                      retry_after_seconds=wait, limit=limit, reset=when,
                      resetAt=when)  # the original oracle's name for `reset`, which its clients read
    return Decision(problem, [*rate, (b"retry-after", str(wait).encode())])


def rate_headers(limit: int, count: int, reset: float, now: float) -> Headers:
    """Where a client stands against a limit, in both families of header: RateLimit-* (the IETF
    draft's: Reset in seconds from now) and X-RateLimit-* (the original oracle's, which its
    clients read: Reset as an epoch time in seconds). Made as they are sent (ASGI's lowercase
    bytes), since every answer carries them."""
    limit_text, remaining = str(limit).encode(), str(max(0, limit - count)).encode()
    return [(b"ratelimit-limit", limit_text), (b"ratelimit-remaining", remaining),
            (b"ratelimit-reset", str(max(0, math.ceil(reset - now))).encode()),
            (b"x-ratelimit-limit", limit_text), (b"x-ratelimit-remaining", remaining),
            (b"x-ratelimit-reset", str(math.ceil(reset)).encode())]


NO_ROUTE = "(no such path)"
_ENDPOINT_NAMES = "oracle_endpoint_names"  # kept on the handler (its `opt`): method -> name


def _endpoint(scope) -> str:
    """`METHOD /route/template`: usage is counted per endpoint, not per concrete path (so a path
    no route serves counts under one name, however many a client tries)."""
    handler = scope.get("route_handler")
    if handler is None:
        return f"{scope['method']} {NO_ROUTE}"
    # Worked out once per handler and method; kept on the handler, not in a table keyed by id(),
    # which a handler of an app since collected may have held.
    names = handler.opt.setdefault(_ENDPOINT_NAMES, {})
    name = names.get(scope["method"])
    if name is None:
        name = names[scope["method"]] = f"{scope['method']} {sorted(handler.paths)[0]}"
    return name


def _headers_added(start: dict, added: Headers) -> dict:
    """An answer's start message with `added` after its own headers (in a new list: the
    response's own may be kept for other requests)."""
    if added:
        start["headers"] = [*start.get("headers", []), *added]
    return start


def _with_headers(send, added: Headers):
    async def wrapped(message):
        if message["type"] == "http.response.start":
            message = _headers_added(message, added)
        await send(message)

    return wrapped
