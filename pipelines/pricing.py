"""Task cost: what one request costs on one model, from its rates and a token profile (contract §3).

Symbols: β is the output price ($/M) of the chosen mode; r_in = input/β, r_cache = cache-read/β
(r_in when the model has no cache price), r_think = reasoning/β (1 when thinking is billed as
output); η is the share of the prompt read from cache.

    r_in_eff   = r_in·(1 − η) + r_cache·η      (plus the cache writes' premium, below)
    spot_cost  = β·(n_out + n_in·r_in_eff + n_think·r_think)·10⁻⁶ + fees
    kappa      = 1 + (n_in/n_out)·r_in_eff

The cost is computed as lines that sum to it (`LINES`): the prompt splits into tokens read from
cache (η·n_in), tokens written to the cache (n_cache_write_5m at the `cache_write` rate and
n_cache_write_1h at `cache_write_1h`) and fresh input (the rest); output, thinking and citation
tokens are billed at their rates (β where a model prices thinking or citations as output); and
fees are per 1,000: the compulsory request fee on every request (n_requests, 1 by default) and
each tool's fee per call the profile makes. A rate a model does not state falls back the way the
providers bill it: cache read and the 5-minute write to input, the 1-hour write to the 5-minute
one, thinking and citations to output; a tool fee no source states is 0 (and says so). A cache
write stated as 0 is read as no charge beyond the input (`_stated`).

Context tiers are a cliff, as the providers bill them: once the prompt has more than a tier's
`above` tokens, every token of the request pays that tier's rates (fees are never tiered). A model
priced by the hour (`pipelines.peak`) is priced at the period asked for, or at the period a
request's time falls in, else at its standard period; the peak rates replace the base rates, and a
context tier reached bills the tier's rates (no source prices a model both ways). The scalar and
the vectorised costs share one helper (`_lines`), so there is one copy of the formula.
"""

from __future__ import annotations

import json
import math
from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field, fields, replace
from datetime import datetime
from functools import cached_property, lru_cache
from numbers import Real

import numpy as np
import pandas as pd

from pipelines.listings import PRICE_FIELDS, TOKEN_RATES
from pipelines.peak import PeakPricing

PER_MILLION = 1e-6
PER_THOUSAND = 1e-3
RATE_FIELDS = TOKEN_RATES  # $/M, may be tiered; the fees of PRICE_FIELDS never are
# Where each rate sits in a price_history row; callers with other names pass their own mapping.
HISTORY_COLUMNS = {name: name for name in (*PRICE_FIELDS, "tiers", "peak")}

def is_missing(value: object) -> bool:
    """None, NaN, NA or NaT; never a container (a tiers list is a value). The quick tests come
    first: this runs per model in every comparison."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float):  # NaN is the one value unequal to itself
        return value != value
    if isinstance(value, int | list | tuple | dict):  # bools and integers included
        return False
    return bool(pd.isna(value))


def _price(name: str, value: object, required: bool) -> float | None:
    if is_missing(value):
        if required:
            raise ValueError(f"{name} price is required")
        return None
    number = float(value)
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{name} price must be a finite non-negative number, got {value!r}")
    return number


@dataclass(frozen=True)
class Rates:
    """One model's prices in one mode: token rates $/M, fees $ per 1,000; `tiers` is
    ((above, Rates), ...) sorted by threshold; `peak` the hour-dependent rates, if any."""

    input: float
    output: float
    cache_read: float | None = None
    reasoning: float | None = None
    _: KW_ONLY
    cache_write: float | None = None
    cache_write_1h: float | None = None
    citation: float | None = None
    request_fee: float | None = None
    web_search_fee: float | None = None
    file_search_fee: float | None = None
    grounding_fee: float | None = None
    tiers: tuple[tuple[float, Rates], ...] = ()
    peak: PeakPricing | None = None

    def __post_init__(self) -> None:
        for name in PRICE_FIELDS:
            object.__setattr__(self, name, _price(name, getattr(self, name), name in ("input", "output")))
        object.__setattr__(self, "tiers", tuple(sorted(self.tiers, key=lambda tier: tier[0])))

    @cached_property
    def flat(self) -> Rates:
        """The base rates without tiers, built once per object (a frozen dataclass keeps the cache
        in its __dict__), since every cost asks for them."""
        return replace(self, tiers=()) if self.tiers else self

    @cached_property
    def billed(self) -> Billed:
        """These rates' prices and each line's unit price, worked out once per object: a model's
        rates bill many requests."""
        return Billed.of(self)

    @classmethod
    def from_row(cls, row: Mapping, columns: Mapping[str, str] | None = None) -> Rates:
        """From a price_history or spots row; `columns` maps field names (PRICE_FIELDS, tiers,
        peak) to the row's names."""
        names = {**HISTORY_COLUMNS, **(columns or {})}
        base = cls(**{field: row.get(names[field]) for field in PRICE_FIELDS})
        peak = row.get(names["peak"])
        return replace(base, tiers=parse_tiers(row.get(names["tiers"]), base),
                       peak=None if is_missing(peak) or not str(peak).strip() else PeakPricing.from_json(peak))


def parse_tiers(text: str | None, base: Rates) -> tuple[tuple[float, Rates], ...]:
    """The tiers JSON as ((above, Rates), ...); a rate a tier does not name keeps the base rate,
    and fees are the base's (never tiered)."""
    if is_missing(text) or not str(text).strip():
        return ()
    tiers = []
    for tier in json.loads(text):
        rates = {name: tier.get(name, getattr(base, name)) for name in RATE_FIELDS}
        tiers.append((float(tier["above"]), replace(base, tiers=(), peak=None, **rates)))
    return tuple(sorted(tiers, key=lambda t: t[0]))


def period_of(rates: Rates, period: str | None = None, at: datetime | None = None) -> str | None:
    """The period a request pays: `period` if asked, else the one time `at` falls in, else the
    model's standard period; None for a model not priced by the hour."""
    return None if rates.peak is None else rates.peak.chosen(period, at)


def in_period(rates: Rates, period: str | None = None, at: datetime | None = None) -> Rates:
    """The rates a request pays in `period` (`peak`, `off_peak`) or at time `at` (`period_of`);
    the rates unchanged for a model not priced by the hour."""
    chosen = period_of(rates, period, at)
    return rates if chosen is None else replace(rates, **rates.peak.rates(chosen))


def _check_count(name: str, value: object) -> float:
    kind = type(value)
    if (kind is float or kind is int) and 0 <= value < math.inf:  # the usual case, told apart cheaply
        return float(value)
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    return float(value)


def _check_eta(eta: object) -> float:
    kind = type(eta)
    if (kind is float or kind is int) and 0 <= eta <= 1:  # the usual case (NaN fails both comparisons)
        return float(eta)
    if isinstance(eta, bool) or not isinstance(eta, Real) or not math.isfinite(eta) or not 0 <= eta <= 1:
        raise ValueError(f"eta must be a number in [0, 1], got {eta!r}")
    return float(eta)


@dataclass(frozen=True)
class Usage:
    """What a request uses beside its prompt, output and thinking tokens (all default to none but
    one request): cache writes (part of the prompt), citation tokens (beside the output), and the
    requests and tool calls that fees are billed on."""

    n_cache_write_5m: float = 0.0
    n_cache_write_1h: float = 0.0
    n_citation: float = 0.0
    n_requests: float = 1.0
    n_web_searches: float = 0.0
    n_file_searches: float = 0.0
    n_grounding: float = 0.0

    def __post_init__(self) -> None:
        for name in USAGE_FIELDS:
            object.__setattr__(self, name, _check_count(name, getattr(self, name)))

    @cached_property
    def fee_counts(self) -> dict[str, float]:
        """The count each fee line bills on (requests, tool calls), by line name."""
        return {line: getattr(self, count) for line, (_, count) in FEE_LINES.items()}


USAGE_FIELDS = tuple(f.name for f in fields(Usage))


NO_EXTRAS = Usage()
# The cost lines, in the order they are summed. Fee lines name the fee field they bill and the usage
# count they bill it on.
LINES = ("input", "cached_input", "cache_write_5m", "cache_write_1h", "output", "thinking", "citation",
         "request_fee", "web_search", "file_search", "grounding")
FEE_LINES = {"request_fee": ("request_fee", "n_requests"), "web_search": ("web_search_fee", "n_web_searches"),
             "file_search": ("file_search_fee", "n_file_searches"), "grounding": ("grounding_fee", "n_grounding")}
TOKEN_LINES = LINES[:-len(FEE_LINES)]


def check_profile(n_in, n_out, eta, n_think, usage: Usage) -> tuple[float, float, float, float]:
    n_in, n_out, n_think = _check_count("n_in", n_in), _check_count("n_out", n_out), _check_count("n_think", n_think)
    eta = _check_eta(eta)
    written = usage.n_cache_write_5m + usage.n_cache_write_1h
    if written > n_in * (1.0 - eta) * (1 + 1e-12):
        raise ValueError(f"cache writes ({written:g} tokens) cannot exceed the part of the prompt not read from "
                         f"cache (n_in·(1 − eta) = {n_in * (1.0 - eta):g}): cache writes are prompt tokens")
    return n_in, n_out, eta, n_think


def rates_for_prompt(rates: Rates, n_in: float) -> Rates:
    """The flat rates that bill a request whose prompt has n_in tokens (the cliff)."""
    applied = rates.flat
    for above, tier in rates.tiers:
        if n_in > above:
            applied = tier
    return applied


def _ratio(price, beta):
    """price/β, NaN where β is not positive: elementwise for arrays, plainly for floats."""
    if isinstance(beta, np.ndarray):
        return np.divide(price, beta, out=np.full(beta.shape, np.nan), where=beta > 0)
    return price / beta if beta > 0 else math.nan


def r_in(rates: Rates) -> float:
    """input/output of the base rates (NaN for a zero output price)."""
    return _ratio(rates.input, rates.output)


def r_cache(rates: Rates) -> float:
    """cache_read/output; r_in when the model has no cache price."""
    return r_in(rates) if rates.cache_read is None else _ratio(rates.cache_read, rates.output)


def r_think(rates: Rates) -> float:
    """reasoning/output; 1 when thinking tokens are billed as output."""
    return 1.0 if rates.reasoning is None else _ratio(rates.reasoning, rates.output)


def r_batch(beta_batch: float | None, beta_sync: float | None) -> float:
    """Batch output price over sync output price; NaN without a batch price."""
    if is_missing(beta_batch) or is_missing(beta_sync):
        return math.nan
    return _ratio(float(beta_batch), float(beta_sync))


def _or(price, fallback):
    """`price`, or `fallback` where it is NaN: elementwise for arrays, plainly for floats (numpy's
    machinery costs more than the arithmetic on a single number)."""
    if isinstance(price, np.ndarray):
        return np.where(np.isnan(price), fallback, price)
    return fallback if price != price else price


def _blended_input_price(prices: Mapping, n_in: float, eta: float, usage: Usage):
    """β·r_in_eff: the prompt's price per token, part fresh, part read from cache and part written
    to it. The read blend lies between its two prices; the clip only undoes rounding, so that a
    model without a cache price blends to exactly its input price."""
    input_price = prices["input"]
    cache = _or(prices["cache_read"], input_price)
    blended = input_price * (1.0 - eta) + cache * eta
    if isinstance(blended, np.ndarray):
        blended = np.clip(blended, np.minimum(input_price, cache), np.maximum(input_price, cache))
    else:
        blended = min(max(blended, min(input_price, cache)), max(input_price, cache))
    if n_in > 0 and (usage.n_cache_write_5m or usage.n_cache_write_1h):
        write_5m, write_1h = _write_prices(prices)
        blended = blended + (usage.n_cache_write_5m * (write_5m - input_price)
                             + usage.n_cache_write_1h * (write_1h - input_price)) / n_in
    return blended


def _stated(price):
    """A cache-write rate, NaN where none is stated or it is 0: the datasets that write 0 mean no
    charge beyond the input (Zhipu and DeepSeek bill the tokens that fill a cache as ordinary
    input), never a free write."""
    if isinstance(price, np.ndarray):
        return np.where(price > 0, price, np.nan)
    return price if price > 0 else math.nan


def _write_prices(prices: Mapping):
    write_5m = _or(_stated(prices["cache_write"]), prices["input"])
    return write_5m, _or(_stated(prices["cache_write_1h"]), write_5m)


def quantities(n_in: float, n_out: float, eta: float, n_think: float, usage: Usage) -> dict[str, float]:
    """What each line bills: tokens for the token lines, requests or calls for the fee lines."""
    fresh = max(n_in * (1.0 - eta) - usage.n_cache_write_5m - usage.n_cache_write_1h, 0.0)
    return {"input": fresh, "cached_input": n_in * eta, "cache_write_5m": usage.n_cache_write_5m,
            "cache_write_1h": usage.n_cache_write_1h, "output": n_out, "thinking": n_think,
            "citation": usage.n_citation, **usage.fee_counts}


def unit_prices(prices: Mapping) -> dict:
    """Each line's price ($/M for tokens, $ per 1,000 for fees), after the fallbacks of the
    module docstring; NaN for a fee no source states (billed at 0)."""
    beta, input_price = prices["output"], prices["input"]
    write_5m, write_1h = _write_prices(prices)
    return {"input": input_price, "cached_input": _or(prices["cache_read"], input_price),
            "cache_write_5m": write_5m, "cache_write_1h": write_1h, "output": beta,
            "thinking": _or(prices["reasoning"], beta), "citation": _or(prices["citation"], beta),
            **{line: prices[fee] for line, (fee, _) in FEE_LINES.items()}}


def _lines(prices: Mapping, n_in: float, n_out: float, eta: float, n_think: float, usage: Usage) -> dict:
    """The one copy of the cost, line by line (USD), for floats or numpy arrays of prices; a row
    without an input or output price is NaN on every token line."""
    return _costs(quantities(n_in, n_out, eta, n_think, usage), unit_prices(prices))


def _costs(counts: Mapping, units: Mapping) -> dict:
    costs = {line: units[line] * counts[line] * PER_MILLION for line in TOKEN_LINES}
    for line in FEE_LINES:  # after the token lines, so the keys keep LINES' order
        costs[line] = _or(units[line], 0.0) * counts[line] * PER_THOUSAND
    return costs


def _total(lines: Mapping):
    total = 0.0
    for line in LINES:  # a fixed order, so the scalar and the vectorised sums are the same number
        total = total + lines[line]
    return total


def _prices(rates: Rates) -> dict[str, float]:
    return {name: math.nan if (price := getattr(rates, name)) is None else price for name in PRICE_FIELDS}


@dataclass(frozen=True)
class Billed:
    """One Rates' prices (NaN where none is stated) and each line's unit price, as floats and as
    published (None for a fee no source states)."""

    prices: dict[str, float]
    units: dict[str, float]
    stated_units: dict[str, float | None]

    @classmethod
    def of(cls, rates: Rates) -> Billed:
        prices = _prices(rates)
        units = unit_prices(prices)
        return cls(prices, units, {line: None if math.isnan(price) else price for line, price in units.items()})


def effective_input_rate(rates: Rates, n_in: float, eta: float, usage: Usage = NO_EXTRAS) -> float:
    """r_in·(1 − η) + r_cache·η (plus the cache writes' premium) at the tier n_in reaches; NaN
    for a zero output price."""
    n_in, _, eta, _ = check_profile(n_in, 0.0, eta, 0.0, usage)
    prices = rates_for_prompt(rates, n_in).billed.prices
    return _ratio(_blended_input_price(prices, n_in, eta, usage), prices["output"])


def kappa(rates: Rates, n_in: float, n_out: float, eta: float, usage: Usage = NO_EXTRAS) -> float | None:
    """1 + (n_in/n_out)·r_in_eff; None when n_out is 0 (or β is 0), never infinity."""
    rate = effective_input_rate(rates, n_in, eta, usage)
    if _check_count("n_out", n_out) == 0 or math.isnan(rate):
        return None
    return 1.0 + (n_in / n_out) * rate


def spot_cost(rates: Rates, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0,
              usage: Usage = NO_EXTRAS) -> float:
    """USD for one request (`usage.n_requests` of them for the fees), every line summed."""
    n_in, n_out, eta, n_think = check_profile(n_in, n_out, eta, n_think, usage)
    units = rates_for_prompt(rates, n_in).billed.units
    return _total(_costs(quantities(n_in, n_out, eta, n_think, usage), units))


@dataclass(frozen=True)
class CacheValue:
    cost_without_cache: float
    savings: float
    savings_pct: float  # percent of cost_without_cache


def _cache_value(prices: Mapping, cost: float, n_in: float, eta: float) -> CacheValue:
    """The read discount, η·n_in·(input − cache read), and the cost had the prompt been read fresh
    (the same cache writes in both). Computed from the discount rather than as a difference of two
    costs, so that a model without a cache price saves exactly nothing."""
    input_price = float(prices["input"])
    savings = (input_price - float(_or(prices["cache_read"], input_price))) * (n_in * eta) * PER_MILLION
    without = cost + savings
    return CacheValue(without, savings, 100.0 * (savings / without) if without > 0 else 0.0)


def cache_value(rates: Rates, n_in: float, n_out: float, eta: float, n_think: float = 0.0,
                usage: Usage = NO_EXTRAS) -> CacheValue:
    """What reading η of the prompt from cache saves against paying full input for all of it."""
    cost = task_cost(rates, n_in, n_out, eta, n_think, usage)
    return _cache_value(cost.applied.billed.prices, cost.spot_cost, n_in, eta)


@dataclass(frozen=True)
class TaskCost:
    beta_used: float  # output price after the context tier (and period), $/M
    r_in_eff: float | None  # None when β is 0
    kappa: float | None  # None when n_out is 0
    spot_cost: float  # USD, the sum of `lines`
    cache_value: CacheValue | None  # None when η is 0
    lines: dict[str, float]  # USD by LINES name
    quantities: dict[str, float]  # tokens, requests or calls by LINES name
    unit_prices: dict[str, float | None]  # $/M or $ per 1,000 by LINES name; None for a fee no source states
    applied: Rates  # the flat rates that billed the request


def task_cost(rates: Rates, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0,
              usage: Usage = NO_EXTRAS) -> TaskCost:
    """Everything §3 says about one request, in one call: the profile is checked and the tier
    resolved once, then the same helpers as the single-purpose functions above apply. `rates`
    are taken as given: pass `in_period(rates, ...)` to price another period."""
    n_in, n_out, eta, n_think = check_profile(n_in, n_out, eta, n_think, usage)
    applied = rates_for_prompt(rates, n_in)
    billed = applied.billed
    prices, counts = billed.prices, quantities(n_in, n_out, eta, n_think, usage)
    lines = _costs(counts, billed.units)  # floats: Rates' prices and checked counts are floats
    cost = _total(lines)
    beta = prices["output"]
    rate = _ratio(_blended_input_price(prices, n_in, eta, usage), beta)
    return TaskCost(
        beta_used=beta,
        r_in_eff=None if math.isnan(rate) else rate,
        kappa=None if n_out == 0 or math.isnan(rate) else 1.0 + (n_in / n_out) * rate,
        spot_cost=cost,
        cache_value=_cache_value(prices, cost, n_in, eta) if eta > 0 else None,
        lines=lines,
        quantities=counts,
        unit_prices=dict(billed.stated_units),
        applied=applied,
    )


@lru_cache(maxsize=4096)
def _tiered_rates(text: str, base: Rates) -> Rates:
    """A tiered model's rates from its row, parsed once: the same rows are priced for every
    comparison."""
    return replace(base, tiers=parse_tiers(text, base))


@dataclass(frozen=True)
class PriceBook:
    """A frame of rates as arrays (one per PRICE_FIELDS name, NaN where missing), with its tiered
    and hour-priced rows parsed once, so that many task profiles can be priced on the same rows
    (every comparison prices every model)."""

    arrays: dict[str, np.ndarray]
    tiered: tuple[tuple[int, Rates], ...]  # (row, its rates with tiers)
    timed: tuple[tuple[int, PeakPricing], ...]  # (row, its peak and off-peak rates)
    # The tiered rows' rates at each band of prompt sizes between thresholds, made when first asked.
    _tier_bands: dict[int, tuple[np.ndarray, dict[str, np.ndarray]]] = field(default_factory=dict, compare=False,
                                                                           repr=False)
    # `priced_units` per band and period, made when first asked.
    _units: dict[tuple[int, str | None], tuple[dict, dict]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def beta(self) -> np.ndarray:
        return self.arrays["output"]

    @property
    def input(self) -> np.ndarray:
        return self.arrays["input"]

    @classmethod
    def of(cls, frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> PriceBook:
        names = {**HISTORY_COLUMNS, **(columns or {})}

        def column(field: str) -> np.ndarray:
            if names[field] not in frame:
                return np.full(len(frame), np.nan)
            return pd.to_numeric(frame[names[field]], errors="coerce").to_numpy(dtype=float, na_value=np.nan)

        arrays = {field: column(field) for field in PRICE_FIELDS}
        priced = ~(np.isnan(arrays["output"]) | np.isnan(arrays["input"]))

        def texts(field: str):
            if names[field] not in frame:
                return []
            return [(i, text) for i, text in enumerate(frame[names[field]].tolist())
                    if priced[i] and not is_missing(text) and str(text).strip()]

        def base(i: int) -> Rates:
            return Rates(**{f: None if math.isnan(arrays[f][i]) else float(arrays[f][i]) for f in PRICE_FIELDS})

        tiered = tuple((i, _tiered_rates(text, base(i))) for i, text in texts("tiers"))
        timed = tuple((i, PeakPricing.from_json(text)) for i, text in texts("peak"))
        return cls(arrays, tiered, timed)

    def prices(self, n_in: float, period: str | None = None, at: datetime | None = None) -> dict[str, np.ndarray]:
        """Every row's prices ({field: array}) at the tier a prompt of n_in tokens reaches and in
        the period asked for (or at `at`; else each row's standard period)."""
        out = {name: values.copy() for name, values in self.arrays.items()}
        for i, peak in self.timed:
            for name, value in peak.rates(peak.chosen(period, at)).items():
                out[name][i] = value
        rows, rates = self._tiers_reached(n_in)  # a tier reached bills its own rates (the scalar path's cliff)
        for name, values in rates.items():
            out[name][rows] = values
        return out

    def priced_units(self, n_in: float, period: str | None = None,
                     at: datetime | None = None) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """`prices` and their `unit_prices`, kept per band of prompt sizes and period when no time
        is given (every comparison prices every row): the caller reads them, never writes."""
        if at is not None:
            prices = self.prices(n_in, period, at)
            return prices, unit_prices(prices)
        key = (bisect_left(self._thresholds, n_in), period)
        if key not in self._units:
            prices = self.prices(n_in, period)
            self._units[key] = (prices, unit_prices(prices))
        return self._units[key]

    @cached_property
    def _thresholds(self) -> list[float]:
        return sorted({above for _, tiered in self.tiered for above, _ in tiered.tiers})

    def _tiers_reached(self, n_in: float) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The tiered rows whose prompt of n_in tokens reaches a tier, and their rates there by field.
        Which tier a row bills changes only where n_in passes a threshold (`rates_for_prompt`: a
        tier bills when n_in is above it), so this is made once per band between thresholds, not
        once per request."""
        band = bisect_left(self._thresholds, n_in)  # how many thresholds lie below n_in
        if band not in self._tier_bands:
            reached = [(i, _prices(applied)) for i, tiered in self.tiered
                       if (applied := rates_for_prompt(tiered, n_in)) is not tiered.flat]
            self._tier_bands[band] = (np.array([i for i, _ in reached], dtype=np.intp),
                                      {name: np.array([prices[name] for _, prices in reached], dtype=float)
                                       for name in PRICE_FIELDS})
        return self._tier_bands[band]


def spot_costs(frame: pd.DataFrame, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0,
               columns: Mapping[str, str] | None = None, usage: Usage = NO_EXTRAS, period: str | None = None,
               at: datetime | None = None) -> np.ndarray:
    """spot_cost of one task profile on every row of a frame of rates; NaN where β is missing."""
    n_in, n_out, eta, n_think = check_profile(n_in, n_out, eta, n_think, usage)
    prices = PriceBook.of(frame, columns).prices(n_in, period, at)
    return np.asarray(_total(_lines(prices, n_in, n_out, eta, n_think, usage)), dtype=float)


@dataclass(frozen=True)
class TaskCosts:
    """`TaskCost` for every row of a frame of rates, as arrays (NaN where the scalar has None)."""

    beta_used: np.ndarray
    r_in_eff: np.ndarray
    kappa: np.ndarray
    spot_cost: np.ndarray


def task_costs(book: PriceBook, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0,
               usage: Usage = NO_EXTRAS, period: str | None = None, at: datetime | None = None) -> TaskCosts:
    """`task_cost` on every row of a price book at once, with the same helpers (cache value aside)."""
    n_in, n_out, eta, n_think = check_profile(n_in, n_out, eta, n_think, usage)
    prices, units = book.priced_units(n_in, period, at)
    cost = np.asarray(_total(_costs(quantities(n_in, n_out, eta, n_think, usage), units)), dtype=float)
    beta = prices["output"]
    rate = _ratio(_blended_input_price(prices, n_in, eta, usage), beta)
    kappa = 1.0 + (n_in / n_out) * rate if n_out > 0 else np.full(len(rate), np.nan)
    return TaskCosts(beta_used=beta, r_in_eff=rate, kappa=kappa, spot_cost=cost)
