"""Dated package releases → `archived` listings: each price a release of a price package stated,
dated that release's upload day.

A price package's release is a dated statement: the files uploaded on day D listed model M at
price P. Two shipped files hold such statements (both read by `warehouse.release_history`):

- genai-prices' release history: spans of consecutive releases that listed a model at one price;
  each span is a listing dated its first release.
- the change file of model-prices and LiteLLM releases: a row where a series was listed,
  repriced or delisted between two releases read; a listing wherever the price a model carries
  changes, dated the release that first shows it.

Upload days bound when a package learnt of a price, not when the provider set it: a price can
be older than its listing, never newer than the release. Provider and model ids go through each
source's own ingest module, so these listings join with that source's current ones.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import date

import pandas as pd

from pipelines.ingest_genai import SOURCE as GENAI
from pipelines.ingest_litellm import DATA_URL as LITELLM_DATA_URL
from pipelines.ingest_litellm import SOURCE as LITELLM
from pipelines.ingest_litellm import key_preference, provider_id, source_model_id
from pipelines.ingest_model_prices import SOURCE as MODEL_PRICES
from pipelines.listings import ARCHIVED, SYNC, Listing, canonical_provider, same_price

PRICES = ("input", "output", "cache_read", "cache_write")
DELISTED = "delisted"


def _price(value: object) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def genai_span_listings(spans: pd.DataFrame, repository: str) -> list[Listing]:
    """One sync listing per span that states an input and output price, dated its first release.

    A span starts wherever the price, or the deprecation flag, differs from the release before, or
    where a model is listed again after an absence; each start is a statement of its own.
    """
    out = []
    for span in spans.itertuples(index=False):
        rates = {k: _price(getattr(span, k)) for k in PRICES}
        if rates["input"] is None or rates["output"] is None:
            continue
        out.append(Listing(
            provider=canonical_provider(span.provider_id), source_model_id=span.model_id, mode=SYNC,
            effective_date=span.first_released, source=GENAI, source_version=span.first_version,
            source_released=span.first_released, provenance=ARCHIVED, source_url=repository,
            display_name=span.name or None,
            context_window=None if pd.isna(span.context_window) else int(span.context_window),
            deprecated=None if pd.isna(span.deprecated) else bool(span.deprecated), **rates,
        ))
    return out


# Per source: (provider, model id, mode) as that source's ingest names it, from the row's own ids.
TARGETS: dict[str, Callable[[str, str, str], tuple[str, str, str]]] = {
    LITELLM: lambda provider, key, mode: (provider_id(provider), source_model_id(key, provider), mode),
    MODEL_PRICES: lambda provider, model, mode: (canonical_provider(provider), model, mode),
}


def release_change_listings(changes: pd.DataFrame, meta: Mapping) -> list[Listing]:
    """A listing wherever the price a model carries changes across the releases read, per source.

    `changes` and `meta` are the change file and its meta record. Several LiteLLM keys can name
    one model at one provider (`deepseek-chat`, `deepseek/deepseek-chat`); at each release the
    model carries the price of the preferred key listed then (`ingest_litellm.key_preference`),
    as a listing of that release alone would. Being delisted ends a price without a listing; a
    model listed again at the same price gives none either.
    """
    out = []
    for source, rows in changes.groupby("source", sort=True):
        info = meta["sources"][source]
        order = {r["version"]: i for i, r in enumerate(info["releases"])}
        groups: dict[tuple, list] = defaultdict(list)
        for row in rows.itertuples(index=False):
            groups[TARGETS[source](row.provider, row.model_id, row.mode)].append(row)
        for target, group in groups.items():
            out += _carried(source, target, group, order, info["repository"])
    return sorted(out, key=lambda r: (r.source, r.provider, r.source_model_id, r.mode, r.effective_date))


def _carried(source: str, target: tuple[str, str, str], rows: list, order: Mapping[str, int],
             repository: str) -> list[Listing]:
    """Replay one model's rows release by release; a listing wherever its price changes."""
    provider, model, mode = target
    by_release: dict[str, list] = defaultdict(list)
    for row in rows:
        by_release[row.version].append(row)
    listed: dict[str, tuple] = {}  # key -> prices, for the keys listed as of the current release
    carried, out = None, []
    for version in sorted(by_release, key=order.__getitem__):
        for row in by_release[version]:
            if row.change == DELISTED:
                listed.pop(row.model_id, None)
            else:
                listed[row.model_id] = tuple(_price(getattr(row, k)) for k in PRICES)
        if not listed:
            continue
        prices = listed[min(listed, key=key_preference)]
        if carried is not None and all(same_price(a, b) for a, b in zip(prices, carried, strict=True)):
            continue
        carried, released = prices, by_release[version][0].released
        out.append(_listing(source, provider, model, mode, version, released, repository, prices))
    return out


def _listing(source: str, provider: str, model: str, mode: str, version: str, released: date,
             repository: str, prices: tuple) -> Listing:
    """Cited as LiteLLM's map at the release's tag (as ingest_litellm cites it), else the repository."""
    url = LITELLM_DATA_URL.format(version=version) if source == LITELLM else repository
    return Listing(provider=provider, source_model_id=model, mode=mode, effective_date=released,
                   source=source, source_version=version, source_released=released, provenance=ARCHIVED,
                   source_url=url, **dict(zip(PRICES, prices, strict=True)))


def new_evidence(released: list[Listing], own: list[Listing]) -> list[Listing]:
    """The release-dated statements that tell something the source's own statements do not.

    A release restates what its package lists, so it is read only as dating evidence for the
    models the source still lists (`own`): a model a package has since dropped does not come
    back as a ticker with its last release's price, and a price the source's own statements
    already date on or before the release's day adds nothing (where a source lists two ids of one
    model at different prices, restating both on one release day would also erase which came
    later). What is left: earlier prices of listed models, and prices a release shows before the
    source's own dating does.
    """
    listed = {(o.provider, o.source_model_id) for o in own}
    first_dated: dict[tuple, date] = {}
    for o in own:
        key = (o.provider, o.source_model_id, o.mode, o.input, o.output)
        first_dated[key] = min(first_dated.get(key, o.effective_date), o.effective_date)
    out = []
    for listing in released:
        if (listing.provider, listing.source_model_id) not in listed:
            continue
        key = (listing.provider, listing.source_model_id, listing.mode, listing.input, listing.output)
        dated = first_dated.get(key)
        if dated is None or dated > listing.effective_date:
            out.append(listing)
    return out
