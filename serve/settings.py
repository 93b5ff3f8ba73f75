"""Server settings: from arguments, else `ORACLE_*` environment variables, read when asked."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

DEFAULT_WAREHOUSE = "warehouse/snapshots"


@dataclass(frozen=True)
class Settings:
    warehouse: str = DEFAULT_WAREHOUSE
    # A snapshot published is served within this many seconds: the pointer to the newest is looked
    # at no more often (serve/state.py).
    snapshot_poll_seconds: float = 1.0
    # Older than this, the data is stale and the service says `degraded` (contract §8).
    stale_after_hours: float = 26.0
    max_body_bytes: int = 64 * 1024
    # A request body must arrive whole within this (408 after it): a client trickling a body in
    # would otherwise hold a connection and its buffer for as long as it likes.
    body_timeout_seconds: float = 10.0
    cache_max_age_seconds: int = 60
    monte_carlo_default_paths: int = 10_000
    monte_carlo_max_paths: int = 100_000
    simulate_max_items: int = 50
    # Swaps discount their fixings at this annual rate, continuously compounded.
    discount_rate: float = 0.05
    # Keys and limits. The key database lives in `data` (SQLite) unless `key_store_url` names a
    # PostgreSQL server; counters are in process unless `counter_store_url` names a Redis server.
    data: str = "data"
    key_store_url: str = ""
    counter_store_url: str = ""
    free_requests_per_hour: int = 60
    # Without a key, from the dashboard's pages (serve/access/middleware.py DASHBOARD_COOKIE), per
    # client address: 100 page views an hour at up to 8 requests each (a model page makes 6).
    dashboard_requests_per_hour: int = 800
    developer_requests_per_hour: int = 1_000
    enterprise_requests_per_hour: int = 100_000
    # `internal` has no limit in practice; the number keeps the RateLimit headers numeric.
    internal_requests_per_hour: int = 10**12
    key_creations_per_hour: int = 10  # successful creations per client address
    # Requests with a key that is not recognised (or revoked), per client address: past this,
    # 429 instead of 401, so guessing keys costs an attacker time, not the server.
    failed_auths_per_hour: int = 60
    # Comma-separated addresses of proxies whose X-Forwarded-For is believed.
    trusted_proxies: str = ""
    # Comma-separated origins whose pages may call the API from a browser ("*": any). Empty, the
    # default: none, and no CORS work per request (a measurable share of a cached answer's time).
    # Even "*" would be safe: a key travels in a header the calling page must set, never in a
    # cookie, so a foreign page cannot spend a visitor's key.
    cors_origins: str = ""
    # Snapshot answers kept, encoded, for repeats (serve/answers.py): at most this many bytes per
    # snapshot, the least recently used going first. 64 MiB holds every list, sheet and curve of
    # the bundled data's snapshot many times over.
    kept_answer_bytes: int = 64 * 1024 * 1024
    # One line per request (serve/access_log.py): `stdout`, `stderr`, `off`, or a file to append to.
    access_log: str = "stdout"
    # Outgoing webhooks (serve/webhooks.py): 1 lets a target resolve to a private, loopback or
    # link-local address (a receiver on this machine or network); each delivery is tried this
    # many times, waiting the base wait, then twice it, and so on, between tries.
    webhook_allow_private: int = 0
    webhook_attempts: int = 4
    webhook_retry_seconds: float = 2.0
    # Each try ends within this, connecting and the answer's first line included, so a receiver
    # that accepts and never answers holds a delivery thread no longer.
    webhook_timeout_seconds: float = 10.0
    # Deliveries run on this many threads of their own, a key holding at most
    # `webhook_concurrent_per_key` of them at once, so one key's slow receivers leave the others'
    # threads free; a key may register at most `webhook_max_per_key` webhooks.
    webhook_workers: int = 8
    webhook_concurrent_per_key: int = 2
    webhook_max_per_key: int = 10
    # A webhook whose deliveries failed (every try) this many times in a row is paused.
    webhook_pause_after_failures: int = 5
    # Event streams (serve/event_stream.py) each hold a connection, and so a file descriptor, for
    # their life: at most this many per client address and in all, per server process (the total
    # is further kept to half the process's open-file limit, so other requests always find one).
    stream_max_per_address: int = 6
    stream_max_total: int = 200
    # A stream ends after this long, cleanly, and its client reconnects with Last-Event-ID: no
    # stream holds its place for ever. A comment every `stream_heartbeat_seconds` makes a
    # connection whose client has gone fail on write, so its place is given back.
    stream_max_life_seconds: float = 3600.0
    stream_heartbeat_seconds: float = 15.0
    # Without a key, a CSV export is refused for a table of more rows than this (Parquet is not:
    # it is the published file, sent as it is). Making CSV costs CPU in proportion to the rows
    # (about 1.5 CPU-s for the full price history), which a client without a key could multiply.
    export_keyless_csv_max_rows: int = 25_000

    def limit_of(self, tier: str) -> int:
        return getattr(self, f"{tier}_requests_per_hour")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> Settings:
        """`ORACLE_<FIELD>` variables (upper case) over the defaults, then explicit overrides."""
        environ = os.environ if environ is None else environ
        values = {}
        for field in fields(cls):
            raw = environ.get(f"ORACLE_{field.name.upper()}")
            if raw is not None and raw != "":
                values[field.name] = type(getattr(cls(), field.name))(raw)
        settings = cls(**values)
        return replace(settings, **{k: v for k, v in overrides.items() if v is not None})
