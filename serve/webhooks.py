"""Outgoing webhooks: each newly served snapshot's events, posted to the addresses keys register.

A key registers a URL with the same filters as `/v1/events` (`ticker`, `kind`) and gets a secret,
shown once. When the server switches to a new snapshot, each webhook whose filters match any of
the events it adds (`pipelines.events.new_events`) is sent them in one POST: JSON
`{snapshot_id, events}`, signed `X-Oracle-Signature: sha256=<hex HMAC-SHA256 of the body under the
secret>`. A delivery that fails (no answer, or not 2xx) is tried again after the base wait, then
twice it, up to `webhook_attempts` tries, and is then marked failed; every try is logged and
listed by `GET /v1/webhooks`. Several server processes share the database, and the first to
claim a (webhook, snapshot) delivers it. A target must be http(s) and resolve to public
addresses only (no private, loopback, link-local or reserved range) unless the operator allows
it (`ORACLE_WEBHOOK_ALLOW_PRIVATE=1`): a key holder must not make the server call inside its
own network. The store is SQLite in the data folder.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import secrets
import socket
import sqlite3
import threading
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import msgspec

from pipelines.events import new_events, with_original_names
from serve.respond import records
from serve.state import LoadedSnapshot, SnapshotState

SCHEMA = """
CREATE TABLE IF NOT EXISTS webhooks (id TEXT PRIMARY KEY, key_id TEXT NOT NULL, url TEXT NOT NULL, ticker TEXT,
    mode TEXT, kind TEXT, secret TEXT NOT NULL, created TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS claims (webhook_id TEXT NOT NULL, snapshot_id TEXT NOT NULL,
    PRIMARY KEY (webhook_id, snapshot_id));
CREATE TABLE IF NOT EXISTS deliveries (delivery_id TEXT NOT NULL, webhook_id TEXT NOT NULL, snapshot_id TEXT NOT NULL,
    attempt INTEGER NOT NULL, at TEXT NOT NULL, status INTEGER, outcome TEXT NOT NULL, events INTEGER NOT NULL);
"""
TIMEOUT_SECONDS = 10
LOG_LISTED = 100


class TargetRefused(ValueError):
    """A URL the server will not post to, and why."""


def check_target(url: str, allow_private: bool) -> None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("the URL must be http:// or https:// with a host")
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(parts.hostname, parts.port or 443,
                                                               type=socket.SOCK_STREAM)}
    except (socket.gaierror, UnicodeError):
        raise TargetRefused(f"the host {parts.hostname} does not resolve") from None
    if allow_private:
        return
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not ip.is_global or ip.is_multicast:
            raise TargetRefused(f"{parts.hostname} resolves to {ip}, a private, loopback, link-local or reserved "
                                "address; a webhook must reach a public address")


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


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


class WebhookStore:
    """The webhooks, their claims and their delivery log, in one SQLite file."""

    def __init__(self, folder: str):
        Path(folder).mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(Path(folder) / "webhooks.sqlite", check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(SCHEMA)
        self._lock = threading.Lock()

    def add(self, key_id: str, url: str, ticker: str | None, mode: str | None, kind: str | None) -> Webhook:
        hook = Webhook(uuid.uuid4().hex, key_id, url, ticker, mode, kind, "whsec_" + secrets.token_urlsafe(24),
                       datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"))
        with self._lock:
            self._db.execute("INSERT INTO webhooks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", tuple(vars(hook).values()))
        return hook

    def of_key(self, key_id: str) -> list[Webhook]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM webhooks WHERE key_id = ? ORDER BY created", (key_id,)).fetchall()
        return [Webhook(*row) for row in rows]

    def all(self) -> list[Webhook]:
        with self._lock:
            return [Webhook(*row) for row in self._db.execute("SELECT * FROM webhooks").fetchall()]

    def remove(self, key_id: str, webhook_id: str) -> bool:
        with self._lock:
            return self._db.execute("DELETE FROM webhooks WHERE id = ? AND key_id = ?",
                                    (webhook_id, key_id)).rowcount > 0

    def claim(self, webhook_id: str, snapshot_id: str) -> bool:
        """True for the one process that is to deliver this snapshot to this webhook."""
        with self._lock:
            return self._db.execute("INSERT OR IGNORE INTO claims VALUES (?, ?)",
                                    (webhook_id, snapshot_id)).rowcount > 0

    def log(self, delivery_id: str, webhook_id: str, snapshot_id: str, attempt: int, status: int | None,
            outcome: str, events: int) -> None:
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        with self._lock:
            self._db.execute("INSERT INTO deliveries VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             (delivery_id, webhook_id, snapshot_id, attempt, at, status, outcome, events))

    def deliveries(self, key_id: str) -> list[dict]:
        with self._lock:
            rows = self._db.execute(
                "SELECT d.* FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE w.key_id = ? "
                "ORDER BY d.at DESC LIMIT ?", (key_id, LOG_LISTED)).fetchall()
        names = ["delivery_id", "webhook_id", "snapshot_id", "attempt", "at", "status", "outcome", "events"]
        return [dict(zip(names, row, strict=True)) for row in rows]

    def close(self) -> None:
        self._db.close()


def _post(url: str, body: bytes, headers: dict[str, str]) -> int | None:
    """The receiver's status, or None when it did not answer."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:  # noqa: S310 - checked target
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except (urllib.error.URLError, OSError):
        return None


class Dispatcher:
    """Watches the served snapshot; on each switch, delivers its new events to the webhooks."""

    def __init__(self, store: WebhookStore, state: SnapshotState, attempts: int, retry_seconds: float):
        self.store, self.state, self.attempts, self.retry_seconds = store, state, attempts, retry_seconds
        self._task: asyncio.Task | None = None
        self._sending: set[asyncio.Task] = set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._watch())

    async def stop(self) -> None:
        for task in [self._task, *self._sending]:
            if task is not None:
                task.cancel()

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
                    for hook in await asyncio.to_thread(self.store.all):
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

    async def _deliver(self, hook: Webhook, snapshot: LoadedSnapshot, events) -> None:
        if not await asyncio.to_thread(self.store.claim, hook.id, snapshot.snapshot_id):
            return  # another server process delivers it
        body = msgspec.json.encode({"snapshot_id": snapshot.snapshot_id,
                                    "events": records(with_original_names(events, snapshot.table("spots")))})
        delivery = uuid.uuid4().hex
        headers = {"Content-Type": "application/json", "X-Oracle-Signature": signature(hook.secret, body),
                   "X-Oracle-Delivery": delivery, "X-Oracle-Event": "price_events",
                   "User-Agent": "inference-pricing-oracle-webhooks"}
        for attempt in range(1, self.attempts + 1):
            status = await asyncio.to_thread(_post, hook.url, body, headers)
            ok = status is not None and 200 <= status < 300
            last = ok or attempt == self.attempts
            outcome = "delivered" if ok else ("failed" if last else "retrying")
            await asyncio.to_thread(self.store.log, delivery, hook.id, snapshot.snapshot_id, attempt, status,
                                    outcome, len(events))
            if last:
                return
            await asyncio.sleep(self.retry_seconds * 2 ** (attempt - 1))
