"""genai-prices → listings: its current catalogue, dated conditional prices and batch variants.

Reads the catalogue object the package ships (`genai_prices.data_snapshot.get_snapshot()`, its
bundled data; the opt-in network updater is never started). Each provider's list is taken as
that provider's own price, whether it made the model or resells it; identity reconciliation
decides later which listing is the origin's.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    _providers_from_raw,  # noqa: PLC2701 (the package's own updater reads data.json so)
)

from pipelines.listings import (
    BATCH,
    CURRENT,
    PUBLISHED,
    SYNC,
    TOKEN_RATES,
    Listing,
    Tier,
    canonical_provider,
    tiers_json,
)
from pipelines.peak import DAILY, OFF_PEAK, PEAK, PeakHours, PeakPricing
from pipelines.price_rules import CONVERTED_NOTE
from pipelines.release_dating import ReleaseDating

SOURCE = "genai-prices"

# genai-prices field → our field. Reasoning is billed as output unless a model prices it apart.
# Its per-1,000 counts (requests, web searches, file-store searches) are our fees.
FIELDS = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "cache_read",
    "cache_write_mtok": "cache_write",
    "cache_write_1h_mtok": "cache_write_1h",
    "output_reasoning_mtok": "reasoning",
    "output_citation_mtok": "citation",
    "requests_kcount": "request_fee",
    "web_searches_kcount": "web_search_fee",
    "storage_searches_kcount": "file_search_fee",
}
BATCH_CONTEXT = {"processing": "batch"}


def _midday(day: date) -> datetime:
    return datetime.combine(day, time(12), tzinfo=UTC)


def price_fields(price: ModelPrice) -> tuple[dict[str, float | None], str | None]:
    """Base rates and fees of a ModelPrice, and its context tiers (token rates only) as canonical JSON."""
    base: dict[str, float | None] = {}
    tiered: dict[str, TieredPrices] = {}
    # A ModelPrice keeps the fields it states as its attributes and answers any other price key
    # with None through a registry lookup (`__getattr__`), which made reading the fields it does
    # not state most of this function's time: they are read from its own attributes.
    stated = vars(price)
    for theirs, ours in FIELDS.items():
        value = stated.get(theirs)
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
            if value is None or ours not in TOKEN_RATES:
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
             stated: set[str] | None = None, fields: tuple | None = None, peak: str | None = None,
             known_from: date | None = None) -> Listing:
    """`stated`: the only price fields the statement makes (the rest left empty), where not all.
    `fields`: `price_fields(price)`, where the caller has read them already; `peak`: the hours'
    rates (`PeakPricing.to_json`), where the price depends on the hour; `known_from`: the first
    release that published the price, where the release history says (else the release read)."""
    rates, tiers = fields if fields is not None else price_fields(price)
    if converted_from_cny(provider, model):
        note = f"{CONVERTED_NOTE}: {note}" if note else CONVERTED_NOTE
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
        known_from=known_from,
        provenance=provenance,
        source_url=(provider.pricing_urls or [None])[0],
        display_name=model.name,
        context_window=model.context_window,
        deprecated=bool(model.deprecated) if model.deprecated is not None else None,
        note=note,
        peak=peak,
        **rates,
    )


def converted_from_cny(provider: Provider, model: ModelInfo) -> bool:
    """The source says it converted the model's prices from yuan (its comments on the model, else
    on the provider): such a price loses to a USD list (`pipelines.price_rules`)."""
    comment = model.price_comments or provider.price_comments or ""
    return "CNY" in comment and "convert" in comment.lower()


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
            continue  # daily peak windows are not price changes (see `peak_pricing`)
        if constraint is None:
            day, note = first_change - timedelta(days=1), f"in force before {first_change}"
        else:
            day, note = constraint.start_date, None
        fields = price_fields(conditional.prices)
        known = dating.first_published(provider.id, model.id, fields[0]["input"], fields[0]["output"], day)
        out.append(_listing(provider, model, SYNC, day, conditional.prices, PUBLISHED, dating, note, fields=fields,
                            known_from=known))
    return out


def batch_variant(model: ModelInfo, at: datetime) -> PriceVariant | None:
    """The batch variant in force at `at` (a model can list one that starts later; the first
    listed wins, as in genai-prices' own lookup)."""
    return next((v for v in model.price_variants or [] if v.when == BATCH_CONTEXT
                 and (v.constraint is None or v.constraint.active(at))), None)


def _batch_listing(provider: Provider, model: ModelInfo, day: date, at: datetime, provenance: str,
                   dating: ReleaseDating, note: str | None = None) -> Listing | None:
    """The batch price in force at `at`, stating only the fields its variant lists; None where
    no variant lists its own input and output price (it states no batch price). A variant that
    lists no price at all says the batch rates are the standard ones (genai-prices' way of
    writing "the Batch table lists the same rates as standard"): it states them all."""
    variant = batch_variant(model, at)
    listed = variant.prices.__dict__ if variant else {}
    stated = {FIELDS[k] for k, v in listed.items() if v is not None and k in FIELDS}
    if variant is not None and not any(v is not None for v in listed.values()):
        stated = None
    elif not {"input", "output"} <= stated:
        return None
    return _listing(provider, model, BATCH, day, model.get_prices(at, BATCH_CONTEXT), provenance, dating, note,
                    stated=stated)


def scheduled_batch_listings(provider: Provider, model: ModelInfo, as_of: date,
                             dating: ReleaseDating) -> list[Listing]:
    """Batch prices announced for a date after `as_of` (a batch variant that starts later, or a
    dated price change the batch variant follows): one `published` listing per such date."""
    starts = [c.constraint.start_date for c in (model.prices if isinstance(model.prices, list) else [])
              if isinstance(c.constraint, StartDateConstraint)]
    starts += [v.constraint.start_date for v in model.price_variants or []
               if v.when == BATCH_CONTEXT and isinstance(v.constraint, StartDateConstraint)]
    listings = (_batch_listing(provider, model, day, _midday(day), PUBLISHED, dating)
                for day in sorted({d for d in starts if d > as_of}))
    return [listing for listing in listings if listing is not None]


# The rates DeepSeek's peak windows change; the rest of a time-priced statement is the same in both.
PEAK_FIELDS = ("input", "output", "cache_read")


def _windows(model: ModelInfo) -> list:
    if not isinstance(model.prices, list):
        return []
    return [c for c in model.prices if isinstance(c.constraint, TimeOfDateConstraint)]


def _utc_clock(moment: time) -> time:
    if moment.tzinfo is None:
        return moment
    return datetime.combine(date(2000, 1, 3), moment).astimezone(UTC).time()


def peak_pricing(model: ModelInfo, as_of: date, days: str = DAILY) -> tuple[PeakPricing, dict[str, datetime]] | None:
    """The model's peak and off-peak rates on `as_of` and a moment of `as_of` in each period, or
    None when its price does not depend on the hour. genai-prices states the peak windows as
    time-of-day constraints (every day: it has no weekday condition); `days` says on which days
    they apply (`warehouse/seed/peak_days.csv`)."""
    windows = _windows(model)
    if not windows:
        return None
    hours = PeakHours(tuple((_utc_clock(c.constraint.start_time), _utc_clock(c.constraint.end_time))
                            for c in windows), days)
    every_day = PeakHours(hours.windows)
    peak_at = datetime.combine(as_of, hours.windows[0][0], tzinfo=UTC)
    off_peak_at = next(moment for hour in range(24)
                       if not every_day.contains(moment := datetime.combine(as_of, time(hour, 45), tzinfo=UTC)))
    peak_rates = [price_fields(model.get_prices(datetime.combine(as_of, start, tzinfo=UTC)))[0]
                  for start, _ in hours.windows]
    if any({f: r[f] for f in PEAK_FIELDS} != {f: peak_rates[0][f] for f in PEAK_FIELDS} for r in peak_rates):
        raise ValueError(f"{model.id}: peak windows with different prices cannot be stated as one peak rate")
    off_peak = price_fields(model.get_prices(off_peak_at))[0]

    def stated(rates: dict) -> dict[str, float]:
        return {f: rates[f] for f in PEAK_FIELDS if rates[f] is not None}

    return PeakPricing(hours, stated(peak_rates[0]), stated(off_peak)), {PEAK: peak_at, OFF_PEAK: off_peak_at}


def current_listings(provider: Provider, model: ModelInfo, as_of: date, dating: ReleaseDating,
                     peak_days: str = DAILY) -> list[Listing]:
    """Today's sync price and, where the model has a batch variant, today's batch price.

    The sync price is dated by the releases that listed it (`pipelines.release_dating`); where
    no release of the history lists it, it is dated `as_of` and says so. The batch price is
    dated no earlier than the variant's own start date, and states only the fields the variant
    lists: under genai-prices a variant overrides only its own keys, so the rest would be the
    sync rate restated, not a statement about batch. A variant that does not list both an input
    and an output price states no batch price at all.

    A price that depends on the hour is stated at its standard period (the one in force for
    more hours of the week), with both periods' rates and the windows in `peak`.
    """
    timed = peak_pricing(model, as_of, peak_days)
    at = timed[1][timed[0].standard] if timed else _midday(as_of)
    peak = timed[0].to_json() if timed else None
    standard = model.get_prices(at)
    if not is_token_priced(standard):
        return []
    fields = price_fields(standard)
    rates = fields[0]
    since = dating.asserted_since(provider.id, model.id, rates["input"], rates["output"])
    if since is None or since > as_of:
        day, note = as_of, "no release in the release history lists this price: dated on the snapshot day"
    else:
        day, note = since, None
    # Known from the first release that listed the price (after `as_of` for a build of an earlier
    # day: not known yet, and left out then, `pipelines.listings.known_by`).
    out = [_listing(provider, model, SYNC, day, standard, CURRENT, dating, note, fields=fields, peak=peak,
                    known_from=since)]
    variant = batch_variant(model, at)
    start = getattr(variant.constraint, "start_date", None) if variant else None
    batch = _batch_listing(provider, model, max(day, start or day), at, CURRENT, dating)
    return out + ([batch] if batch else [])


def providers_from_payload(payload: object) -> list[Provider]:
    """genai-prices' published `data.json` (a list of providers) → its providers, validated by the
    package's own reader, the one its opt-in updater uses."""
    return _providers_from_raw(payload)


def genai_listings(providers: list[Provider], as_of: date, dating: ReleaseDating,
                   peak_days: Mapping[tuple[str, str], str] | None = None) -> list[Listing]:
    """Every token-priced model of every provider: dated changes plus the current catalogue.
    `peak_days`: the days a model's peak windows apply, by (provider id, model id), where not daily."""
    out: list[Listing] = []
    for provider in providers:
        for model in provider.models:
            out += dated_listings(provider, model, dating)
            out += scheduled_batch_listings(provider, model, as_of, dating)
            out += current_listings(provider, model, as_of, dating,
                                    (peak_days or {}).get((provider.id, model.id), DAILY))
    return out
