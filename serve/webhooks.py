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

Where a webhook may post, checked at registration and again at every try, and the posting itself
are `serve.webhook_targets`. Each try ends within `webhook_timeout_seconds`, on a thread pool of
the dispatcher's own, a key holding at most `webhook_concurrent_per_key` of its threads: one
key's tarpit delays no other key.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import sqlite3
import threading
import uuid
from collections import defaultdict
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from pipelines.events import chosen, new_events, with_original_names
from serve.respond import records
from serve.settings import Settings
from serve.state import LoadedSnapshot, SnapshotState
from serve.webhook_targets import Courier

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
            with contextlib.suppress(sqlite3.OperationalError):  # another server process added it first
                self._db.execute("ALTER TABLE deliveries ADD COLUMN detail TEXT")

    def add(self, key_id: str, url: str, ticker: str | None, mode: str | None, kind: str | None,
            most: int) -> Webhook | None:
        """The new webhook, or None when the key already has `most` (counted and added in one
        statement, so concurrent requests cannot pass the cap)."""
        hook = Webhook(uuid.uuid4().hex, key_id, url, ticker, mode, kind, "whsec_" + secrets.token_urlsafe(24), _now())
        with self._lock:
            added = self._db.execute("INSERT INTO webhooks (id, key_id, url, ticker, mode, kind, secret, created) "
                                     "SELECT :id, :key_id, :url, :ticker, :mode, :kind, :secret, :created "
                                     "WHERE (SELECT COUNT(*) FROM webhooks WHERE key_id = :key_id) < :most",
                                     {**asdict(hook), "most": most}).rowcount
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


class Dispatcher:
    """Watches the served snapshot; on each switch, delivers its new events to the webhooks."""

    def __init__(self, store: WebhookStore, state: SnapshotState, settings: Settings):
        self.store, self.state, self.settings = store, state, settings
        self.courier: Courier | None = None
        self._task: asyncio.Task | None = None
        self._sending: set[asyncio.Task] = set()
        self._slots: dict[str, asyncio.Semaphore] = {}  # each key's share of the courier's threads

    async def start(self) -> None:
        # Made at each start, as an app may be started again (on another event loop) after a stop.
        settings = self.settings
        self.courier = Courier(settings.webhook_workers, settings.webhook_timeout_seconds,
                               bool(settings.webhook_allow_private))
        self._slots = defaultdict(lambda: asyncio.Semaphore(max(1, settings.webhook_concurrent_per_key)))
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
        picked = chosen(fresh, hook.ticker, hook.mode, hook.kind)
        if len(picked):
            task = asyncio.create_task(self._deliver(hook, snapshot, picked))
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
        attempts = self.settings.webhook_attempts
        for attempt in range(1, attempts + 1):
            if not await asyncio.to_thread(self.store.is_active, hook.id):
                return  # removed or paused since
            async with self._slots[hook.key_id]:
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
