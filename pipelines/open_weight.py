"""Open-weight models that no maker sells by the token: a ticker priced at its hosts' median.

Llama, Gemma, Nemotron and the like are released as weights; their makers sell no tokens, so
there is no maker's price. Contract §1: such a model takes the median of its hosts' current
prices and says so. Which families publish weights is curated (`warehouse/seed/open_weight.csv`,
with the licence); a model of such a family that its maker does not list, and that at least
`MIN_HOSTS` hosts price, gets statements of its own, from source `host-median`, in the name of
its maker: the median input and output price of its hosts (cache read where at least `MIN_HOSTS`
of them state one), one on each day the offers known change (an offer is dated as its source
dates it), so that the history of the median is the same whatever day it is built. Hosts' offers are
read from genai-prices, and from LiteLLM's map for a host genai-prices does not price the model
at; the statement's version names both.

Identity is matched with care, since hosts name one model many ways (`meta-llama/Llama-3.3-70B-
Instruct-Turbo`, `llama-3.3-70b-versatile`, `@cf/meta/llama-3.3-70b-instruct-fp8-fast`):
- the id is taken without the host's vendor prefix (`identity.split_vendor`), Bedrock's `:0`
  packaging and Meta's `meta-` brand prefix;
- trailing serving tokens are read as a *variant* of the model, not another model, and named
  in the statement: the default instruction tuning (`instruct`, `it`, `chat`), quantisation
  (`fp8`, `fp16`, `bf16`, `awq`, `int4`, `int8`) and a host's speed tier (`turbo`, `fast`,
  `instant`, `versatile`, `specdec`). A base model (`-base`), another size or a context variant
  keeps its own id;
- a host id without (some of) the parameter counts names the sized model it prefixes, if only one;
- a free offer (`:free`, a zero price) is no price; Hugging Face's routes to another host
  (`huggingface_together`) are that host; a host with several offers counts once, at its
  cheapest (by output, then input), the offer a buyer would take.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

import pandas as pd

from pipelines.identity import MakerTable, split_vendor
from pipelines.ingest_archive import HOST as ROUTER
from pipelines.ingest_openrouter import SOURCE as LIVE_ROUTER_SOURCE
from pipelines.listings import CURRENT, SYNC, Listing, canonical_provider, known_on

SOURCE = "host-median"
MIN_HOSTS = 3
VARIANT_TOKENS = frozenset({"instruct", "it", "chat", "fp8", "fp16", "bf16", "nvfp4", "awq", "int4", "int8", "turbo",
                            "fast", "instant", "versatile", "specdec"})
# Where hosts' offers are read: genai-prices first; LiteLLM's map for a host genai-prices does not
# price the model at (LiteLLM records the hosts' list prices it bills by).
# OpenRouter read live offers its hosts' endpoints; its own list price (provider `openrouter`) is
# the router's, which resells those hosts, so it is no offer of its own.
OFFER_SOURCES = ("genai-prices", "litellm", LIVE_ROUTER_SOURCE)
ROUTES = re.compile(r"^huggingface_")  # Hugging Face's inference router, reselling another host
HUGGING_FACE_HOSTS = {"fireworks-ai": "fireworks"}


@dataclass(frozen=True)
class Family:
    """A family whose weights are public: its maker, a pattern on the model id, and the licence."""

    maker: str
    pattern: re.Pattern
    licence: str


def families_from(frame: pd.DataFrame) -> tuple[Family, ...]:
    return tuple(Family(row["maker"], re.compile(row["pattern"]), row["licence"]) for row in frame.to_dict("records"))


def open_weight_id(listed_id: str) -> tuple[str | None, str, tuple[str, ...]]:
    """(vendor named in the id, the model's id, the variant tokens read off it)."""
    vendor, bare = split_vendor(listed_id)
    form = re.sub(r":\d+$", "", bare.lower().replace("_", "-"))
    form = re.sub(r"^(?:meta-(?=llama)|nvidia-(?=nemotron))", "", form)  # the maker's name before the brand
    form = re.sub(r"^qwen-(?=\d)", "qwen", form)  # `qwen-3-32b` is `qwen3-32b`
    tokens, variant = form.split("-"), []
    while len(tokens) > 1 and tokens[-1] in VARIANT_TOKENS:
        variant.insert(0, tokens.pop())
    return vendor, "-".join(tokens), tuple(variant)


def family_of(listed_id: str, makers: MakerTable, families: Iterable[Family]) -> Family | None:
    """The open-weight family a listed id belongs to, if any."""
    vendor, model_id, _ = open_weight_id(listed_id)
    maker = makers.maker_of(model_id, vendor)
    return next((f for f in families if f.maker == maker and f.pattern.search(model_id)), None)


def host_of(provider: str) -> str:
    """The host behind a provider: Hugging Face's routes are the host they route to."""
    if ROUTES.match(provider):
        host = ROUTES.sub("", provider)
        return canonical_provider(HUGGING_FACE_HOSTS.get(host, host))
    return provider


@dataclass(frozen=True)
class HostOffer:
    host: str
    provider: str
    listed_id: str
    variant: tuple[str, ...]
    input: float
    output: float
    cache_read: float | None
    effective_date: date
    source: str
    source_version: str
    first_known: date | None = None  # the first day the offer could be known (`listings.known_on`)


def _offers(listings: pd.DataFrame, makers: MakerTable, families: Iterable[Family],
            known: Callable[[str, str], bool], as_of: date | None = None) -> dict[tuple[str, str], list[HostOffer]]:
    """Every current host offer of an open-weight model its maker does not list, by (maker, id).
    `known(provider, listed id)`: whether the id names a model a maker lists; a model any of whose
    host ids does is the maker's, not an open-weight model of its own."""
    families = tuple(families)
    sold: set[tuple[str, str]] = set()
    rows = listings[(listings["mode"] == SYNC) & (listings["provenance"] == CURRENT)
                    & listings["source"].isin(OFFER_SOURCES) & (listings["output"] > 0) & (listings["input"] >= 0)
                    & ~((listings["source"] == LIVE_ROUTER_SOURCE) & (listings["provider"] == ROUTER))]
    if as_of is not None:  # an offer stated after the snapshot date is not known on it
        rows = rows[rows["effective_date"] <= as_of]
    found: dict[tuple[str, str], list[HostOffer]] = {}
    read: dict[str, tuple[Family | None, tuple]] = {}  # each listed id's family and parts, read once
    read_columns = ["provider", "source_model_id", "input", "output", "cache_read", "effective_date", "source",
                    "source_version", "first_known"]  # records of these alone: a listing has thirty columns
    for row in rows.assign(first_known=known_on(rows))[read_columns].to_dict("records"):
        listed = row["source_model_id"]
        if listed not in read:
            tagged = ":" in re.sub(r":\d+$", "", listed)  # `:free` and other offer tags
            family = None if tagged else family_of(listed, makers, families)
            read[listed] = family, open_weight_id(listed)
        family, (_, model_id, variant) = read[listed]
        if family is None or row["provider"] == family.maker:
            continue
        maker = family.maker
        if known(maker, model_id) or known(row["provider"], row["source_model_id"]):
            sold.add((maker, model_id))
        cache = row["cache_read"]
        found.setdefault((maker, model_id), []).append(HostOffer(
            host_of(row["provider"]), row["provider"], row["source_model_id"], variant, float(row["input"]),
            float(row["output"]), None if pd.isna(cache) else float(cache), row["effective_date"], row["source"],
            row["source_version"], None if pd.isna(row["first_known"]) else row["first_known"]))
    return {key: offers for key, offers in found.items() if key not in sold}


def _cheapest_per_host(offers: list[HostOffer]) -> list[HostOffer]:
    """Each host once: its cheapest offer in the first of OFFER_SOURCES that prices it there,
    where a source stated one listed id more than once (a catalogue read on several days), its
    newest statement."""
    newest: dict[tuple[str, str, str], HostOffer] = {}
    for offer in sorted(offers, key=lambda o: o.effective_date):
        newest[(offer.host, offer.source, offer.listed_id)] = offer
    by_host: dict[str, HostOffer] = {}
    for offer in sorted(newest.values(), key=lambda o: (OFFER_SOURCES.index(o.source), o.output, o.input, o.provider,
                                               o.listed_id)):
        by_host.setdefault(offer.host, offer)
    return sorted(by_host.values(), key=lambda o: o.host)


def _median(values: list[float]) -> float:
    """The median, worked in decimals as the prices are written (the mean of 0.10 and 0.11 is
    0.105, not 0.10500000000000001)."""
    ordered = sorted(Decimal(repr(v)) for v in values)
    middle = len(ordered) // 2
    return float(ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2)


SIZE = re.compile(r"^(?:\d+(?:\.\d+)?[bm]|a\d+(?:\.\d+)?b|\d+e)$")  # 17b, 128e, a3b: parameter counts


def _sized(model_id: str, ordered: list[str]) -> list[str]:
    """The ids of `ordered` (sorted) that are `model_id` with parameter counts added."""
    # The ids that start with `model_id-` are one run of the sorted list: '.' follows '-'.
    run = ordered[bisect_left(ordered, model_id + "-"):bisect_left(ordered, model_id + ".")]
    return [other for other in run if all(SIZE.match(token) for token in other[len(model_id) + 1:].split("-"))]


def _ids_by_maker(keys: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    """Each maker's model ids, sorted."""
    ids: dict[str, list[str]] = {}
    for maker, model_id in keys:
        ids.setdefault(maker, []).append(model_id)
    return {maker: sorted(listed) for maker, listed in ids.items()}


def _merge_unsized(found: dict[tuple[str, str], list[HostOffer]],
                   sold: set[tuple[str, str]]) -> dict[tuple[str, str], list[HostOffer]]:
    """A host id without the parameter counts (`llama-4-maverick`, `llama-4-maverick-17b`) names the
    sized model it prefixes (`llama-4-maverick-17b-128e`) where all the ids it prefixes are one
    chain: a maker's model (`sold`, as open_weight_id reads its id), whose offers these are not, or
    another open-weight one."""
    merged = {key: list(offers) for key, offers in found.items()}
    sold_ids, found_ids = _ids_by_maker(sold), _ids_by_maker(found)
    for maker, model_id in sorted(found):
        if _sized(model_id, sold_ids.get(maker, [])):
            merged.pop((maker, model_id))
            continue
        sized = sorted(_sized(model_id, found_ids[maker]), key=len)
        # One model however many of its counts an id gives: `-17b` and `-17b-128e` are one chain.
        if sized and all(sized[-1].startswith(other) for other in sized) and (maker, sized[-1]) in merged:
            merged[(maker, sized[-1])] += merged.pop((maker, model_id))
    return merged


def _median_statement(maker: str, model_id: str, day: date, chosen: list[HostOffer]) -> Listing:
    caches = [o.cache_read for o in chosen if o.cache_read is not None]
    variants = sorted({"-".join(o.variant) for o in chosen if o.variant})
    note = (f"median of {len(chosen)} hosts ({', '.join(o.host for o in chosen)}): open weights, no maker's price"
            + (f"; host variants: {', '.join(variants)}" if variants else ""))
    return Listing(
        provider=maker, source_model_id=model_id, mode=SYNC, effective_date=day,
        input=_median([o.input for o in chosen]), output=_median([o.output for o in chosen]),
        cache_read=_median(caches) if len(caches) >= MIN_HOSTS else None, source=SOURCE,
        source_version=", ".join(sorted({f"{o.source} {o.source_version}" for o in chosen})), provenance=CURRENT,
        source_released=None, note=note,
        # Known once every quote it takes the median of was.
        known_from=max((o.first_known for o in chosen if o.first_known is not None), default=None))


def host_median_listings(listings: pd.DataFrame, makers: MakerTable, families: Iterable[Family],
                         known: Callable[[str, str], bool], sold: Iterable[tuple[str, str]] = (),
                         as_of: date | None = None) -> tuple[list[Listing], dict[tuple[str, str], list[str]]]:
    """The `host-median` statements of each open-weight model with at least MIN_HOSTS hosts (one
    on each day the offers known change, from the first with MIN_HOSTS hosts), and the
    host ids that name each model ({(maker, model id): [listed ids]}). `known(provider, listed id)`:
    whether the id names a model a maker lists (it has a maker's price); `sold`: those models'
    (maker, id) pairs; `as_of`: the snapshot date (offers stated after it are left out)."""
    sold = {(maker, open_weight_id(model_id)[1]) for maker, model_id in sold}
    out, names = [], {}
    found = _merge_unsized(_offers(listings, makers, families, known, as_of), sold)
    for (maker, model_id), offers in sorted(found.items()):
        # One statement on each day the offers known change, so that the median's history is the
        # same whatever day it is built on.
        stated = len(out)
        for day in sorted({o.effective_date for o in offers}):
            chosen = _cheapest_per_host([o for o in offers if o.effective_date <= day])
            if len(chosen) >= MIN_HOSTS:
                out.append(_median_statement(maker, model_id, day, chosen))
        if len(out) > stated:
            names[(maker, model_id)] = sorted({o.listed_id for o in offers})
    return out, names


def host_priced(observations: pd.DataFrame) -> pd.Series:
    """Per observation: whether its ticker is an open-weight model priced at its hosts' median,
    whose series is the median's alone (a maker's free offer of it is no price by the token)."""
    tickers = set(observations.loc[observations["source"] == SOURCE, "ticker"])
    return observations["ticker"].isin(tickers)


def host_median_from(observations: pd.DataFrame) -> pd.Series:
    """By ticker: the first day it is priced at its hosts' median (`host_priced` of the
    observations dated on or before a day holds from then on); only tickers that ever are."""
    median = observations[observations["source"] == SOURCE]
    first = pd.Series(pd.to_datetime(median["effective_date"]).to_numpy(), index=median["ticker"].to_numpy())
    return first.groupby(level=0).min()


def host_priced_since(observations: pd.DataFrame) -> pd.Series:
    """Per observation: `host_median_from` of its ticker; NaT for a ticker never so priced."""
    return pd.Series(host_median_from(observations).reindex(observations["ticker"].to_numpy()).to_numpy(),
                     index=observations.index)
