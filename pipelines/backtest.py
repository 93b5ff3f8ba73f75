"""Walk-forward backtest of the forward curves, against two baselines.

At each monthly anchor the history is rebuilt from the observations dated on or before it (so
nothing after the anchor can leak in), every process is fitted on that history alone, and the
sync β of each model is forecast at 1, 3 and 6 months. Each forecast is scored against the β
the full history shows on the target date.

Methods:
- `oracle`: the fitted process's expected price spot·exp(−θt) and its 90% band;
- `flat`: the price stays as it is (no band);
- `single_exp`: the original oracle's estimator, per family lineage (see `single_exp_params`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta

import numpy as np
import pandas as pd

from pipelines.dynamics import DAYS_PER_MONTH, decay_factor, fit_processes, ratio_quantiles
from pipelines.history import archive_tracks_maker, history_points
from pipelines.listings import SYNC
from pipelines.registry import Rules, default_tier

TENOR_MONTHS = {"1M": 1, "3M": 3, "6M": 6}
START = date(2024, 1, 1)  # the first anchor
METHODS = ("oracle", "flat", "single_exp")
Z90 = 1.6448536269514722  # the standard normal's 95% quantile

# The single-exponential baseline, as the original oracle published it.
BASELINE_WEIGHT_DECAY = 0.85
BASELINE_THETA_RANGE = (0.01, 0.15)
BASELINE_SIGMA_RANGE = (0.02, 0.25)
BASELINE_DEFAULT = (0.05, 0.06)
BASELINE_MIN_GAP_MONTHS = 0.5

PREDICTION_COLUMNS = ["anchor", "ticker", "family", "tier", "tenor", "months", "method", "target_date", "spot",
                      "forecast", "p05", "p95", "realised", "rel_error", "ape", "covered"]


def anchor_dates(start: date, as_of: date) -> list[date]:
    """The first day of each month from `start` while a one-month forecast can still be scored."""
    anchors, day = [], date(start.year, start.month, 1)
    while target_date(day, 1) <= as_of:
        anchors.append(day)
        day = date(day.year + day.month // 12, day.month % 12 + 1, 1)
    return anchors


def target_date(anchor: date, months: float) -> date:
    return anchor + timedelta(days=round(months * DAYS_PER_MONTH))


def scored_days(as_of: date, start: date = START) -> list[date]:
    """The days whose realised prices `score` reads: each target date of each anchor, to `as_of`."""
    targets = {target_date(anchor, months) for anchor in anchor_dates(start, as_of) for months in TENOR_MONTHS.values()}
    return sorted(day for day in targets if day <= as_of)


def known_points(observations: pd.DataFrame, anchor: date) -> pd.DataFrame:
    """The history's observed points as they could be built on `anchor` from what was known then."""
    known = observations[observations["effective_date"] <= anchor]
    points = history_points(known, anchor, archive_tracks_maker(known))
    return points.rename(columns={"effective_date": "date"})[["ticker", "mode", "date", "output", "provenance"]]


def groups_at(models: pd.DataFrame, spots: pd.Series, rules: Rules) -> pd.DataFrame:
    """Family and tier of each model as they read on the anchor: a tier that comes from the price
    (no curated rule) uses the price of that day."""
    subject = models["provider"] + "/" + models["model_id"]
    ruled = [rules.first("tier", s) for s in subject]
    price = models["ticker"].map(spots)
    tier = [r or (default_tier(p) if p == p else "mid") for r, p in zip(ruled, price, strict=True)]
    return pd.DataFrame({"ticker": models["ticker"], "family": models["family"], "tier": tier})


def spots_at(points: pd.DataFrame, mode: str = SYNC) -> pd.Series:
    rows = points[(points["mode"] == mode) & (points["output"] > 0)].sort_values("date")
    return rows.groupby("ticker")["output"].last()


def single_exp_params(family_points: pd.DataFrame) -> tuple[float, float]:
    """θ and σ of one family lineage: its sync prices by date; each pair of consecutive prices
    more than half a month apart gives θᵢ = −ln(pᵢ/pᵢ₋₁)/Δtᵢ; θ is their mean weighted 0.85^(n−1−i)
    (newest weight 1), σ their population standard deviation, each clamped; fewer than two
    usable pairs give the defaults (0.05, 0.06)."""
    rows = family_points.sort_values(["date", "ticker"])
    return _single_exp(pd.to_datetime(rows["date"]).to_numpy(), rows["output"].to_numpy())


def lineage_params(sync_points: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """`single_exp_params` of each family of `sync_points`: one sort for them all, then each
    family's slice (a frame per family costs more than its sums)."""
    rows = sync_points.sort_values(["family", "date", "ticker"])
    if rows.empty:
        return {}
    families, prices = rows["family"].to_numpy(), rows["output"].to_numpy()
    days = pd.to_datetime(rows["date"]).to_numpy()
    starts = np.flatnonzero(np.r_[True, families[1:] != families[:-1]])
    ends = np.r_[starts[1:], len(rows)]
    return {families[a]: _single_exp(days[a:b], prices[a:b]) for a, b in zip(starts, ends, strict=True)}


def _single_exp(days: np.ndarray, prices: np.ndarray) -> tuple[float, float]:
    """`single_exp_params` of one lineage's prices, in order, and their days."""
    gaps = np.diff(days).astype("timedelta64[D]").astype(float) / DAYS_PER_MONTH
    usable = gaps > BASELINE_MIN_GAP_MONTHS
    thetas = -np.log(prices[1:][usable] / prices[:-1][usable]) / gaps[usable]
    if len(thetas) < 2:
        return BASELINE_DEFAULT
    weights = BASELINE_WEIGHT_DECAY ** np.arange(len(thetas) - 1, -1, -1)
    theta = float(np.clip(np.sum(weights * thetas) / weights.sum(), *BASELINE_THETA_RANGE))
    sigma = float(np.clip(np.std(thetas), *BASELINE_SIGMA_RANGE))
    return theta, sigma


def forecasts_at(observations: pd.DataFrame, models: pd.DataFrame, rules: Rules, anchor: date) -> pd.DataFrame:
    """Every method's forecast of each model's sync β made on `anchor`, from what was known then."""
    points = known_points(observations, anchor)
    spots = spots_at(points)
    groups = groups_at(models, spots, rules)
    params = fit_processes(points, groups, anchor)
    base = params[params["mode"] == SYNC].merge(groups, on="ticker").assign(spot=lambda f: f["ticker"].map(spots))
    base = base[base["spot"] > 0].reset_index(drop=True)
    sync_points = points[(points["mode"] == SYNC) & (points["output"] > 0)].merge(groups, on="ticker")
    lineage = lineage_params(sync_points)
    baseline = np.array([lineage.get(f, BASELINE_DEFAULT) for f in base["family"]]).reshape(-1, 2)
    frames = []
    for tenor, months in TENOR_MONTHS.items():
        common = base[["ticker", "family", "tier", "spot"]].assign(anchor=anchor, tenor=tenor, months=float(months))
        band = ratio_quantiles(base, months)
        oracle = common.assign(method="oracle", forecast=base["spot"] * decay_factor(base["theta"], months),
                               p05=base["spot"] * band[:, 0], p95=base["spot"] * band[:, 1])
        flat = common.assign(method="flat", forecast=base["spot"], p05=np.nan, p95=np.nan)
        drift = base["spot"] * np.exp(-baseline[:, 0] * months)
        spread = Z90 * baseline[:, 1] * np.sqrt(months)
        single = common.assign(method="single_exp", forecast=drift, p05=drift * np.exp(-spread),
                               p95=drift * np.exp(spread))
        frames += [oracle, flat, single]
    return pd.concat(frames, ignore_index=True)


def score(forecasts: pd.DataFrame, history: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Attach the realised sync β on each target date (where it is known and positive) and the errors.
    `history` needs only its sync rows on `scored_days`."""
    return _score(forecasts, _realised(history), as_of)


def _realised(history: pd.DataFrame) -> pd.Series:
    """The sync β by (ticker, date)."""
    return history[history["mode"] == SYNC].set_index(["ticker", "date"])["output"]


def _score(forecasts: pd.DataFrame, realised: pd.Series, as_of: date) -> pd.DataFrame:
    days = [target_date(a, m) for a, m in zip(forecasts["anchor"], forecasts["months"], strict=True)]
    # Dates, even where there is none: an anchor with no forecast still gives a table's part.
    forecasts = forecasts.assign(target_date=pd.Series(days, index=forecasts.index, dtype=object))
    forecasts = forecasts[forecasts["target_date"] <= as_of]
    key = pd.MultiIndex.from_arrays([forecasts["ticker"], forecasts["target_date"]])
    scored = forecasts.assign(realised=realised.reindex(key).to_numpy())
    scored = scored[scored["realised"] > 0].copy()
    scored["rel_error"] = (scored["forecast"] - scored["realised"]) / scored["spot"]
    scored["ape"] = (scored["forecast"] - scored["realised"]).abs() / scored["realised"] * 100
    inside = (scored["p05"] <= scored["realised"]) & (scored["realised"] <= scored["p95"])
    scored["covered"] = inside.where(scored["p05"].notna())
    return scored[PREDICTION_COLUMNS].reset_index(drop=True)


def run_backtest(observations: pd.DataFrame, history: pd.DataFrame, models: pd.DataFrame, rules: Rules,
                 as_of: date, start: date = START) -> pd.DataFrame:
    """Every scored prediction of every method at every anchor (`history` as `score` reads it)."""
    return pd.concat(backtest_parts(observations, history, models, rules, as_of, start), ignore_index=True)


def backtest_parts(observations: pd.DataFrame, history: pd.DataFrame, models: pd.DataFrame, rules: Rules,
                   as_of: date, start: date = START) -> Iterator[pd.DataFrame]:
    """`run_backtest` an anchor at a time: each anchor's scored predictions, in order, so that
    only one anchor's are held."""
    realised = _realised(history)
    for anchor in anchor_dates(start, as_of):
        yield _score(forecasts_at(observations, models, rules, anchor), realised, as_of)


def summarise(predictions: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """n, relative RMSE, MAPE, median APE, bias (percent of spot) and band coverage per group."""
    def metrics(rows: pd.DataFrame) -> pd.Series:
        covered = rows["covered"].dropna()
        return pd.Series({
            "n": len(rows),
            "rel_rmse": float(np.sqrt(np.mean(rows["rel_error"] ** 2))),
            "mape": float(rows["ape"].mean()),
            "median_ape": float(rows["ape"].median()),
            "bias": float(rows["rel_error"].mean() * 100),
            "coverage": float(covered.astype(float).mean()) if len(covered) else np.nan,
        })
    summary = predictions.groupby(by, sort=True).apply(metrics, include_groups=False).reset_index()
    summary["n"] = summary["n"].astype(int)
    return summary


BOOTSTRAP_DRAWS = 1000


def rmse_gap_se(predictions: pd.DataFrame, seed: int = 0) -> float:
    """Standard error of RMSE(oracle) − RMSE(flat), by resampling whole anchors with replacement
    (forecasts made on one anchor share its luck, so anchors are the independent units)."""
    oracle = predictions[predictions["method"] == "oracle"]
    flat = predictions[predictions["method"] == "flat"]
    squared = pd.DataFrame({
        "anchor": oracle["anchor"].to_numpy(),
        "oracle": oracle["rel_error"].to_numpy() ** 2,
        "flat": flat.set_index(["anchor", "ticker"])["rel_error"].reindex(
            pd.MultiIndex.from_frame(oracle[["anchor", "ticker"]])).to_numpy() ** 2,
    })
    per_anchor = squared.groupby("anchor").agg(oracle=("oracle", "sum"), flat=("flat", "sum"), n=("oracle", "size"))
    if len(per_anchor) < 2:
        return np.nan
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(per_anchor), size=(BOOTSTRAP_DRAWS, len(per_anchor)))
    sums = per_anchor[["oracle", "flat", "n"]].to_numpy()[picks].sum(axis=1)
    gaps = np.sqrt(sums[:, 0] / sums[:, 2]) - np.sqrt(sums[:, 1] / sums[:, 2])
    return float(np.std(gaps))


def accuracy_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """The headline per tenor: the oracle beside both baselines, the standard error of its RMSE
    gap to the flat forward, and the share of outcomes where the price did not move at all (any
    band that holds the spot covers at least that share)."""
    summary = summarise(predictions, ["tenor", "method"]).set_index(["tenor", "method"])
    rows = []
    for tenor in TENOR_MONTHS:
        if (tenor, "oracle") not in summary.index:
            continue
        within = predictions[predictions["tenor"] == tenor]
        oracle = within[within["method"] == "oracle"]

        def pick(method, metric, tenor=tenor):
            return summary.loc[(tenor, method), metric]

        rows.append({
            "tenor": tenor, "n": int(pick("oracle", "n")),
            "rel_rmse": pick("oracle", "rel_rmse"), "rel_rmse_flat": pick("flat", "rel_rmse"),
            "rel_rmse_single_exp": pick("single_exp", "rel_rmse"), "rel_rmse_gap_se": rmse_gap_se(within),
            "mape": pick("oracle", "mape"), "mape_flat": pick("flat", "mape"),
            "mape_single_exp": pick("single_exp", "mape"),
            "bias": pick("oracle", "bias"), "bias_flat": pick("flat", "bias"),
            "bias_single_exp": pick("single_exp", "bias"),
            "coverage": pick("oracle", "coverage"), "coverage_single_exp": pick("single_exp", "coverage"),
            "no_change_share": float((np.abs(oracle["realised"] / oracle["spot"] - 1) < 1e-12).mean()),
        })
    return pd.DataFrame(rows)
