"""LiteLLM's price map as it is published → compact entries, the form the pipeline reads.

LiteLLM's `model_prices_and_context_window.json` states prices in USD per token, in two tier
notations, with fees and limits beside them. `extract` turns the whole map into one compact entry
per model key: prices in USD per million tokens (exact to the decimal the file states), tiers,
limits, modalities, deprecation and flat fees. The script that builds the shipped seed
(`scripts/build_litellm_prices.py`) and a live fetch of the map read it the same way.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

# Not models: LiteLLM's documentation of its own schema, and its provider-routing rules.
NOT_MODELS = ("sample_spec", "fallback_generalizations")

# LiteLLM field (USD per token) → ours (USD per million tokens).
PER_TOKEN = {
    "input_cost_per_token": "input",
    "output_cost_per_token": "output",
    "cache_read_input_token_cost": "cache_read",
    "cache_creation_input_token_cost": "cache_write",
    "cache_creation_input_token_cost_above_1hr": "cache_write_1h",
    "output_cost_per_reasoning_token": "reasoning",
    "input_cost_per_token_batches": "batch_input",
    "output_cost_per_token_batches": "batch_output",
    "cache_read_input_token_cost_batches": "batch_cache_read",
    "cache_creation_input_token_cost_batches": "batch_cache_write",
}
# Rates a context tier may carry, in LiteLLM's names (the same in `tiered_pricing` ranges).
TIER_RATES = {
    "input_cost_per_token": "input",
    "output_cost_per_token": "output",
    "cache_read_input_token_cost": "cache_read",
    "cache_creation_input_token_cost": "cache_write",
    "output_cost_per_reasoning_token": "reasoning",
}
# `input_cost_per_token_above_200k_tokens`, and its `_batches` variant for the batch tiers.
TIER_KEY = re.compile(r"^(?P<rate>" + "|".join(TIER_RATES) + r")_above_(?P<k>\d+)k_tokens(?P<batch>_batches)?$")
# Flat fees per request or query, kept in USD as stated (not per token).
FEE_KEY = re.compile(r"(_cost_per_query|_per_request)$")
FEE_KEYS_ALSO = ("file_search_cost_per_1k_calls",)
KEPT_AS_IS = ("litellm_provider", "mode", "alias_of", "max_input_tokens", "max_output_tokens", "max_tokens",
              "deprecation_date", "supported_modalities", "supported_output_modalities", "supports_reasoning",
              "supports_vision", "supports_audio_input", "supports_pdf_input")


def per_million(value: object) -> float | None:
    """USD per token → USD per million tokens, exact to the decimal the file states (3e-06 → 3.0)."""
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return None
    return float(Decimal(value) * 1_000_000)


def as_float(value: object) -> object:
    """A fee as the file states it: numbers to float, dicts of numbers likewise, others dropped."""
    if isinstance(value, dict):
        return {k: as_float(v) for k, v in sorted(value.items()) if as_float(v) is not None}
    if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
        return None
    return float(value)


def tiers(raw: dict) -> tuple[list[dict], list[dict], dict[str, float]]:
    """(sync tiers, batch tiers, base rates from a `tiered_pricing` first range).

    LiteLLM states context tiers two ways: `<rate>_above_<N>k_tokens` keys, and (for Alibaba and
    a few others) a `tiered_pricing` list of token ranges, whose first range holds the base rates.
    """
    sync: dict[int, dict] = {}
    batch: dict[int, dict] = {}
    base: dict[str, float] = {}
    for field, value in raw.items():
        match = TIER_KEY.match(field)
        rate = per_million(value)
        if match and rate is not None:
            above = int(match["k"]) * 1000
            target = batch if match["batch"] else sync
            target.setdefault(above, {"above": above})[TIER_RATES[match["rate"]]] = rate
    for band in raw.get("tiered_pricing") or []:
        if "range" not in band:
            continue  # search tiers by result count, not by tokens
        above = int(band["range"][0])
        rates = {TIER_RATES[f]: per_million(v) for f, v in band.items() if f in TIER_RATES}
        rates = {k: v for k, v in rates.items() if v is not None}
        if above == 0:
            base = rates
        elif rates:
            sync.setdefault(above, {"above": above}).update(rates)
    return [sync[a] for a in sorted(sync)], [batch[a] for a in sorted(batch)], base


def compact(key: str, raw: dict) -> dict:
    """One entry: prices per million tokens, limits, modalities, deprecation and flat fees."""
    entry: dict = {"key": key}
    entry.update({field: raw[field] for field in KEPT_AS_IS if raw.get(field) is not None})
    sync_tiers, batch_tiers, tier_base = tiers(raw)
    for field, ours in PER_TOKEN.items():
        rate = per_million(raw.get(field))
        if rate is not None:
            entry[ours] = rate
    for ours, rate in tier_base.items():
        entry.setdefault(ours, rate)  # base rates stated only as the first `tiered_pricing` range
    if sync_tiers:
        entry["tiers"] = sync_tiers
    if batch_tiers:
        entry["batch_tiers"] = batch_tiers
    fees = {f: as_float(v) for f, v in raw.items() if FEE_KEY.search(f) or f in FEE_KEYS_ALSO}
    fees = {f: v for f, v in fees.items() if v is not None and v != {}}
    if fees:
        entry["fees"] = fees
    return entry


def extract(data: bytes) -> list[dict]:
    """Every model entry of the map, compacted and sorted by key."""
    prices = json.loads(data, parse_float=Decimal)  # Decimal keeps the literal the file states
    return [compact(key, raw) for key, raw in sorted(prices.items())
            if key not in NOT_MODELS and isinstance(raw, dict)]
