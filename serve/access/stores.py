"""The two small storage interfaces behind keys and limits, and how settings pick them.

- `KeyStore` keeps keys (only their SHA-256 hash, never the key) and their usage. Embedded
  default: SQLite in WAL mode under the data folder; for several server processes: PostgreSQL.
- `CounterStore` counts requests per bucket in fixed one-hour windows. Embedded default: in
  process; for several server processes sharing one limit: Redis.
- `SqlKeyStore`: what the SQLite and PostgreSQL key stores share, their tables and statements.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Protocol

KEY_PREFIX = "ipo_"
TIERS = ("free", "developer", "enterprise", "internal")
# The packages of the shared stores are optional.
INSTALL_HINT = "pip install 'inference-pricing-oracle[scale]'"


def new_key() -> str:
    """A fresh key: 256 random bits, URL-safe, with a recognisable prefix."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """What is stored instead of the key. Keys carry 256 random bits, so a plain SHA-256 is
    already infeasible to invert; no salt or slow hash is needed."""
    return hashlib.sha256(key.encode()).hexdigest()


def same_hash(a: str, b: str) -> bool:
    """Constant-time comparison, so response timing says nothing about a stored hash."""
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(frozen=True)
class KeyRecord:
    key_id: str  # a public handle: the first 12 hex digits of the hash
    name: str
    tier: str
    created: datetime
    revoked: datetime | None = None
    last_used: datetime | None = None


@dataclass(frozen=True)
class Usage:
    total: int
    last_used: datetime | None
    per_endpoint: dict[str, int] = field(default_factory=dict)
    per_day: dict[str, int] = field(default_factory=dict)  # ISO date → requests


def utc_moment(moment: datetime) -> datetime:
    """An aware UTC datetime (naive means UTC); one in UTC already is returned as it is, at no
    cost, since a server records one for every keyed request."""
    if moment.tzinfo is UTC:
        return moment
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


@dataclass
class UsageBatch:
    """Requests counted but not yet written: per (key id, UTC day, endpoint), and each key's
    latest use. Stores write a batch in one transaction."""

    counts: dict[tuple[str, str, str], int] = field(default_factory=dict)
    last_used: dict[str, datetime] = field(default_factory=dict)

    def add(self, key_id: str, endpoint: str, now: datetime, requests: int = 1) -> None:
        moment = utc_moment(now)
        self._count(key_id, moment.date().isoformat(), endpoint, requests)
        self._seen(key_id, moment)

    def add_uses(self, uses: Iterable[tuple[str, str, datetime]]) -> None:
        """Single requests, (key id, endpoint, moment in UTC), as a server gathers them: by the
        thousand a second. Each costs a tuple and a count here; a day's name and a key's latest
        moment are worked out once per slot and key. (`add` for each took the interpreter from
        the event loop for a few microseconds a request.)"""
        per_day: dict[tuple[str, str, date], int] = {}
        latest: dict[str, datetime] = {}
        for key_id, endpoint, moment in uses:
            slot = (key_id, endpoint, moment.date())
            per_day[slot] = per_day.get(slot, 0) + 1
            if key_id not in latest or moment > latest[key_id]:
                latest[key_id] = moment
        for (key_id, endpoint, day), requests in per_day.items():
            self._count(key_id, day.isoformat(), endpoint, requests)
        for key_id, moment in latest.items():
            self._seen(key_id, moment)

    def _count(self, key_id: str, day: str, endpoint: str, requests: int) -> None:
        slot = (key_id, day, endpoint)
        self.counts[slot] = self.counts.get(slot, 0) + requests

    def _seen(self, key_id: str, moment: datetime) -> None:
        if key_id not in self.last_used or moment > self.last_used[key_id]:
            self.last_used[key_id] = moment

    def merge(self, other: UsageBatch) -> None:
        for slot, requests in other.counts.items():
            self._count(*slot, requests)
        for key_id, moment in other.last_used.items():
            self._seen(key_id, moment)

    def __bool__(self) -> bool:
        return bool(self.counts)


class KeyStore(Protocol):
    def create(self, name: str, tier: str, now: datetime) -> tuple[str, KeyRecord]:
        """Make a key; the clear key is returned here once and never stored."""

    def find(self, key: str) -> KeyRecord | None:
        """The record of a presented key (revoked ones included), or None when unknown."""

    def revoke(self, key_id: str, now: datetime) -> bool:
        """Revoke by key id; False when there is no such (unrevoked) key."""

    def list_keys(self) -> list[KeyRecord]: ...

    def record_use(self, key_id: str, endpoint: str, now: datetime) -> None:
        """Count one request: total, per endpoint, per day; set last_used. Safe under concurrency."""

    def record_uses(self, batch: UsageBatch) -> None:
        """Count a batch of requests in one transaction; uses of unknown key ids are dropped."""

    def usage(self, key_id: str) -> Usage: ...

    def close(self) -> None: ...


class CounterStore(Protocol):
    """Awaited on every request, so a store across the network (Redis) never holds the event loop."""

    async def hit(self, bucket: str, window_seconds: int, now: float, amount: int = 1) -> tuple[int, float]:
        """Count `amount` (one request; 0 to look without counting) in the bucket's current fixed
        window; returns (the count including these, the window's end as a Unix time)."""

    async def close(self) -> None: ...


KEY_COLUMNS = "key_id, key_hash, name, tier, created, revoked, last_used"


def key_tables(text: str, moment: str, day: str, count: str) -> tuple[str, str]:
    """The two tables of a SQL key store, in a dialect's names for the column types."""
    return (f"""CREATE TABLE IF NOT EXISTS keys (
        key_id {text} PRIMARY KEY,
        key_hash {text} NOT NULL UNIQUE,
        name {text} NOT NULL,
        tier {text} NOT NULL,
        created {moment} NOT NULL,
        revoked {moment},
        last_used {moment}
    )""", f"""CREATE TABLE IF NOT EXISTS usage (
        key_id {text} NOT NULL,
        day {day} NOT NULL,
        endpoint {text} NOT NULL,
        count {count} NOT NULL,
        PRIMARY KEY (key_id, day, endpoint)
    )""")


class SqlKeyStore:
    """A `KeyStore` over SQL. A store gives its driver's parameter `MARK`, the order `LIST_ORDER`
    that breaks ties between keys made at the same moment, `TOUCH_KEY` (sets a key's last_used)
    and `_count_uses` in its dialect, `duplicate` (the error of a key stored twice), how a moment
    is stored and read back (`_stored`, `_moment`), and its connection under its lock, as
    `_reading()` and as `_transaction()`, which commits on success and rolls back on error."""

    MARK = "?"

    def create(self, name: str, tier: str, now: datetime) -> tuple[str, KeyRecord]:
        if tier not in TIERS:
            raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
        created = self._stored(now)
        for attempt in range(3):
            key = new_key()
            digest = key_hash(key)
            record = KeyRecord(key_id=digest[:12], name=name, tier=tier, created=self._moment(created))
            try:
                with self._transaction() as db:
                    db.execute(f"INSERT INTO keys (key_id, key_hash, name, tier, created) VALUES "
                               f"({', '.join([self.MARK] * 5)})", (record.key_id, digest, name, tier, created))
                return key, record
            except self.duplicate:
                if attempt == 2:  # not a collision of 48-bit ids, which a fresh key settles
                    raise

    def find(self, key: str) -> KeyRecord | None:
        digest = key_hash(key)
        with self._reading() as db:
            row = db.execute(f"SELECT {KEY_COLUMNS} FROM keys WHERE key_hash = {self.MARK}", (digest,)).fetchone()
        # The index finds the row; the constant-time check keeps the final comparison from leaking.
        return self._record(row) if row and same_hash(row[1], digest) else None

    def revoke(self, key_id: str, now: datetime) -> bool:
        with self._transaction() as db:
            return db.execute(f"UPDATE keys SET revoked = {self.MARK} WHERE key_id = {self.MARK} AND revoked IS NULL",
                              (self._stored(now), key_id)).rowcount == 1

    def list_keys(self) -> list[KeyRecord]:
        with self._reading() as db:
            rows = db.execute(f"SELECT {KEY_COLUMNS} FROM keys ORDER BY {self.LIST_ORDER}").fetchall()
        return [self._record(row) for row in rows]

    def record_use(self, key_id: str, endpoint: str, now: datetime) -> None:
        """One request, counted as a batch of one, so one method does the writing."""
        batch = UsageBatch()
        batch.add(key_id, endpoint, now)
        self.record_uses(batch)

    def record_uses(self, batch: UsageBatch) -> None:
        if not batch:
            return
        with self._transaction() as db:
            # last_used only moves forward, whatever order concurrent writers commit in.
            known = {key_id for key_id, moment in batch.last_used.items()
                     if db.execute(self.TOUCH_KEY, (self._stored(moment), key_id)).rowcount}
            self._count_uses(db, [(*slot, requests) for slot, requests in batch.counts.items() if slot[0] in known])

    def usage(self, key_id: str) -> Usage:
        of_key = f"WHERE key_id = {self.MARK}"
        with self._reading() as db:
            rows = db.execute(f"SELECT day, endpoint, count FROM usage {of_key}", (key_id,)).fetchall()
            last = db.execute(f"SELECT last_used FROM keys {of_key}", (key_id,)).fetchone()
        per_endpoint, per_day = Counter(), Counter()
        for day, endpoint, count in rows:
            per_endpoint[endpoint] += count
            per_day[str(day)] += count
        return Usage(total=sum(per_endpoint.values()), last_used=self._moment(last[0]) if last else None,
                     per_endpoint=dict(sorted(per_endpoint.items())), per_day=dict(sorted(per_day.items())))

    def _record(self, row: tuple) -> KeyRecord:
        key_id, _hash, name, tier, created, revoked, last_used = row
        return KeyRecord(key_id=key_id, name=name, tier=tier, created=self._moment(created),
                         revoked=self._moment(revoked), last_used=self._moment(last_used))
