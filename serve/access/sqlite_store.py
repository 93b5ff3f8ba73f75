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
from datetime import datetime
from pathlib import Path

from serve.access.stores import SqlKeyStore, key_tables, utc_moment

BUSY_TIMEOUT_MS = 10_000
SCHEMA = key_tables(text="TEXT", moment="TEXT", day="TEXT", count="INTEGER")
COUNT_USES = ("INSERT INTO usage (key_id, day, endpoint, count) VALUES (?, ?, ?, ?) "
              "ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = count + excluded.count")


class SqliteKeyStore(SqlKeyStore):
    LIST_ORDER = "created, rowid"
    TOUCH_KEY = "UPDATE keys SET last_used = max(coalesce(last_used, ''), ?) WHERE key_id = ?"
    duplicate = sqlite3.IntegrityError

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
        with self._transaction() as db:
            for statement in SCHEMA:
                db.execute(statement)

    @contextmanager
    def _transaction(self):
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def _reading(self):
        with self._lock:
            yield self._db

    @staticmethod
    def _count_uses(db: sqlite3.Connection, rows: list[tuple]) -> None:
        db.executemany(COUNT_USES, rows)

    @staticmethod
    def _stored(moment: datetime) -> str:
        """ISO 8601 in UTC with a fixed width, so text order is time order (naive means UTC)."""
        return utc_moment(moment).isoformat(timespec="microseconds")

    @staticmethod
    def _moment(text: str | None) -> datetime | None:
        return None if text is None else datetime.fromisoformat(text)

    def close(self) -> None:
        with self._lock:
            self._db.close()
