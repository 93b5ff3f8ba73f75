"""An inference cost swap on one model and one task type (contract §6).

The fixed payer pays a fixed rate K ($/M output tokens) and receives the floating rate on the
output tokens of each monthly fixing. Symbols, t in months:

    float(t)   = spot_cost·10⁶/n_out · β_t/β_0              the task's cost per million output tokens, every
                                                             billed line and fee included (`floating_rate`,
                                                             from `pipelines.pricing`)
    E[float(t)] = float(0)·L(t)·E[R_t]                       (the forecast's mean, `pipelines.forecast`: E[R_t] =
                                                             1 − P_t + P_t·m, from the level L a source announces,
                                                             `pipelines.scheduled`)
    fixings    t_i = 1, …, n (n = tenor in months, a forward curve tenor: 1, 2, 3, 6, 9 or 12),
               N_i = notional_tokens/n output tokens each, dated as_of + round(t_i·30.4375) days
    DF_i       = exp(−r·t_i/12)                              r the annual rate, continuously compounded
    K*         = Σ DF_i·N_i·E[float_i] / Σ DF_i·N_i          the fair fixed rate
    npv(K)     = Σ DF_i·N_i·(E[float_i] − K)·10⁻⁶            USD, to the fixed payer
    notional_usd = Σ N_i·E[float_i]·10⁻⁶                     undiscounted

Greeks of npv(K), in USD:

- delta = ∂npv/∂β = Σ DF_i·N_i·L(t_i)·E[R_(t_i)]·m·10⁻⁶ per $/M of β, with m = float(0)/β the
  exposure multiplier (kappa + n_think·r_think/n_out, plus the other lines over β) of the rates
  that bill the profile (after any context tier). Every price of a model, fees included, is taken
  to scale with β, so float(0) is linear in β.
- vega = ∂npv/∂σ = 0: the law has no diffusion (σ = 0 on the Greek sheet), and the npv depends
  on the law only through its mean E[R_t], not its spread. It is published as 0, not omitted.
- theta_greek = npv(K) one day later minus npv(K) today, β unchanged and the fixing dates
  unchanged: every fixing is one day (1/30.4375 month) nearer, so each expected rate carries one
  day less of the chance of a change and is discounted by one day less.
- pv01 = npv(K + 0.01) − npv(K) = −0.01·Σ DF_i·N_i·10⁻⁶: the value of 0.01 $/M more fixed rate.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from pipelines.forecast import Process
from pipelines.forwards import TENORS as CURVE_TENORS
from pipelines.months import DAYS_PER_MONTH
from pipelines.pricing import PER_MILLION, Rates, task_cost
from pipelines.scheduled import horizon_date

# A swap runs to a tenor of the forward curves (1M … 12M): each fixing reads the law the curve
# publishes, and the last one is a published point.
TENORS = dict(CURVE_TENORS)
PV01_STEP = 0.01  # $/M of fixed rate
ONE_DAY = 1.0 / DAYS_PER_MONTH  # months


def _finite(name: str, value: float, minimum: float | None = None, strict: bool = False) -> float:
    number = float(value)
    if not math.isfinite(number) or (minimum is not None and (number <= minimum if strict else number < minimum)):
        bound = "" if minimum is None else f" {'>' if strict else '≥'} {minimum:g}"
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    return number


def floating_rate(rates: Rates, n_in: float, n_out: float, eta: float = 0.0, n_think: float = 0.0) -> float:
    """float(0): the profile's cost per million output tokens today, spot_cost·10⁶/n_out ($/M)."""
    if _finite("n_out", n_out, 0.0, strict=True) <= 0:
        raise ValueError("n_out must be positive")
    return task_cost(rates, n_in, n_out, eta, n_think).spot_cost / (n_out * PER_MILLION)


def exposure_multiplier(rates: Rates, n_in: float, n_out: float, eta: float = 0.0,
                        n_think: float = 0.0) -> float | None:
    """m = float(0)/β (kappa + n_think·r_think/n_out when nothing else is billed), β the output price
    that bills the profile; None if β is 0."""
    beta = task_cost(rates, n_in, n_out, eta, n_think).beta_used
    return floating_rate(rates, n_in, n_out, eta, n_think) / beta if beta > 0 else None


def fixing_months(tenor_months: int) -> np.ndarray:
    """t_i = 1, …, tenor_months."""
    if isinstance(tenor_months, bool) or int(tenor_months) != tenor_months or tenor_months < 1:
        raise ValueError(f"tenor_months must be a positive whole number of months, got {tenor_months!r}")
    return np.arange(1, int(tenor_months) + 1, dtype=float)


def fixing_notionals(notional_tokens: float, months: np.ndarray) -> np.ndarray:
    """N_i: the contract's output tokens spread evenly over its fixings."""
    total = _finite("notional_tokens", notional_tokens, 0.0, strict=True)
    return np.full(len(months), total / len(months))


def fixing_dates(as_of: date, months: Sequence[float]) -> list[date]:
    """as_of + round(t_i·30.4375) days."""
    return [horizon_date(as_of, m) for m in months]


def discount_factors(months: np.ndarray, annual_rate: float) -> np.ndarray:
    """DF_i = exp(−r·t_i/12)."""
    return np.exp(-_finite("discount_rate", annual_rate) * np.asarray(months, dtype=float) / 12.0)


def expected_floating_rates(float0: float, process: Process, months: np.ndarray, levels=1.0) -> np.ndarray:
    """E[float(t_i)] = float(0)·L_i·E[R_(t_i)], L_i the announced level at the fixing (1 where none)."""
    return _finite("floating rate", float0, 0.0) * levels * process.expected_ratio(months)


def fair_fixed_rate(dfs: np.ndarray, notionals: np.ndarray, expected: np.ndarray) -> float:
    """K* = Σ DF·N·E[float] / Σ DF·N ($/M)."""
    weights = dfs * notionals
    return float(np.sum(weights * expected) / np.sum(weights))


def npv(dfs: np.ndarray, notionals: np.ndarray, expected: np.ndarray, fixed_rate: float) -> float:
    """Σ DF·N·(E[float] − K)·10⁻⁶, USD to the fixed payer."""
    return float(np.sum(dfs * notionals * (expected - fixed_rate)) * PER_MILLION)


def notional_usd(notionals: np.ndarray, expected: np.ndarray) -> float:
    """Σ N·E[float]·10⁻⁶, undiscounted USD."""
    return float(np.sum(notionals * expected) * PER_MILLION)


def delta(dfs: np.ndarray, notionals: np.ndarray, process: Process, months: np.ndarray, multiplier: float,
          levels=1.0) -> float:
    """∂npv/∂β = Σ DF·N·L·E[R_t]·m·10⁻⁶ (USD per $/M of β)."""
    return float(np.sum(dfs * notionals * levels * process.expected_ratio(months)) * multiplier * PER_MILLION)


def vega() -> float:
    """∂npv/∂σ = 0: the law has no diffusion, and no expected rate depends on a spread."""
    return 0.0


def theta_greek(float0: float, process: Process, months: np.ndarray, notionals: np.ndarray, fixed_rate: float,
                annual_rate: float, levels=1.0) -> float:
    """npv one day later minus npv today, β and the fixing dates (so the announced levels) unchanged
    (USD per day)."""
    later = months - ONE_DAY
    tomorrow = npv(discount_factors(later, annual_rate), notionals,
                   expected_floating_rates(float0, process, later, levels), fixed_rate)
    today = npv(discount_factors(months, annual_rate), notionals,
                expected_floating_rates(float0, process, months, levels), fixed_rate)
    return tomorrow - today


def pv01(dfs: np.ndarray, notionals: np.ndarray) -> float:
    """npv(K + 0.01) − npv(K) = −0.01·Σ DF·N·10⁻⁶ (USD)."""
    return float(-PV01_STEP * np.sum(dfs * notionals) * PER_MILLION)


@dataclass(frozen=True)
class Fixing:
    date: date
    months: float
    notional_tokens: float
    expected_floating_rate: float  # $/M output tokens
    discount_factor: float


@dataclass(frozen=True)
class SwapQuote:
    floating_rate: float  # float(0), $/M output tokens
    beta_used: float  # the output price that bills the profile, $/M
    fair_fixed_rate: float  # $/M
    npv: float  # USD at the fair fixed rate (0 up to rounding)
    fixed_rate: float | None  # the contract's fixed rate when one was given
    npv_at_fixed_rate: float | None  # USD, when a fixed rate was given
    notional_usd: float
    tenor_months: int
    discount_rate: float
    delta: float | None  # None when β is 0
    vega: float
    theta_greek: float  # at the contract's fixed rate (the given one, else the fair one)
    pv01: float
    schedule: tuple[Fixing, ...]


def price_swap(rates: Rates, process: Process, n_in: float, n_out: float, eta: float, n_think: float,
               tenor_months: int, notional_tokens: float, discount_rate: float, as_of: date,
               fixed_rate: float | None = None, levels: Callable[[np.ndarray], np.ndarray] | None = None) -> SwapQuote:
    """The whole quote of module docstring; greeks at the given fixed rate, else at the fair one.
    `levels(months)` gives the announced level at each fixing (`scheduled.level_ratios`)."""
    months = fixing_months(tenor_months)
    level = 1.0 if levels is None else np.asarray(levels(months), dtype=float)
    notionals = fixing_notionals(notional_tokens, months)
    dfs = discount_factors(months, discount_rate)
    float0 = floating_rate(rates, n_in, n_out, eta, n_think)
    expected = expected_floating_rates(float0, process, months, level)
    fair = fair_fixed_rate(dfs, notionals, expected)
    given = None if fixed_rate is None else _finite("fixed_rate", fixed_rate)
    contract = fair if given is None else given
    multiplier = exposure_multiplier(rates, n_in, n_out, eta, n_think)
    schedule = tuple(Fixing(day, float(m), float(n), float(e), float(d)) for day, m, n, e, d in zip(
        fixing_dates(as_of, months), months, notionals, expected, dfs, strict=True))
    return SwapQuote(
        floating_rate=float0,
        beta_used=task_cost(rates, n_in, n_out, eta, n_think).beta_used,
        fair_fixed_rate=fair,
        npv=npv(dfs, notionals, expected, fair),
        fixed_rate=given,
        npv_at_fixed_rate=None if given is None else npv(dfs, notionals, expected, given),
        notional_usd=notional_usd(notionals, expected),
        tenor_months=int(tenor_months),
        discount_rate=float(discount_rate),
        delta=None if multiplier is None else delta(dfs, notionals, process, months, multiplier, level),
        vega=vega(),
        theta_greek=theta_greek(float0, process, months, notionals, contract, discount_rate, level),
        pv01=pv01(dfs, notionals),
        schedule=schedule,
    )
