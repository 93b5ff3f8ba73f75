"""The common shape every source is normalised to: one row per listed price.

A *listing* is what one source says one provider charged for one model id in one mode from one
date. Sources differ in vocabulary; these helpers give them a single one, so reconciliation
downstream never needs to know which package a row came from.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields
from datetime import date

import numpy as np
import pandas as pd

# Provenance markers, from the contract.
PUBLISHED = "published"  # a dated price the provider documented
ARCHIVED = "archived"  # read from an archived public price list on that date
FIRST_OBSERVED = "first_observed"  # first date a dataset shows it; the true start may be earlier
CURRENT = "current"  # today's catalogue
CARRIED_FORWARD = "carried_forward"  # a daily point with no new observation
PROVENANCES = (PUBLISHED, ARCHIVED, FIRST_OBSERVED, CURRENT, CARRIED_FORWARD)

SYNC, BATCH = "sync", "batch"

# What one statement can say a provider bills, by field. Token rates are USD per million tokens
# and a context tier may change any of them: `cache_write` is the default (5-minute) cache write,
# `cache_write_1h` the one-hour one, `citation` the tokens a search model bills for the sources it
# quotes. Fees are USD per 1,000 and never tiered: `request_fee` is compulsory on every request,
# the others are billed per tool call the request makes (web search, file search, grounding).
TOKEN_RATES = ("input", "output", "cache_read", "cache_write", "cache_write_1h", "reasoning", "citation")
FEES = ("request_fee", "web_search_fee", "file_search_fee", "grounding_fee")
PRICE_FIELDS = TOKEN_RATES + FEES

# Provider ids differ between sources; one spelling per company.
PROVIDER_ALIASES = {
    "x-ai": "xai",
    "mistralai": "mistral",
    "meta-llama": "meta",
    "z-ai": "zai",
    "amazon-bedrock": "amazon",
    "nova": "amazon",
    "qwen": "alibaba",
    "moonshot": "moonshotai",
    "ai21labs": "ai21",
    "volcengine": "bytedance",
    "byteplus": "bytedance",
    "stepfun-ai": "stepfun",
    "tencent-tokenhub": "tencent",
}


def canonical_provider(provider_id: str) -> str:
    key = provider_id.strip().lower()
    return PROVIDER_ALIASES.get(key, key)


@dataclass(frozen=True)
class Listing:
    provider: str
    source_model_id: str
    mode: str
    effective_date: date
    input: float | None
    output: float | None
    source: str
    source_version: str
    provenance: str
    cache_read: float | None = None
    cache_write: float | None = None
    cache_write_1h: float | None = None
    reasoning: float | None = None
    citation: float | None = None
    request_fee: float | None = None
    web_search_fee: float | None = None
    file_search_fee: float | None = None
    grounding_fee: float | None = None
    tiers: str | None = None
    # Peak and off-peak rates where the price depends on the hour (`pipelines.peak`); the
    # listing's own rates are then those of the period with the most hours in a week.
    peak: str | None = None
    source_url: str | None = None
    # The day the source published the statement: a package release's upload date, an archive
    # capture's date. Not the day the price took effect (`effective_date`).
    source_released: date | None = None
    # The first day anyone could have read the statement, where that is earlier than
    # `source_released`: a catalogue's price first published by an older release than the one
    # read (`pipelines.release_dating`). None: `source_released`.
    known_from: date | None = None
    display_name: str | None = None
    context_window: int | None = None
    deprecated: bool | None = None
    note: str | None = None


LISTING_COLUMNS = [f.name for f in fields(Listing)]


def listings_frame(rows: list[Listing]) -> pd.DataFrame:
    """Rows to a frame with every listing column, in a stable order, even when empty."""
    records = [r.__dict__ for r in rows]  # column by column: a frame from records is slower by half
    frame = pd.DataFrame({name: [record[name] for record in records] for name in LISTING_COLUMNS}
                         if records else None, columns=LISTING_COLUMNS)
    frame["context_window"] = frame["context_window"].astype("Int64")
    frame["deprecated"] = frame["deprecated"].astype("boolean")
    frame["source_released"] = frame["source_released"].astype("object")
    frame["known_from"] = frame["known_from"].astype("object")
    for col in PRICE_FIELDS:
        frame[col] = frame[col].astype("float64")
    return frame.sort_values(
        ["provider", "source_model_id", "mode", "effective_date", "provenance"], kind="stable"
    ).reset_index(drop=True)


def known_by(listings: pd.DataFrame, day: date) -> pd.DataFrame:
    """The listings anyone could have read on `day`: first published on or before it
    (`known_from`, else `source_released`). A build for a past day sees what was known then: a
    model first published later does not exist yet, and a later restatement does not reach back.
    A listing with neither date is kept."""
    known = pd.to_datetime(known_on(listings), errors="coerce")
    return listings[known.isna() | (known <= pd.Timestamp(day))].reset_index(drop=True)


def known_on(listings: pd.DataFrame) -> pd.Series:
    """The first day anyone could have known each listing: its `known_from` (a live read's fetch,
    an announcement, a release's first publication), else its source's release date."""
    return listings["known_from"].fillna(listings["source_released"])


def published_late(listings: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Each listing's `known_on` as a timestamp (NaT: undated), and whether it came after the day
    the listing asserts (a late statement: one that reaches back; an undated one is not late)."""
    published = pd.to_datetime(known_on(listings), errors="coerce")
    return published, published > pd.to_datetime(listings["effective_date"])


@dataclass(frozen=True)
class Tier:
    """Rates that apply to the whole request once the prompt exceeds `above` tokens."""

    above: int
    rates: dict[str, float] = field(default_factory=dict)


def tiers_json(tiers: list[Tier]) -> str | None:
    """Canonical JSON for context tiers (sorted by threshold, keys sorted), or None when flat."""
    if not tiers:
        return None
    ordered = sorted(tiers, key=lambda t: t.above)
    return json.dumps(
        [{"above": t.above, **dict(sorted(t.rates.items()))} for t in ordered], separators=(",", ":")
    )


# Two statements of a price agree when equal to this relative tolerance (decimal prices read as
# floats differ in the last bits, never more).
PRICE_RTOL = 1e-9


# Two sources' statements of one price agree to this relative tolerance (sources round differently).
AGREEMENT_RTOL = 1e-6


def prices_agree(a, b, rtol: float = PRICE_RTOL) -> np.ndarray:
    """Elementwise: both known and equal to `rtol` relative to the larger (False where either
    is missing). The one comparison of two prices; scalars give a 0-d array."""
    a, b = np.asarray(a, dtype="float64"), np.asarray(b, dtype="float64")
    with np.errstate(invalid="ignore"):
        return np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))


def same_price(a: object, b: object) -> bool:
    """Both missing, or both known and equal to PRICE_RTOL."""
    if a is None or b is None or a != a or b != b:
        return (a is None or a != a) and (b is None or b != b)
    return bool(prices_agree(float(a), float(b)))


def positive_or_none(value: object) -> float | None:
    """A price as float; missing, negative (sources use -1 for 'variable') or NaN becomes None."""
    if value is None:
        return None
    number = float(value)
    return number if math.isfinite(number) and number >= 0 else None
