"""What a new snapshot changes against the one it replaces, for the operator watching the runs.

- models added and removed (tickers in `spots`);
- prices changed: tickers whose input or output price, sync or batch, differs (a price that
  appears or goes counts too);
- events emitted: event ids not in the previous snapshot's `events`, by kind;
- sources whose version changed (the manifests' `sources`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

PRICE_COLUMNS = ("input_sync", "beta_sync", "input_batch", "beta_batch")
LISTED = 20  # tickers named per list; the counts are whole


@dataclass(frozen=True)
class Changes:
    models_added: list[str] = field(default_factory=list)
    models_removed: list[str] = field(default_factory=list)
    prices_changed: list[str] = field(default_factory=list)
    events_by_kind: dict[str, int] = field(default_factory=dict)
    sources_changed: dict[str, list[str | None]] = field(default_factory=dict)  # source → [before, after]

    def counts(self) -> dict[str, int]:
        return {"models_added": len(self.models_added), "models_removed": len(self.models_removed),
                "prices_changed": len(self.prices_changed), "events": sum(self.events_by_kind.values()),
                **{f"events.{kind}": n for kind, n in self.events_by_kind.items()},
                "sources_changed": len(self.sources_changed)}

    def summary(self) -> dict:
        """Counts, and the first LISTED tickers of each list (for the manifest and the run's metadata)."""
        return {**self.counts(), "models_added_first": self.models_added[:LISTED],
                "models_removed_first": self.models_removed[:LISTED],
                "prices_changed_first": self.prices_changed[:LISTED], "sources": self.sources_changed}

    def markdown(self) -> str:
        rows = [("models added", len(self.models_added), self.models_added),
                ("models removed", len(self.models_removed), self.models_removed),
                ("prices changed", len(self.prices_changed), self.prices_changed),
                *((f"events: {kind}", n, []) for kind, n in self.events_by_kind.items()),
                *((f"source {name}", 1, [f"{old} → {new}"]) for name, (old, new) in self.sources_changed.items())]
        lines = ["| change | count | which |", "|---|---|---|"]
        lines += [f"| {what} | {n} | {', '.join(which[:LISTED])}{' …' if len(which) > LISTED else ''} |"
                  for what, n, which in rows]
        return "\n".join(lines)


def _prices(spots: pd.DataFrame) -> pd.DataFrame:
    return spots.set_index("ticker")[list(PRICE_COLUMNS)].astype(float)


def what_changed(old_spots: pd.DataFrame, new_spots: pd.DataFrame, old_events: pd.DataFrame,
                 new_events: pd.DataFrame, old_sources: dict[str, str], new_sources: dict[str, str]) -> Changes:
    before, after = set(old_spots["ticker"]), set(new_spots["ticker"])
    common = sorted(before & after)
    old, new = _prices(old_spots).loc[common], _prices(new_spots).loc[common]
    same = (old.to_numpy() == new.to_numpy()) | (np.isnan(old.to_numpy()) & np.isnan(new.to_numpy()))
    emitted = new_events[~new_events["event_id"].isin(set(old_events["event_id"]))]
    return Changes(
        models_added=sorted(after - before), models_removed=sorted(before - after),
        prices_changed=[t for t, unchanged in zip(common, same.all(axis=1), strict=True) if not unchanged],
        events_by_kind={str(k): int(n) for k, n in emitted["kind"].value_counts().sort_index().items()},
        sources_changed={name: [old_sources.get(name), new_sources.get(name)]
                         for name in sorted(set(old_sources) | set(new_sources))
                         if old_sources.get(name) != new_sources.get(name)},
    )
