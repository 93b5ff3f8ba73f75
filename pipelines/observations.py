"""All sources' listings → one table of observations keyed by ticker.

Reconciliation, in order:
1. The maker's own listings (genai-prices first, then model-prices) define the models.
2. Every listing, the hosts' and the archive's included, is mapped onto those models.
3. Tickers are assigned (`pipelines.tickers`).
4. Where one provider's price for one model, mode and date is stated more than once, the most
   authoritative statement wins and the others stay in the table, marked `superseded` with the
   winner named, so a disagreement between sources is visible rather than dropped.
5. Between dates, the later statement wins: a catalogue's `current` price is dated by the first
   release that listed it (`pipelines.release_dating`), so another source's dated price beats it
   only if dated later, and the history (`pipelines.history`) follows the latest.
6. A cross-check source (LiteLLM's map, undated: asserted as of its release) never steers a
   price: its statements are kept, marked `superseded` with the reason, and vote in the evidence
   and the disputes (`pipelines.evidence`).
7. Where sources disagree on today's price, a USD list beats a price converted from yuan, and a
   rate a majority of independent sources state beats one source's (`pipelines.price_rules`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd

from pipelines.aliases import CuratedAlias
from pipelines.days import earliest
from pipelines.identity import Resolver, split_vendor
from pipelines.ingest_archive import SOURCE as ARCHIVE_SOURCE
from pipelines.ingest_genai import SOURCE as GENAI_SOURCE
from pipelines.ingest_litellm import SOURCE as LITELLM_SOURCE
from pipelines.ingest_model_prices import SOURCE as MODEL_PRICES_SOURCE
from pipelines.ingest_openrouter import SOURCE as OPENROUTER_SOURCE
from pipelines.listings import (
    ARCHIVED,
    CURRENT,
    FIRST_OBSERVED,
    PRICE_FIELDS,
    PUBLISHED,
    SYNC,
    known_by,
    listings_frame,
    same_price,
)
from pipelines.open_weight import SOURCE as HOST_MEDIAN_SOURCE
from pipelines.open_weight import Family, host_median_listings, host_priced
from pipelines.pointers import alias_spans, resolve_pointers
from pipelines.price_rules import MAJORITY, USD_LIST, converted_loses, outvoted
from pipelines.tickers import TickerRequest, assign_tickers
from pipelines.tier_thresholds import read_at_exact_boundaries

# A documented dated price beats today's catalogue, which beats a dataset's first sighting,
# which beats an archived host list. Between sources with the same marker, the one that reads
# the providers' pages more directly wins.
PROVENANCE_RANK = {PUBLISHED: 4, CURRENT: 3, FIRST_OBSERVED: 2, ARCHIVED: 1}
SOURCE_RANK = {GENAI_SOURCE: 3, MODEL_PRICES_SOURCE: 2, ARCHIVE_SOURCE: 1, OPENROUTER_SOURCE: 1, HOST_MEDIAN_SOURCE: 1,
               LITELLM_SOURCE: 0}
CROSS_CHECK_SOURCES = (LITELLM_SOURCE,)
REJECTED_NOTE_PREFIX = "rejected"
CROSS_CHECK_NOTE = "cross-check only: an undated map, asserted as of its release; it votes but never sets a price"
PRICE_COLUMNS = [*PRICE_FIELDS, "tiers", "peak"]
REJECTED_FILE = "rejected_statements.csv"  # what a rejected statement is superseded by
DECIDED_ONCE = (REJECTED_FILE, USD_LIST, MAJORITY)  # set aside on the build day, not ranked again
ORIGIN_SOURCES = (GENAI_SOURCE, MODEL_PRICES_SOURCE)
OBSERVATION_COLUMNS = [
    "ticker", "provider", "provider_model_id", "is_origin", "mode", "effective_date", *PRICE_COLUMNS,
    "source", "source_version", "source_url", "provenance", "source_released", "known_from",
    "authority", "superseded", "superseded_by", "note",
]


def authority(provenance: pd.Series, source: pd.Series) -> pd.Series:
    return (provenance.map(PROVENANCE_RANK).fillna(0) * 10 + source.map(SOURCE_RANK).fillna(0)).astype("int8")


def learn_models(listings: pd.DataFrame, resolver: Resolver, curated: list[CuratedAlias] = ()) -> None:
    """Teach the resolver every model its maker lists: genai-prices' ids first, so they name
    them; then the curated aliases; then every other source's ids (which join a known model
    where genai-prices' match rules or the normal form say so)."""
    origin = listings[listings["source"].isin(ORIGIN_SOURCES) & (listings["mode"] == SYNC)]
    order = origin.assign(_rank=origin["source"].map(SOURCE_RANK)).sort_values(
        ["_rank", "provider", "source_model_id"], ascending=[False, True, True], kind="stable"
    ).drop_duplicates(["provider", "source_model_id"])
    aliased = {(alias.maker, alias.alias_id) for alias in curated}
    genai = order["source"] == GENAI_SOURCE
    for provider, listed_id in own_prefixed_offers(order.loc[genai, ["provider", "source_model_id"]]):
        resolver.learn_offer(provider, listed_id)
    for provider, listed_id in order.loc[genai, ["provider", "source_model_id"]].itertuples(index=False):
        # genai-prices separates models deliberately (its match rules group the snapshots of one).
        if (provider, listed_id.lower()) not in aliased:
            resolver.learn(provider, listed_id, distinct=True)
    for alias in curated:
        key = resolver.key_of(alias.maker, alias.model_id)[0] or resolver.learn(alias.maker, alias.model_id)
        if key is None:
            raise ValueError(f"model_aliases.csv: {alias.maker}/{alias.model_id} is not a model any source lists")
        resolver.claim(alias.maker, alias.alias_id, key)
    for provider, listed_id in order.loc[~genai, ["provider", "source_model_id"]].itertuples(index=False):
        resolver.learn(provider, listed_id)


def own_prefixed_offers(pairs: pd.DataFrame) -> list[tuple[str, str]]:
    """(provider, id) of each id a maker's own catalogue lists with its own name as prefix beside
    the bare id (`perplexity/sonar` beside `sonar`): two entries at two prices are two products,
    not one model written twice (`Resolver.learn_offer`)."""
    listed = set(_pairs(pairs.assign(source_model_id=pairs["source_model_id"].str.lower())))
    offers = []
    for provider, listed_id in _pairs(pairs):
        vendor, bare = split_vendor(listed_id)
        if "/" in listed_id and vendor == provider and (provider, bare.lower()) in listed:
            offers.append((provider, listed_id))
    return offers


def map_listings(listings: pd.DataFrame, resolver: Resolver) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Attach the model key and origin flag to each listing; listings of unknown models drop out.

    The maker's own statements about a pointer id are read as statements about the model it
    served on that date (`pipelines.pointers`); a host's listing of a pointer is left out. A
    pointer whose prices no model of its line ever had is a product of its own
    (`chatgpt-4o-latest`): it is learnt as a model and mapped like one.
    Returns the mapped listings and every pointer statement with what it was resolved to.
    """
    pairs = listings[["provider", "source_model_id"]].drop_duplicates()
    pointer = {(p, i): resolver.pointer_of(i) for p, i in _pairs(pairs)}
    known = map_known(listings, resolver)
    statements = resolve_pointers(_pointer_statements(listings, pointer), known, resolver.source_match_id)
    unresolved = statements.groupby(["_maker", "_pointer"], sort=True)["_model"].agg(lambda m: m.isna().all())
    products = set(unresolved.index[unresolved.to_numpy(dtype=bool)])
    for maker, product in sorted(products):
        resolver.learn(maker, product, product=True)
    of_product = [pointer[pair] in products for pair in _pairs(listings)]
    statements = statements[[key not in products for key in zip(statements["_maker"], statements["_pointer"],
                                                                 strict=True)]].reset_index(drop=True)
    mapped = pd.concat([known, map_known(listings[of_product], resolver),
                        statements[statements["_model"].notna()]], ignore_index=True)
    return mapped, statements


def map_known(listings: pd.DataFrame, resolver: Resolver) -> pd.DataFrame:
    """Listings of known models (pointers aside) with their model key and origin flag."""
    pairs = listings[["provider", "source_model_id"]].drop_duplicates()
    resolved = {(p, i): resolver.key_of(p, i) for p, i in _pairs(pairs)}
    keys = [resolved[pair] for pair in _pairs(listings)]
    mapped = listings.assign(_maker=[k.maker if k else None for k, _ in keys],
                             _model=[k.model_id if k else None for k, _ in keys],
                             is_origin=[origin for _, origin in keys])
    return mapped[mapped["_model"].notna()].reset_index(drop=True)


def _pairs(listings: pd.DataFrame) -> zip:
    """(provider, source_model_id) of each listing, read from object arrays: iterating columns of
    Arrow strings makes each value through pandas, several times slower."""
    return zip(listings["provider"].to_numpy(dtype=object), listings["source_model_id"].to_numpy(dtype=object),
               strict=True)


def _pointer_statements(listings: pd.DataFrame, pointer: dict) -> pd.DataFrame:
    """The maker's own listings of its pointer ids, with `_maker`, `_pointer` and authority."""
    pairs = list(_pairs(listings))
    found = [pointer[pair] for pair in pairs]
    own = np.array([f is not None and f[0] == p for f, (p, _) in zip(found, pairs, strict=True)], dtype=bool)
    rows = listings[own].assign(_maker=[f[0] for f, keep in zip(found, own, strict=True) if keep],
                                _pointer=[f[1] for f, keep in zip(found, own, strict=True) if keep],
                                is_origin=True)
    return rows.assign(authority=authority(rows["provenance"], rows["source"])).reset_index(drop=True)


def priced_models_only(mapped: pd.DataFrame) -> pd.DataFrame:
    """Keep models whose maker's latest sync price has a positive output rate.

    A model offered only free (a preview) or never priced by its maker has no β to quote.
    """
    origin_sync = mapped[mapped["is_origin"] & (mapped["mode"] == SYNC) & ~mapped["source"].isin(CROSS_CHECK_SOURCES)]
    latest = origin_sync.sort_values("effective_date", kind="stable").groupby(["_maker", "_model"]).tail(1)
    priced = latest.loc[latest["output"] > 0, ["_maker", "_model"]]
    keep = pd.MultiIndex.from_frame(priced)
    index = pd.MultiIndex.from_frame(mapped[["_maker", "_model"]])
    return mapped[index.isin(keep)].reset_index(drop=True)


def published_overrides(published: pd.DataFrame, resolver: Resolver) -> dict[tuple[str, str], str]:
    """(maker, model) → the ticker published for it before, so no ticker changes meaning.

    Where several published tickers now name one model (its aliases were tickers), the one
    published for the model's own id keeps it, else the shortest. A ticker that spells a pointer
    id (`MISTRAL-MEDIUM`, `mistral-medium`) is no model's: lookups are case-insensitive, so it
    answers as the pointer does (`registry.published_ticker_targets`), and the model it was
    published for takes the ticker of its own id (`MISTRAL-MEDIUM-2312`).
    """
    claims: dict[tuple[str, str], list[tuple[bool, int, str]]] = {}
    for ticker, maker, model_id in published[["ticker", "maker", "model_id"]].itertuples(index=False):
        if resolver.is_pointer(maker, ticker):
            continue
        key = resolver.key_of(maker, model_id)[0]
        if key is not None:
            claims.setdefault((key.maker, key.model_id), []).append(
                (key.model_id.lower() != model_id.lower(), len(ticker), ticker))
    return {key: min(tickers)[2] for key, tickers in claims.items()}


def ticker_requests(mapped: pd.DataFrame, overrides: dict[tuple[str, str], str]) -> list[TickerRequest]:
    first_seen = earliest(mapped["effective_date"], [mapped["_maker"], mapped["_model"]])
    return [
        TickerRequest(maker, model, day, overrides.get((maker, model)))
        for (maker, model), day in first_seen.items()
    ]


def mark_superseded(frame: pd.DataFrame) -> pd.DataFrame:
    """Within each (ticker, provider, mode, date), rank statements; losers name the winner."""
    frame = frame.sort_values(
        ["ticker", "provider", "mode", "effective_date", "authority", "provider_model_id"],
        ascending=[True, True, True, True, False, True], kind="stable",
    ).reset_index(drop=True)
    group = ["ticker", "provider", "mode", "effective_date"]
    winner = frame.groupby(group, sort=False).cumcount() == 0
    label = frame["source"] + " (" + frame["provenance"] + ")"
    winner_label = label.where(winner).groupby([frame[c] for c in group], sort=False).transform("first")
    firsts = frame[PRICE_COLUMNS].where(winner).groupby([frame[c] for c in group], sort=False).transform("first")
    same = np.logical_and.reduce(
        [(frame[c] == firsts[c]) | (frame[c].isna() & firsts[c].isna()) for c in PRICE_COLUMNS]
    )
    disagreement = (~winner) & ~same
    note = frame["note"].astype("object")
    frame["superseded"] = ~winner
    frame["superseded_by"] = winner_label.where(~winner)
    frame["note"] = np.where(
        disagreement,
        _noted("disagrees with " + winner_label, note),
        note,
    )
    return frame


@dataclass(frozen=True)
class Rejection:
    """A statement a source makes that is not the price it claims to be (rejected_statements.csv)."""

    source: str
    provider: str
    model_id: str
    field: str
    value: float
    reason: str


def rejections(frame: pd.DataFrame) -> list[Rejection]:
    """Rows of `rejected_statements.csv`; a row without a reason is refused."""
    rows = []
    for source, provider, model_id, field, value, reason in frame[
            ["source", "provider", "model_id", "field", "value", "reason"]].itertuples(index=False):
        if not str(reason).strip():
            raise ValueError(f"rejected_statements.csv: {source} {provider}/{model_id} has no reason")
        if field not in PRICE_FIELDS:
            raise ValueError(f"rejected_statements.csv: unknown field {field!r}; expected one of {list(PRICE_FIELDS)}")
        rows.append(Rejection(source, provider, model_id.lower(), field, float(value), reason))
    return rows


def reject(frame: pd.DataFrame, rejected: list[Rejection]) -> pd.DataFrame:
    """Mark each rejected statement superseded, with its reason (`REJECTED_NOTE_PREFIX`)."""
    frame = frame.copy()
    for r in rejected:
        hit = ((frame["source"] == r.source) & (frame["provider"] == r.provider)
               & (frame["provider_model_id"].str.lower() == r.model_id)).to_numpy(dtype=bool, copy=True)
        # The price compared only on the statements named: a call on every row was slow.
        hit[hit] = [same_price(stated, r.value) for stated in frame[r.field].to_numpy()[hit]]
        frame.loc[hit, "superseded"] = True
        frame.loc[hit, "superseded_by"] = REJECTED_FILE
        frame.loc[hit, "note"] = _noted(pd.Series(f"{REJECTED_NOTE_PREFIX}: {r.field} {r.value:g} is {r.reason}",
                                                  index=frame.index[hit]), frame.loc[hit, "note"])
    return frame


def as_known_on(observations: pd.DataFrame, day: date) -> pd.DataFrame:
    """The observations as they could be adjudicated on `day`: those published by then
    (`known_by`), each day's statements ranked again among them alone (one that lost its day only
    to a statement published later had not lost it yet). Rejected statements and cross-checks
    stay aside, as they were."""
    return ranked_again(known_by(observations, day))


def ranked_again(known: pd.DataFrame) -> pd.DataFrame:
    """Some of the adjudicated observations, each day's statements ranked again among them alone
    (`mark_superseded`); rejected statements and cross-checks stay aside, as they were."""
    aside = known["superseded"] & (known["superseded_by"].isna() | known["superseded_by"].isin(DECIDED_ONCE))
    ranked = mark_superseded(known[~aside].assign(superseded=False, superseded_by=None))
    return pd.concat([ranked, known[aside]], ignore_index=True)


def adjudicate(frame: pd.DataFrame, rejected: list[Rejection] = (), as_of: date | None = None) -> pd.DataFrame:
    """Rank the price sources' statements (`mark_superseded`) once the rejected ones are set
    aside; keep the cross-checks beside them; then settle disagreements on the price known on
    `as_of` (`settle`). For a model priced at its hosts' median (`open_weight.host_priced`) a
    cross-check's record of a host's list price is one of the offers the median is taken over,
    so it stands as the host's price."""
    frame = reject(frame.assign(superseded=False, superseded_by=None), list(rejected))
    out = frame[frame["superseded"]]
    frame = frame[~frame["superseded"]]
    cross = frame["source"].isin(CROSS_CHECK_SOURCES) & ~(host_priced(frame) & ~frame["is_origin"])
    checks = frame[cross].assign(superseded=True, superseded_by=None,
                                 note=_noted(pd.Series(CROSS_CHECK_NOTE, index=frame.index[cross]),
                                             frame.loc[cross, "note"]))
    return pd.concat([settle(pd.concat([mark_superseded(frame[~cross]), checks], ignore_index=True), as_of), out],
                     ignore_index=True)


def settle(frame: pd.DataFrame, as_of: date | None = None) -> pd.DataFrame:
    """Set aside, superseded by the rule's name, each statement that loses to a USD list
    (`price_rules.converted_loses`), then each outvoted one (`price_rules.outvoted`). Cross-checks
    vote; they never set a price."""
    for rule, decide in ((USD_LIST, converted_loses), (MAJORITY, outvoted)):
        setting = ~frame["superseded"].to_numpy(dtype=bool)
        voting = setting | (frame["source"].isin(CROSS_CHECK_SOURCES) & frame["superseded_by"].isna()).to_numpy()
        notes = decide(frame, setting, voting, as_of)
        lost = notes.notna()
        if lost.any():
            frame = frame.copy()
            frame.loc[lost, "superseded"] = True
            frame.loc[lost, "superseded_by"] = rule
            frame.loc[lost, "note"] = _noted(notes[lost], frame.loc[lost, "note"])
    return frame


def _noted(text: pd.Series, note: pd.Series) -> pd.Series:
    """`text`, followed by the row's own note where it has one."""
    return text + note.astype("object").map(lambda n: f"; {n}" if isinstance(n, str) else "")


def learn_open_weight(listings: pd.DataFrame, resolver: Resolver, families: Iterable[Family],
                      as_of: date | None = None) -> pd.DataFrame:
    """Teach the resolver each open-weight model its maker does not sell, with every host id that
    names it, and return the listings with its `host-median` statement added
    (`pipelines.open_weight`)."""
    own = listings[listings["source"].isin(ORIGIN_SOURCES) & (listings["mode"] == SYNC) & (listings["output"] > 0)]
    keys = [resolver.key_of(p, i) for p, i in _pairs(own[["provider", "source_model_id"]].drop_duplicates())]
    sold = {key for key, is_maker in keys if key is not None and is_maker}

    def known(provider: str, listed_id: str) -> bool:  # a model its maker sells by the token
        return resolver.key_of(provider, listed_id)[0] in sold

    statements, names = host_median_listings(listings, resolver.makers, families, known,
                                             [(key.maker, key.model_id) for key in sold], as_of)
    for maker, model_id in names:
        key = resolver.learn(maker, model_id)
        for listed in names[(maker, model_id)]:
            resolver.claim(maker, split_vendor(listed)[1], key)
    return pd.concat([listings, listings_frame(statements)], ignore_index=True) if statements else listings


def build_observations(listings: pd.DataFrame, resolver: Resolver, overrides: dict[tuple[str, str], str],
                       curated: list[CuratedAlias] = (), published: pd.DataFrame | None = None,
                       rejected: list[Rejection] = (), families: Iterable[Family] = (),
                       as_of: date | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The `price_observations` table, and the spans of what each pointer id served.

    `overrides` (curated tickers) win over `published` (tickers already published), which win
    over the derived ones. `families`: the open-weight families (`open_weight.csv`), priced from
    their hosts' offers known on `as_of`.
    """
    learn_models(listings, resolver, curated)
    listings = learn_open_weight(listings, resolver, families, as_of)
    mapped, pointers = map_listings(listings, resolver)
    mapped = priced_models_only(mapped)
    if published is not None:
        overrides = {**published_overrides(published, resolver), **overrides}
    tickers = assign_tickers(ticker_requests(mapped, overrides))
    frame = mapped.assign(
        ticker=[tickers[(m, i)] for m, i in zip(mapped["_maker"], mapped["_model"], strict=True)],
        provider_model_id=mapped["source_model_id"],
        authority=authority(mapped["provenance"], mapped["source"]),
    )
    frame["note"] = np.where(frame["_pointer"].notna(),
                             _noted("stated for the alias " + frame["_pointer"].astype(str), frame["note"]),
                             frame["note"].astype("object"))
    frame = adjudicate(read_at_exact_boundaries(frame), rejected, as_of)
    spans = alias_spans(pointers)
    spans = spans[spans["model_id"].isin(set(mapped["_model"]))]
    spans.insert(2, "ticker", [tickers[(m, i)] for m, i in zip(spans["maker"], spans["model_id"], strict=True)])
    return frame[OBSERVATION_COLUMNS], spans.reset_index(drop=True)
