"""The model registry: one record per ticker, with the fields of the contract (§1).

Families and tiers are not in the price data. They come from curated pattern rules
(`warehouse/seed/model_rules.csv`) matched against `maker/model_id`, with these defaults where no
rule matches:
- family: `maker/` + the ticker without its version tokens (`GPT-4.1-MINI` → `openai/gpt-mini`);
- tier: by the latest sync output price: at least 10 $/M frontier, at most 1.5 $/M efficient,
  mid in between (`tier_basis` says which: `rule` or `price`; a tier by price is a tier of a day,
  and `tiers_on` gives it for a past day from that day's price).

Whether a model reasons is a rule where one matches, else what the sources state
(`model_metadata.reasoning`, when the registry is enriched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from pipelines.days import earliest
from pipelines.listings import BATCH, SYNC
from pipelines.open_weight import host_priced
from pipelines.tickers import BATCH_SUFFIX, has_snapshot_suffix

# How a model's price is set: its maker's own list price, or the median of its hosts' prices (an
# open-weight model no maker sells by the token, `pipelines.open_weight`).
MAKER, HOST_MEDIAN = "maker", "host_median"
# Where a model's tier comes from: a curated rule (its name, which holds on every day) or its price.
TIER_BY_RULE, TIER_BY_PRICE = "rule", "price"
FRONTIER_OUTPUT_FLOOR = 10.0
EFFICIENT_OUTPUT_CEILING = 1.5
VERSION_TOKEN = re.compile(r"^[a-z]?\d+(\.\d+)*[a-z]?$")
CONTEXT_TOKEN = re.compile(r"^\d+k$")  # 32k: a context variant, no part of the family
TRAILING_VERSION = re.compile(r"(?<=[a-z]{3})\d+(\.\d+)*$")  # qwen3 → qwen


@dataclass(frozen=True)
class Rules:
    """Curated patterns: (kind, compiled pattern, value), first match per kind wins."""

    rows: tuple[tuple[str, re.Pattern, str], ...]
    # Answers already found, by (kind, subject): a backtest asks for every model's tier at every
    # anchor, and each question tries the patterns one by one.
    _found: dict[tuple[str, str], str | None] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Rules:
        rows = frame[["kind", "pattern", "value"]].itertuples(index=False)
        return cls(tuple((kind, re.compile(pattern), value) for kind, pattern, value in rows))

    def first(self, kind: str, subject: str) -> str | None:
        key = (kind, subject)
        if key not in self._found:
            self._found[key] = next((value for rule_kind, pattern, value in self.rows
                                     if rule_kind == kind and pattern.search(subject)), None)
        return self._found[key]


def default_family(maker: str, ticker: str) -> str:
    tokens = []
    for token in ticker.lower().split("-"):
        if VERSION_TOKEN.match(token) or CONTEXT_TOKEN.match(token):
            continue
        tokens.append(TRAILING_VERSION.sub("", token))
    line = "-".join(tokens) or re.sub(r"\d.*$", "", ticker.lower()) or ticker.lower()
    return f"{maker}/{line}"


def default_tier(output_price: float) -> str:
    if output_price >= FRONTIER_OUTPUT_FLOOR:
        return "frontier"
    if output_price <= EFFICIENT_OUTPUT_CEILING:
        return "efficient"
    return "mid"


def tiers_on(models: pd.DataFrame, sync_output: pd.Series) -> pd.Series:
    """Each model's tier on a past day, from what was known that day: its rule's tier, else the
    tier of its sync output price that day (`sync_output`, by ticker; no price that day, no tier)."""
    output = models["ticker"].map(sync_output).to_numpy(dtype=float)
    by_price = [None if np.isnan(price) else default_tier(price) for price in output]
    by_rule = (models["tier_basis"] == TIER_BY_RULE).to_numpy()
    return pd.Series(np.where(by_rule, models["tier"].to_numpy(dtype=object), by_price), index=models.index)


def choose_model_id(ids: list[str]) -> str:
    """The maker's own API id: an undated id that is not an alias form, else the earliest snapshot id."""
    clean = sorted(i for i in ids if not has_snapshot_suffix(i) and not re.search(r"-0$", i))
    if clean:
        return min(clean, key=lambda i: (len(i), i)).lower()
    dated = sorted(i for i in ids if re.search(r"\d{4}-?\d{2}-?\d{2}$|\d{4}$", i))
    return (dated[0] if dated else sorted(ids)[0]).lower()


def latest_origin_price(observations: pd.DataFrame, mode: str) -> pd.DataFrame:
    rows = observations[observations["is_origin"] & ~observations["superseded"] & (observations["mode"] == mode)]
    latest = rows.sort_values(["effective_date", "authority"], kind="stable").groupby("ticker").tail(1)
    return latest.set_index("ticker")


def current_pointer_targets(model_aliases: pd.DataFrame) -> dict[str, str]:
    """Pointer id → the ticker it serves today (its open span)."""
    today = model_aliases[model_aliases["valid_to"].isna()]
    return dict(zip(today["alias"], today["ticker"], strict=True))


def published_ticker_targets(published: pd.DataFrame, observations: pd.DataFrame,
                             pointers: dict[str, str]) -> dict[str, str]:
    """Each published ticker that is no longer a ticker → the ticker of the model its id names now
    (`pointers`: what each pointer id serves today); a ticker that spells a pointer id answers as
    that pointer (`observations.published_overrides`)."""
    tickers = set(observations["ticker"])
    origin = observations[observations["is_origin"]]
    by_id = origin.assign(_id=origin["provider_model_id"].str.lower()).drop_duplicates(
        ["provider", "_id"]).set_index(["provider", "_id"])["ticker"]
    out = {}
    for ticker, maker, model_id in published[["ticker", "maker", "model_id"]].itertuples(index=False):
        if ticker in tickers:
            continue
        target = (pointers.get(ticker.lower()) or pointers.get(model_id.lower())
                  or by_id.get((maker, model_id.lower())))
        if target is not None:
            out[ticker] = target
    return out


def _grouped(keys: pd.Series, values: pd.Series) -> dict:
    """Each key's values, in order: one pass over object arrays (a groupby with a Python function
    per group costs a call per ticker, 50,000 in a large universe)."""
    out: dict = {}
    for key, value in zip(keys.to_numpy(dtype=object), values.to_numpy(dtype=object), strict=True):
        out.setdefault(key, []).append(value)
    return out


def build_models(observations: pd.DataFrame, rules: Rules, model_aliases: pd.DataFrame | None = None,
                 published: pd.DataFrame | None = None) -> pd.DataFrame:
    """One record per ticker in the observations (every ticker there has a maker's own price):
    its identity, names and classification. What the sources say of its name, limits,
    modalities and lifecycle is added by `model_metadata.enrich_models`.

    A model's aliases are every id a source lists it under, the pointer ids that serve it today
    (`model_aliases`) and the tickers published before for what is now this model (`published`).
    """
    origin = observations[observations["is_origin"]]
    latest_sync = latest_origin_price(observations, SYNC)
    has_batch = set(observations.loc[observations["is_origin"] & (observations["mode"] == BATCH), "ticker"])
    # Per ticker, aggregated once over all tickers (a loop of frame operations per ticker costs
    # seconds per thousand tickers).
    by_ticker = origin.groupby("ticker", sort=True)
    makers = by_ticker["provider"].first()
    listed = observations["provider_model_id"].str.lower()
    kept = np.ones(len(listed), dtype=bool)
    if model_aliases is not None:  # a pointer is an alias of what it serves today only, never a model's id
        kept = ~listed.isin(set(model_aliases["alias"])).to_numpy(dtype=bool)
    own = observations["is_origin"].to_numpy(dtype=bool) & kept
    ids = {ticker: sorted(set(names)) for ticker, names in _grouped(
        observations["ticker"][own], observations["provider_model_id"][own]).items()}
    aliases = {ticker: set(names) for ticker, names in _grouped(observations["ticker"][kept], listed[kept]).items()}
    extra: dict[str, set[str]] = {}
    if model_aliases is not None:
        pointers = current_pointer_targets(model_aliases)
        for pointer, ticker in pointers.items():
            extra.setdefault(ticker, set()).add(pointer)
        if published is not None:
            for old, ticker in published_ticker_targets(published, observations, pointers).items():
                extra.setdefault(ticker, set()).add(old.lower())
    first_seen = earliest(observations["effective_date"], observations["ticker"], sort=False)
    host_median = set(observations.loc[host_priced(observations), "ticker"])
    hosts = observations[~observations["is_origin"]].groupby("ticker")["provider"].nunique()
    # Read per ticker from dicts: a frame's or a series' lookup by label costs microseconds each.
    output_prices, first_seen, hosts = latest_sync["output"].to_dict(), first_seen.to_dict(), hosts.to_dict()
    records = []
    for ticker, maker in makers.items():
        model_id = choose_model_id(ids.get(ticker) or sorted(set(origin.loc[origin["ticker"] == ticker,
                                                                            "provider_model_id"])))
        subject = f"{maker}/{model_id}"
        output_price = float(output_prices[ticker])
        records.append(
            {
                "ticker": ticker,
                "ticker_batch": ticker + BATCH_SUFFIX if ticker in has_batch else None,
                "model_id": model_id,
                "provider": maker,
                "family": rules.first("family", subject) or default_family(maker, ticker),
                "tier": (rule_tier := rules.first("tier", subject)) or default_tier(output_price),
                "tier_basis": TIER_BY_RULE if rule_tier else TIER_BY_PRICE,
                "aliases": sorted(aliases.get(ticker, set()) | extra.get(ticker, set()) | {ticker.lower()}),
                "first_seen": first_seen[ticker],
                "host_count": int(hosts.get(ticker, 0)),
                "pricing_basis": HOST_MEDIAN if ticker in host_median else MAKER,
            }
        )
    return owned_names(pd.DataFrame.from_records(records))


def owned_names(models: pd.DataFrame) -> pd.DataFrame:
    """Each model's aliases without the names that are another model's own: its ticker (a ticker
    is always itself, whatever case it is asked in) or its model id. A host that resells one
    product under another's id (`perplexity/sonar`, the id of Perplexity's Agent API product, is
    OpenRouter's name for `sonar`) does not make that id a second name of the product it resells."""
    owner = {model_id: ticker for ticker, model_id in zip(models["ticker"], models["model_id"], strict=True)}
    owner.update({ticker.lower(): ticker for ticker in models["ticker"]})
    kept = [[name for name in names if owner.get(name, ticker) == ticker]
            for ticker, names in zip(models["ticker"], models["aliases"], strict=True)]
    return models.assign(aliases=kept)
