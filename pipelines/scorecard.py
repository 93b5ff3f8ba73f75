"""The backtest's scorecard: what the scored predictions (`pipelines.backtest`) say, per tenor.

Every figure leaves out the cases flagged as revisions, and is given for every model (`all`) and
for fixed-name models only (`fixed_name`: no pointer, preview or unversioned name).

- relative RMSE and log-ratio RMSE of the mean forecast (the forward), MAPE and median APE of
  the median forecast (a mean always loses to the spot on absolute error when a change is
  unlikely: each forecast is scored with the loss it minimises);
- CRPS of the whole distribution, in units of the spot (proper, and it handles the atom);
- Brier score of `p_change` beside the base rate's (the share of windows of that length with a
  change in the history known at the anchor), and a reliability table;
- the randomised-PIT coverage of the 90% band (a calibrated forecast covers 90%; an atom counts
  fractionally, so "a band that holds the spot" no longer covers everything that did not move).

Standard errors are by a block bootstrap over tickers (BOOTSTRAP_DRAWS draws, seeded): one
model's cases share its luck across anchors and overlapping windows, so tickers, not cases or
anchors, are the independent units.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from pipelines.backtest import METHODS, TENOR_MONTHS
from pipelines.change_panel import REVISIONS

BOOTSTRAP_DRAWS = 1000
BOOTSTRAP_CHUNK_CELLS = 1_000_000  # resampled tickers held at once, summed per resample
SCOPES = ("all", "fixed_name")
RELIABILITY_EDGES = (0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)
SUMMARY_METRICS = ["n", "changed_share", "rel_rmse", "log_rmse", "mape", "median_ape", "bias", "crps", "brier",
                   "coverage"]


def scored(predictions: pd.DataFrame, scope: str = "all") -> pd.DataFrame:
    """The predictions a score reads: no revision, and in `scope`."""
    keep = ~predictions["revision"].astype(bool)
    if scope == "fixed_name":
        keep &= predictions["fixed_name"].astype(bool)
    return predictions[keep]


METRIC_INPUTS = ("changed", "rel_error", "log_error", "ape", "crps", "p_change", "covered")


def _metrics(rows: pd.DataFrame) -> dict[str, float]:
    return metrics_of({name: rows[name].to_numpy(dtype=float) for name in METRIC_INPUTS})


def metrics_of(columns: dict[str, np.ndarray]) -> dict[str, float]:
    """The metrics of one group's METRIC_INPUTS, as float arrays. Missing values are skipped, as
    pandas' mean and median skip them (numpy's nan-functions add in the same order)."""
    changed, rel_error = columns["changed"], columns["rel_error"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a group whose values are all missing: NaN
        return {
            "n": len(changed), "changed_share": float(np.nanmean(changed)),
            "rel_rmse": float(np.sqrt(np.nanmean(rel_error ** 2))),
            "log_rmse": float(np.sqrt(np.nanmean(columns["log_error"] ** 2))),
            "mape": float(np.nanmean(columns["ape"])), "median_ape": float(np.nanmedian(columns["ape"])),
            "bias": float(np.nanmean(rel_error) * 100), "crps": float(np.nanmean(columns["crps"])),
            "brier": float(np.nanmean((columns["p_change"] - changed) ** 2)),
            "coverage": float(np.nanmean(columns["covered"])),
        }


def summarise(predictions: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """SUMMARY_METRICS per group of `by` (every model, revisions left out)."""
    rows = scored(predictions)
    # Each group's rows taken from float arrays by position: a group as a frame costs
    # milliseconds, and a large universe has thousands of (family, tenor, method) groups.
    inputs = {name: rows[name].to_numpy(dtype=float) for name in METRIC_INPUTS}
    out = [{**dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
            **metrics_of({name: values[at] for name, values in inputs.items()})}
           for key, at in sorted(rows.groupby(by, sort=True).indices.items())]
    frame = pd.DataFrame(out, columns=[*by, *SUMMARY_METRICS])
    frame["n"] = frame["n"].astype("int64")
    return frame


def _per_ticker(rows: pd.DataFrame) -> pd.DataFrame:
    """Per ticker, the sums the bootstrap resamples: one row per (anchor, ticker) case, with each
    method's figures side by side."""
    wide = rows.pivot_table(index=["anchor", "ticker"], columns="method",
                            values=["rel_error", "crps", "p_change", "covered"], aggfunc="first")
    first = rows[rows["method"] == "oracle"].set_index(["anchor", "ticker"])
    changed = first["changed"].astype(float).reindex(wide.index)
    base = first["p_base"].reindex(wide.index)
    cases = pd.DataFrame({
        "n": 1.0,
        "se": wide[("rel_error", "oracle")] ** 2, "se_flat": wide[("rel_error", "flat")] ** 2,
        "crps": wide[("crps", "oracle")], "crps_flat": wide[("crps", "flat")],
        "brier": (wide[("p_change", "oracle")] - changed) ** 2, "brier_base": (base - changed) ** 2,
        "covered": wide[("covered", "oracle")],
    })
    return cases.groupby(level="ticker").sum()


def _resample_sums(table: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Each resample's column sums, a row of `picks` being the table rows one resample drew: how
    many times it drew each row, times the table. A product of matrices, two to three times faster
    than gathering every drawn row and adding them up (the sums agree to within rounding). numpy's
    own loops (`einsum`), not BLAS, so that a resample's sums do not depend on how many were drawn
    with it, nor on the machine's BLAS kernel."""
    resamples, rows = picks.shape
    counts = np.bincount((picks + rows * np.arange(resamples)[:, None]).ravel(), minlength=resamples * rows)
    return np.einsum("ij,jk->ik", counts.reshape(resamples, rows).astype(float), table)


def bootstrap_draws(sums: pd.DataFrame, seed: int = 0) -> dict[str, np.ndarray]:
    """Each of BOOTSTRAP_DRAWS resamples of the blocks (the rows of `sums`, each block's sums of
    its cases), drawn with replacement: per column of `sums`, the resampled totals."""
    rng, table = np.random.default_rng(seed), sums.to_numpy(dtype=float)
    # Drawn a few resamples at a time: all at once would hold draws × blocks integers (320 MB for
    # 40,000 tickers). The generator fills row after row, so the draws are the same.
    per_chunk = max(1, BOOTSTRAP_CHUNK_CELLS // len(table))
    chunks = [min(per_chunk, BOOTSTRAP_DRAWS - done) for done in range(0, BOOTSTRAP_DRAWS, per_chunk)]
    draws = np.concatenate([_resample_sums(table, rng.integers(0, len(table), size=(resamples, len(table))))
                            for resamples in chunks])
    return {name: draws[:, i] for i, name in enumerate(sums.columns)}


def rmse_gap_se(col: dict[str, np.ndarray], ours: str, theirs: str) -> float:
    """The standard error of a relative RMSE gap over the resamples (`col["n"]` cases each)."""
    return float(np.std(np.sqrt(col[ours] / col["n"]) - np.sqrt(col[theirs] / col["n"])))


def mean_gap_se(col: dict[str, np.ndarray], ours: str, theirs: str | None = None) -> float:
    """The standard error of a mean score (or of its gap to another) over the resamples."""
    gap = col[ours] - (col[theirs] if theirs else 0.0)
    return float(np.std(gap / col["n"]))


def bootstrap_ses(rows: pd.DataFrame, seed: int = 0) -> dict[str, float]:
    """Block-bootstrap standard errors over tickers of the oracle's gaps to flat (relative RMSE,
    CRPS), to the base rate (Brier), and of its coverage."""
    sums = _per_ticker(rows)
    if len(sums) < 2:
        return dict.fromkeys(("rel_rmse_gap_se", "crps_gap_se", "brier_gap_se", "coverage_se"), np.nan)
    col = bootstrap_draws(sums, seed)
    return {
        "rel_rmse_gap_se": rmse_gap_se(col, "se", "se_flat"),
        "crps_gap_se": mean_gap_se(col, "crps", "crps_flat"),
        "brier_gap_se": mean_gap_se(col, "brier", "brier_base"),
        "coverage_se": mean_gap_se(col, "covered"),
    }


VERSUS = ("rel_rmse", "log_rmse", "mape", "median_ape", "crps", "coverage", "bias")  # each beside the baselines
# A scope's baselines: the flat forward and the single-exponential one for a model's forecast;
# the flat forward and the fixed model's own forecast for a line forward (scope `line`,
# pipelines/line_backtest.py). A baseline a scope lacks is missing there.
BASELINES = ("_flat", "_single_exp", "_fixed")
ACCURACY_COLUMNS = [
    "scope", "tenor", "n", "blocks", "revisions_excluded", *(f"excluded_{kind}" for kind in REVISIONS),
    "changed_share", *(f"{metric}{suffix}" for metric in VERSUS for suffix in ("", *BASELINES)),
    "rel_rmse_gap_se", "crps_gap_se", "rel_rmse_fixed_gap_se", "crps_fixed_gap_se", "brier", "brier_base",
    "brier_gap_se", "coverage_se", "verdict",
]
COUNT_COLUMNS = ["n", "blocks", "revisions_excluded", *(f"excluded_{kind}" for kind in REVISIONS)]


def accuracy_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """The headline per scope and tenor: the oracle beside both baselines, with standard errors
    and a verdict in words (`verdict`)."""
    rows = []
    for scope in SCOPES:
        for tenor in TENOR_MONTHS:
            within = predictions[predictions["tenor"] == tenor]
            if scope == "fixed_name":
                within = within[within["fixed_name"].astype(bool)]
            kept = scored(within)
            if not (kept["method"] == "oracle").any():
                continue
            by_method = {m: _metrics(kept[kept["method"] == m]) for m in METHODS}
            oracle = by_method["oracle"]
            cases = within[within["method"] == "oracle"]
            row = {"scope": scope, "tenor": tenor, "n": oracle["n"],
                   "blocks": int(kept.loc[kept["method"] == "oracle", "ticker"].nunique()),
                   "revisions_excluded": int(len(cases) - oracle["n"]),
                   **{f"excluded_{kind}": int((cases["revision_kind"] == kind).sum()) for kind in REVISIONS},
                   "changed_share": oracle["changed_share"]}
            for metric in VERSUS:
                row[metric] = oracle[metric]
                for method in ("flat", "single_exp"):
                    row[f"{metric}_{method}"] = by_method[method][metric]
            row["brier"] = oracle["brier"]
            changed = kept.loc[kept["method"] == "oracle", "changed"].astype(float)
            row["brier_base"] = float(np.mean((kept.loc[kept["method"] == "oracle", "p_base"] - changed) ** 2))
            row.update(bootstrap_ses(kept))
            row["verdict"] = verdict(row)
            rows.append(row)
    return accuracy_frame(rows)


def accuracy_frame(rows: list[dict]) -> pd.DataFrame:
    """ACCURACY_COLUMNS of `rows`, a column a row lacks missing, the counts as integers."""
    frame = pd.DataFrame(rows, columns=ACCURACY_COLUMNS)
    frame[COUNT_COLUMNS] = frame[COUNT_COLUMNS].astype("int64")
    return frame


def versus(name: str, ours: float, theirs: float, against: str, se: float | None = None) -> str:
    gap = ours - theirs
    word = "below" if gap < 0 else "above" if gap > 0 else "equal to"
    text = f"{name} {ours:.5f}, {word} {against}'s {theirs:.5f}"
    if se is not None and np.isfinite(se):
        within = "within" if abs(gap) <= se else "beyond"
        text += f" ({within} one standard error, {se:.5f})"
    return text


def beyond(gap: float, se: float) -> bool:
    """Whether a gap to a baseline is beyond one standard error (a gap with no standard error is not)."""
    return bool(np.isfinite(se) and abs(gap) > se)


def standing(gap: float, se: float) -> str:
    """A forecast against a baseline, by its score's gap: it beats it or does worse only beyond
    one standard error."""
    return ("beats" if gap < 0 else "does worse than") if beyond(gap, se) else "is level with"


def verdict(row: dict) -> str:
    """One sentence on whether the forecast beats the flat forward at this tenor, and how: it
    beats it only where its CRPS is lower by more than one standard error."""
    lead = (f"At {row['tenor']} the forecast {standing(row['crps'] - row['crps_flat'], row['crps_gap_se'])} "
            "the flat forward as a distribution")
    parts = [
        versus("CRPS", row["crps"], row["crps_flat"], "flat", row["crps_gap_se"]),
        versus("Brier score of p_change", row["brier"], row["brier_base"], "the base rate", row["brier_gap_se"]),
        versus("relative RMSE of the mean", row["rel_rmse"], row["rel_rmse_flat"], "flat", row["rel_rmse_gap_se"]),
        f"the 90% band holds {100 * row['coverage']:.1f}% of outcomes (randomised PIT; flat's "
        f"{100 * row['coverage_flat']:.1f}%)",
    ]
    return f"{lead}: " + "; ".join(parts) + "."


def reliability_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """Per tenor and bin of the oracle's `p_change` (RELIABILITY_EDGES): n, the mean predicted
    chance, and the share that changed (every model, revisions left out)."""
    oracle = scored(predictions)
    oracle = oracle[oracle["method"] == "oracle"]
    edges = np.asarray(RELIABILITY_EDGES)
    bins = np.clip(np.searchsorted(edges, oracle["p_change"].to_numpy(float), side="right") - 1, 0, len(edges) - 2)
    frame = oracle.assign(bin=bins, changed=oracle["changed"].astype(float))
    out = frame.groupby(["tenor", "bin"]).agg(n=("p_change", "size"), predicted=("p_change", "mean"),
                                              observed=("changed", "mean")).reset_index()
    out["low"], out["high"] = edges[out["bin"]], edges[out["bin"] + 1]
    out["_order"] = out["tenor"].map(list(TENOR_MONTHS).index)
    out["n"] = out["n"].astype("int64")
    return out.sort_values(["_order", "bin"])[["tenor", "low", "high", "n", "predicted", "observed"]].reset_index(
        drop=True)


def _tenors(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def headline(accuracy: pd.DataFrame, scope: str = "all") -> str:
    """In words, over the tenors of `scope`: where the forecast beats the flat forward (CRPS), where
    its chance of change beats the base rate (Brier), each by more than one standard error; where
    its mean stands against flat's relative RMSE; and how much its 90% band holds."""
    rows = accuracy[accuracy["scope"] == scope]
    if rows.empty:
        return "No forecast has been scored yet."
    tenors = rows["tenor"].tolist()

    def where(mask) -> str:
        chosen = [t for t, keep in zip(tenors, mask, strict=True) if keep]
        return _tenors(chosen) if chosen else "no tenor"

    def better(ours: str, theirs: str, se: str) -> list[bool]:
        return [o < t and beyond(o - t, e) for o, t, e in zip(rows[ours], rows[theirs], rows[se], strict=True)]

    beats, brier = better("crps", "crps_flat", "crps_gap_se"), better("brier", "brier_base", "brier_gap_se")
    gap = (rows["rel_rmse"] - rows["rel_rmse_flat"]).to_numpy()
    se = rows["rel_rmse_gap_se"].to_numpy()
    worse = [g > 0 and beyond(g, e) for g, e in zip(gap, se, strict=True)]  # with no standard error, not worse
    close = [not w for w in worse]
    coverage = ", ".join(f"{100 * c:.1f}%" for c in rows["coverage"])
    text = (f"The forecast beats the flat forward as a distribution (lower CRPS by more than one standard error) "
            f"at {where(beats)}; its chance of change beats the base rate (lower Brier score by more than one "
            f"standard error) at {where(brier)}; its mean is below, or within one standard error of, flat's "
            f"relative RMSE at {where(close)}")
    if any(worse):
        text += f", and worse by more than one standard error at {where(worse)}"
    return text + f"; its 90% band holds {coverage} of outcomes at {_tenors(tenors)} (90% is calibrated)."
