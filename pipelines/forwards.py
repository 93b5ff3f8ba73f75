"""Forward curves: the forecast law (`pipelines.forecast`) at each tenor, sync and batch.

At a tenor h, per ticker and mode, β_h = S_h · R_h with S_h the scheduled price (the price a
source has announced for a date on or before h, else the spot: `pipelines.scheduled`) and R_h
an atom at 1 (no change, probability 1 − p_change) or a draw of the change law. Published:

- scheduled: S_h; p_change: P(a change by h);
- decay_factor: E[R_h] = (1 − p_change) + p_change · m (m the change law's mean);
- beta_forward: S_h · decay_factor, the mean (what the Monte Carlo's mean converges to);
- beta_median, p05, p95: S_h times the mixture's 50%, 5% and 95% quantiles (exact: the law is
  discrete), so the band always holds the median;
- change_mean, change_p05, change_p50, change_p95: the change law's mean ratio new/old and its
  quantiles — what a change, if it comes, does to the price;
- evidence: what can move the curve off today's price at that tenor: `announced` (a scheduled
  price differs from the spot), `maker_increase: TICKER on DATE` (the change law is the one of a
  family whose maker raised a price: its latest such rise), both joined by "; ", or
  `no_rise_evidence` (the change law's mean is at most 1: the curve can only stay or fall);
- outlook: the tenor said in words for people who budget (`pipelines.outlook`).
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.forecast import ROSE, ProcessTable
from pipelines.outlook import announced_change, in_words
from pipelines.scheduled import SCHEDULED_COLUMNS, scheduled_beta

TENORS = {"1M": 1, "2M": 2, "3M": 3, "6M": 6, "9M": 9, "12M": 12}
BATCH_SUFFIX = ".B"
FORWARD_COLUMNS = ["ticker", "mode", "ticker_forward", "tenor", "months", "spot", "scheduled", "p_change",
                   "decay_factor", "beta_forward", "beta_median", "p05", "p95", "change_mean", "change_p05",
                   "change_p50", "change_p95", "evidence", "outlook"]
ANNOUNCED, MAKER_INCREASE, NO_RISE_EVIDENCE = "announced", "maker_increase", "no_rise_evidence"


def forward_ticker(ticker: str, mode: str, tenor: str) -> str:
    return f"{ticker}{BATCH_SUFFIX if mode == 'batch' else ''}-{tenor}"


def build_forward_curves(processes: pd.DataFrame, change_laws: pd.DataFrame, spots: pd.DataFrame,
                         scheduled: pd.DataFrame | None = None, as_of: date | None = None) -> pd.DataFrame:
    """Every tenor for each (ticker, mode) of `processes` with a positive spot (`spots`'s
    `beta_{mode}`), from the scheduled price where one is announced (`scheduled_changes` as of
    `as_of`)."""
    scheduled = pd.DataFrame(columns=SCHEDULED_COLUMNS) if scheduled is None else scheduled
    table = ProcessTable.read(processes, change_laws)
    today = spots.set_index("ticker")
    spot = np.full(len(table.tickers), np.nan)
    for mode in set(table.modes):
        rows = table.modes == mode
        spot[rows] = today[f"beta_{mode}"].reindex(table.tickers[rows]).to_numpy(float)
    kept = spot > 0
    table = table.subset(kept)
    months = np.array(list(TENORS.values()), dtype=float)
    n, tenors = len(table.tickers), len(TENORS)
    quantiles = table.quantiles(months, (0.05, 0.5, 0.95)).reshape(n * tenors, 3)
    change = {name: [law.mean, law.quantile(0.05), law.quantile(0.5), law.quantile(0.95)]
              for name, law in table.laws.items()}
    change_rows = np.array([change[name] for name in table.law_names], dtype=float).reshape(n, 4)

    def each(values):  # one value per process, on each of its tenors
        return np.repeat(values, tenors)

    curves = pd.DataFrame({
        "ticker": each(table.tickers), "mode": each(table.modes),
        "ticker_forward": [forward_ticker(t, m, tenor) for t, m in zip(table.tickers, table.modes, strict=True)
                           for tenor in TENORS],
        "tenor": np.tile(list(TENORS), n), "months": np.tile(months, n), "spot": each(spot[kept]),
        "scheduled": np.nan, "p_change": table.p_change(months).reshape(-1),
        "decay_factor": table.expected_ratio(months).reshape(-1), "beta_forward": np.nan,
        "beta_median": quantiles[:, 1], "p05": quantiles[:, 0], "p95": quantiles[:, 2],
        **{column: each(change_rows[:, i]) for i, column in enumerate(FORWARD_COLUMNS[-6:-2])},
    }, columns=FORWARD_COLUMNS)
    level = curves["spot"].to_numpy(float).copy()
    for (mode, h), at in curves.groupby(["mode", "months"]).indices.items():
        frame = curves.iloc[at].rename(columns={"spot": f"beta_{mode}"})
        level[at] = scheduled_beta(frame, scheduled, mode, as_of, h) if len(scheduled) else level[at]
    curves["scheduled"] = level
    announced = _announced(curves)
    curves["evidence"] = _evidence(curves, table, processes, announced)
    curves["beta_forward"] = level * curves["decay_factor"]
    for column in ("beta_median", "p05", "p95"):
        curves[column] = level * curves[column]
    curves["outlook"] = _outlooks(curves, scheduled, as_of, announced)
    return curves.sort_values(["ticker", "mode", "months"], kind="stable").reset_index(drop=True)[FORWARD_COLUMNS]


def _announced(curves: pd.DataFrame) -> np.ndarray:
    """Where an announced price moves the point off the spot."""
    return ~np.isclose(curves["scheduled"].to_numpy(float), curves["spot"].to_numpy(float), rtol=1e-12, atol=0)


def _outlooks(curves: pd.DataFrame, scheduled: pd.DataFrame, as_of: date | None, announced: np.ndarray) -> list[str]:
    """Each row's forward in words (`pipelines.outlook`); an announcement read only where one moves it."""
    return [in_words(months, p_change, forward / spot,
                     announced_change(scheduled, ticker, mode, as_of, months) if moved else None)
            for ticker, mode, months, p_change, forward, spot, moved in zip(
                curves["ticker"], curves["mode"], curves["months"], curves["p_change"], curves["beta_forward"],
                curves["spot"], announced, strict=True)]


def _evidence(curves: pd.DataFrame, table: ProcessTable, processes: pd.DataFrame,
              announced: np.ndarray) -> np.ndarray:
    """The `evidence` of each row of `curves` (each process's tenors in TENORS order)."""
    rises = processes.drop_duplicates(["ticker", "mode"]).set_index(["ticker", "mode"])["rise_evidence"]
    rise = rises.reindex(pd.MultiIndex.from_arrays([table.tickers, table.modes])).to_numpy(object)
    maker = np.where(table.law_names == ROSE, [f"{MAKER_INCREASE}: {r}" for r in rise], "")
    parts = zip(np.where(announced, ANNOUNCED, ""), np.repeat(maker, len(TENORS)), strict=True)
    return np.array(["; ".join(p for p in pair if p) or NO_RISE_EVIDENCE for pair in parts], dtype=object)
