"""The price process of a ticker and mode, fitted from its history (contract §4).

Model, for the output price β of one ticker in one mode, t in months:

    ln β_t = ln β_0 − ½σ²t + σ W_t + Σ_{k ≤ N_t} J_k,   N_t ~ Poisson(λt),   J_k ~ N(μ_J, s_J²)

The diffusion is mean-preserving noise (small repricings, currency conversion, corrections);
the expected path comes from the discrete changes alone:

    E[β_t] = β_0 · exp(−θ t),   θ = λ (1 − m_J),   m_J = exp(μ_J + ½ s_J²)

θ is the published decay (per month; positive = prices expected to fall). A change of the
observed price with |ln ratio| ≥ JUMP_THRESHOLD is a jump; a smaller one is diffusion; a change
undone within REVERSAL_DAYS (back to exactly the earlier price) is a correction and neither.

Estimators (all on the history known at the anchor date; `docs/methodology.md` gives them in full):
- λ: Gamma–Poisson empirical Bayes. The prior's mean is the pool's jumps per month of
  exposure; its strength β₀ (pseudo-months) comes from the method of moments on the pool's
  per-series rates. Posterior mean λ = (m·β₀ + n) / (β₀ + T); prior_weight = β₀ / (β₀ + T).
- μ_J, s_J: one lognormal jump law per tier of a mode, pooled over its series (a ticker's one
  or two past jumps say nothing reliable about the size of its next), matched to the sample
  moments of the jumps; the mode's mean size ratio is shrunk toward 1 (no drift) and each
  tier's toward the mode's, by their standard errors (`jump_law`). Tiers differ: frontier
  models' price changes are mostly cuts, efficient and mid models' mostly rises.
- σ²: the series' diffusion moves per month of exposure, shrunk to the pool's with β₀ pseudo-months.
- The shrinkage of λ and σ² is hierarchical: all series of the mode → tier → family → ticker,
  each level shrunk to the posterior of the level above with that level's own prior strength
  (a family of one series borrows its tier's), so a family that never moved still carries its
  tier's risk.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
from scipy.special import ndtr
from scipy.stats import poisson

from pipelines.listings import CARRIED_FORWARD

DAYS_PER_MONTH = 30.4375
JUMP_THRESHOLD = 0.05
PRIOR_MONTHS_RANGE = (6.0, 240.0)
SPREAD_MIN_MONTHS = 6.0
REVERSAL_DAYS = 31
TINY = 1e-9

PARAM_COLUMNS = ["ticker", "mode", "theta", "sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight",
                 "pool", "exposure_months", "n_jumps", "n_moves"]


@dataclass(frozen=True)
class Process:
    """Parameters of one fitted process (per month)."""

    jump_rate: float
    jump_mean: float
    jump_std: float
    sigma: float

    @property
    def theta(self) -> float:
        return self.jump_rate * (1.0 - np.exp(self.jump_mean + 0.5 * self.jump_std**2))


def months_between(start: date, end: date) -> float:
    return (end - start).days / DAYS_PER_MONTH


def decay_factor(theta, months):
    """E[β_t] / β_0 = exp(−θ t)."""
    return np.exp(-np.asarray(theta) * np.asarray(months))


def series_moves(history: pd.DataFrame, anchor: date, with_jumps: bool = False):
    """Per (ticker, mode): exposure, jumps and diffusion moves of the observed price up to `anchor`."""
    known = history[(history["date"] <= anchor) & (history["output"] > 0)]
    observed = known[known["provenance"] != CARRIED_FORWARD].sort_values(["ticker", "mode", "date"])
    log_price = np.log(observed["output"].to_numpy())
    same_series = (observed["ticker"].to_numpy()[1:] == observed["ticker"].to_numpy()[:-1]) & (
        observed["mode"].to_numpy()[1:] == observed["mode"].to_numpy()[:-1])
    step = np.where(same_series, np.diff(log_price), 0.0)
    moves = observed.iloc[1:].assign(x=step, corrected=_reversals(observed, step, same_series))
    moves = moves[(np.abs(moves["x"]) > TINY) & ~moves["corrected"]][["ticker", "mode", "x"]]
    is_jump = np.abs(moves["x"]) >= JUMP_THRESHOLD
    jumps, small = moves[is_jump], moves[~is_jump]
    # The minimum taken over datetimes, then back to dates: dates as objects group slowly.
    first = pd.to_datetime(known["date"]).groupby([known["ticker"], known["mode"]]).min().dt.date
    series = pd.DataFrame({"exposure_months": [months_between(d, anchor) for d in first]}, index=first.index)
    series["n_jumps"] = jumps.groupby(["ticker", "mode"]).size().reindex(series.index, fill_value=0)
    series["n_moves"] = small.groupby(["ticker", "mode"]).size().reindex(series.index, fill_value=0)
    series["sum_jump"] = jumps.groupby(["ticker", "mode"])["x"].sum().reindex(series.index, fill_value=0.0)
    series["sum_jump_sq"] = (jumps["x"] ** 2).groupby([jumps["ticker"], jumps["mode"]]).sum().reindex(
        series.index, fill_value=0.0)
    series["sum_move_sq"] = (small["x"] ** 2).groupby([small["ticker"], small["mode"]]).sum().reindex(
        series.index, fill_value=0.0)
    series = series.reset_index()
    return (series, jumps) if with_jumps else series


def _reversals(observed: pd.DataFrame, step: np.ndarray, same_series: np.ndarray) -> np.ndarray:
    """For each move, whether it is half of a correction: a price that returns to exactly its
    previous level within REVERSAL_DAYS was a source's slip, not two price changes."""
    days = pd.to_datetime(observed["date"]).to_numpy()
    moved = np.abs(step) > TINY
    back = np.zeros(len(step), dtype=bool)
    # Move i goes from point i to i+1; move i+1 undoes it when point i+2 equals point i.
    if len(step) > 1:
        gap = (days[2:] - days[1:-1]).astype("timedelta64[D]").astype(int)
        undone = (same_series[:-1] & same_series[1:] & moved[:-1] & moved[1:]
                  & (np.abs(step[:-1] + step[1:]) < TINY) & (gap <= REVERSAL_DAYS))
        back[:-1] |= undone
        back[1:] |= undone
    return back


def prior_strength(n: np.ndarray, exposure: np.ndarray) -> tuple[float, float]:
    """(mean rate m, strength β₀ in pseudo-months) of a Gamma prior, by the method of moments.

    The spread of per-series rates beyond what Poisson noise explains is the prior's variance
    m/β₀; no excess spread means the series share one rate (strongest prior allowed). The spread
    is measured on series with at least SPREAD_MIN_MONTHS of history where there are two or
    more: a series only days old has an apparent rate that is noise, and would dominate it.
    """
    exposure = np.maximum(exposure, TINY)
    total = exposure.sum()
    m = n.sum() / total
    long_enough = exposure >= SPREAD_MIN_MONTHS
    if long_enough.sum() >= 2:
        n, exposure = n[long_enough], exposure[long_enough]
    measured = exposure.sum()
    spread = np.sum(exposure * (n / exposure - m) ** 2) / measured
    between = spread - m * len(n) / measured
    low, high = PRIOR_MONTHS_RANGE
    if m <= 0 or between <= 0:
        return float(m), high
    return float(m), float(np.clip(m / between, low, high))


def _level_stats(series: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Totals of a level of the hierarchy and the strength of the prior its members share."""
    totals = series.groupby(keys).agg(
        n_jumps=("n_jumps", "sum"), exposure_months=("exposure_months", "sum"),
        sum_move_sq=("sum_move_sq", "sum"), members=("ticker", "size"))
    # Same grouping, same (sorted) order as the totals above.
    totals["strength"] = [prior_strength(rows["n_jumps"].to_numpy(float), rows["exposure_months"].to_numpy())[1]
                          for _, rows in series.groupby(keys)]
    return totals


def _shrink(prior_rate, prior_move, strength, rows) -> tuple:
    """Posterior jump rate and diffusion variance of `rows` (totals of a level, or one series)
    under the parent level's posterior as prior."""
    rate = (prior_rate * strength + rows["n_jumps"]) / (strength + rows["exposure_months"])
    move = (strength * prior_move + rows["sum_move_sq"]) / (strength + rows["exposure_months"])
    return rate, move


def jump_law(jumps: np.ndarray, prior_ratio: float = 1.0, prior_variance: float = 0.0) -> tuple[float, float]:
    """(μ_J, s_J) of a lognormal jump law, from the jumps' sample moments and a prior.

    The mean size ratio E[e^J], which is what the forward needs, is the sample mean m̂ of the
    ratios shrunk toward the prior's ratio m₀ by its own standard error: m_J = m₀ + c·(m̂ − m₀)
    with c = τ²/(τ² + se²), τ² = max(0, (m̂ − m₀)² − se²), se² = s²(e^x)/n and s² the unbiased
    sample variance (normal empirical Bayes). A handful of jumps, or a mean dominated by one or
    two large ones, says little, and the law then stays close to its prior; fewer than two jumps
    have no measurable spread and leave the prior as it is. s_J² is the variance of the log sizes
    (the prior's with fewer than two jumps). μ_J is set so that E[e^J] = m_J exactly, so the
    forward and the simulated paths agree.
    """
    if len(jumps) < 2:
        return float(np.log(prior_ratio) - 0.5 * prior_variance), float(np.sqrt(prior_variance))
    variance = float(np.var(jumps))
    ratios = np.exp(jumps)
    excess = float(np.mean(ratios)) - prior_ratio
    se2 = float(np.var(ratios, ddof=1)) / len(ratios)
    tau2 = max(excess**2 - se2, 0.0)
    mean_ratio = prior_ratio + (tau2 / (tau2 + se2) if tau2 + se2 > 0 else 0.0) * excess
    return float(np.log(mean_ratio) - 0.5 * variance), float(np.sqrt(variance))


def _tier_jump_laws(mode_jumps: pd.DataFrame) -> tuple[tuple[float, float], dict[str, tuple[float, float]]]:
    """The mode's law (shrunk toward no drift) and each tier's (shrunk toward the mode's)."""
    mode_law = jump_law(mode_jumps["x"].to_numpy())
    mode_ratio = float(np.exp(mode_law[0] + 0.5 * mode_law[1] ** 2))
    tiers = {tier: jump_law(rows["x"].to_numpy(), mode_ratio, mode_law[1] ** 2)
             for tier, rows in mode_jumps.groupby("tier")}
    return mode_law, tiers


def fit_processes(history: pd.DataFrame, groups: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """Fitted parameters per (ticker, mode) from the history known at `anchor`.

    `groups` gives each ticker's family and tier (columns ticker, family, tier). The jump rate
    and the diffusion are shrunk level by level, mode → tier → family → ticker; the jump sizes
    follow one law per tier, shrunk toward the mode's (`jump_law`).
    """
    series, jumps = series_moves(history, anchor, with_jumps=True)
    series = series.merge(groups[["ticker", "family", "tier"]], on="ticker", how="left")
    if series.empty:
        return pd.DataFrame(columns=PARAM_COLUMNS)
    series[["family", "tier"]] = series[["family", "tier"]].fillna("unknown")
    jumps = jumps.merge(series[["ticker", "mode", "tier"]], on=["ticker", "mode"], how="left")
    out = []
    for mode, in_mode in series.groupby("mode", sort=True):
        mode_law, tier_laws = _tier_jump_laws(jumps[jumps["mode"] == mode])
        laws = np.array([tier_laws.get(t, mode_law) for t in in_mode["tier"]]).reshape(-1, 2)
        rate0, strength0 = prior_strength(in_mode["n_jumps"].to_numpy(float),
                                          in_mode["exposure_months"].to_numpy())
        move0 = in_mode["sum_move_sq"].sum() / max(in_mode["exposure_months"].sum(), TINY)
        tiers = _level_stats(in_mode, ["tier"])
        t_rate, t_move = _shrink(rate0, move0, strength0, tiers)
        families = _level_stats(in_mode, ["tier", "family"])
        parent = families.index.get_level_values("tier")
        f_rate, f_move = _shrink(t_rate[parent].to_numpy(), t_move[parent].to_numpy(),
                                 tiers["strength"][parent].to_numpy(), families)
        # A family of one series has no spread of its own to measure: it borrows its tier's strength.
        f_strength = families["strength"].where(families["members"] >= 2, tiers["strength"][parent].to_numpy())
        key = pd.MultiIndex.from_frame(in_mode[["tier", "family"]])
        strength = f_strength.reindex(key).to_numpy()
        rate, move = _shrink(f_rate.reindex(key).to_numpy(), f_move.reindex(key).to_numpy(), strength,
                             in_mode.reset_index(drop=True))
        out.append(pd.DataFrame({
            "ticker": in_mode["ticker"].to_numpy(), "mode": mode,
            "jump_rate": np.asarray(rate), "jump_mean": laws[:, 0], "jump_std": laws[:, 1],
            "sigma": np.sqrt(np.asarray(move)),
            "prior_weight": strength / (strength + in_mode["exposure_months"].to_numpy()),
            "pool": "family:" + in_mode["family"].to_numpy(),
            "exposure_months": in_mode["exposure_months"].to_numpy(),
            "n_jumps": in_mode["n_jumps"].to_numpy(), "n_moves": in_mode["n_moves"].to_numpy(),
        }))
    params = pd.concat(out, ignore_index=True)
    params["theta"] = params["jump_rate"] * (1.0 - np.exp(params["jump_mean"] + 0.5 * params["jump_std"] ** 2))
    return params[PARAM_COLUMNS].sort_values(["ticker", "mode"]).reset_index(drop=True)


def ratio_quantiles(params: pd.DataFrame, months: float, probabilities=(0.05, 0.95)) -> np.ndarray:
    """Quantiles of β_t / β_0 under the fitted process, shape (len(params), len(probabilities)).

    ln(β_t/β_0) given N_t = n is normal with mean −½σ²t + nμ_J and variance σ²t + n s_J², so its
    distribution is a Poisson mixture of normals; the quantiles are found by bisection on the
    mixture's CDF (exact up to the bisection tolerance and a Poisson tail below 1e-12). Each
    distinct process is solved once: the models of a family often share theirs.
    """
    processes = params[["jump_rate", "jump_mean", "jump_std", "sigma"]].to_numpy(dtype=float)
    distinct, row_of = np.unique(processes, axis=0, return_inverse=True)
    lam = distinct[:, 0] * months
    mu, s = distinct[:, 1], distinct[:, 2]
    sigma2 = distinct[:, 3] ** 2 * months
    n_max = int(poisson.ppf(1 - 1e-12, max(lam.max(initial=0.0), TINY))) + 1
    n = np.arange(n_max + 1)[None, :]
    weights = poisson.pmf(n, lam[:, None])
    means = -0.5 * sigma2[:, None] + n * mu[:, None]
    sds = np.sqrt(sigma2[:, None] + n * s[:, None] ** 2)

    def cdf(x):  # x: (models, probabilities)
        # A component with no spread (no diffusion, no jump) is a step at its mean.
        gap = x[:, :, None] - means[:, None, :]
        z = np.where(sds[:, None, :] > 0, gap / np.where(sds > 0, sds, 1.0)[:, None, :],
                     np.where(gap >= 0, np.inf, -np.inf))
        return np.sum(weights[:, None, :] * ndtr(z), axis=2)  # ndtr is norm.cdf without its checks

    span = (np.abs(means).max(axis=1) + 10 * sds.max(axis=1) + 1.0)[:, None]
    target = np.asarray(probabilities, dtype=float)[None, :]
    low, high = np.repeat(-span, target.shape[1], axis=1), np.repeat(span, target.shape[1], axis=1)
    for _ in range(80):  # every probability of every model bisected together, each on its own
        mid = 0.5 * (low + high)
        below = cdf(mid) < target
        low, high = np.where(below, mid, low), np.where(below, high, mid)
    return np.exp(high)[row_of.reshape(-1)]
