"""Outgoing webhooks: each newly served snapshot's events, posted to the addresses keys register.

A key registers a URL with the same filters as `/v1/events` (`ticker`, `kind`) and gets a secret,
shown once. When the server switches to a new snapshot, each webhook whose filters match any of
the events it adds (`pipelines.events.new_events`) is sent them in one POST: JSON
`{snapshot_id, events}`, signed `X-Oracle-Signature: sha256=<hex HMAC-SHA256 of the body under the
secret>`. A failed try (no answer, or not 2xx) is repeated after the base wait, then twice it, up
to `webhook_attempts` tries; every try is logged and listed by `GET /v1/webhooks`, and a webhook
whose deliveries fail `webhook_pause_after_failures` times in a row is paused, saying why. Several
server processes share the SQLite database in the data folder; the first to claim a (webhook,
snapshot) delivers it.

A key holder must not make the server call inside its own network. A URL is http(s), printable
ASCII, with a port from 1 to 65535; every address its host resolves to, and any IPv4 address one
of them carries (mapped, compatible, NAT64, 6to4, Teredo), must be public unless the operator
allows private targets (`ORACLE_WEBHOOK_ALLOW_PRIVATE=1`); link-local (cloud metadata),
unspecified and multicast addresses never are. At registration and again at every try the host is
resolved once and the connection made to an address just checked, the name kept as Host and TLS
server name, so a name that resolves elsewhere later gains nothing. Redirects are never followed.
Each try ends within `webhook_timeout_seconds`, on a thread pool of the dispatcher's own, a key
holding at most `webhook_concurrent_per_key` of its threads: one key's tarpit delays no other key.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import re
import secrets
import socket
import sqlite3
import ssl
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import msgspec

from pipelines.events import new_events, with_original_names
from serve.respond import records
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState

SCHEMA = """
CREATE TABLE IF NOT EXISTS webhooks (id TEXT PRIMARY KEY, key_id TEXT NOT NULL, url TEXT NOT NULL, ticker TEXT,
    mode TEXT, kind TEXT, secret TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS claims (webhook_id TEXT NOT NULL, snapshot_id TEXT NOT NULL,
    PRIMARY KEY (webhook_id, snapshot_id));
CREATE TABLE IF NOT EXISTS deliveries (delivery_id TEXT NOT NULL, webhook_id TEXT NOT NULL, snapshot_id TEXT NOT NULL,
    attempt INTEGER NOT NULL, at TEXT NOT NULL, status INTEGER, outcome TEXT NOT NULL, events INTEGER NOT NULL,
    detail TEXT);
CREATE TABLE IF NOT EXISTS health (webhook_id TEXT PRIMARY KEY, failures INTEGER NOT NULL, paused TEXT, reason TEXT);
"""
HOOKS_WITH_HEALTH = ("SELECT w.id, w.key_id, w.url, w.ticker, w.mode, w.kind, w.secret, w.created, h.paused, "
                     "h.reason FROM webhooks w LEFT JOIN health h ON h.webhook_id = w.id")
DELIVERY_COLUMNS = ["delivery_id", "webhook_id", "snapshot_id", "attempt", "at", "status", "outcome", "events",
                    "detail"]
ADD_DELIVERY = (f"INSERT INTO deliveries ({', '.join(DELIVERY_COLUMNS)}) "
                f"VALUES ({', '.join('?' for _ in DELIVERY_COLUMNS)})")
LOG_LISTED = 100

# --- Targets -------------------------------------------------------------------------------------

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
PRINTABLE_ASCII = re.compile(r"[!-~]+")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# RFC 8215's prefix is for one network's own translator, so never public; the IPv4 address is read
# where a /96 prefix puts it, so that an allowed private target still cannot carry a metadata address.
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT's IPv4-translated addresses
LOW_32_BITS = 0xFFFFFFFF
NOT_PUBLIC = "a private, loopback, link-local or reserved address; a webhook must reach a public address"
NEVER = ("a link-local, unspecified or multicast address (cloud metadata services answer on link-local "
         "ones), which no webhook may reach")


class TargetRefused(ValueError):
    """A URL the server will not post to, and why."""


@dataclass(frozen=True)
class Target:
    """A webhook URL taken apart: the host to resolve, and what the request says."""

    secure: bool
    host: str
    port: int
    host_header: str  # the name (and port) as written, sent as Host
    path: str  # path and query, the request target


def parse_target(url: str) -> Target:
    if not PRINTABLE_ASCII.fullmatch(url):
        raise TargetRefused("the URL holds a space, a control character or a non-ASCII character: percent-encode "
                            "them (a space as %20) and write an international host name in its xn-- form")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise TargetRefused("the URL cannot be read; write it as http(s)://host[:port]/path, with an IPv6 "
                            "address in brackets") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("the URL must be http:// or https:// with a host")
    if "@" in parts.netloc:
        raise TargetRefused("the URL holds credentials (user@host), which are never sent; leave them out, as "
                            "the signature authenticates each post")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme == "https", parts.hostname, _port(parts), parts.netloc, path)


def _port(parts) -> int:
    try:
        port = parts.port
    except ValueError:  # beyond 65535, negative or not a number
        port = -1
    if port is None:
        return 443 if parts.scheme == "https" else 80
    if not 1 <= port <= 65535:
        raise TargetRefused("the port must be a number from 1 to 65535, or left out for 80 (http) or 443 (https)")
    return port


def resolve(host: str, port: int) -> list[IPAddress]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise TargetRefused(f"the host {host} does not resolve") from None
    return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: a translator, a tunnel or the host's own stack
    may deliver a packet sent to it there."""
    if ip.version == 4:
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if int(ip) >> 32 == 0 or any(ip in network for network in (NAT64, LOCAL_NAT64, TRANSLATED)):
        found.append(ipaddress.IPv4Address(int(ip) & LOW_32_BITS))  # ::a.b.c.d and the /96 prefixes
    return [address for address in found if address is not None]


def _never(ip: IPAddress) -> bool:
    return ip.is_link_local or ip.is_unspecified or ip.is_multicast


def _not_public(ip: IPAddress) -> bool:
    return not ip.is_global or ip in LOCAL_NAT64


def checked_addresses(target: Target, allow_private: bool) -> list[IPAddress]:
    """Every address the target's host resolves to, each allowed; else TargetRefused, saying why
    (the graver reason first)."""
    addresses = resolve(target.host, target.port)
    carried = [(address, ip) for address in addresses for ip in (address, *embedded_ipv4(address))]
    for refused, why in [(_never, NEVER), *([] if allow_private else [(_not_public, NOT_PUBLIC)])]:
        for address, ip in carried:
            if refused(ip):
                inside = f" (which carries {ip})" if ip != address else ""
                raise TargetRefused(f"{target.host} resolves to {address}{inside}, {why}")
    return addresses


def check_target(url: str, allow_private: bool) -> Target:
    target = parse_target(url)
    checked_addresses(target, allow_private)
    return target


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# --- Store ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Webhook:
    id: str
    key_id: str
    url: str
    ticker: str | None
    mode: str | None
    kind: str | None
    secret: str
    created: str
    paused: str | None = None  # when it was paused
    paused_reason: str | None = None


def _now(timespec: str = "seconds") -> str:
    return datetime.now(UTC).isoformat(timespec=timespec).replace("+00:00", "Z")


class WebhookStore:
    """The webhooks, their claims, their delivery log and their run of failures, in one SQLite file."""

    def __init__(self, folder: str):
        Path(folder).mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(Path(folder) / "webhooks.sqlite", check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._add_detail_column()
        self._lock = threading.Lock()

    def _add_detail_column(self) -> None:
        """A database made before deliveries were logged with a detail gets the column."""
        if "detail" not in {row[1] for row in self._db.execute("PRAGMA table_info(deliveries)")}:
            try:
                self._db.execute("ALTER TABLE deliveries ADD COLUMN detail TEXT")
            except sqlite3.OperationalError:  # another server process added it first
                pass

    def add(self, key_id: str, url: str, ticker: str | None, mode: str | None, kind: str | None,
            most: int) -> Webhook | None:
        """The new webhook, or None when the key already has `most` (counted and added in one
        statement, so concurrent requests cannot pass the cap)."""
        hook = Webhook(uuid.uuid4().hex, key_id, url, ticker, mode, kind, "whsec_" + secrets.token_urlsafe(24), _now())
        values = (hook.id, key_id, url, ticker, mode, kind, hook.secret, hook.created)
        with self._lock:
            added = self._db.execute("INSERT INTO webhooks (id, key_id, url, ticker, mode, kind, secret, created) "
                                     "SELECT ?, ?, ?, ?, ?, ?, ?, ? "
                                     "WHERE (SELECT COUNT(*) FROM webhooks WHERE key_id = ?) < ?",
                                     (*values, key_id, most)).rowcount
        return hook if added else None

    def of_key(self, key_id: str) -> list[Webhook]:
        with self._lock:
            rows = self._db.execute(f"{HOOKS_WITH_HEALTH} WHERE w.key_id = ? ORDER BY w.created", (key_id,)).fetchall()
        return [Webhook(*row) for row in rows]

    def active(self) -> list[Webhook]:
        """The webhooks not paused: those a new snapshot is delivered to."""
        with self._lock:
            return [Webhook(*row) for row in self._db.execute(f"{HOOKS_WITH_HEALTH} WHERE h.paused IS NULL")]

    def is_active(self, webhook_id: str) -> bool:
        with self._lock:
            return self._db.execute(f"{HOOKS_WITH_HEALTH} WHERE w.id = ? AND h.paused IS NULL",
                                    (webhook_id,)).fetchone() is not None

    def remove(self, key_id: str, webhook_id: str) -> bool:
        with self._lock:
            removed = self._db.execute("DELETE FROM webhooks WHERE id = ? AND key_id = ?",
                                       (webhook_id, key_id)).rowcount > 0
            if removed:
                self._db.execute("DELETE FROM health WHERE webhook_id = ?", (webhook_id,))
            return removed

    def claim(self, webhook_id: str, snapshot_id: str) -> bool:
        """True for the one process that is to deliver this snapshot to this webhook."""
        with self._lock:
            return self._db.execute("INSERT OR IGNORE INTO claims VALUES (?, ?)",
                                    (webhook_id, snapshot_id)).rowcount > 0

    def log(self, delivery_id: str, webhook_id: str, snapshot_id: str, attempt: int, status: int | None,
            outcome: str, events: int, detail: str | None = None) -> None:
        with self._lock:
            self._db.execute(ADD_DELIVERY, (delivery_id, webhook_id, snapshot_id, attempt, _now("milliseconds"), status,
                                            outcome, events, detail))

    def record(self, webhook_id: str, delivered: bool, why: str, pause_after: int) -> None:
        """A delivery's end: a success clears the run of failures; the `pause_after`th failure in a
        row pauses the webhook, keeping why."""
        with self._lock:
            if delivered:
                self._db.execute("UPDATE health SET failures = 0 WHERE webhook_id = ?", (webhook_id,))
                return
            self._db.execute("INSERT INTO health (webhook_id, failures) VALUES (?, 1) "
                             "ON CONFLICT (webhook_id) DO UPDATE SET failures = failures + 1", (webhook_id,))
            failed = f"the last {pause_after} deliveries failed" if pause_after > 1 else "the last delivery failed"
            reason = (f"{failed} (last try: {why}); delete this webhook and register it again once its receiver "
                      "answers 2xx")
            self._db.execute("UPDATE health SET paused = ?, reason = ? WHERE webhook_id = ? AND paused IS NULL "
                             "AND failures >= ?", (_now(), reason, webhook_id, pause_after))

    def deliveries(self, key_id: str) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {', '.join('d.' + c for c in DELIVERY_COLUMNS)} FROM deliveries d "
                "JOIN webhooks w ON w.id = d.webhook_id WHERE w.key_id = ? ORDER BY d.at DESC LIMIT ?",
                (key_id, LOG_LISTED)).fetchall()
        return [dict(zip(DELIVERY_COLUMNS, row, strict=True)) for row in rows]

    def close(self) -> None:
        self._db.close()


# --- Delivery ------------------------------------------------------------------------------------

STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5]\d\d)\b")
STATUS_LINE_MOST_BYTES = 1024


@dataclass(frozen=True)
class Answer:
    """What one try came to: the receiver's status (None: none) and, for a failure, why."""

    status: int | None
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _request(target: Target, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"POST {target.path} HTTP/1.1", f"Host: {target.host_header}", f"Content-Length: {len(body)}",
             "Connection: close", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def _status(sock: socket.socket, deadline: float) -> Answer:
    """The receiver's status, from the first line of its answer; the rest is not read."""
    head = b""
    while b"\n" not in head and len(head) < STATUS_LINE_MOST_BYTES:
        sock.settimeout(_left(deadline))
        chunk = sock.recv(STATUS_LINE_MOST_BYTES)
        if not chunk:
            break
        head += chunk
    found = STATUS_LINE.match(head)
    if found is None:
        return Answer(None, "the receiver closed the connection without an HTTP answer")
    status = int(found.group(1))
    if 300 <= status < 400:
        return Answer(status, "redirects are not followed: register the address the receiver redirects to")
    return Answer(status)


class Courier:
    """Posts to checked addresses on threads of its own, each try bounded in time."""

    def __init__(self, workers: int, timeout: float, allow_private: bool, tls: ssl.SSLContext | None = None):
        self.timeout, self.allow_private = timeout, allow_private
        self.tls = tls or ssl.create_default_context()  # the system's trusted authorities, the name checked
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="webhook")
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.post_now, url, body, headers)

    def close(self) -> None:
        """Ends the tries under way (their sockets shut), so no thread outlives the server by long."""
        with self._lock:
            self._closed = True
            for sock in self._open:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        self._pool.shutdown(wait=False, cancel_futures=True)

    def post_now(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        deadline = time.monotonic() + self.timeout
        try:
            target = parse_target(url)
            addresses = checked_addresses(target, self.allow_private)  # again: a name may resolve elsewhere now
        except TargetRefused as refused:
            return Answer(None, f"refused: {refused}")
        sock = None
        try:
            sock = self._held(self._connect(addresses, target.port, deadline))
            if target.secure:
                sock.settimeout(_left(deadline))
                sock = self._held(self.tls.wrap_socket(sock, server_hostname=target.host), instead_of=sock)
            sock.settimeout(_left(deadline))
            sock.sendall(_request(target, body, headers))
            return _status(sock, deadline)
        except TimeoutError:
            return Answer(None, f"no answer within {self.timeout:g} s")
        except (OSError, ValueError) as error:  # refused, reset, TLS failures
            return Answer(None, f"could not post: {error}")
        finally:
            if sock is not None:
                with self._lock:
                    self._open.discard(sock)
                sock.close()

    @staticmethod
    def _connect(addresses: list[IPAddress], port: int, deadline: float) -> socket.socket:
        """A connection to the first checked address that takes one: never to the name, which
        could resolve to another address now."""
        failure: OSError = ConnectionError("no address")
        for address in addresses:
            try:
                return socket.create_connection((str(address), port), timeout=_left(deadline))
            except TimeoutError:
                raise
            except OSError as error:
                failure = error
        raise failure

    def _held(self, sock: socket.socket, instead_of: socket.socket | None = None) -> socket.socket:
        with self._lock:
            self._open.discard(instead_of)
            if self._closed:
                sock.close()
                raise ConnectionAbortedError("the server is stopping")
            self._open.add(sock)
        return sock


class Dispatcher:
    """Watches the served snapshot; on each switch, delivers its new events to the webhooks."""

    def __init__(self, store: WebhookStore, state: SnapshotState, settings: Settings):
        self.store, self.state, self.settings = store, state, settings
        self.courier: Courier | None = None
        self._task: asyncio.Task | None = None
        self._sending: set[asyncio.Task] = set()
        self._slots: dict[str, asyncio.Semaphore] = {}

    async def start(self) -> None:
        # Made at each start, as an app may be started again (on another event loop) after a stop.
        settings = self.settings
        self.courier = Courier(settings.webhook_workers, settings.webhook_timeout_seconds,
                               bool(settings.webhook_allow_private))
        self._slots = {}
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        for task in [self._task, *self._sending]:
            if task is not None:
                task.cancel()
        if self.courier is not None:
            self.courier.close()

    async def _watch(self) -> None:
        served = self.state.current()
        while True:
            await asyncio.sleep(1.0)
            current = self.state.current()
            if current is None or (served is not None and current.snapshot_id == served.snapshot_id):
                continue
            if served is not None:
                fresh = new_events(current.table("events"), served.table("events"))
                if len(fresh):
                    for hook in await asyncio.to_thread(self.store.active):
                        self._send_later(hook, current, fresh)
            served = current

    def _send_later(self, hook: Webhook, snapshot: LoadedSnapshot, fresh) -> None:
        chosen = fresh
        for column, value in (("ticker", hook.ticker), ("mode", hook.mode), ("kind", hook.kind)):
            if value is not None:
                chosen = chosen[chosen[column] == value]
        if len(chosen):
            task = asyncio.create_task(self._deliver(hook, snapshot, chosen))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    def _slot(self, key_id: str) -> asyncio.Semaphore:
        """The key's share of the courier's threads."""
        if key_id not in self._slots:
            self._slots[key_id] = asyncio.Semaphore(max(1, self.settings.webhook_concurrent_per_key))
        return self._slots[key_id]

    async def _deliver(self, hook: Webhook, snapshot: LoadedSnapshot, events) -> None:
        if not await asyncio.to_thread(self.store.claim, hook.id, snapshot.snapshot_id):
            return  # another server process delivers it
        body = msgspec.json.encode({"snapshot_id": snapshot.snapshot_id,
                                    "events": records(with_original_names(events, snapshot.table("spots")))})
        delivery = uuid.uuid4().hex
        headers = {"Content-Type": "application/json", "X-Oracle-Signature": signature(hook.secret, body),
                   "X-Oracle-Delivery": delivery, "X-Oracle-Event": "price_events",
                   "User-Agent": "inference-pricing-oracle-webhooks"}
        attempts = self.settings.webhook_attempts
        for attempt in range(1, attempts + 1):
            if not await asyncio.to_thread(self.store.is_active, hook.id):
                return  # removed or paused since
            async with self._slot(hook.key_id):
                answer = await self.courier.post(hook.url, body, headers)
            last = answer.ok or attempt == attempts
            outcome = "delivered" if answer.ok else ("failed" if last else "retrying")
            await asyncio.to_thread(self.store.log, delivery, hook.id, snapshot.snapshot_id, attempt, answer.status,
                                    outcome, len(events), answer.detail)
            if last:
                why = answer.detail or f"the receiver answered {answer.status}"
                await asyncio.to_thread(self.store.record, hook.id, answer.ok, why,
                                        self.settings.webhook_pause_after_failures)
                return
            await asyncio.sleep(self.settings.webhook_retry_seconds * 2 ** (attempt - 1))
