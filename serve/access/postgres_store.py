"""The shared key store: PostgreSQL, for several server processes or machines behind one limit.

Same tables and meaning as the SQLite store; timestamps are `timestamptz` and days `date`, the
native types. psycopg is imported when a store is made, so it is needed only where configured.
One connection per store, guarded by a lock: psycopg would serialise statements on a shared
connection anyway, and the lock keeps one thread's transaction from taking in another's statements.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import UTC, date, datetime

from serve.access.sqlite_store import check_tier, summarise
from serve.access.stores import CountsOneUseAsABatch, KeyRecord, Usage, UsageBatch, key_hash, new_key, same_hash

INSTALL_HINT = "pip install 'inference-pricing-oracle[scale]'"

# Several processes may start at once; the advisory lock keeps their CREATE TABLEs from racing.
SCHEMA_LOCK = "SELECT pg_advisory_xact_lock(7262031)"
SCHEMA = (
    """CREATE TABLE IF NOT EXISTS keys (
        key_id text PRIMARY KEY,
        key_hash text NOT NULL UNIQUE,
        name text NOT NULL,
        tier text NOT NULL,
        created timestamptz NOT NULL,
        revoked timestamptz,
        last_used timestamptz
    )""",
    """CREATE TABLE IF NOT EXISTS usage (
        key_id text NOT NULL,
        day date NOT NULL,
        endpoint text NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (key_id, day, endpoint)
    )""",
)
KEY_COLUMNS = "key_id, key_hash, name, tier, created, revoked, last_used"
INSERT_KEY = "INSERT INTO keys (key_id, key_hash, name, tier, created) VALUES (%s, %s, %s, %s, %s)"
FIND_KEY = f"SELECT {KEY_COLUMNS} FROM keys WHERE key_hash = %s"
REVOKE_KEY = "UPDATE keys SET revoked = %s WHERE key_id = %s AND revoked IS NULL"
LIST_KEYS = f"SELECT {KEY_COLUMNS} FROM keys ORDER BY created, key_id"
# GREATEST skips NULL, so last_used only moves forward whatever order requests commit in.
TOUCH_KEY = "UPDATE keys SET last_used = GREATEST(last_used, %s) WHERE key_id = %s"
COUNT_USES = ("INSERT INTO usage (key_id, day, endpoint, count) VALUES (%s, %s, %s, %s) "
              "ON CONFLICT (key_id, day, endpoint) DO UPDATE SET count = usage.count + excluded.count")
USAGE_ROWS = "SELECT day, endpoint, count FROM usage WHERE key_id = %s"
LAST_USED = "SELECT last_used FROM keys WHERE key_id = %s"


def as_utc(moment: datetime | None) -> datetime | None:
    """Aware UTC datetimes in and out (naive means UTC), whatever the session's time zone."""
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _record(row: tuple) -> KeyRecord:
    key_id, _hash, name, tier, created, revoked, last_used = row
    return KeyRecord(key_id=key_id, name=name, tier=tier, created=as_utc(created),
                     revoked=as_utc(revoked), last_used=as_utc(last_used))


class PostgresKeyStore(CountsOneUseAsABatch):
    def __init__(self, dsn: str):
        try:
            import psycopg
        except ImportError as err:
            raise ImportError(f"a postgresql:// key store needs the psycopg package: {INSTALL_HINT}") from err
        self._psycopg = psycopg
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

    def create(self, name: str, tier: str, now: datetime) -> tuple[str, KeyRecord]:
        check_tier(tier)
        for attempt in range(3):
            key = new_key()
            digest = key_hash(key)
            record = KeyRecord(key_id=digest[:12], name=name, tier=tier, created=as_utc(now))
            try:
                with self._transaction() as db:
                    db.execute(INSERT_KEY, (record.key_id, digest, name, tier, record.created))
                return key, record
            except self._psycopg.errors.UniqueViolation:
                if attempt == 2:  # not a collision of 48-bit ids, which a fresh key settles
                    raise

    def find(self, key: str) -> KeyRecord | None:
        digest = key_hash(key)
        with self._transaction() as db:
            row = db.execute(FIND_KEY, (digest,)).fetchone()
        # The index finds the row; the constant-time check keeps the final comparison from leaking.
        return _record(row) if row and same_hash(row[1], digest) else None

    def revoke(self, key_id: str, now: datetime) -> bool:
        with self._transaction() as db:
            return db.execute(REVOKE_KEY, (as_utc(now), key_id)).rowcount == 1

    def list_keys(self) -> list[KeyRecord]:
        with self._transaction() as db:
            return [_record(row) for row in db.execute(LIST_KEYS).fetchall()]

    def record_uses(self, batch: UsageBatch) -> None:
        if not batch:
            return
        with self._transaction() as db:
            known = {key_id for key_id, moment in batch.last_used.items()
                     if db.execute(TOUCH_KEY, (moment, key_id)).rowcount}
            # A batch holds one row per key, day and endpoint used within a second: few statements.
            for (key_id, day, endpoint), requests in batch.counts.items():
                if key_id in known:
                    db.execute(COUNT_USES, (key_id, date.fromisoformat(day), endpoint, requests))

    def usage(self, key_id: str) -> Usage:
        with self._transaction() as db:
            rows = db.execute(USAGE_ROWS, (key_id,)).fetchall()
            last = db.execute(LAST_USED, (key_id,)).fetchone()
        return summarise(rows, as_utc(last[0]) if last else None)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

