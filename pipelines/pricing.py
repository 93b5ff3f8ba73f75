"""Task cost: what one request costs on one model, from its rates and a token profile (contract §3).

Symbols: β is the output price ($/M) of the chosen mode; r_in = input/β, r_cache = cache-read/β
(r_in when the model has no cache price), r_think = reasoning/β (1 when thinking is billed as
output); η is the share of the prompt read from cache.

    r_in_eff   = r_in·(1 − η) + r_cache·η
    spot_cost  = β·(n_out + n_in·r_in_eff + n_think·r_think)·10⁻⁶
    kappa      = 1 + (n_in/n_out)·r_in_eff

Context tiers are a cliff, as the providers bill them: once the prompt has more than a tier's
`above` tokens, every token of the request pays that tier's rates. The arithmetic is carried out
multiplied through by β (β·r_in_eff is the blended input price), which is the same expression and
stays defined for a model whose output price is zero. The scalar and the vectorised costs share
one helper, so there is one copy of the formula.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property, lru_cache
from numbers import Real

import numpy as np
import pandas as pd

PER_MILLION = 1e-6
RATE_FIELDS = ("input", "output", "cache_read", "reasoning")
# Where each rate sits in a price_history row; callers with other names pass their own mapping.
HISTORY_COLUMNS = {"input": "input", "output": "output", "cache_read": "cache_read", "reasoning": "reasoning",
                   "tiers": "tiers"}


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
    """One model's prices in one mode, $/M; `tiers` is ((above, Rates), ...) sorted by threshold."""

    input: float
    output: float
    cache_read: float | None = None
    reasoning: float | None = None
    tiers: tuple[tuple[float, Rates], ...] = ()

    def __post_init__(self) -> None:
        for name in RATE_FIELDS:
            object.__setattr__(self, name, _price(name, getattr(self, name), name in ("input", "output")))
        object.__setattr__(self, "tiers", tuple(sorted(self.tiers, key=lambda tier: tier[0])))

    @cached_property
    def flat(self) -> Rates:
        """The base rates without tiers, built once per object (a frozen dataclass keeps the cache
        in its __dict__), since every cost asks for them."""
        return replace(self, tiers=()) if self.tiers else self

    @classmethod
    def from_row(cls, row: Mapping, columns: Mapping[str, str] | None = None) -> Rates:
        """From a price_history or spots row; `columns` maps input/output/cache_read/reasoning/tiers to names."""
        names = {**HISTORY_COLUMNS, **(columns or {})}
        base = cls(**{field: row.get(names[field]) for field in RATE_FIELDS})
        return replace(base, tiers=parse_tiers(row.get(names["tiers"]), base))


def parse_tiers(text: str | None, base: Rates) -> tuple[tuple[float, Rates], ...]:
    """The tiers JSON as ((above, Rates), ...); a field a tier does not name keeps the base rate."""
    if is_missing(text) or not str(text).strip():
        return ()
    tiers = []
    for tier in json.loads(text):
        fields = {name: tier.get(name, getattr(base, name)) for name in RATE_FIELDS}
        tiers.append((float(tier["above"]), Rates(**fields)))
    return tuple(sorted(tiers, key=lambda t: t[0]))


def _check_count(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    return float(value)


def _check_eta(eta: object) -> float:
    if isinstance(eta, bool) or not isinstance(eta, Real) or not math.isfinite(eta) or not 0 <= eta <= 1:
        raise ValueError(f"eta must be a number in [0, 1], got {eta!r}")
    return float(eta)


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


def _blended_input_price(input_price, cache_price, eta):
    """β·r_in_eff: the prompt's price per token, part fresh and part read from cache. A blend lies
    between its two prices; the clip only undoes rounding, so that a model without a cache price
    (cache = input) blends to exactly its input price and reading from cache never costs more."""
    blended = input_price * (1.0 - eta) + cache_price * eta
    if isinstance(blended, np.ndarray):
        return np.clip(blended, np.minimum(input_price, cache_price), np.maximum(input_price, cache_price))
    return min(max(blended, min(input_price, cache_price)), max(input_price, cache_price))


def _or(price, fallback):
    """`price`, or `fallback` where it is NaN: elementwise for arrays, plainly for floats (numpy's
    machinery costs more than the arithmetic on a single number)."""
    if isinstance(price, np.ndarray):
        return np.where(np.isnan(price), fallback, price)
    return fallback if price != price else price


def _cost(beta, input_price, cache_price, think_price, n_in, n_out, eta, n_think):
    """The one copy of spot_cost, for floats or numpy arrays; NaN cache/think prices fall back."""
    blended = _blended_input_price(input_price, _or(cache_price, input_price), eta)
    return (beta * n_out + n_in * blended + n_think * _or(think_price, beta)) * PER_MILLION


def _prices(rates: Rates) -> tuple[float, float, float, float]:
    nan = math.nan
    cache = nan if rates.cache_read is None else rates.cache_read
    return rates.output, rates.input, cache, nan if rates.reasoning is None else rates.reasoning


def effective_input_rate(rates: Rates, n_in: float, eta: float) -> float:
    """r_in·(1 − η) + r_cache·η at the tier n_in reaches (NaN for a zero output price)."""
    applied = rates_for_prompt(rates, _check_count("n_in", n_in))
    cache = applied.input if applied.cache_read is None else applied.cache_read
    return _ratio(_blended_input_price(applied.input, cache, _check_eta(eta)), applied.output)


def kappa(rates: Rates, n_in: float, n_out: float, eta: float) -> float | None:
    """1 + (n_in/n_out)·r_in_eff; None when n_out is 0 (or β is 0), never infinity."""
    rate = effective_input_rate(rates, n_in, eta)
    if _check_count("n_out", n_out) == 0 or math.isnan(rate):
        return None
    return 1.0 + (n_in / n_out) * rate


def spot_cost(rates: Rates, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0) -> float:
    """USD for one request: β·(n_out + n_in·r_in_eff + n_think·r_think)·10⁻⁶ after the tier."""
    n_in, n_out, n_think = (_check_count(k, v) for k, v in (("n_in", n_in), ("n_out", n_out), ("n_think", n_think)))
    eta = _check_eta(eta)
    return float(_cost(*_prices(rates_for_prompt(rates, n_in)), n_in, n_out, eta, n_think))


@dataclass(frozen=True)
class CacheValue:
    cost_without_cache: float
    savings: float
    savings_pct: float  # percent of cost_without_cache


def cache_value(rates: Rates, n_in: float, n_out: float, eta: float, n_think: float = 0.0) -> CacheValue:
    """What reading η of the prompt from cache saves against paying full input for all of it."""
    with_cache = spot_cost(rates, n_in, n_out, eta, n_think)
    without = spot_cost(rates, n_in, n_out, 0.0, n_think)
    savings = without - with_cache
    return CacheValue(without, savings, 100.0 * (savings / without) if without > 0 else 0.0)


@dataclass(frozen=True)
class TaskCost:
    beta_used: float  # output price after the context tier, $/M
    r_in_eff: float | None  # None when β is 0
    kappa: float | None  # None when n_out is 0
    spot_cost: float  # USD
    cache_value: CacheValue | None  # None when η is 0


def task_cost(rates: Rates, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0) -> TaskCost:
    """Everything §3 says about one request, in one call: the profile is checked and the tier
    resolved once, then the same helpers as the single-purpose functions above apply."""
    n_in, n_out, n_think = (_check_count(k, v) for k, v in (("n_in", n_in), ("n_out", n_out), ("n_think", n_think)))
    eta = _check_eta(eta)
    prices = _prices(rates_for_prompt(rates, n_in))
    cost = float(_cost(*prices, n_in, n_out, eta, n_think))
    beta, input_price, cache, _ = prices
    rate = _ratio(_blended_input_price(input_price, _or(cache, input_price), eta), beta)
    value = None
    if eta > 0:
        without = float(_cost(*prices, n_in, n_out, 0.0, n_think))
        value = CacheValue(without, without - cost, 100.0 * ((without - cost) / without) if without > 0 else 0.0)
    return TaskCost(
        beta_used=beta,
        r_in_eff=None if math.isnan(rate) else rate,
        kappa=None if n_out == 0 or math.isnan(rate) else 1.0 + (n_in / n_out) * rate,
        spot_cost=cost,
        cache_value=value,
    )


@lru_cache(maxsize=4096)
def _tiered_rates(text: str, input_price: float, output: float, cache: float | None, think: float | None) -> Rates:
    """A tiered model's rates from its row, parsed once: the same rows are priced for every
    comparison."""
    base = Rates(input_price, output, cache, think)
    return replace(base, tiers=parse_tiers(text, base))


@dataclass(frozen=True)
class PriceBook:
    """A frame of rates as arrays, with its tiered rows parsed once, so that many task profiles
    can be priced on the same rows (every comparison prices every model)."""

    beta: np.ndarray
    input: np.ndarray
    cache_read: np.ndarray
    reasoning: np.ndarray
    tiered: tuple[tuple[int, Rates], ...]  # (row, its rates with tiers)

    @classmethod
    def of(cls, frame: pd.DataFrame, columns: Mapping[str, str] | None = None) -> PriceBook:
        names = {**HISTORY_COLUMNS, **(columns or {})}

        def column(field: str) -> np.ndarray:
            if names[field] not in frame:
                return np.full(len(frame), np.nan)
            return pd.to_numeric(frame[names[field]], errors="coerce").to_numpy(dtype=float, na_value=np.nan)

        beta, input_price, cache, think = (column(f) for f in ("output", "input", "cache_read", "reasoning"))
        tiered = []
        if names["tiers"] in frame:
            for i, text in enumerate(frame[names["tiers"]].tolist()):
                if is_missing(text) or math.isnan(beta[i]) or math.isnan(input_price[i]):
                    continue
                tiered.append((i, _tiered_rates(text, *(None if math.isnan(v) else float(v)  # NaN is no cache key
                                                        for v in (input_price[i], beta[i], cache[i], think[i])))))
        return cls(beta, input_price, cache, think, tuple(tiered))

    def prices(self, n_in: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(β, input, cache-read, reasoning) $/M of every row at the tier a prompt of n_in tokens
        reaches; NaN where a price is missing."""
        beta, input_price, cache, think = (a.copy() for a in (self.beta, self.input, self.cache_read, self.reasoning))
        for i, tiered in self.tiered:
            beta[i], input_price[i], cache[i], think[i] = _prices(rates_for_prompt(tiered, n_in))
        return beta, input_price, cache, think


def spot_costs(frame: pd.DataFrame, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0,
               columns: Mapping[str, str] | None = None) -> np.ndarray:
    """spot_cost of one task profile on every row of a frame of rates; NaN where β is missing."""
    n_in, n_out, n_think = (_check_count(k, v) for k, v in (("n_in", n_in), ("n_out", n_out), ("n_think", n_think)))
    eta = _check_eta(eta)
    prices = PriceBook.of(frame, columns).prices(n_in)
    return np.asarray(_cost(*prices, n_in, n_out, eta, n_think), dtype=float)


@dataclass(frozen=True)
class TaskCosts:
    """`TaskCost` for every row of a frame of rates, as arrays (NaN where the scalar has None)."""

    beta_used: np.ndarray
    r_in_eff: np.ndarray
    kappa: np.ndarray
    spot_cost: np.ndarray


def task_costs(book: PriceBook, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0) -> TaskCosts:
    """`task_cost` on every row of a price book at once, with the same helpers (cache value aside)."""
    n_in, n_out, n_think = (_check_count(k, v) for k, v in (("n_in", n_in), ("n_out", n_out), ("n_think", n_think)))
    eta = _check_eta(eta)
    beta, input_price, cache, think = book.prices(n_in)
    cost = np.asarray(_cost(beta, input_price, cache, think, n_in, n_out, eta, n_think), dtype=float)
    rate = _ratio(_blended_input_price(input_price, _or(cache, input_price), eta), beta)
    kappa = 1.0 + (n_in / n_out) * rate if n_out > 0 else np.full(len(rate), np.nan)
    return TaskCosts(beta_used=beta, r_in_eff=rate, kappa=kappa, spot_cost=cost)
