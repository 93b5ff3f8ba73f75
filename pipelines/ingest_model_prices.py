"""model-prices → listings: a dated timeline per lab model, with a source URL and basis per entry.

The input is the package's bundled snapshot as a dict (the asset reads the file; its network
`refresh()` is never called). Only the `standard` (sync) and `batch` modes are taken; fast,
flex and thinking modes are other products.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pipelines.listings import (
    BATCH,
    FIRST_OBSERVED,
    PUBLISHED,
    SYNC,
    Listing,
    Tier,
    canonical_provider,
    positive_or_none,
    tiers_json,
)

SOURCE = "model-prices"
MODES = {"standard": SYNC, "batch": BATCH}

# valid_from_basis → provenance. A "models.dev commit" date is when the dataset learnt of the
# price, not when the provider set it, so it is a first observation like "first observed".
BASIS_PROVENANCE = {
    "documented": PUBLISHED,
    "first observed": FIRST_OBSERVED,
    "models.dev commit": FIRST_OBSERVED,
}
RATE_FIELDS = ("input", "output", "cache_read", "cache_write")


def _day(stamp: str) -> date:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).date()


def effective_day(entry: dict[str, Any], rates: dict[str, Any]) -> date:
    """When the entry's evidence dates it: its `valid_from`, or its `start` where that is later.

    An entry's `start` can precede the evidence (a batch timeline aligned to the day batch
    processing launched, before the model existed), so the evidence date wins over an earlier start.
    """
    day = _day(rates["valid_from"])
    if entry.get("start"):
        day = max(day, _day(entry["start"]))
    return day


def _tiers(rates: dict[str, Any]) -> str | None:
    tiers = [
        Tier(above=int(t["above"]), rates={k: float(t[k]) for k in RATE_FIELDS if t.get(k) is not None})
        for t in rates.get("tiers") or []
    ]
    return tiers_json(tiers)


def _listing(provider: str, model: str, mode: str, day: date, rates: dict[str, Any],
             version: str, released: date | None, deprecated: bool | None, note: str | None = None) -> Listing:
    return Listing(
        provider=canonical_provider(provider),
        source_model_id=model,
        mode=mode,
        effective_date=day,
        tiers=_tiers(rates),
        source=SOURCE,
        source_version=version,
        source_released=released,
        provenance=BASIS_PROVENANCE.get(rates.get("valid_from_basis", ""), FIRST_OBSERVED),
        source_url=rates.get("source"),
        deprecated=deprecated,
        note=note,
        **{k: positive_or_none(rates.get(k)) for k in RATE_FIELDS},
    )


def published_on(snapshot: dict[str, Any]) -> date | None:
    """The day the snapshot was published: the data's own `updated_at` (the package wraps it
    unchanged)."""
    return _day(snapshot["updated_at"]) if snapshot.get("updated_at") else None


def model_prices_listings(snapshot: dict[str, Any], version: str) -> list[Listing]:
    """Every dated entry of every lab model in sync and batch mode.

    Where a cited correction replaced the value models.dev recorded, the recorded value is kept
    as a listing of its own (noted), so the disagreement stays visible downstream.
    """
    status = snapshot.get("status", {})
    released = published_on(snapshot)
    out: list[Listing] = []
    for provider, models in snapshot["prices"].items():
        for model, modes in models.items():
            lifecycle = status.get(provider, {}).get(model)
            deprecated = lifecycle in ("deprecated", "removed") if lifecycle else None
            for mode_name, entries in modes.items():
                mode = MODES.get(mode_name)
                if mode is None:
                    continue
                for entry in entries:
                    rates = entry.get("rates")
                    if not rates or rates.get("input") is None or rates.get("output") is None:
                        continue  # no rate in this mode for this period
                    day = effective_day(entry, rates)
                    out.append(_listing(provider, model, mode, day, rates, version, released, deprecated))
                    recorded = entry.get("recorded")
                    if recorded and recorded.get("input") is not None and recorded.get("output") is not None:
                        note = f"models.dev value, replaced by a correction citing {rates.get('source')}"
                        out.append(_listing(provider, model, mode, day, recorded, version, released, deprecated, note))
    return out


def listed_alive(snapshot: dict[str, Any]) -> set[tuple[str, str]]:
    """(provider, model id) of every model the snapshot prices and gives no status (removed or
    deprecated): the ids it holds alive."""
    marked = {(canonical_provider(p), m.lower()) for p, models in snapshot.get("status", {}).items() for m in models}
    listed = {(canonical_provider(p), m.lower()) for p, models in snapshot.get("prices", {}).items() for m in models}
    return listed - marked


def removed_models(snapshot: dict[str, Any]) -> tuple[set[tuple[str, str]], date | None]:
    """(provider, model id) of every model the snapshot's status says was removed, and the day the
    snapshot was published (the status gives no date of its own)."""
    removed = {(canonical_provider(provider), model.lower()) for provider, models in snapshot.get("status", {}).items()
               for model, lifecycle in models.items() if lifecycle == "removed"}
    return removed, published_on(snapshot)
