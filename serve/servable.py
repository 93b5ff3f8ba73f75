"""What a snapshot must hold before the server answers from it, beyond matching its manifest.

A snapshot can be whole (every file matches its checksum and row count) and still be one the API
cannot answer from: a table the handlers read left out of the manifest, a table published empty,
spots without a price. Served, each of these turns endpoints into 500s while `/` says ok. So a
snapshot is judged on sense as well as bytes, and one that fails is refused like a damaged one.

`API` is the one list of what the handlers need: the tables they read, the tables they cannot
answer from when empty, and the spot prices that must be there.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from warehouse.snapshot import Manifest, SnapshotDamaged, SnapshotStore


@dataclass(frozen=True)
class Servable:
    tables: frozenset[str] = frozenset()  # must be in the manifest
    non_empty: frozenset[str] = frozenset()  # must hold at least one row
    spot_prices: tuple[str, ...] = ()  # columns of `spots` that must not be null on every row

    def read(self, store: SnapshotStore, manifest: Manifest) -> dict[str, pd.DataFrame]:
        """Every table of `manifest`, read and checked for bytes and for sense; raises SnapshotDamaged
        saying what is wrong. What the manifest alone shows is checked before any file is read."""
        self._check_tables(manifest)
        frames = store.read_verified(manifest)
        self._check_spot_prices(manifest.snapshot_id, frames.get("spots"))
        return frames

    def _check_tables(self, manifest: Manifest) -> None:
        missing = sorted(self.tables - set(manifest.tables))
        if missing:
            raise SnapshotDamaged(f"snapshot {manifest.snapshot_id} lacks the table(s) the API reads: "
                                  f"{', '.join(missing)}")
        empty = sorted(name for name in self.non_empty if manifest.tables[name].rows == 0)
        if empty:
            raise SnapshotDamaged(f"snapshot {manifest.snapshot_id} has no rows in {', '.join(empty)}, which the API "
                                  "cannot answer without")

    def _check_spot_prices(self, snapshot_id: str, spots: pd.DataFrame | None) -> None:
        unpriced = [column for column in self.spot_prices
                    if spots is None or column not in spots.columns or not spots[column].notna().any()]
        if unpriced:
            raise SnapshotDamaged(f"snapshot {snapshot_id} has spots without prices: {', '.join(unpriced)} "
                                  "is null on every row")


# Read by the handlers with no answer of their own when absent: a missing one is a 500 on its
# endpoints. The index's record tables (ici_constituents, ici_published, ici_revisions) are left
# out on purpose: serve/api/index.py answers a 503 naming the refresh for a snapshot published
# before the index kept them (serve/api/lines.py likewise for lines and line_forwards), and the
# rest of the API serves on. Any other table is only exported.
TABLES_READ = frozenset({
    "spots", "models", "greeks", "providers", "price_history", "price_observations", "price_disputes",
    "scheduled_changes", "processes", "change_laws", "forward_curves", "ici", "ici_history", "events", "backtest",
    "backtest_summary", "backtest_families", "accuracy", "backtest_reliability",
})
OPTIONAL_TABLES_READ = frozenset({"ici_constituents", "ici_published", "ici_revisions", "lines",
                                  "line_forwards"})

# Empty, these fail every answer about a model rather than give an empty list: spots, greeks and
# change_laws raise (500s on spots, prices, comparisons, forwards, swaps, Monte Carlo); models and
# processes make every model unknown (404s); forward_curves leaves no forward, ici no index level,
# price_history no history or past price. Events, disputes, scheduled changes, providers and the
# backtest tables may be empty in a real snapshot (a quiet day, a small universe).
NON_EMPTY_TABLES = frozenset({"spots", "models", "greeks", "change_laws", "processes", "forward_curves", "ici",
                              "price_history"})

# The sync output and input price: every spot answer, price and comparison starts from them.
SPOT_PRICE_COLUMNS = ("beta_sync", "input_sync")

API = Servable(TABLES_READ, NON_EMPTY_TABLES, SPOT_PRICE_COLUMNS)
