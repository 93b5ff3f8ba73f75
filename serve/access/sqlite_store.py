"""The embedded key store: one SQLite file under the data folder, shared by the server and the CLI.

Concurrency: one connection per store, guarded by a lock (`check_same_thread=False`). SQLite lets
only one writer in at a time anyway, so a lock costs the server's worker threads nothing on
writes, and unlike a connection per thread it leaves nothing open in pool threads when `close()`
runs. Other processes on the same file (a CLI beside the server, several workers) are handled by
WAL, which lets readers and one writer proceed together, and `busy_timeout`, which makes a writer
wait for the lock instead of failing. Writes start with `BEGIN IMMEDIATE`: a transaction that
read first and then tried to write could fail at once, without waiting, if another process wrote
in between.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from serve.access.stores import TIERS, CountsOneUseAsABatch, KeyRecord, Usage, UsageBatch, key_hash, new_key, same_hash

BUSY_TIMEOUT_MS = 10_000

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS keys (
        key_id TEXT PRIMARY KEY,
        key_hash TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        tier TEXT NOT NULL,
        created TEXT NOT NULL,
        revoked TEXT,
        last_used TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS usage (
        key_id TEXT NOT NULL,
        day TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, day, endpoint)
    )""",
)

KEY_COLUMNS = "key_id, key_hash, name, tier, created, revoked, last_used"


def utc_text(moment: datetime) -> str:
    """ISO 8601 in UTC with a fixed width, so text order is time order (naive means UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def _record(row: tuple) -> KeyRecord:
    key_id, _hash, name, tier, created, revoked, last_used = row
    return KeyRecord(key_id=key_id, name=name, tier=tier, created=_moment(created),
                     revoked=_moment(revoked), last_used=_moment(last_used))


def check_tier(tier: str) -> None:
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")


class SqliteKeyStore(CountsOneUseAsABatch):
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        # Autocommit mode: transactions are opened explicitly, so each write is exactly one.
        self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                                   check_same_thread=False)
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")  # before WAL: that needs a lock too
        self._db.execute("PRAGMA journal_mode = WAL")
        # With WAL, NORMAL skips an fsync per commit: a killed process loses nothing and the file
        # stays consistent; only a power cut can drop the last moments of usage counts.
        self._db.execute("PRAGMA synchronous = NORMAL")
        with self._write() as db:
            for statement in SCHEMA:
                db.execute(statement)

    @contextmanager
    def _write(self):
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def create(self, name: str, tier: str, now: datetime) -> tuple[str, KeyRecord]:
        check_tier(tier)
        for attempt in range(3):
            key = new_key()
            digest = key_hash(key)
            record = KeyRecord(key_id=digest[:12], name=name, tier=tier, created=_moment(utc_text(now)))
            try:
                with self._write() as db:
                    db.execute("INSERT INTO keys (key_id, key_hash, name, tier, created) VALUES (?, ?, ?, ?, ?)",
                               (record.key_id, digest, name, tier, utc_text(now)))
                return key, record
            except sqlite3.IntegrityError:
                if attempt == 2:  # not a collision of 48-bit ids, which a fresh key settles
                    raise

    def find(self, key: str) -> KeyRecord | None:
        digest = key_hash(key)
        rows = self._read(f"SELECT {KEY_COLUMNS} FROM keys WHERE key_hash = ?", (digest,))
        # The index finds the row; the constant-time check keeps the final comparison from leaking.
        if rows and same_hash(rows[0][1], digest):
            return _record(rows[0])
        return None

    def revoke(self, key_id: str, now: datetime) -> bool:
        with self._write() as db:
            cursor = db.execute("UPDATE keys SET revoked = ? WHERE key_id = ? AND revoked IS NULL",
                                (utc_text(now), key_id))
            return cursor.rowcount == 1

    def list_keys(self) -> list[KeyRecord]:
        return [_record(row) for row in self._read(f"SELECT {KEY_COLUMNS} FROM keys ORDER BY created, rowid")]

    def record_uses(self, batch: UsageBatch) -> None:
        if not batch:
            return
        with self._write() as db:
            # last_used only moves forward, whatever order concurrent writers commit in.
            known = {key_id for key_id, moment in batch.last_used.items()
                     if db.execute("UPDATE keys SET last_used = max(coalesce(last_used, ''), ?) WHERE key_id = ?",
                                   (utc_text(moment), key_id)).rowcount}
            db.executemany("INSERT INTO usage (key_id, day, endpoint, count) VALUES (?, ?, ?, ?) "
                           "ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = count + excluded.count",
                           [(*slot, requests) for slot, requests in batch.counts.items() if slot[0] in known])

    def usage(self, key_id: str) -> Usage:
        with self._lock:
            rows = self._db.execute("SELECT day, endpoint, count FROM usage WHERE key_id = ?", (key_id,)).fetchall()
            last = self._db.execute("SELECT last_used FROM keys WHERE key_id = ?", (key_id,)).fetchone()
        return summarise(rows, _moment(last[0]) if last else None)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def summarise(rows: list[tuple[str, str, int]], last_used: datetime | None) -> Usage:
    """Usage from (day, endpoint, count) rows; shared with the PostgreSQL store."""
    per_endpoint: dict[str, int] = {}
    per_day: dict[str, int] = {}
    for day, endpoint, count in rows:
        per_endpoint[endpoint] = per_endpoint.get(endpoint, 0) + count
        per_day[str(day)] = per_day.get(str(day), 0) + count
    return Usage(total=sum(per_endpoint.values()), last_used=last_used,
                 per_endpoint=dict(sorted(per_endpoint.items())), per_day=dict(sorted(per_day.items())))
