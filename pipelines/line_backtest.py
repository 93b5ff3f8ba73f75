"""Walk-forward backtest of line forwards (`pipelines.line_forwards`), against flat and against
the fixed model's own forecast (methodology §9, "Line forwards, scored walk-forward").

At each monthly anchor (`backtest.anchor_dates`) everything is as known then: the lines and
their current models (`lines.build_lines`, `line_forwards.current_members`), the succession
rate and law (`succession_rates`, `succession_law`), and the current model's own law fitted on
the statements published by then (`backtest.forecasts_at`). At 1, 3 and 6 months the line's
price is forecast three ways, each a discrete law of the ratio to the current model's spot:

- `line`: the current model's law times a successor that arrives with probability
  1 − exp(−λ·h) (forced by an announced retirement) and is priced by the succession law;
- `fixed`: the current model's law alone (the successor never comes);
- `flat`: the spot stays.

The outcome is what happened: the sync β, on the target date, of the model the line offered
then (its current model on that day in the lines as built today), and whether that is a
successor. Scores, all in units of the spot: the error of the mean, the log-ratio of the mean
and the absolute error of the median, the CRPS of the law (exact for a step CDF), the randomised
PIT's share in the 90% band (`backtest.band_share`), and the Brier score of the chance a
successor arrives (`line`; `fixed` and `flat` say no successor; the base rate is every line's
pooled rate then, `line_forwards.pooled_rate`). `line_accuracy` gives the scorecard rows of the
`accuracy` table (scope `line`), with standard errors by a block bootstrap over lines.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import numpy as np
import pandas as pd

from pipelines.backtest import BAND, TENOR_MONTHS, Anchors, band_share, target_date
from pipelines.change_panel import REVISIONS
from pipelines.days import as_day
from pipelines.forecast import ChangeLaw
from pipelines.line_forwards import (
    atom_quantiles,
    current_members,
    mixture_atoms,
    pooled_rate,
    product_atoms,
    succession_law,
    succession_rates,
    successor_chance,
)
from pipelines.lines import lines_from_prices, observed_sync_prices
from pipelines.registry import Rules
from pipelines.scorecard import (
    VERSUS,
    accuracy_frame,
    bootstrap_draws,
    mean_gap_se,
    metrics_of,
    rmse_gap_se,
    standing,
    versus,
)

LINE_TENORS = TENOR_MONTHS  # scored at the model backtest's tenors
LINE_METHODS = ("line", "fixed", "flat")
LINE_SCOPE = "line"
CASE_COLUMNS = ["anchor", "line", "maker", "tenor", "months", "target_date", "current", "spot", "successor",
                "arrived", "realised", "method", "forecast", "median", "p_successor", "p_base", "rel_error",
                "log_error", "ape", "crps", "covered"]
# What happened on a day on a line: the model it offered then and that model's sync β, or None.
Outcome = Callable[[str, date], "tuple[str, float] | None"]


def step_crps(values: np.ndarray, weights: np.ndarray, x: float) -> float:
    """CRPS of a discrete law at `x`: ∫ (F(z) − 1{z ≥ x})² dz, exactly, F a step function."""
    order = np.argsort(values, kind="stable")
    values, cdf = values[order], np.cumsum(weights[order])
    points = np.sort(np.r_[values, x])
    f = np.r_[0.0, cdf][np.searchsorted(values, points[:-1], side="right")]  # F on each [z_k, z_k+1)
    h = (points[:-1] >= x).astype(float)
    return float(np.sum((f - h) ** 2 * np.diff(points)))


def pit_bounds(values: np.ndarray, weights: np.ndarray, x: float, tolerance: float = 1e-9) -> tuple[float, float]:
    """(P(X < x), P(X ≤ x)), an atom within `tolerance` (relative) of x counted at x."""
    at = np.abs(values - x) <= tolerance * max(abs(x), 1.0)
    below = float(weights[(values < x) & ~at].sum())
    return below, below + float(weights[at].sum())


def score_case(atoms: tuple[np.ndarray, np.ndarray], x: float) -> dict[str, float]:
    """The mean, median, CRPS and band share of one law of the ratio at the realised ratio `x`."""
    values, weights = atoms
    low, high = pit_bounds(values, weights, x)
    return {"forecast": float(np.dot(values, weights)),
            "median": float(atom_quantiles(atoms, (0.5,))[0]),
            "crps": step_crps(values, weights, x),
            "covered": float(band_share(np.array([low]), np.array([high]), BAND)[0])}


def line_cases(anchor: date, current: pd.DataFrame, rates: pd.DataFrame, succession: ChangeLaw,
               fixed: pd.DataFrame, laws: dict[str, ChangeLaw], outcome: Outcome) -> list[dict]:
    """Every scored case of one anchor (CASE_COLUMNS). `current`: each line's current member then
    (`current_members`); `rates`: `succession_rates` then, by line; `fixed`: the oracle rows of
    `forecasts_at` (ticker, tenor, spot, p_change, change_law); `outcome`: what happened."""
    oracle = fixed.set_index(["ticker", "tenor"])
    pooled = pooled_rate(rates)
    cases = []
    for member in current.itertuples():
        for tenor, months in LINE_TENORS.items():
            if (member.ticker, tenor) not in oracle.index:
                continue
            row = oracle.loc[(member.ticker, tenor)]
            spot, day = float(row["spot"]), target_date(anchor, months)
            seen = outcome(member.line, day)
            if seen is None or not spot > 0:
                continue
            successor, realised = seen
            retires_on = as_day(member.retired_on)
            ps = float(successor_chance(float(rates.loc[member.line, "rate"]), months, retires_on, anchor))
            own = mixture_atoms(float(row["p_change"]), laws[row["change_law"]])
            laws_of = {"line": product_atoms(own, mixture_atoms(ps, succession)), "fixed": own,
                       "flat": (np.ones(1), np.ones(1))}
            ratio = realised / spot
            for method, atoms in laws_of.items():
                scored = score_case(atoms, ratio)
                cases.append({"anchor": anchor, "line": member.line, "maker": member.maker, "tenor": tenor,
                              "months": float(months), "target_date": day, "current": member.ticker, "spot": spot,
                              "successor": successor, "arrived": successor != member.ticker, "realised": realised,
                              "method": method, "forecast": scored["forecast"] * spot,
                              "median": scored["median"] * spot, "p_successor": ps if method == "line" else 0.0,
                              "p_base": float(1.0 - np.exp(-pooled * months)),
                              "rel_error": scored["forecast"] - ratio, "log_error": float(np.log(scored["forecast"]
                                                                                                / ratio)),
                              "ape": abs(scored["median"] - ratio) / ratio * 100, "crps": scored["crps"],
                              "covered": scored["covered"]})
    return cases


def run_line_backtest(anchors: Anchors, observed: pd.DataFrame, realised: pd.Series, models: pd.DataFrame,
                      rules: Rules, as_of: date) -> pd.DataFrame:
    """Every case (CASE_COLUMNS) of every anchor (`Anchors.known`, read once with the model
    backtest's) whose shortest tenor ends by `as_of`. `observed`: the price history's observed
    rows (as `build_lines` reads them); `realised`: the sync β by (ticker, date) on the days scored."""
    prices = observed_sync_prices(observed, as_of)  # read once; each anchor keeps what was observed by then
    lines_now, offered_on = lines_from_prices(models, prices, as_of), {}

    def outcome(line: str, day: date) -> tuple[str, float] | None:
        if day > as_of:
            return None
        if day not in offered_on:  # the model each line offered that day, as the lines read today
            offered_on[day] = current_members(lines_now, day).set_index("line")["ticker"]
        offered = offered_on[day]
        if line not in offered.index:
            return None
        price = realised.get((offered[line], day))
        return None if price is None or not price > 0 else (offered[line], float(price))

    cases = []
    for anchor in anchors.dates:
        if target_date(anchor, min(LINE_TENORS.values())) > as_of:
            break
        forecasts, laws = anchors.forecasts(anchor, models, rules)
        lines = lines_from_prices(models, prices, anchor)
        cases += line_cases(anchor, current_members(lines, anchor), succession_rates(lines, anchor).set_index("line"),
                            succession_law(lines, anchor), forecasts[forecasts["method"] == "oracle"], laws, outcome)
    return pd.DataFrame(cases, columns=CASE_COLUMNS)


METRIC_COLUMNS = {"changed": "arrived", "rel_error": "rel_error", "log_error": "log_error", "ape": "ape",
                  "crps": "crps", "p_change": "p_successor", "covered": "covered"}


def _metrics(cases: pd.DataFrame) -> dict[str, float]:
    """`scorecard.metrics_of` of line cases: the event a chance is given for is a successor arriving."""
    return metrics_of({name: cases[column].to_numpy(dtype=float) for name, column in METRIC_COLUMNS.items()})


def _per_line(at: pd.DataFrame) -> pd.DataFrame:
    """Per line, the sums the bootstrap resamples: each method's squared errors, CRPS, and the
    line forward's Brier, the base rate's Brier and band share."""
    by = {method: at[at["method"] == method].set_index(["anchor", "line"]).sort_index() for method in LINE_METHODS}
    line = by["line"]
    arrived = line["arrived"].astype(float)
    cases = pd.DataFrame({
        "n": 1.0, "brier": (line["p_successor"] - arrived) ** 2, "brier_base": (line["p_base"] - arrived) ** 2,
        "covered": line["covered"],
        **{f"se{suffix}": by[method]["rel_error"] ** 2 for method, suffix in (("line", ""), ("flat", "_flat"),
                                                                                ("fixed", "_fixed"))},
        **{f"crps{suffix}": by[method]["crps"] for method, suffix in (("line", ""), ("flat", "_flat"),
                                                                        ("fixed", "_fixed"))},
    })
    return cases.groupby(level="line").sum()


def _ses(at: pd.DataFrame, seed: int) -> dict[str, float]:
    names = ("rel_rmse_gap_se", "crps_gap_se", "rel_rmse_fixed_gap_se", "crps_fixed_gap_se", "brier_gap_se",
             "coverage_se")
    sums = _per_line(at)
    if len(sums) < 2:
        return dict.fromkeys(names, np.nan)
    col = bootstrap_draws(sums, seed)
    return dict(zip(names, (rmse_gap_se(col, "se", "se_flat"), mean_gap_se(col, "crps", "crps_flat"),
                            rmse_gap_se(col, "se", "se_fixed"), mean_gap_se(col, "crps", "crps_fixed"),
                            mean_gap_se(col, "brier", "brier_base"), mean_gap_se(col, "covered")), strict=True))


def line_accuracy(cases: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """The `accuracy` table's rows of scope `line`, one per tenor: the line forward beside flat
    and the fixed model's own forecast, the Brier score of its chance of a successor beside the
    base rate's, line-block bootstrap standard errors and a verdict in words."""
    rows = []
    for tenor in LINE_TENORS:
        at = cases[cases["tenor"] == tenor]
        if at.empty:
            continue
        figures = {method: _metrics(at[at["method"] == method]) for method in LINE_METHODS}
        line = figures["line"]
        row = {"scope": LINE_SCOPE, "tenor": tenor, "n": line["n"], "blocks": int(at["line"].nunique()),
               "revisions_excluded": 0, **{f"excluded_{kind}": 0 for kind in REVISIONS},
               "changed_share": line["changed_share"], "brier": line["brier"],
               "brier_base": float(np.mean((at.loc[at["method"] == "line", "p_base"]
                                            - at.loc[at["method"] == "line", "arrived"].astype(float)) ** 2))}
        for metric in VERSUS:
            row[metric] = line[metric]
            row[f"{metric}_flat"], row[f"{metric}_fixed"] = figures["flat"][metric], figures["fixed"][metric]
        row.update(_ses(at, seed))
        row["verdict"] = line_verdict(row)
        rows.append(row)
    return accuracy_frame(rows)


def line_verdict(row: dict) -> str:
    """One sentence on the line forward at this tenor against flat and against the fixed model's
    own forecast: it beats one only where its CRPS is lower by more than one standard error."""
    flat = standing(row["crps"] - row["crps_flat"], row["crps_gap_se"])
    fixed = standing(row["crps"] - row["crps_fixed"], row["crps_fixed_gap_se"])
    parts = [
        versus("CRPS", row["crps"], row["crps_flat"], "flat", row["crps_gap_se"]),
        versus("CRPS", row["crps"], row["crps_fixed"], "the fixed model", row["crps_fixed_gap_se"]),
        versus("Brier score of a successor arriving", row["brier"], row["brier_base"], "the base rate",
               row["brier_gap_se"]),
        versus("relative RMSE of the mean", row["rel_rmse"], row["rel_rmse_flat"], "flat", row["rel_rmse_gap_se"]),
        f"the 90% band holds {100 * row['coverage']:.1f}% of outcomes (randomised PIT; flat's "
        f"{100 * row['coverage_flat']:.1f}%, the fixed model's {100 * row['coverage_fixed']:.1f}%)",
    ]
    return (f"At {row['tenor']} the line forward {flat} the flat forward and {fixed} the fixed model's own "
            f"forecast as a distribution: " + "; ".join(parts) + ".")
