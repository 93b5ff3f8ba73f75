"""The Inference Cost Index (ICI): the price of a basket of leading models, in $/M blended tokens.

The rule, methodology `ici-1.0`, step by step:

1. Price of a model in a mode = blend = (3·input + 1·output) / 4, in USD per million tokens (the
   industry's 3:1 input-to-output convention), from that day's row of the daily price history.
2. Rebalance calendar: 1 January, 1 April, 1 July and 1 October. Constituents and weights are
   fixed from one rebalance date to the day before the next. A history that starts between two
   rebalance dates treats its start day as a rebalance date too.
3. Constituents at rebalance date R: for each maker in MAJOR_MAKERS and each tier in TIERS (the
   registry's tier), the candidates are the maker's tickers of that tier that have a sync price on
   R, are priced by the maker itself (`pricing_basis` maker: an open-weight model priced at its
   hosts' median is not the maker's price, and is no constituent) and are finished releases: no
   dash-separated word of the ticker is one of UNFINISHED_WORDS
   (whole words, so `AYA-EXPANSE` is not an experiment). Among them take the model most hosts
   serve; ties go to the newest first sync date in the history, then to the first ticker in
   alphabetical order. A maker with no candidate in a tier contributes nothing for it.
4. Hosts serving a model at R = the number of distinct providers that are not its maker
   (`is_origin` false) with a non-superseded price observation of it dated on or before R. Before
   the current catalogue, hosts are recorded by the archived OpenRouter list and, from 2025-07-11,
   by genai-prices' dated releases; before that, early counts are 0 or 1 and early weights are
   close to equal.
5. Weights: raw = 1 + hosts; normalised to sum 1; then capped at CAP per constituent, the excess
   redistributed pro rata (to raw weight) over the uncapped ones, repeated until none exceeds
   CAP. With fewer than 1/CAP constituents (n·CAP < 1) no capped weighting sums to 1, and all
   constituents take equal weights 1/n instead.
6. Levels on day d, each a weighted sum over constituents priced that day:
   - `sync` = Σ wᵢ·blend_syncᵢ(d);
   - `batch` = Σ wᵢ'·blend_batchᵢ(d) over the constituents with a batch price on d;
   - `unified` = Σ wᵢ·uᵢ(d) with uᵢ = (1 − BATCH_SHARE)·blend_syncᵢ + BATCH_SHARE·blend_batchᵢ
     where a batch price exists on d, else blend_syncᵢ (a fixed share of volume assumed to go
     through batch).
   A constituent without the needed price on d (its series has not started, or it offers no
   batch) is left out that day and the weights of the others are scaled to sum 1 again. A day on
   which no constituent is priced has no level (null, with 0 constituents); for `batch` this is
   the case before the first recorded batch price.
7. Verification hash of a published level = sha256 (hex) of the canonical JSON of
   {"methodology_version", "type", "as_of" (ISO date), "constituents": [[ticker, weight, price],
   …] sorted by ticker}, weights and prices as published that day rounded to 12 decimals, written
   with sorted keys, separators "," and ":" and no spaces, numbers as Python's `json` writes
   floats (`json.dumps(payload, sort_keys=True, separators=(",", ":"))`, UTF-8).

Known limits: tiers come from the current registry, and the history is only as old as the data
sources (batch prices are recorded from mid-2025).
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, timedelta

import numpy as np
import pandas as pd

from pipelines.listings import BATCH, SYNC
from pipelines.registry import MAKER

METHODOLOGY_VERSION = "ici-1.0"
MAJOR_MAKERS = ("openai", "anthropic", "google", "xai", "mistral", "deepseek", "alibaba",
                "moonshotai", "zai", "meta", "cohere", "amazon")
TIERS = ("frontier", "efficient")
UNFINISHED_WORDS = ("PREVIEW", "EXP", "EXPERIMENTAL", "BETA")
REBALANCE_MONTHS = (1, 4, 7, 10)
CAP = 0.15
BATCH_SHARE = 0.25
VARIANTS = ("sync", "batch", "unified")
INPUT_SHARE, OUTPUT_SHARE = 3, 1

CONSTITUENT_COLUMNS = ["ticker", "maker", "tier", "hosts", "weight"]
DETAIL_COLUMNS = ["ticker", "weight", "price", "contribution"]
ICI_COLUMNS = ["type", "as_of", "value", "methodology_version", "verification_hash",
               "rebalance_date", "ticker", "weight", "price", "contribution"]
ICI_HISTORY_COLUMNS = ["type", "date", "value", "rebalance_date", "constituents"]
HISTORY_START = date(2024, 1, 1)


def blend(input_price, output_price):
    """Blended $/M at 3 input tokens per output token."""
    return (INPUT_SHARE * input_price + OUTPUT_SHARE * output_price) / (INPUT_SHARE + OUTPUT_SHARE)


def rebalance_dates(start: date, end: date) -> list[date]:
    """The calendar rebalance dates in [start, end], oldest first."""
    return [date(year, month, 1) for year in range(start.year, end.year + 1) for month in REBALANCE_MONTHS
            if start <= date(year, month, 1) <= end]


def last_rebalance(day: date) -> date:
    return date(day.year, max(m for m in REBALANCE_MONTHS if m <= day.month), 1)


def is_unfinished(ticker: str) -> bool:
    return any(word in UNFINISHED_WORDS for word in ticker.upper().split("-"))


def cap_weights(raw, cap: float = CAP) -> np.ndarray:
    """Weights proportional to `raw`, none above `cap`, excess spread pro rata (step 5)."""
    raw = np.asarray(raw, dtype=float)
    n = len(raw)
    if n == 0:
        return raw
    if (raw < 0).any() or raw.sum() <= 0:
        raise ValueError("raw weights must be non-negative with a positive sum")
    if n * cap < 1 - 1e-12:
        return np.full(n, 1.0 / n)
    capped = np.zeros(n, dtype=bool)
    weights = raw / raw.sum()
    while (over := weights > cap + 1e-15).any():
        capped |= over
        free = raw[~capped]
        share = free / free.sum() if free.sum() > 0 else np.full(len(free), 1.0 / len(free))
        weights = np.full(n, cap)
        weights[~capped] = (1 - cap * capped.sum()) * share
    return weights


def _hosts(observations: pd.DataFrame, rebalance_date: date) -> pd.Series:
    hosts = observations[~observations["is_origin"] & ~observations["superseded"]
                         & (observations["effective_date"] <= rebalance_date)]
    return hosts.groupby("ticker")["provider"].nunique()


def retired_by(models: pd.DataFrame, day: date) -> pd.Series:
    """Models known to be retired on `day` (`retired_by` on or before it): a rebalance never
    uses what was learnt after it."""
    return pd.to_datetime(models["retired_by"]) <= pd.Timestamp(day)


def select_constituents(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                        rebalance_date: date) -> pd.DataFrame:
    """The basket fixed at `rebalance_date` (steps 3 to 5), sorted by ticker."""
    sync = price_history[price_history["mode"] == SYNC]
    priced = set(sync.loc[sync["date"] == rebalance_date, "ticker"])
    candidates = models[models["provider"].isin(MAJOR_MAKERS) & models["tier"].isin(TIERS)
                        & models["ticker"].isin(priced) & (models.get("pricing_basis", MAKER) == MAKER)]
    candidates = candidates[~candidates["ticker"].map(is_unfinished).astype(bool)
                            & ~retired_by(candidates, rebalance_date)]
    first_sync = sync[sync["ticker"].isin(candidates["ticker"])].groupby("ticker")["date"].min()
    candidates = pd.DataFrame({
        "ticker": candidates["ticker"], "maker": candidates["provider"], "tier": candidates["tier"],
        "hosts": candidates["ticker"].map(_hosts(observations, rebalance_date)).fillna(0).astype(int),
        "first_sync": candidates["ticker"].map(first_sync),
    })
    ranked = candidates.sort_values(["maker", "tier", "hosts", "first_sync", "ticker"],
                                    ascending=[True, True, False, False, True], kind="stable")
    chosen = ranked.drop_duplicates(["maker", "tier"]).sort_values("ticker").reset_index(drop=True)
    chosen["weight"] = cap_weights(1 + chosen["hosts"].to_numpy(), CAP)
    return chosen[CONSTITUENT_COLUMNS]


def _variant_prices(sync: pd.DataFrame, batch: pd.DataFrame, variant: str) -> pd.DataFrame:
    """Days × tickers: each constituent's price in the variant, NaN where it is left out (step 6)."""
    if variant == "sync":
        return sync
    if variant == "batch":
        return batch
    if variant == "unified":
        return ((1 - BATCH_SHARE) * sync + BATCH_SHARE * batch).fillna(sync)
    raise ValueError(f"unknown ICI variant {variant!r}; expected one of {VARIANTS}")


def _day_weights(weights: pd.Series, prices: pd.DataFrame) -> pd.DataFrame:
    """The basket weights of the constituents priced each day, scaled to sum 1 per day."""
    present = prices.notna().mul(weights, axis=1)
    return present.div(present.sum(axis=1).replace(0.0, np.nan), axis=0)


def _levels(weights: pd.Series, sync: pd.DataFrame, batch: pd.DataFrame, variant: str):
    prices = _variant_prices(sync, batch, variant)
    day_weights = _day_weights(weights, prices)
    contributions = day_weights * prices
    return prices, day_weights, contributions


def index_level(constituents: pd.DataFrame, prices_on_day: pd.DataFrame, variant: str):
    """The level of one day: (value, detail[ticker, weight, price, contribution]).

    `prices_on_day` holds that day's price-history rows (ticker, mode, input, output)."""
    tickers = list(constituents["ticker"])
    weights = pd.Series(constituents["weight"].to_numpy(dtype=float), index=tickers)
    rows = prices_on_day[prices_on_day["ticker"].isin(tickers)]

    def one_day(mode: str) -> pd.DataFrame:
        priced = rows[rows["mode"] == mode].set_index("ticker")
        return pd.DataFrame([blend(priced["input"], priced["output"]).reindex(tickers).to_numpy()],
                            columns=tickers)

    prices, day_weights, contributions = _levels(weights, one_day(SYNC), one_day(BATCH), variant)
    detail = pd.DataFrame({"ticker": tickers, "weight": day_weights.iloc[0].to_numpy(),
                           "price": prices.iloc[0].to_numpy(), "contribution": contributions.iloc[0].to_numpy()})
    detail = detail[detail["price"].notna()].reset_index(drop=True)
    value = float(contributions.iloc[0].sum(min_count=1))
    return value, detail[DETAIL_COLUMNS]


def verification_hash(variant: str, as_of: date, methodology_version: str, detail: pd.DataFrame) -> str:
    """sha256 hex of the canonical JSON of a published level (step 7)."""
    rows = sorted(zip(detail["ticker"], detail["weight"], detail["price"], strict=True))
    payload = {
        "methodology_version": methodology_version,
        "type": variant,
        "as_of": as_of.isoformat(),
        "constituents": [[str(t), round(float(w), 12), round(float(p), 12)] for t, w, p in rows],
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def build_ici(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
              as_of: date) -> pd.DataFrame:
    """The index on `as_of`: one row per (type, constituent priced that day)."""
    rebalance = last_rebalance(as_of)
    constituents = select_constituents(price_history, models, observations, rebalance)
    today = price_history[price_history["date"] == as_of]
    frames = []
    for variant in VARIANTS:
        value, detail = index_level(constituents, today, variant)
        if detail.empty:
            continue
        frames.append(detail.assign(
            type=variant, as_of=as_of, value=value, methodology_version=METHODOLOGY_VERSION,
            verification_hash=verification_hash(variant, as_of, METHODOLOGY_VERSION, detail),
            rebalance_date=rebalance))
    if not frames:
        return pd.DataFrame(columns=ICI_COLUMNS)
    return pd.concat(frames, ignore_index=True)[ICI_COLUMNS]


def constituents_of(baskets: dict[date, pd.DataFrame]) -> set[str]:
    """Every ticker in any of the baskets."""
    return set().union(*(set(basket["ticker"]) for basket in baskets.values()))


def _wide_blends(price_history: pd.DataFrame, tickers: set[str], start: date, end: date) -> dict:
    """mode → (days × tickers) blended prices over [start, end]."""
    rows = price_history[price_history["ticker"].isin(tickers) & (price_history["date"] >= start)
                         & (price_history["date"] <= end)]
    rows = rows.assign(blend=blend(rows["input"], rows["output"]))
    return {mode: rows[rows["mode"] == mode].pivot(index="date", columns="ticker", values="blend")
            for mode in (SYNC, BATCH)}


def basket_days(as_of: date, start: date = HISTORY_START) -> list[date]:
    """The days a basket of the index's history is fixed on: `start`, then each rebalance date."""
    return sorted({start, *rebalance_dates(start, as_of)})


def history_baskets(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                    as_of: date, start: date = HISTORY_START) -> dict[date, pd.DataFrame]:
    """The basket fixed on each of `basket_days`. `price_history` needs each series' observed
    rows (for its first day) and its rows on those days, no more."""
    return {day: select_constituents(price_history, models, observations, day) for day in basket_days(as_of, start)}


def build_ici_history(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                      as_of: date, start: date = HISTORY_START,
                      baskets: dict[date, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Each variant's level on every day from `start` to `as_of`, by the same rule as `build_ici`.
    Given the `baskets` (`history_baskets`), `price_history` needs only their constituents' rows."""
    baskets = baskets if baskets is not None else history_baskets(price_history, models, observations, as_of, start)
    starts = sorted(baskets)
    tickers = constituents_of(baskets)
    wide = _wide_blends(price_history, tickers, start, as_of)
    frames = []
    for begin, end in zip(starts, [*(d - timedelta(days=1) for d in starts[1:]), as_of], strict=True):
        basket = baskets[begin]
        weights = pd.Series(basket["weight"].to_numpy(dtype=float), index=basket["ticker"])
        days = [begin + timedelta(days=i) for i in range((end - begin).days + 1)]
        sync, batch = (wide[mode].reindex(index=days, columns=weights.index) for mode in (SYNC, BATCH))
        for variant in VARIANTS:
            prices, _, contributions = _levels(weights, sync, batch, variant)
            frames.append(pd.DataFrame({
                "type": variant, "date": days, "value": contributions.sum(axis=1, min_count=1).to_numpy(),
                "rebalance_date": begin, "constituents": prices.notna().sum(axis=1).to_numpy(),
            }))
    history = pd.concat(frames, ignore_index=True)
    history["type"] = pd.Categorical(history["type"], categories=list(VARIANTS))
    history = history.sort_values(["type", "date"], kind="stable").reset_index(drop=True)
    history["type"] = history["type"].astype(str)
    return history[ICI_HISTORY_COLUMNS]
