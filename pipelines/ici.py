"""The Inference Cost Index (ICI): the price of a basket of leading models, in $/M blended tokens.

The rule, methodology `ici-4.0`, step by step (`docs/methodology.md` §7):

1. Price of a model in a mode = blend = (3·input + 1·output) / 4, in USD per million tokens (the
   industry's 3:1 input-to-output convention), from that day's row of the daily price history
   as it could be known that day (`as_known`: built from the statements published by then). A
   row with an input or output price that is not positive prices nothing (`valid_rates`): a
   missing or $0 rate is no price, and a constituent is never weighted on one.
2. Rebalance calendar: 1 January, 1 April, 1 July and 1 October. Constituents and weights are
   fixed from one rebalance date to the day before the next. A history that starts between two
   rebalance dates treats its start day as a rebalance date too.
3. Constituents at rebalance date R, chosen from what was known on R (the history and the
   statements as known then, `as_known`): for each maker in MAJOR_MAKERS and each tier in TIERS (the
   tier on R: the registry's curated rule for the model's name, else the tier of its sync output
   price on R, `registry.tiers_on`: never today's price), the candidates are the maker's tickers
   of that tier that have a sync price on R with positive input and output rates, are priced by
   the maker itself (`pricing_basis` maker: an open-weight model priced at its hosts' median is
   not the maker's price, and is no constituent), are not known retired on R (`retired_by` on or
   before R) and are finished releases: no dash-separated word of the ticker is one of
   UNFINISHED_WORDS (whole words, so `AYA-EXPANSE` is not an experiment). Among them take the
   model most hosts serve; ties go to the later release date (`release_days`: the registry's
   release date where it states one, else the first day a source listed the model), then to the
   first ticker in alphabetical order. A maker with no candidate in a tier contributes nothing
   for it.
4. Hosts serving a model at R = the number of distinct providers that are not its maker
   (`is_origin` false) with a non-superseded price observation of it dated and published on or
   before R. Before the current catalogue, hosts are recorded by the archived OpenRouter list
   and, from 2025-07-11, by genai-prices' dated releases; before that, early counts are 0 or 1
   and early weights are close to equal.
5. Weights: raw = 1 + hosts; normalised to sum 1; then capped at CAP per constituent, the excess
   redistributed pro rata (to raw weight) over the uncapped ones, repeated until none exceeds
   CAP. With fewer than 1/CAP constituents (n·CAP < 1) no capped weighting sums to 1, and all
   constituents take equal weights 1/n instead.
6. Each variant prices each constituent each day:
   - `sync`: blend_syncᵢ(d);
   - `batch`: blend_batchᵢ(d), only the constituents with a batch price (another basket than
     sync's: `covers` says which);
   - `unified`: (1 − BATCH_SHARE)·blend_syncᵢ + BATCH_SHARE·blend_batchᵢ where a batch price
     exists on d, else blend_syncᵢ (a fixed share of volume assumed to go through batch).
   A constituent without the needed price on d, or known retired on d (`retired_by` on or before
   d, `in_service`), is not priced that day. The level is chain-linked (`pipelines.ici_chain`):
   from one day to the next it moves by Σwᵢpᵢ(d)/Σwᵢpᵢ(d−1) over the constituents priced on
   both days, with the basket of d's period (on a rebalance date, the old basket's, so the new
   basket starts from the level the old one reached: a change of basket never moves the level);
   with no such pair it carries over; the variant's first level is the weighted average of its
   first priced day. The published day weights are the basket weights of the constituents
   priced that day, scaled to sum 1; `link_factor` = level / Σ wᵢ'·pᵢ, so each contribution is
   link_factor·wᵢ'·pᵢ and they sum to the level. `composition_effect`: what the raw average
   would have jumped beyond the level that day (`ici_chain.composition_effects`), published on
   every rebalance and on every day the constituents priced change. A day on which no
   constituent is priced has no level (null, with 0 constituents).
7. Verification hash of a published level = sha256 (hex) of the canonical JSON of
   {"methodology_version", "type", "as_of" (ISO date), "link_factor", "constituents": [[ticker,
   weight, price], …] sorted by ticker}, link factor, weights and prices as published that day
   rounded to 12 decimals, written with sorted keys, separators "," and ":" and no spaces,
   numbers as Python's `json` writes floats (`json.dumps(payload, sort_keys=True,
   separators=(",", ":"))`, UTF-8).
8. Inputs carried forward: each level says how many of its constituents are priced that day from
   a statement older than the day (`carried_forward`: a list price holds until the next
   statement, so most are) and the age in days of the oldest statement used
   (`oldest_input_days`).

Known limits: the history is only as old as the data sources (batch prices are recorded from
mid-2025). A price of a past day is the one known that day: a restatement published later moves
the levels from its publication on, never before. Which tickers the archive stands for is judged
with today's evidence (`as_known`); a change of that judgement revises past levels, and the
revision is recorded (`pipelines.ici_record`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import date, timedelta

import numpy as np
import pandas as pd

from pipelines.history import archive_tracks_on
from pipelines.ici_chain import chain, composition_effects
from pipelines.known_history import as_known_each_day, epochs
from pipelines.listings import BATCH, SYNC
from pipelines.membership import is_among
from pipelines.registry import MAKER, tiers_on

METHODOLOGY_VERSION = "ici-4.0"
MAJOR_MAKERS = ("openai", "anthropic", "google", "xai", "mistral", "deepseek", "alibaba",
                "moonshotai", "zai", "meta", "cohere", "amazon")
TIERS = ("frontier", "efficient")
UNFINISHED_WORDS = ("PREVIEW", "EXP", "EXPERIMENTAL", "BETA")
REBALANCE_MONTHS = (1, 4, 7, 10)
CAP = 0.15
BATCH_SHARE = 0.25
VARIANTS = ("sync", "batch", "unified")
INPUT_SHARE, OUTPUT_SHARE = 3, 1
# The registry's release date, where it states one; else the first day any source listed the model.
RELEASED, FIRST_SEEN = "released_on", "first_seen"

CONSTITUENT_COLUMNS = ["ticker", "maker", "tier", "hosts", "weight"]
DETAIL_COLUMNS = ["ticker", "weight", "price", "contribution"]
ICI_COLUMNS = ["type", "as_of", "value", "methodology_version", "verification_hash", "link_factor", "covers",
               "rebalance_date", "ticker", "weight", "price", "contribution", "carried_forward", "oldest_input_days"]
ICI_HISTORY_COLUMNS = ["type", "date", "value", "rebalance_date", "constituents", "composition_effect",
                       "carried_forward", "oldest_input_days"]
ICI_CONSTITUENT_COLUMNS = ["rebalance_date", "type", "ticker", "maker", "tier", "hosts", "weight", "price"]
HISTORY_START = date(2024, 1, 1)


def blend(input_price, output_price):
    """Blended $/M at 3 input tokens per output token."""
    return (INPUT_SHARE * input_price + OUTPUT_SHARE * output_price) / (INPUT_SHARE + OUTPUT_SHARE)


def valid_rates(rows: pd.DataFrame) -> np.ndarray:
    """Rows whose input and output prices are both positive: a missing or $0 rate prices nothing
    (a model listed before its price was set reads $0, and is no constituent)."""
    return ((rows["input"] > 0) & (rows["output"] > 0)).to_numpy(dtype=bool)


def covers(variant: str, rebalance: date, basket_size: int, priced: int, with_batch: int) -> str:
    """Which basket a variant's level covers that day, in words (served with each level)."""
    basket = f"the {basket_size} constituents of the basket fixed on {rebalance.isoformat()}"
    if variant == "sync":
        return f"{priced} of {basket} at their sync prices"
    if variant == "batch":
        return (f"only the {priced} of {basket} that have a batch price, at their batch prices: another basket "
                "than sync's, chained from its own first day, so its level says nothing of batch against sync")
    return (f"{priced} of {basket}, each at {1 - BATCH_SHARE:.0%} sync and {BATCH_SHARE:.0%} batch prices where it "
            f"has a batch price ({with_batch} of them), else at its sync price")


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


def in_service(rows: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """Price-history rows without those of a model on or after the day it is known retired: a
    constituent that is gone is missing from then on, never priced at its last list price."""
    retired = rows["ticker"].map(models.set_index("ticker")["retired_by"]).pipe(pd.to_datetime)
    return rows[~(pd.to_datetime(rows["date"]) >= retired).to_numpy(dtype=bool)]


def release_days(models: pd.DataFrame) -> pd.Series:
    """Each model's release date for the tie-break (step 3): the registry's (`released_on`) where
    it states one, else the first day a source listed the model (`first_seen`); NaT where neither."""
    missing = pd.Series(pd.NaT, index=models.index, dtype="datetime64[ns]")
    released = pd.to_datetime(models[RELEASED], errors="coerce") if RELEASED in models else missing
    first_seen = pd.to_datetime(models[FIRST_SEEN], errors="coerce") if FIRST_SEEN in models else missing
    return released.fillna(first_seen)


def select_constituents(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                        rebalance_date: date) -> pd.DataFrame:
    """The basket fixed at `rebalance_date` (steps 3 to 5), sorted by ticker: chosen with only
    what is known of that day (the tier of its price, its hosts, its status then)."""
    sync = price_history[(price_history["mode"] == SYNC) & (price_history["date"] == rebalance_date)]
    on_day = sync[valid_rates(sync)].set_index("ticker")
    candidates = models.assign(tier=tiers_on(models, on_day["output"]))
    candidates = candidates[candidates["provider"].isin(MAJOR_MAKERS) & candidates["tier"].isin(TIERS)
                            & is_among(candidates["ticker"], on_day.index)
                            & (candidates.get("pricing_basis", MAKER) == MAKER)]
    candidates = candidates[~candidates["ticker"].map(is_unfinished).astype(bool)
                            & ~retired_by(candidates, rebalance_date)]
    candidates = pd.DataFrame({
        "ticker": candidates["ticker"], "maker": candidates["provider"], "tier": candidates["tier"],
        "hosts": candidates["ticker"].map(_hosts(observations, rebalance_date)).fillna(0).astype(int),
        "released": release_days(candidates),  # of the candidates alone: read on every rebalance day
    })
    ranked = candidates.sort_values(["maker", "tier", "hosts", "released", "ticker"],
                                    ascending=[True, True, False, False, True], kind="stable", na_position="last")
    chosen = ranked.drop_duplicates(["maker", "tier"]).sort_values("ticker").reset_index(drop=True)
    chosen["weight"] = cap_weights(1 + chosen["hosts"].to_numpy(), CAP)
    return chosen[CONSTITUENT_COLUMNS]


@dataclass(frozen=True)
class Inputs:
    """Days × constituents in one mode: each blended price (NaN where none, or where a rate is
    not positive), and the day of the statement it comes from, as a day number."""

    price: pd.DataFrame
    stated: np.ndarray


def _inputs(rows: pd.DataFrame, days: list[date], tickers: list[str]) -> dict[str, Inputs]:
    """mode → Inputs over `days` × `tickers`, from price-history rows."""
    rows = rows[rows["ticker"].isin(tickers)]
    rows = rows[valid_rates(rows)]
    out = {}
    for mode in (SYNC, BATCH):
        one = rows[rows["mode"] == mode]
        wide = one.assign(blend=blend(one["input"], one["output"]), stated=_day_numbers(one["observed_on"])).pivot(
            index="date", columns="ticker", values=["blend", "stated"])
        price = wide["blend"].reindex(index=days, columns=tickers) if len(one) else pd.DataFrame(
            np.nan, index=days, columns=tickers)
        stated = (wide["stated"].reindex(index=days, columns=tickers).to_numpy(dtype=float) if len(one)
                  else np.full((len(days), len(tickers)), np.nan))
        out[mode] = Inputs(price.astype(float), stated)
    return out


def _day_numbers(days) -> np.ndarray:
    return pd.to_datetime(pd.Series(days)).to_numpy(dtype="datetime64[D]").astype(np.int64).astype(float)


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


@dataclass(frozen=True)
class Levels:
    """One variant's prices over days × constituents (step 6), and the age of its inputs (step 8)."""

    prices: pd.DataFrame
    day_weights: pd.DataFrame
    with_batch: np.ndarray  # per day: constituents priced with a batch price among their inputs
    carried_forward: np.ndarray  # per day: constituents priced from a statement older than the day
    oldest_input_days: np.ndarray  # per day: the age of the oldest statement used (NaN: no level)

    @property
    def raw(self) -> np.ndarray:
        """Per day: the weighted average price of the constituents priced (NaN: none)."""
        return (self.day_weights * self.prices).sum(axis=1, min_count=1).to_numpy()


def _levels(weights: pd.Series, inputs: dict[str, Inputs], variant: str) -> Levels:
    sync, batch = inputs[SYNC], inputs[BATCH]
    prices = _variant_prices(sync.price, batch.price, variant)
    day_weights = _day_weights(weights, prices)
    priced = prices.notna().to_numpy(dtype=bool)  # bool even for a variant with no constituent
    batched = priced & batch.price.notna().to_numpy(dtype=bool) if variant != "sync" else np.zeros_like(priced)
    # The statements a level uses: sync for sync, batch for batch, both where unified has both.
    used = [(sync.stated, priced)] if variant != "batch" else []
    if variant != "sync":
        used.append((batch.stated, batched))
    stated = np.full(priced.shape, np.inf)
    for day_stated, where in used:
        stated = np.where(where, np.fmin(stated, day_stated), stated)
    today = _day_numbers(list(prices.index))
    oldest_stated = np.where(priced, stated, np.inf).min(axis=1, initial=np.inf)  # inf: nothing priced
    return Levels(prices, day_weights, batched.sum(axis=1), (priced & (stated < today[:, None])).sum(axis=1),
                  np.where(np.isfinite(oldest_stated), today - oldest_stated, np.nan))


@dataclass(frozen=True)
class DayLevel:
    """One variant's published level of one day: the level, the factor chaining the day's
    weighted average to it, the constituents priced [ticker, weight, price, contribution], the
    inputs' age, and which basket it covers."""

    value: float
    link_factor: float
    detail: pd.DataFrame
    carried_forward: int
    oldest_input_days: float
    covers: str


def index_level(constituents: pd.DataFrame, prices_on_day: pd.DataFrame, variant: str,
                level: float | None = None, rebalance: date | None = None) -> DayLevel:
    """The level of one day. `level`: the chained level of that day (`build_ici_history`); without
    it, the day's weighted average (link factor 1). `prices_on_day` holds that day's
    price-history rows (ticker, mode, input, output, observed_on)."""
    tickers = list(constituents["ticker"])
    weights = pd.Series(constituents["weight"].to_numpy(dtype=float), index=tickers)
    days = sorted(set(prices_on_day["date"])) if len(prices_on_day) else []
    if len(days) != 1:
        raise ValueError(f"one day's rows are needed, got {len(days)} days")
    levels = _levels(weights, _inputs(prices_on_day, days, tickers), variant)
    raw = float(levels.raw[0])
    value = raw if level is None else float(level)
    link = value / raw if raw == raw and raw > 0 else np.nan
    detail = pd.DataFrame({"ticker": tickers, "weight": levels.day_weights.iloc[0].to_numpy(),
                           "price": levels.prices.iloc[0].to_numpy()})
    detail = detail[detail["price"].notna()].reset_index(drop=True)
    detail["contribution"] = link * detail["weight"] * detail["price"]
    words = covers(variant, rebalance or days[0], len(tickers), len(detail), int(levels.with_batch[0]))
    return DayLevel(value, link, detail[DETAIL_COLUMNS], int(levels.carried_forward[0]),
                    levels.oldest_input_days[0], words)


def verification_hash(variant: str, as_of: date, methodology_version: str, detail: pd.DataFrame,
                      link_factor: float | None = None) -> str:
    """sha256 hex of the canonical JSON of a published level (step 7). Versions before `ici-4.0`
    had no link factor: without one, the payload is theirs."""
    rows = sorted(zip(detail["ticker"], detail["weight"], detail["price"], strict=True))
    payload = {
        "methodology_version": methodology_version,
        "type": variant,
        "as_of": as_of.isoformat(),
        "constituents": [[str(t), round(float(w), 12), round(float(p), 12)] for t, w, p in rows],
    }
    if link_factor is not None:
        payload["link_factor"] = round(float(link_factor), 12)
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def levels_on(history: pd.DataFrame, day: date) -> dict[str, float]:
    """variant → its level on `day` in an `ici_history` table (variants without one left out)."""
    rows = history[(history["date"] == day) & history["value"].notna()]
    return dict(zip(rows["type"], rows["value"].astype(float), strict=True))


def build_ici(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
              as_of: date, basket: pd.DataFrame | None = None,
              levels: dict[str, float] | None = None) -> pd.DataFrame:
    """The index on `as_of`: one row per (type, constituent priced that day). `basket`: the one
    fixed at the last rebalance, where the caller has it (`basket_on`); else it is chosen from
    `price_history` and `observations`. `levels`: each variant's chained level that day, where the
    caller has the history (`levels_on`); else the history is built from HISTORY_START."""
    rebalance = last_rebalance(as_of)
    constituents = basket if basket is not None else select_constituents(price_history, models, observations,
                                                                          rebalance)
    if levels is None:
        levels = levels_on(build_ici_history(price_history, models, observations, as_of), as_of)
    today = in_service(price_history[price_history["date"] == as_of], models)
    frames = []
    for variant in VARIANTS:
        if today.empty or variant not in levels:
            continue
        day = index_level(constituents, today, variant, levels[variant], rebalance)
        if day.detail.empty:
            continue
        frames.append(day.detail.assign(
            type=variant, as_of=as_of, value=day.value, methodology_version=METHODOLOGY_VERSION,
            verification_hash=verification_hash(variant, as_of, METHODOLOGY_VERSION, day.detail, day.link_factor),
            link_factor=day.link_factor, covers=day.covers, rebalance_date=rebalance,
            carried_forward=day.carried_forward, oldest_input_days=int(day.oldest_input_days)))
    if not frames:
        return pd.DataFrame(columns=ICI_COLUMNS)
    return pd.concat(frames, ignore_index=True)[ICI_COLUMNS]


def constituents_of(baskets: dict[date, pd.DataFrame]) -> set[str]:
    """Every ticker in any of the baskets."""
    return set().union(*(set(basket["ticker"]) for basket in baskets.values()))


def basket_days(as_of: date, start: date = HISTORY_START) -> list[date]:
    """The days a basket of the index's history is fixed on: `start`, then each rebalance date."""
    return sorted({start, *rebalance_dates(start, as_of)})


def basket_on(constituents: pd.DataFrame, rebalance_date: date) -> pd.DataFrame:
    """The basket fixed on `rebalance_date`, read back from an `ici_constituents` table."""
    rows = constituents[(constituents["type"] == VARIANTS[0]) & (constituents["rebalance_date"] == rebalance_date)]
    return rows.sort_values("ticker")[CONSTITUENT_COLUMNS].reset_index(drop=True)


def index_universe(observations: pd.DataFrame, models: pd.DataFrame) -> pd.DataFrame:
    """The statements about the models a basket may hold: MAJOR_MAKERS' own, priced by them
    (`pricing_basis` maker: never one priced at its hosts' median, step 3)."""
    own = models["provider"].isin(MAJOR_MAKERS) & (models.get("pricing_basis", MAKER) == MAKER)
    tickers = models.loc[own, "ticker"]
    return observations[is_among(observations["ticker"], set(tickers))]


def as_known(observations: pd.DataFrame, models: pd.DataFrame, as_of: date,
             start: date = HISTORY_START) -> tuple[pd.DataFrame, dict[date, pd.DataFrame]]:
    """The index's inputs as they could be known on each day (`known_history`): (the
    constituents' price-history rows, each day's as known that day; the basket fixed on each of
    `basket_days`, chosen from what was known on it: the prices, tiers and hosts of that day's
    view). Where the archive stands for a maker is judged once, from everything known on
    `as_of`, as the published history judges it: the archive's prices were known on their days,
    and only the judgement of the source is today's."""
    universe = index_universe(observations, models)
    views = list(epochs(universe, start, as_of, archive_tracks_on(universe, [as_of])[0]))
    baskets = {}
    for day in basket_days(as_of, start):
        view = next(v for v in reversed(views) if v.begin <= day)
        baskets[day] = select_constituents(view.history, models, view.observations, day)
    rows = as_known_each_day(views)
    return rows[is_among(rows["ticker"], constituents_of(baskets))].reset_index(drop=True), baskets


def history_baskets(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                    as_of: date, start: date = HISTORY_START) -> dict[date, pd.DataFrame]:
    """The basket fixed on each of `basket_days`. `price_history` needs the rows on those days."""
    return {day: select_constituents(price_history, models, observations, day) for day in basket_days(as_of, start)}


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def _priced_sets(prices: pd.DataFrame) -> list[frozenset]:
    return [frozenset(prices.columns[row]) for row in prices.notna().to_numpy(dtype=bool)]


def build_ici_history(price_history: pd.DataFrame, models: pd.DataFrame, observations: pd.DataFrame,
                      as_of: date, start: date = HISTORY_START,
                      baskets: dict[date, pd.DataFrame] | None = None) -> pd.DataFrame:
    """Each variant's chained level on every day from `start` to `as_of` (step 6). Given the
    `baskets` (`history_baskets`), `price_history` needs only their constituents' rows. Each
    basket is also priced on the next rebalance date, the day it hands its level to the next."""
    baskets = baskets if baskets is not None else history_baskets(price_history, models, observations, as_of, start)
    starts = sorted(baskets)
    rows = in_service(price_history[(price_history["date"] >= start) & (price_history["date"] <= as_of)], models)
    carried = dict.fromkeys(VARIANTS, np.nan)
    parts: dict[str, list[pd.DataFrame]] = {variant: [] for variant in VARIANTS}
    sets: dict[str, list[frozenset]] = {variant: [] for variant in VARIANTS}
    for begin, end in zip(starts, [*(d - timedelta(days=1) for d in starts[1:]), as_of], strict=True):
        basket = baskets[begin]
        weights = pd.Series(basket["weight"].to_numpy(dtype=float), index=basket["ticker"])
        days = _days(begin, min(end + timedelta(days=1), as_of))  # with the hand-over day
        kept = (end - begin).days + 1
        inputs = _inputs(rows[(rows["date"] >= begin) & (rows["date"] <= days[-1])], days, list(weights.index))
        for variant in VARIANTS:
            levels = _levels(weights, inputs, variant)
            chained = chain(levels.prices.to_numpy(dtype=float), weights.to_numpy(), carried[variant])
            carried[variant] = chained.carried_out
            sets[variant] += _priced_sets(levels.prices.iloc[:kept])
            parts[variant].append(pd.DataFrame({
                "type": variant, "date": days[:kept], "value": chained.values[:kept], "rebalance_date": begin,
                "constituents": levels.prices.notna().sum(axis=1).to_numpy()[:kept], "raw": levels.raw[:kept],
                "carried_forward": levels.carried_forward[:kept], "oldest_input_days": levels.oldest_input_days[:kept],
            }))
    frames = []
    for variant in VARIANTS:
        one = pd.concat(parts[variant], ignore_index=True)
        rebalanced = (one["rebalance_date"] != one["rebalance_date"].shift()).to_numpy()
        moved = np.array([i > 0 and s != sets[variant][i - 1] for i, s in enumerate(sets[variant])])
        one["composition_effect"] = composition_effects(one["value"].to_numpy(), one["raw"].to_numpy(),
                                                        rebalanced | moved)
        frames.append(one)
    history = pd.concat(frames, ignore_index=True)
    history["oldest_input_days"] = history["oldest_input_days"].astype("Int64")
    return history[ICI_HISTORY_COLUMNS]


def build_ici_constituents(price_history: pd.DataFrame, baskets: dict[date, pd.DataFrame]) -> pd.DataFrame:
    """Every basket of the history, per variant: the constituents fixed on each rebalance date
    with the tier and host count that chose them, their basket weight, and the price each had in
    the variant on that date (null where it had none, as a model without batch in `batch`).
    `price_history` needs the constituents' rows on the rebalance dates."""
    frames = []
    for day, basket in sorted(baskets.items()):
        inputs = _inputs(price_history[price_history["date"] == day], [day], list(basket["ticker"]))
        for variant in VARIANTS:
            prices = _variant_prices(inputs[SYNC].price, inputs[BATCH].price, variant).iloc[0]
            frames.append(basket.assign(rebalance_date=day, type=variant,
                                        price=basket["ticker"].map(prices).astype(float)))
    if not frames:
        return pd.DataFrame(columns=ICI_CONSTITUENT_COLUMNS)
    return pd.concat(frames, ignore_index=True)[ICI_CONSTITUENT_COLUMNS]
