"""A snapshot's tables as JSON-ready records, kept with the snapshot, and the model a name means.

Shared by every endpoint module (`serve/api/*` import no other `serve/api` module)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from serve.lookup import UnknownModel
from serve.problems import Problem
from serve.respond import records
from serve.state import LoadedSnapshot

# The original oracle's names for fields we publish under our own (contract §9): both, same value.
ORIGINAL_ALIASES = {"greeks": {"family_prior_weight": "prior_weight"}}


def memoized(snapshot: LoadedSnapshot, key: tuple, compute) -> Any:
    """`compute()` once per snapshot under `key`."""
    if key not in snapshot.cache:
        snapshot.cache[key] = compute()
    return snapshot.cache[key]


def table_records(snapshot: LoadedSnapshot, table: str) -> list[dict[str, Any]]:
    """A whole table as JSON-ready records, computed once per snapshot."""
    def compute() -> list[dict[str, Any]]:
        rows = records(snapshot.table(table))
        for alias, ours in ORIGINAL_ALIASES.get(table, {}).items():
            for row in rows:
                row[alias] = row[ours]
        return rows
    return memoized(snapshot, ("records", table), compute)


def ticker_of(snapshot: LoadedSnapshot, name: str, **kinds: bool) -> Any:
    name = name.lstrip("/")  # `{ticker:path}` keeps its leading slash; it lets `vendor/model` ids through
    try:
        return snapshot.lookup.resolve(name, **kinds)
    except UnknownModel as unknown:
        hint = f"; did you mean {', '.join(unknown.suggestions)}?" if unknown.suggestions else ""
        raise Problem(404, "unknown_model", f"no model is called '{name}'{hint}", ticker=name,
                      suggestions=unknown.suggestions) from None  # `ticker`: the original oracle's name


def record_of(snapshot: LoadedSnapshot, table: str, ticker: str) -> dict[str, Any]:
    by_ticker = memoized(snapshot, ("by_ticker", table),
                         lambda: {row["ticker"]: row for row in table_records(snapshot, table)})
    return by_ticker[ticker]


def optional_table(snapshot: LoadedSnapshot, name: str, code: str, kept_since: str) -> pd.DataFrame:
    """A table an older snapshot may lack (`servable.OPTIONAL_TABLES_READ`), or a 503 saying the
    snapshot was published before `kept_since` and that the next refresh adds it."""
    try:
        return snapshot.table(name)
    except LookupError:
        raise Problem(503, code, f"snapshot {snapshot.snapshot_id} has no {name} table: it was published before "
                                 f"{kept_since}; the next refresh adds it") from None
