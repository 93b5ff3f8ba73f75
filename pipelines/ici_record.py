"""The index's published record: every level as first published, and every restatement after it.

A level someone may have written into a contract must never change under them. So:

- `ici_published` holds each (date, type) level as the first snapshot that held it published it:
  the level, the constituents priced and carried forward that day, when and in which snapshot it
  was published, and under which methodology version. Later builds only append to it.
- `ici_revisions` holds every later change of a recorded level: a build whose daily history gives
  another level for a recorded (date, type) (new data about a past day, or a new methodology)
  appends the level in force before it (the published one, or the newest revision's), the new
  one, why, when and in which snapshot. A level is only ever revised by a row here.

Levels are compared to REL_TOLERANCE, so float noise in a rebuild is no restatement. A day with
no level (batch before the first batch price) is not published; a recorded level that later has
none is revised to null.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pandas as pd

PUBLISHED_COLUMNS = ["date", "type", "level", "constituents", "carried_forward", "published_at", "snapshot_id",
                     "methodology_version"]
REVISION_COLUMNS = ["date", "type", "old", "new", "constituents_before", "constituents_after", "reason",
                    "revised_at", "snapshot_id", "methodology_version"]
REL_TOLERANCE = 1e-12
KEY = ["date", "type"]


def in_force(published: pd.DataFrame, revisions: pd.DataFrame) -> pd.DataFrame:
    """Per recorded (date, type): the level in force, its constituents and methodology version
    (the newest revision's where there is one, else the published one's)."""
    base = published[[*KEY, "level", "constituents", "methodology_version"]]
    latest = revisions.rename(columns={"new": "level", "constituents_after": "constituents"})[
        [*KEY, "level", "constituents", "methodology_version"]]
    both = pd.concat([base, latest], ignore_index=True)  # revisions after the published rows, in order
    return both.drop_duplicates(KEY, keep="last").reset_index(drop=True)


def _differs(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    both_null = np.isnan(old) & np.isnan(new)
    close = np.abs(new - old) <= REL_TOLERANCE * np.maximum(np.abs(old), np.abs(new))
    return ~(both_null | close)


def _reason(old_version: str, new_version: str, before: int, after: int) -> str:
    if old_version != new_version:
        return f"methodology {old_version} → {new_version}"
    if before != after:
        return f"constituents priced that day {before} → {after}"
    return "a constituent's price for the day was restated by newer data"


def record_levels(history: pd.DataFrame, published: pd.DataFrame, revisions: pd.DataFrame, at: datetime,
                  snapshot_id: str, version: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The record after a build: (published, revisions), each the old rows with this build's
    appended. `history` is the build's `ici_history` table."""
    levels = history[[*KEY, "value", "constituents", "carried_forward"]].rename(columns={"value": "level"})
    current = in_force(published, revisions)
    joined = levels.merge(current, on=KEY, how="left", suffixes=("", "_old"), indicator=True)
    new = joined[(joined["_merge"] == "left_only") & joined["level"].notna()]
    appended = new[[*KEY, "level", "constituents", "carried_forward"]].assign(
        published_at=at, snapshot_id=snapshot_id, methodology_version=version)
    recorded = joined[joined["_merge"] == "both"]
    changed = recorded[_differs(recorded["level_old"].to_numpy(dtype=float), recorded["level"].to_numpy(dtype=float))]
    restated = pd.DataFrame({
        "date": changed["date"], "type": changed["type"], "old": changed["level_old"].astype(float),
        "new": changed["level"].astype(float), "constituents_before": changed["constituents_old"].astype(int),
        "constituents_after": changed["constituents"].astype(int),
        "reason": [_reason(old, version, before, after) for old, before, after in
                   zip(changed["methodology_version"], changed["constituents_old"], changed["constituents"],
                       strict=True)],
        "revised_at": at, "snapshot_id": snapshot_id, "methodology_version": version,
    })
    return (_append(published, appended, PUBLISHED_COLUMNS), _append(revisions, restated, REVISION_COLUMNS))


def _append(old: pd.DataFrame, new: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    if new.empty:
        return old[columns].reset_index(drop=True)
    if old.empty:
        return new[columns].reset_index(drop=True)
    return pd.concat([old[columns], new[columns]], ignore_index=True)
