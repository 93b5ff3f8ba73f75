"""genai-prices → listings: its current catalogue, dated conditional prices and batch variants.

Reads the catalogue object the package ships (`genai_prices.data_snapshot.get_snapshot()`, its
bundled data; the opt-in network updater is never started). Each provider's list is taken as
that provider's own price, whether it made the model or resells it; identity reconciliation
decides later which listing is the origin's.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from genai_prices.types import (
    ModelInfo,
    ModelPrice,
    PriceVariant,
    Provider,
    StartDateConstraint,
    TieredPrices,
    TimeOfDateConstraint,
)

from pipelines.listings import (
    BATCH,
    CURRENT,
    PUBLISHED,
    SYNC,
    Listing,
    Tier,
    canonical_provider,
    tiers_json,
)
from pipelines.release_dating import ReleaseDating

SOURCE = "genai-prices"

# genai-prices field → our field. Reasoning is billed as output unless a model prices it apart.
FIELDS = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write",
    "output_reasoning_mtok": "reasoning",
}
BATCH_CONTEXT = {"processing": "batch"}


def _midday(day: date) -> datetime:
    # Midday UTC sits outside every time-of-day window in the data (DeepSeek's off-peak hours
    # run 16:30–00:30 UTC), so resolving at midday gives the standard price.
    return datetime.combine(day, time(12), tzinfo=UTC)


def price_fields(price: ModelPrice) -> tuple[dict[str, float | None], str | None]:
    """Base rates of a ModelPrice and its context tiers as canonical JSON."""
    base: dict[str, float | None] = {}
    tiered: dict[str, TieredPrices] = {}
    for theirs, ours in FIELDS.items():
        value = getattr(price, theirs, None)
        if isinstance(value, TieredPrices):
            tiered[ours] = value
            base[ours] = float(value.base)
        else:
            base[ours] = float(value) if isinstance(value, (Decimal, int, float)) else None
    thresholds = sorted({tier.start for prices in tiered.values() for tier in prices.tiers})
    tiers = []
    for threshold in thresholds:
        rates = {}
        for ours, value in base.items():
            if value is None:
                continue
            if ours in tiered:
                # A field without a tier at this threshold keeps its rate from the tier below.
                reached = [t.price for t in tiered[ours].tiers if t.start <= threshold]
                rates[ours] = float(reached[-1]) if reached else value
            else:
                rates[ours] = value
        tiers.append(Tier(above=threshold, rates=rates))
    return base, tiers_json(tiers)


def is_token_priced(price: ModelPrice) -> bool:
    return getattr(price, "input_mtok", None) is not None and getattr(price, "output_mtok", None) is not None


def _listing(provider: Provider, model: ModelInfo, mode: str, day: date, price: ModelPrice,
             provenance: str, dating: ReleaseDating, note: str | None = None,
             stated: set[str] | None = None) -> Listing:
    """`stated`: the only price fields the statement makes (the rest left empty), where not all."""
    rates, tiers = price_fields(price)
    if stated is not None:
        rates = {name: value if name in stated else None for name, value in rates.items()}
    return Listing(
        provider=canonical_provider(provider.id),
        source_model_id=model.id,
        mode=mode,
        effective_date=day,
        tiers=tiers,
        source=SOURCE,
        source_version=dating.version,
        source_released=dating.released,
        provenance=provenance,
        source_url=(provider.pricing_urls or [None])[0],
        display_name=model.name,
        context_window=model.context_window,
        deprecated=bool(model.deprecated) if model.deprecated is not None else None,
        note=note,
        **rates,
    )


def dated_listings(provider: Provider, model: ModelInfo, dating: ReleaseDating) -> list[Listing]:
    """The provider's documented price changes: one `published` listing per start date.

    The undated first entry is the price in force before the first change; it is dated the day
    before that change, the last day the provider's own data vouches for it.
    """
    if not isinstance(model.prices, list):
        return []
    dated = [c for c in model.prices if isinstance(c.constraint, StartDateConstraint)]
    if not dated:
        return []
    first_change = min(c.constraint.start_date for c in dated)
    out = []
    for conditional in model.prices:
        constraint = conditional.constraint
        if isinstance(constraint, TimeOfDateConstraint) or not is_token_priced(conditional.prices):
            continue  # daily off-peak windows are not price changes
        if constraint is None:
            day, note = first_change - timedelta(days=1), f"in force before {first_change}"
        else:
            day, note = constraint.start_date, None
        out.append(_listing(provider, model, SYNC, day, conditional.prices, PUBLISHED, dating, note))
    return out


def batch_variant(model: ModelInfo, at: datetime) -> PriceVariant | None:
    """The batch variant in force at `at` (a model can list one that starts later)."""
    return next((v for v in model.price_variants or [] if v.when == BATCH_CONTEXT
                 and (v.constraint is None or v.constraint.active(at))), None)


def current_listings(provider: Provider, model: ModelInfo, as_of: date, dating: ReleaseDating) -> list[Listing]:
    """Today's sync price and, where the model has a batch variant, today's batch price.

    The sync price is dated by the releases that listed it (`pipelines.release_dating`); where
    no release of the history lists it, it is dated `as_of` and says so. The batch price is
    dated no earlier than the variant's own start date, and states only the fields the variant
    lists: under genai-prices a variant overrides only its own keys, so the rest would be the
    sync rate restated, not a statement about batch. A variant that does not list both an input
    and an output price states no batch price at all.
    """
    at = _midday(as_of)
    standard = model.get_prices(at)
    if not is_token_priced(standard):
        return []
    rates, _ = price_fields(standard)
    since = dating.asserted_since(provider.id, model.id, rates["input"], rates["output"])
    if since is None or since > as_of:
        day, note = as_of, "no release in the release history lists this price: dated on the snapshot day"
    else:
        day, note = since, None
    out = [_listing(provider, model, SYNC, day, standard, CURRENT, dating, note)]
    variant = batch_variant(model, at)
    listed = variant.prices.__dict__ if variant else {}
    stated = {FIELDS[k] for k, v in listed.items() if v is not None and k in FIELDS}
    if {"input", "output"} <= stated:  # a variant without its own input and output states no batch price
        start = getattr(variant.constraint, "start_date", None)
        out.append(_listing(provider, model, BATCH, max(day, start or day), model.get_prices(at, BATCH_CONTEXT),
                            CURRENT, dating, stated=stated))
    return out


def genai_listings(providers: list[Provider], as_of: date, dating: ReleaseDating) -> list[Listing]:
    """Every token-priced model of every provider: dated changes plus the current catalogue."""
    out: list[Listing] = []
    for provider in providers:
        for model in provider.models:
            out += dated_listings(provider, model, dating)
            out += current_listings(provider, model, as_of, dating)
    return out
