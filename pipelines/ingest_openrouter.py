"""OpenRouter's public models API → listings, as read live on one day: its list price per
`vendor/model` id (`GET /api/v1/models`), and each host's price for a model from the model's
endpoint list (`GET /api/v1/models/{id}/endpoints`).

The API states prices as decimal strings in USD: per token for `prompt`, `completion`,
`input_cache_read`, `input_cache_write` and `internal_reasoning`; per request for `request`
and per search for `web_search`. `-1` marks a router whose price depends on where the request
goes, and `0` a free variant: neither is a list price (the monthly archive of the same
catalogue, `pipelines.ingest_archive`, skips them for the same reason).
"""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from pipelines.ingest_archive import HOST
from pipelines.listings import CURRENT, SYNC, Listing, canonical_provider

SOURCE = "openrouter"
PER_TOKEN = {"prompt": "input", "completion": "output", "input_cache_read": "cache_read",
             "input_cache_write": "cache_write", "internal_reasoning": "reasoning"}
PER_CALL = {"request": "request_fee", "web_search": "web_search_fee"}


def _number(value: Any) -> Decimal | None:
    """A stated price, exact to the decimal stated; None for a negative (a router's `-1`),
    non-finite or non-numeric one, which is no statement of a price."""
    try:
        number = Decimal(str(value)) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    except InvalidOperation:
        return None
    return number if number is not None and number.is_finite() and number >= 0 else None


def _rates(pricing: dict[str, Any]) -> dict[str, float | None]:
    """USD per million tokens, and USD per 1,000 calls; zero where a component is free."""
    rates = {}
    for key, field in PER_TOKEN.items():
        value = _number(pricing.get(key))
        rates[field] = None if value is None else float(value * 1_000_000)
    for key, field in PER_CALL.items():
        value = _number(pricing.get(key))
        rates[field] = float(value * 1_000) if value else None  # no fee is the default, not a statement
    return rates


def _context(model: dict[str, Any]) -> int | None:
    length = model.get("context_length")
    return length if isinstance(length, int) and not isinstance(length, bool) and length > 0 else None


def openrouter_listings(payload: dict[str, Any], day: date, version: str, url: str) -> list[Listing]:
    """One `current` sync listing per model with a positive input and output price, dated `day`."""
    out = []
    for model in payload["data"]:
        rates = _rates(model.get("pricing") or {})
        if not rates["input"] or not rates["output"]:
            continue
        out.append(Listing(provider=HOST, source_model_id=model["id"], mode=SYNC, effective_date=day,
                           source=SOURCE, source_version=version, provenance=CURRENT, source_url=url,
                           source_released=day, display_name=model.get("name"),
                           context_window=_context(model), **rates))
    return out


def _host(endpoint: dict[str, Any]) -> str | None:
    """The host serving an endpoint: its tag's first part (`deepinfra/bf16`), else its provider name."""
    tag = endpoint.get("tag")
    name = tag.split("/", 1)[0] if isinstance(tag, str) and tag else endpoint.get("provider_name")
    if not isinstance(name, str) or not name.strip():
        return None
    return canonical_provider(re.sub(r"[^a-z0-9]+", "-", name.strip().lower()).strip("-"))


def endpoint_listings(payload: dict[str, Any], day: date, version: str, url: str) -> list[Listing]:
    """OpenRouter's endpoint list of one model (`GET /api/v1/models/{id}/endpoints`): one `current`
    sync listing per host with a positive input and output price, the host as the provider and
    OpenRouter's model id as the listed id, dated `day`; where a host serves the model more than
    once (quantisations), its cheapest endpoint."""
    data = payload["data"]
    cheapest: dict[str, Listing] = {}
    for endpoint in data.get("endpoints") or []:
        host, rates = _host(endpoint), _rates(endpoint.get("pricing") or {})
        if host is None or host == HOST or not rates["input"] or not rates["output"]:
            continue
        offer = Listing(provider=host, source_model_id=data["id"], mode=SYNC, effective_date=day, source=SOURCE,
                        source_version=version, provenance=CURRENT, source_url=url, source_released=day,
                        display_name=data.get("name"), context_window=_context(endpoint), **rates)
        if host not in cheapest or (offer.input + offer.output) < (cheapest[host].input + cheapest[host].output):
            cheapest[host] = offer
    return [cheapest[host] for host in sorted(cheapest)]
