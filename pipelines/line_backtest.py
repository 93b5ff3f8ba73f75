"""Walk-forward backtest of line forwards (`pipelines.line_forwards`), against flat and against
the fixed model's own forecast.

At each monthly anchor (`backtest.anchor_dates`) everything is as known then: the lines and
their current models (`lines.build_lines`, `line_forwards.current_members`), the succession
rate and law (`succession_rates`, `succession_law`), and the current model's own law fitted on
the statements published by then (`backtest.forecasts_at`). At 1, 3 and 6 months the line's
price is forecast three ways, each a discrete law of the ratio to the current model's spot:

- `line`: the current model's law times a successor that arrives with probability
  1 − exp(−λ·h) (forced by an announced retirement) and is priced by the succession law;
- `fixed`: the current model's law alone (the successor never comes);
- `flat`: the spot stays.

The outcome is the sync β, on the target date, of the line's current model then (as the lines
read on that day), and whether a successor had arrived. Scores, all in units of the spot: the
error of the mean, the CRPS of the law (exact for a step CDF), the randomised PIT's share in the
90% band (`backtest.band_share`), and the Brier score of the chance a successor arrives (`line`;
`fixed` and `flat` say no successor). Standard errors are by a block bootstrap over lines.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.backtest import BAND, band_share, target_date
from pipelines.forecast import ChangeLaw
from pipelines.line_forwards import mixture_atoms, product_atoms, successor_chance

LINE_TENORS = {"1M": 1, "3M": 3, "6M": 6}
LINE_METHODS = ("line", "fixed", "flat")
CASE_COLUMNS = ["anchor", "line", "maker", "tenor", "months", "target_date", "current", "spot", "successor",
                "arrived", "realised", "method", "forecast", "p_successor", "rel_error", "crps", "covered"]


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
    """The mean, CRPS and band share of one law of the ratio at the realised ratio `x`."""
    values, weights = atoms
    low, high = pit_bounds(values, weights, x)
    return {"forecast": float(np.dot(values, weights)), "crps": step_crps(values, weights, x),
            "covered": float(band_share(np.array([low]), np.array([high]), BAND)[0])}


def line_cases(anchor: date, current: pd.DataFrame, rates: pd.DataFrame, succession: ChangeLaw,
               fixed: pd.DataFrame, laws: dict[str, ChangeLaw], outcome) -> list[dict]:
    """Every scored case of one anchor. `current`: each line's current member then
    (`current_members`); `rates`: `succession_rates` then, by line; `fixed`: the oracle rows of
    `forecasts_at` (ticker, tenor, spot, p_change, change_law); `outcome(line, day)`: the line's
    current ticker and its sync β on `day`, or None where either is unknown."""
    oracle = fixed.set_index(["ticker", "tenor"])
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
            retires_on = None if pd.isna(member.retired_on) else pd.Timestamp(member.retired_on).date()
            ps = float(successor_chance(float(rates.loc[member.line, "rate"]), months, retires_on, anchor))
            own = mixture_atoms(float(row["p_change"]), laws[row["change_law"]])
            laws_of = {"line": product_atoms(own, mixture_atoms(ps, succession)), "fixed": own,
                       "flat": (np.ones(1), np.ones(1))}
            arrived = successor != member.ticker
            for method, atoms in laws_of.items():
                scored = score_case(atoms, realised / spot)
                cases.append({"anchor": anchor, "line": member.line, "maker": member.maker, "tenor": tenor,
                              "months": months, "target_date": day, "current": member.ticker, "spot": spot,
                              "successor": successor, "arrived": arrived, "realised": realised, "method": method,
                              "forecast": scored["forecast"] * spot, "p_successor": ps if method == "line" else 0.0,
                              "rel_error": scored["forecast"] - realised / spot, "crps": scored["crps"],
                              "covered": scored["covered"]})
    return cases


def _figures(cases: pd.DataFrame) -> dict[str, float]:
    return {"rel_rmse": float(np.sqrt(np.mean(cases["rel_error"] ** 2))), "crps": float(cases["crps"].mean()),
            "coverage": float(cases["covered"].mean()),
            "brier": float(np.mean((cases["p_successor"] - cases["arrived"].astype(float)) ** 2))}


def line_scorecard(cases: pd.DataFrame, draws: int = 1000, seed: int = 0) -> pd.DataFrame:
    """Per tenor and method: n, lines, the share of cases a successor arrived in, relative RMSE,
    CRPS, band coverage and Brier; and the line-block bootstrap standard errors of `line`'s CRPS
    and RMSE gaps to `flat` and to `fixed`."""
    rows = []
    rng = np.random.default_rng(seed)
    for tenor in LINE_TENORS:
        at = cases[cases["tenor"] == tenor]
        lines = np.array(sorted(at["line"].unique()))
        blocks = {method: {line: part for line, part in at[at["method"] == method].groupby("line")}
                  for method in LINE_METHODS}
        picks = rng.integers(0, len(lines), size=(draws, len(lines))) if len(lines) > 1 else None
        gaps: dict[str, list[float]] = {f"{m}_{b}": [] for m in ("crps", "rmse") for b in ("flat", "fixed")}
        for pick in picks if picks is not None else []:
            drawn = {method: pd.concat([blocks[method][line] for line in lines[pick]]) for method in LINE_METHODS}
            figures = {method: _figures(frame) for method, frame in drawn.items()}
            for base in ("flat", "fixed"):
                gaps[f"crps_{base}"].append(figures["line"]["crps"] - figures[base]["crps"])
                gaps[f"rmse_{base}"].append(figures["line"]["rel_rmse"] - figures[base]["rel_rmse"])
        for method in LINE_METHODS:
            mine = at[at["method"] == method]
            rows.append({"tenor": tenor, "method": method, "n": len(mine), "lines": len(lines),
                         "arrived_share": float(mine["arrived"].mean()), **_figures(mine),
                         **({f"{name}_gap_se": float(np.std(values)) if values else float("nan")
                             for name, values in gaps.items()} if method == "line" else {})})
    return pd.DataFrame(rows)
