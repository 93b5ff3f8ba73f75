"""Which key store and counter store the settings ask for.

Both functions take plain values (or, as their first argument, any object carrying them as
attributes, such as the server's settings), so the server and the `oracle keys` command open
the same database the same way. The shared stores are imported only when asked for, as their
packages are optional.
"""

from __future__ import annotations

import os
from pathlib import Path

from serve.access.memory_counter import MemoryCounterStore
from serve.access.sqlite_store import SqliteKeyStore
from serve.access.stores import CounterStore, KeyStore

KEYS_FILE = "keys.sqlite3"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
REDIS_SCHEMES = ("redis://", "rediss://")


def key_store_from(data: str | os.PathLike | object, key_store_url: str | None = None) -> KeyStore:
    """Empty URL: SQLite at `<data>/keys.sqlite3`; `postgresql://…`: PostgreSQL."""
    if data is not None and not isinstance(data, str | os.PathLike):  # a settings-like object
        key_store_url = key_store_url if key_store_url is not None else getattr(data, "key_store_url", "")
        data = getattr(data, "data", None)
    url = (key_store_url or "").strip()
    if not url:
        if data is None:
            raise ValueError("an embedded key store needs the data folder")
        folder = Path(data)
        folder.mkdir(parents=True, exist_ok=True)
        return SqliteKeyStore(folder / KEYS_FILE)
    if url.startswith(POSTGRES_SCHEMES):
        from serve.access.postgres_store import PostgresKeyStore

        return PostgresKeyStore(url)
    raise ValueError(f"key store URL {_redacted(url)!r} not understood: leave it empty for SQLite in the "
                     "data folder, or give postgresql://user:password@host:port/database")


def counter_store_from(counter_store_url: str | object = "") -> CounterStore:
    """Empty URL: in this process; `redis://…`: Redis."""
    if counter_store_url is not None and not isinstance(counter_store_url, str):  # a settings-like object
        counter_store_url = getattr(counter_store_url, "counter_store_url", "")
    url = (counter_store_url or "").strip()
    if not url:
        return MemoryCounterStore()
    if url.startswith(REDIS_SCHEMES):
        from serve.access.redis_counter import RedisCounterStore

        return RedisCounterStore(url)
    raise ValueError(f"counter store URL {_redacted(url)!r} not understood: leave it empty to count in "
                     "this process, or give redis://host:port/db (rediss:// for TLS)")


def _redacted(url: str) -> str:
    """The URL without its password, which must not reach a log or an error message."""
    scheme, sep, rest = url.partition("://")
    userinfo, at, host = rest.rpartition("@")
    if not sep or not at:
        return url
    user, colon, _password = userinfo.partition(":")
    return f"{scheme}://{user}{':***' if colon else ''}@{host}"
