"""The forecast of a model's price: an atom at "no change" and a law of the change (contract §4).

A model's price mostly stays where it is and now and then moves in one step, so the price at a
horizon h (months) is, per ticker and mode,

    β_h = S_h · R_h,   R_h = 1 with probability 1 − P_h,   R_h ~ the change law with probability P_h

- S_h, the scheduled price: the price a source has announced for a date on or before the horizon
  (`pipelines.scheduled`), else today's;
- P_h, the chance of a change by h: a discrete-time hazard. The chance of a change within each
  coming month is a logistic regression on what is known at its start (`change_panel.FEATURES`:
  the model's age, months since its last change, its number of changes, its name class, tier,
  reasoning, price level, its provider's and family's recent changes, a newer model in its
  family), fitted walk-forward on every (model, month) of the history (`change_panel.month_panel`),
  recent months weighing more (half weight at HALF_LIFE_MONTHS), the coefficients of the
  standardised features under an L2 penalty of L2_PENALTY. Over the coming months the model ages
  and, if nothing happens, its last change recedes: P_h = 1 − Π_k (1 − p_k) with each month's
  p_k at its own age (log-linear in between);
- the change law, the ratio new/old of the month's change: the weighted empirical law of the
  cuts and of the rises seen in the history, mixed with the chance that a change is a rise. That
  chance is read per evidence group — the model's family has risen in price before, or it never
  has — and shrunk to the pooled share with SHRINK_CHANGES pseudo-changes. Without evidence of a
  rise, the law's mean is held at or below 1 (the chance of a rise capped where the mean is
  exactly 1): a forecast does not rise without evidence.

The mean (the forward) is S_h · [(1 − P_h) + P_h · m], m the change law's mean; the median and
the band are quantiles of the mixture (an atom and a discrete law, so they are exact). Monte
Carlo paths (`sample_ratios`) draw one time of change from the hazard and one ratio from the law,
so their mean at every horizon is the forward's.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import date

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from pipelines.change_panel import FEATURES, Histories, window_panel
from pipelines.months import months_between

HALF_LIFE_MONTHS = 12.0  # a month of history this long ago weighs half as much as the last
L2_PENALTY = 100.0
SHRINK_CHANGES = 5.0  # pseudo-changes at the pooled share of rises, per evidence group
MIN_CHANGES = 5  # fewer changes than this in the history: the hazard is the plain rate
HORIZON_MONTHS = 12  # the longest horizon published
PANEL_HORIZONS = (1, 2, 3, 6, 9, 12)  # the windows the hazard learns from, in months
# The law is pooled over models, so past this many a deterministic sample of them (by a hash of
# the ticker) estimates it as well, and the fit's cost stays bounded as the universe grows.
MAX_FIT_MODELS = 3000
ROSE, NEVER_ROSE = "family_rose", "family_never_rose"  # the evidence groups, each with its change law


def recency_weights(anchors, as_of: date) -> np.ndarray:
    return 0.5 ** (months_between(np.asarray(anchors, dtype="datetime64[D]"), np.datetime64(as_of, "D"))
                   / HALF_LIFE_MONTHS)


@dataclass(frozen=True)
class Hazard:
    """The chance of a change within h months: logistic in the standardised features and ln h."""

    center: np.ndarray
    scale: np.ndarray
    coef: np.ndarray  # one per feature, then ln h
    intercept: float

    def chance(self, features: pd.DataFrame, months) -> np.ndarray:
        """P(a change within `months`) for each row of `features` (and of `months`, or one for all)."""
        x = np.column_stack([features[FEATURES].to_numpy(float),
                             np.log(np.broadcast_to(np.asarray(months, dtype=float), len(features)))])
        return 1.0 / (1.0 + np.exp(-(self.intercept + ((x - self.center) / self.scale) @ self.coef)))


def fit_hazard(panel: pd.DataFrame, as_of: date) -> Hazard:
    """The hazard fitted on `panel` (`change_panel.window_panel`): weighted log loss plus
    L2_PENALTY/2 · |coef|² (the intercept free); a window of h months weighs 1/h (the windows of a
    horizon overlap h times), a recent one more (`recency_weights`)."""
    x = np.column_stack([panel[FEATURES].to_numpy(float), np.log(panel["months"].to_numpy(float))])
    y = panel["changed"].to_numpy(float)
    w = recency_weights(panel["anchor"], as_of) / panel["months"].to_numpy(float) if len(panel) else np.array([])
    width = x.shape[1]
    if y.sum() < MIN_CHANGES:  # too few changes to learn from: a plain monthly rate
        rate = (y @ w + 0.5) / (w.sum() + 1.0) if len(y) else 0.5
        coef = np.zeros(width)
        coef[-1] = 1.0  # ln P ≈ ln(rate·h) while small
        return Hazard(np.zeros(width), np.ones(width), coef, float(np.log(rate / (1 - rate))))
    center = np.average(x, axis=0, weights=w)
    scale = np.sqrt(np.average((x - center) ** 2, axis=0, weights=w))
    scale = np.where(scale > 0, scale, 1.0)
    z = (x - center) / scale

    def loss(params):
        eta = params[0] + z @ params[1:]
        p = 1.0 / (1.0 + np.exp(-eta))
        value = np.sum(w * (np.logaddexp(0.0, eta) - y * eta)) + 0.5 * L2_PENALTY * params[1:] @ params[1:]
        residual = w * (p - y)
        return value, np.r_[residual.sum(), z.T @ residual + L2_PENALTY * params[1:]]

    start = np.zeros(width + 1)
    start[0] = np.log((y @ w) / (w.sum() - y @ w))
    fitted = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 1000, "gtol": 1e-9})
    return Hazard(center, scale, fitted.x[1:], float(fitted.x[0]))


@dataclass(frozen=True)
class ChangeLaw:
    """A discrete law of the ratio new/old of a change: `ratios` ascending, `weights` summing to 1."""

    ratios: np.ndarray
    weights: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.ratios @ self.weights)

    @property
    def log_mean(self) -> float:
        return float(np.log(self.ratios) @ self.weights)

    @property
    def log_std(self) -> float:
        return float(np.sqrt(np.maximum((np.log(self.ratios) - self.log_mean) ** 2 @ self.weights, 0.0)))

    def quantile(self, probability: float) -> float:
        return float(self.ratios[min(np.searchsorted(np.cumsum(self.weights), probability - 1e-12),
                                     len(self.ratios) - 1)])


NO_CHANGE = ChangeLaw(np.array([1.0]), np.array([1.0]))  # a history with no change at all


def _law(ratios: np.ndarray, weights: np.ndarray) -> ChangeLaw:
    order = np.argsort(ratios, kind="stable")
    return ChangeLaw(ratios[order], weights[order] / weights.sum())


def _mixed(cuts: ChangeLaw, rises: ChangeLaw, rise_share: float) -> ChangeLaw:
    return _law(np.r_[cuts.ratios, rises.ratios], np.r_[(1 - rise_share) * cuts.weights, rise_share * rises.weights])


def fit_change_laws(panel: pd.DataFrame, as_of: date) -> tuple[dict[str, ChangeLaw], dict[str, float]]:
    """The change law of each evidence group (ROSE, NEVER_ROSE) from the one-month windows of
    `panel` with a change, and each group's prior weight (the share of its rise chance that is
    the pooled one: SHRINK_CHANGES over its weighted changes plus SHRINK_CHANGES)."""
    changed = panel[panel["changed"].astype(bool)]
    rose = changed["family_rose"].to_numpy(bool)
    ratios, weights = changed["ratio"].to_numpy(float), recency_weights(changed["anchor"], as_of)
    prior = {group: SHRINK_CHANGES / (weights[members].sum() + SHRINK_CHANGES)
             for group, members in ((ROSE, rose), (NEVER_ROSE, ~rose))}
    up = ratios > 1
    if changed.empty:
        return {ROSE: NO_CHANGE, NEVER_ROSE: NO_CHANGE}, prior
    if not up.any() or up.all():  # one direction only: nothing to mix
        law = _law(ratios, weights)
        return {ROSE: law, NEVER_ROSE: law if law.mean <= 1 else NO_CHANGE}, prior
    rises, cuts = _law(ratios[up], weights[up]), _law(ratios[~up], weights[~up])
    pooled = float(weights[up].sum() / weights.sum())
    laws = {}
    for group, members in ((ROSE, rose), (NEVER_ROSE, ~rose)):
        share = (1 - prior[group]) * weights[members & up].sum() / max(weights[members].sum(), 1e-300) \
            + prior[group] * pooled
        laws[group] = _mixed(cuts, rises, share)
        if group == NEVER_ROSE:  # no evidence of a rise: the mean held at or below no change
            share = min(share, (1.0 - cuts.mean) / (rises.mean - cuts.mean))
            while (law := _mixed(cuts, rises, share)).mean > 1.0:  # to the last bit of rounding
                share = np.nextafter(share, 0.0)
            laws[group] = law
    return laws, prior


def change_by_month(hazard: Hazard, histories: Histories, tickers, as_of: date,
                    months: int = HORIZON_MONTHS) -> np.ndarray:
    """P(a change by the end of month k), k = 1 … `months` after `as_of`, for each ticker (shape
    (len(tickers), months)), from what is known on `as_of`; never decreasing in k."""
    tickers = np.atleast_1d(np.asarray(tickers, dtype=object))
    features = histories.features(tickers, np.array([as_of], dtype="datetime64[D]"))
    ahead = features.loc[np.repeat(np.arange(len(tickers)), months)]
    chance = hazard.chance(ahead, np.tile(np.arange(1, months + 1), len(tickers))).reshape(len(tickers), months)
    return np.maximum.accumulate(chance, axis=1)


def chance_at(by_month: np.ndarray, months) -> np.ndarray:
    """P(a change by each horizon) from `change_by_month` (one row, or one per ticker), log-linear
    in the survival between whole months (a constant hazard within each month). Shape: the rows
    of `by_month`, then one per horizon."""
    h = np.atleast_1d(np.asarray(months, dtype=float))
    survival = 1.0 - np.asarray(by_month, dtype=float)
    survival = np.concatenate([np.ones(survival.shape[:-1] + (1,)), survival], axis=-1)
    whole = np.clip(np.floor(h).astype(int), 0, survival.shape[-1] - 2)
    before, after = survival[..., whole], survival[..., whole + 1]
    step = np.divide(after, before, out=np.zeros_like(after), where=before > 0)
    return 1.0 - before * step ** (h - whole)


# The mixture of the atom at 1 (weight 1 − P) and the change law (weight P), in units of S_h.

def mixture_mean(p_change, law: ChangeLaw) -> np.ndarray:
    """E[R_h] of one law at each chance of change (`mean_ratio`)."""
    return mean_ratio(p_change, law.mean)


def mean_ratio(p_change, law_mean) -> np.ndarray:
    """E[R_h] = 1 + P_h·(m − 1), elementwise: written so, a law whose mean is at most 1 never
    gives more than 1."""
    return 1.0 + np.asarray(p_change, dtype=float) * (np.asarray(law_mean, dtype=float) - 1.0)


def _atoms(law: ChangeLaw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mixture's support (the law's ratios and 1), the law's cumulative weight at each, and
    whether each is at or above 1 (where the atom's weight has been added)."""
    support = np.unique(np.r_[law.ratios, 1.0])
    law_cdf = np.array([law.weights[law.ratios <= x].sum() for x in support])
    return support, law_cdf, support >= 1.0


def mixture_quantiles(p_change, law: ChangeLaw, probabilities) -> np.ndarray:
    """Quantiles of R_h, shape (len(p_change), len(probabilities)): the least ratio whose
    cumulative weight reaches each probability."""
    p = np.atleast_1d(np.asarray(p_change, dtype=float))[:, None]
    support, law_cdf, above = _atoms(law)
    cdf = p * law_cdf[None, :] + (1.0 - p) * above[None, :]  # (n, atoms)
    out = np.empty((p.shape[0], len(probabilities)))
    for j, q in enumerate(probabilities):
        out[:, j] = support[np.argmax(cdf >= q - 1e-12, axis=1)]
    return out


def mixture_cdf(p_change, law: ChangeLaw, x) -> tuple[np.ndarray, np.ndarray]:
    """(F(x−), F(x)) of R_h at each x, for each row (x and p_change of one length)."""
    p, x = np.asarray(p_change, dtype=float), np.asarray(x, dtype=float)
    below = (law.ratios[None, :] < x[:, None]) @ law.weights
    upto = (law.ratios[None, :] <= x[:, None]) @ law.weights
    return p * below + (1 - p) * (x > 1.0), p * upto + (1 - p) * (x >= 1.0)


def mixture_crps(p_change, law: ChangeLaw, x) -> np.ndarray:
    """The CRPS of R_h at each outcome x (in units of S_h): E|R − x| − ½ E|R − R'|."""
    p, x = np.asarray(p_change, dtype=float), np.asarray(x, dtype=float)
    to_outcome = (1 - p) * np.abs(1.0 - x) + p * (np.abs(law.ratios[None, :] - x[:, None]) @ law.weights)
    law_to_one = float(np.abs(law.ratios - 1.0) @ law.weights)
    law_spread = float(law.weights @ np.abs(law.ratios[:, None] - law.ratios[None, :]) @ law.weights)
    return to_outcome - 0.5 * (2 * (1 - p) * p * law_to_one + p**2 * law_spread)


def sample_ratios(by_month: np.ndarray, law: ChangeLaw, horizons, paths: int, rng: np.random.Generator) -> np.ndarray:
    """R at each horizon (months, increasing) on each path, shape (paths, len(horizons)): a time
    of change drawn from the hazard (inverting the survival of `chance_at`), and one ratio from
    the law. The draws: first the uniforms of the times, then the law's ratios."""
    grid = np.asarray(horizons, dtype=float)
    survival_draw = rng.random(paths)
    ratio = law.ratios[np.minimum(np.searchsorted(np.cumsum(law.weights), rng.random(paths), side="right"),
                                  len(law.ratios) - 1)]
    changed_by = chance_at(by_month, grid)[None, :] >= 1.0 - survival_draw[:, None]  # S(t) ≤ u: changed by t
    return np.where(changed_by, ratio[:, None], 1.0)


def decay_rate(expected_ratio_at_horizon):
    """θ: the average decay per month a law implies over HORIZON_MONTHS, from E[R] at that horizon
    (positive: expected to fall)."""
    return -np.log(expected_ratio_at_horizon) / HORIZON_MONTHS + 0.0  # + 0.0: never −0


def _check_chances(chances: np.ndarray) -> None:
    """Chances of change by month (the last axis) must be probabilities that never fall."""
    good = ((np.isfinite(chances) & (chances >= 0) & (chances <= 1)).all(axis=-1)
            & (np.diff(chances, axis=-1) >= 0).all(axis=-1))
    if not good.all():
        bad = chances if chances.ndim == 1 else chances[~good][0]
        raise ValueError(f"chances of change must be probabilities that never fall, got {bad.tolist()}")


def _check_law(law: ChangeLaw) -> None:
    if not (np.isfinite(law.ratios).all() and (law.ratios > 0).all() and abs(float(law.weights.sum()) - 1.0) < 1e-9):
        raise ValueError("a change law needs positive ratios and weights summing to 1")


@dataclass(frozen=True)
class Process:
    """The fitted law of one ticker and mode: P(a change by the end of month k), k = 1 … 12, and
    the change law. Every consumer (forward curves, quotes, swap, Monte Carlo, budgets) reads it."""

    by_month: np.ndarray
    law: ChangeLaw

    def __post_init__(self) -> None:
        _check_chances(np.asarray(self.by_month, dtype=float))
        _check_law(self.law)

    def p_change(self, months) -> np.ndarray:
        return chance_at(self.by_month, months)

    def expected_ratio(self, months) -> np.ndarray:
        """E[R_h]: the forward over the scheduled price at each horizon."""
        return mixture_mean(self.p_change(months), self.law)

    def quantiles(self, months, probabilities) -> np.ndarray:
        """Quantiles of R_h, shape (len(months), len(probabilities))."""
        return mixture_quantiles(self.p_change(months), self.law, probabilities)

    def sample(self, horizons, paths: int, rng: np.random.Generator) -> np.ndarray:
        return sample_ratios(self.by_month, self.law, horizons, paths, rng)

    @property
    def theta(self) -> float:
        return float(decay_rate(self.expected_ratio(HORIZON_MONTHS)[0]))


def stack_laws(processes: list[Process | None]) -> tuple[np.ndarray, np.ndarray]:
    """The chances of change by month of `processes`, a row each, and their change laws' means,
    NaN where a process is None: every forward of them read at once."""
    width = next((len(p.by_month) for p in processes if p is not None), HORIZON_MONTHS)
    by_month = np.array([p.by_month if p is not None else np.full(width, np.nan) for p in processes])
    return by_month.reshape(-1, width), np.array([p.law.mean if p is not None else np.nan for p in processes])


PROCESS_COLUMNS = ["ticker", "mode", "months", "p_change", "change_law", "rise_evidence"]
LAW_COLUMNS = ["change_law", "ratio", "weight", "prior_weight"]


def fit_sample(tickers: list[str], limit: int = MAX_FIT_MODELS) -> list[str]:
    """Every ticker, or past `limit` the `limit` with the lowest CRC-32 of their name."""
    if len(tickers) <= limit:
        return list(tickers)
    return sorted(sorted(tickers, key=lambda t: (zlib.crc32(t.encode()), t))[:limit])


@dataclass(frozen=True)
class FittedLaw:
    """What the history teaches on one date: the hazard, and the change law of each evidence group."""

    hazard: Hazard
    laws: dict[str, ChangeLaw]
    prior_weights: dict[str, float]  # per evidence group: the weight of the pooled share of rises in its law
    base_rates: dict[float, float]  # per horizon: the share of the history's windows with a change

    @classmethod
    def fit(cls, histories: Histories, as_of: date) -> FittedLaw:
        panel = window_panel(histories, as_of, PANEL_HORIZONS, fit_sample(histories.tickers))
        laws, prior_weights = fit_change_laws(panel[panel["months"] == 1], as_of)
        base_rates = {float(h): float(rows["changed"].mean()) for h, rows in panel.groupby("months")}
        return cls(fit_hazard(panel, as_of), laws, prior_weights, base_rates)

    def groups(self, histories: Histories, tickers, as_of: date) -> np.ndarray:
        """The evidence group (the change law's name) of each ticker on `as_of`."""
        rose = histories.family_rose(tickers, np.array([as_of], dtype="datetime64[D]"))
        return np.where(rose, ROSE, NEVER_ROSE).astype(object)

    def process(self, histories: Histories, ticker: str, as_of: date) -> Process:
        group = self.groups(histories, [ticker], as_of)[0]
        return Process(change_by_month(self.hazard, histories, [ticker], as_of)[0], self.laws[group])


def build_processes(histories: Histories, fitted: FittedLaw, modes: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The long table of processes (PROCESS_COLUMNS): for each (ticker, mode) of `modes` whose
    ticker has a sync history, P(a change by the end of each month 1 … 12), its change law, and
    the family's latest rise behind a `family_rose` law ("TICKER on DATE"; "" where none).
    Every mode of a model follows its sync price's law: batch prices move with sync ones."""
    wanted = modes[modes["ticker"].isin(histories.index)][["ticker", "mode"]].drop_duplicates()
    tickers = wanted["ticker"].to_numpy(dtype=object)
    by_month = change_by_month(fitted.hazard, histories, tickers, as_of)
    months = by_month.shape[1]
    frame = pd.DataFrame({
        "ticker": np.repeat(tickers, months), "mode": np.repeat(wanted["mode"].to_numpy(dtype=object), months),
        "months": np.tile(np.arange(1, months + 1, dtype=float), len(tickers)), "p_change": by_month.reshape(-1),
        "change_law": np.repeat(fitted.groups(histories, tickers, as_of), months),
        "rise_evidence": np.repeat(np.array(histories.last_family_rise(tickers, np.datetime64(as_of, "D")),
                                            dtype=object), months),
    }, columns=PROCESS_COLUMNS)
    return frame.sort_values(["ticker", "mode", "months"], kind="stable").reset_index(drop=True)


def build_change_laws(fitted: FittedLaw) -> pd.DataFrame:
    """The change law of each evidence group (LAW_COLUMNS): its ratios and their weights, and the
    group's prior weight on every row."""
    rows = [(name, float(r), float(w), fitted.prior_weights[name]) for name, law in sorted(fitted.laws.items())
            for r, w in zip(law.ratios, law.weights, strict=True)]
    return pd.DataFrame(rows, columns=LAW_COLUMNS)


def read_laws(change_laws: pd.DataFrame) -> dict[str, ChangeLaw]:
    return {name: ChangeLaw(rows["ratio"].to_numpy(float), rows["weight"].to_numpy(float))
            for name, rows in change_laws.groupby("change_law", sort=True)}


@dataclass(frozen=True)
class ProcessTable:
    """Every process of the two published tables at once, for the consumers that read them all
    (forward curves, the Greek sheet): row i is the Process of (tickers[i], modes[i]), ordered by
    ticker then mode, its chances of change a row of `by_month` and its change law `law_names[i]`.
    One row at a time the same sums cost a Python object per process: minutes for 100,000."""

    tickers: np.ndarray
    modes: np.ndarray
    by_month: np.ndarray  # (processes, months)
    law_names: np.ndarray
    laws: dict[str, ChangeLaw]

    @classmethod
    def read(cls, processes: pd.DataFrame, change_laws: pd.DataFrame) -> ProcessTable:
        laws = read_laws(change_laws)
        ordered = processes.sort_values(["ticker", "mode", "months"], kind="stable")
        sizes = ordered.groupby(["ticker", "mode"], sort=False).size().to_numpy()
        months = int(sizes[0]) if len(sizes) else HORIZON_MONTHS
        if (sizes != months).any():
            raise ValueError(f"every process needs the same number of months, got {sorted(set(sizes.tolist()))}")
        first = ordered.iloc[::months]
        table = cls(first["ticker"].to_numpy(object), first["mode"].to_numpy(object),
                    ordered["p_change"].to_numpy(float).reshape(-1, months), first["change_law"].to_numpy(object),
                    laws)
        _check_chances(table.by_month)
        for law in laws.values():
            _check_law(law)
        if unknown := set(table.law_names) - set(laws):
            raise ValueError(f"processes name change laws that change_laws lacks: {sorted(unknown)}")
        return table

    def subset(self, rows: np.ndarray) -> ProcessTable:
        return ProcessTable(self.tickers[rows], self.modes[rows], self.by_month[rows], self.law_names[rows], self.laws)

    def processes(self) -> dict[tuple[str, str], Process]:
        return {(ticker, mode): Process(by_month, self.laws[name])
                for ticker, mode, by_month, name in zip(self.tickers, self.modes, self.by_month, self.law_names,
                                                         strict=True)}

    def p_change(self, months) -> np.ndarray:
        """P(a change by each horizon), shape (processes, horizons)."""
        return chance_at(self.by_month, months)

    def per_law(self, months, figure) -> np.ndarray:
        """`figure(p, law)` over the rows of each change law, p the rows' chances at `months`
        flattened (as one Process gives it for its own horizons), stacked back row by row."""
        p = self.p_change(months)
        out = None
        for name, law in self.laws.items():
            rows = self.law_names == name
            if not rows.any():
                continue
            values = np.asarray(figure(p[rows].reshape(-1), law))
            values = values.reshape(int(rows.sum()), p.shape[1], *values.shape[1:])
            if out is None:
                out = np.empty((len(p),) + values.shape[1:])
            out[rows] = values
        return np.empty((0, p.shape[1])) if out is None else out

    def expected_ratio(self, months) -> np.ndarray:
        """E[R_h] of each process at each horizon, as `Process.expected_ratio`."""
        return self.per_law(months, mixture_mean)

    def quantiles(self, months, probabilities) -> np.ndarray:
        """Quantiles of R_h, shape (processes, horizons, probabilities), as `Process.quantiles`."""
        return self.per_law(months, lambda p, law: mixture_quantiles(p, law, probabilities))


def read_processes(processes: pd.DataFrame, change_laws: pd.DataFrame) -> dict[tuple[str, str], Process]:
    """(ticker, mode) → its Process, from the two published tables."""
    return ProcessTable.read(processes, change_laws).processes()
