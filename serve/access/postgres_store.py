"""The shared key store: PostgreSQL, for several server processes or machines behind one limit.

Same tables and meaning as the SQLite store; timestamps are `timestamptz` and days `date`, the
native types. psycopg is imported when a store is made, so it is needed only where configured.
One connection per store, guarded by a lock: psycopg would serialise statements on a shared
connection anyway, and the lock keeps one thread's transaction from taking in another's statements.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import date, datetime

from serve.access.stores import INSTALL_HINT, SqlKeyStore, key_tables, utc_moment

# Several processes may start at once; the advisory lock keeps their CREATE TABLEs from racing.
SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(7262031)"
SCHEMA = key_tables(text="text", moment="timestamptz", day="date", count="bigint")
COUNT_USES = ("INSERT INTO usage (key_id, day, endpoint, count) VALUES (%s, %s, %s, %s) "
              "ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = usage.count + excluded.count")


class PostgresKeyStore(SqlKeyStore):
    MARK = "%s"
    LIST_ORDER = "created, key_id"
    # GREATEST skips NULL, so last_used only moves forward whatever order requests commit in.
    TOUCH_KEY = "UPDATE keys SET last_used = GREATEST(last_used, %s) WHERE key_id = %s"

    def __init__(self, dsn: str):
        try:
            import psycopg
        except ImportError as err:
            raise ImportError(f"a postgresql:// key store needs the psycopg package: {INSTALL_HINT}") from err
        self._psycopg, self.duplicate = psycopg, psycopg.errors.UniqueViolation
        self._dsn = dsn
        self._lock = threading.Lock()
        self._db = None
        with self._transaction() as db:
            db.execute(SCHEMA_LOCK)
            for statement in SCHEMA:
                db.execute(statement)

    def _connection(self):
        """The store's connection, opened again if the server dropped it (restart, failover)."""
        if self._db is None or self._db.closed or self._db.broken:
            self._db = self._psycopg.connect(self._dsn, autocommit=True)
        return self._db

    @contextmanager
    def _transaction(self):
        """One transaction on the store's connection: committed on success, rolled back on error."""
        with self._lock:
            db = self._connection()
            with db.transaction():
                yield db

    _reading = _transaction  # reads in one transaction too, so a key's usage and last use agree

    @staticmethod
    def _count_uses(db, rows: list[tuple]) -> None:
        # A batch holds one row per key, day and endpoint used within a second: few statements.
        for key_id, day, endpoint, requests in rows:
            db.execute(COUNT_USES, (key_id, date.fromisoformat(day), endpoint, requests))

    # Aware UTC datetimes in and out (naive means UTC), whatever the session's time zone.
    _stored = staticmethod(utc_moment)

    @staticmethod
    def _moment(moment: datetime | None) -> datetime | None:
        return None if moment is None else utc_moment(moment)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
