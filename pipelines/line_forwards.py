"""Line forwards: the price of a line's then-current model at 1–12 months (methodology §5, "Line forwards").

A team following a line pays, at a horizon h, the price of whatever model the line offers then:
its current model, or a successor if one has come. Per line and mode:

    L_h = S_h · R_h · Q_h

- S_h · R_h, the current model's own forecast (`pipelines.forecast`: S_h the scheduled price,
  R_h the atom at "no change" mixed with its change law; its mean is the forward curve's);
- Q_h = 1 with probability 1 − Ps_h (no successor by h), else a draw of the succession law.
- Ps_h = 1 − exp(−λ·h): successions arrive at a constant rate λ per month, fitted per line and
  shrunk to its maker's, the maker's to every line's (`succession_rates`). A current model whose
  maker has announced its retirement for a day by the horizon forces the move: Ps_h = 1 from then.
- The succession law: the ratios of each successor's launch price to its predecessor's price on
  that day, over every line (`lines.successor_ratio`), equal weights.

R and Q are taken as independent, so the mean is S_h · E[R_h] · E[Q_h] and the median and band
are quantiles of the product of two discrete laws (exact). Every input is what was known on
`as_of`: the lines and the fixed model's law as built for that day, so a walk-forward backtest
calls `build_line_forwards` at each anchor with the tables built then.
"""

from __future__ import annotations

from datetime import date

import numpy as np
import pandas as pd

from pipelines.days import as_day
from pipelines.forecast import NO_CHANGE, ChangeLaw, ProcessTable, mean_ratio
from pipelines.lines import BEFORE_RETIREMENT
from pipelines.months import months_between
from pipelines.scheduled import SCHEDULED_COLUMNS, horizon_date, scheduled_beta

HORIZONS = tuple(range(1, 13))  # months
PRIOR_EXPOSURE_MONTHS = 12.0  # a line's rate is shrunk to its maker's as if observed this long more
QUANTILES = (0.05, 0.5, 0.95)
RATE_COLUMNS = ["line", "maker", "successions", "exposure_months", "maker_rate", "rate"]
LINE_FORWARD_COLUMNS = [
    "line", "maker", "mode", "tenor", "months", "current", "current_released", "spot", "scheduled", "p_change",
    "fixed_forward", "fixed_median", "fixed_p05", "fixed_p95", "p_successor", "succession_rate", "successions",
    "exposure_months", "maker_rate", "successor_mean", "successor_p05", "successor_p50", "successor_p95",
    "law_successions", "retires_on", "beta_forward", "beta_median", "p05", "p95",
]


def _known(lines: pd.DataFrame, as_of: date) -> pd.DataFrame:
    return lines[[as_day(d) <= as_of for d in lines["released"]]]


def line_exposures(known: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Per line (sorted): its maker, successions and months observed. Successions are its dated,
    in-order releases after the first day it is seen (the first release not bounded only by a
    retirement, else its first); it is observed from that day to `as_of`, or to its last
    retirement when every member is retired by then (a line that ended expects no successor)."""
    released = pd.to_datetime(pd.Series([as_day(d) for d in known["released"]], index=known.index))
    retired = pd.to_datetime(pd.Series([as_day(d) for d in known["retired_on"]], index=known.index))
    line = known["line"]
    bounded = (known["release_basis"] == BEFORE_RETIREMENT).to_numpy()
    start = released.where(~bounded).groupby(line).min().fillna(released.groupby(line).min())
    ended = (retired.notna() & (retired <= pd.Timestamp(as_of))).groupby(line).all()
    end = retired.groupby(line).max().where(ended, pd.Timestamp(as_of))
    later = (known["dated"].astype(bool) & ~known["out_of_order"].astype(bool)).to_numpy() & (
        released > line.map(start)).to_numpy()
    successions = released[later].groupby(line[later]).nunique().reindex(start.index, fill_value=0)
    months = np.maximum(months_between(start.to_numpy("datetime64[D]"), end.to_numpy("datetime64[D]")), 0.0)
    return pd.DataFrame({"line": start.index, "maker": known.groupby(line)["maker"].first().to_numpy(),
                         "successions": successions.to_numpy(int), "exposure_months": months})


def succession_rates(lines: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """λ per line (RATE_COLUMNS), successions per month: (n + A·λ_maker)/(T + A), the maker's
    λ_maker = (n_maker + A·λ_all)/(T_maker + A), λ_all = Σn/ΣT over every line, A =
    PRIOR_EXPOSURE_MONTHS: the exponential rate's estimate with censoring, shrunk."""
    frame = line_exposures(_known(lines, as_of), as_of)
    pooled = pooled_rate(frame)
    makers = frame.groupby("maker")[["successions", "exposure_months"]].sum()
    maker_rate = (makers["successions"] + PRIOR_EXPOSURE_MONTHS * pooled) / (makers["exposure_months"]
                                                                            + PRIOR_EXPOSURE_MONTHS)
    frame["maker_rate"] = frame["maker"].map(maker_rate).astype(float)
    frame["rate"] = ((frame["successions"] + PRIOR_EXPOSURE_MONTHS * frame["maker_rate"])
                     / (frame["exposure_months"] + PRIOR_EXPOSURE_MONTHS))
    return frame[RATE_COLUMNS]


def pooled_rate(rates: pd.DataFrame) -> float:
    """λ_all = Σn/ΣT, successions per month over every line (`succession_rates`' columns)."""
    total = rates["exposure_months"].sum()
    return float(rates["successions"].sum() / total) if total > 0 else 0.0


def succession_law(lines: pd.DataFrame, as_of: date) -> ChangeLaw:
    """The successor's launch price over its predecessor's, each succession launched by `as_of`
    weighing the same (no change where none is known)."""
    launched = [d is not None and d <= as_of for d in map(as_day, lines["launch_date"])]
    ratios = lines.loc[launched, "successor_ratio"].to_numpy(float)
    ratios = np.sort(ratios[np.isfinite(ratios) & (ratios > 0)])
    if not len(ratios):
        return NO_CHANGE
    return ChangeLaw(ratios, np.full(len(ratios), 1.0 / len(ratios)))


def current_members(lines: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Each line's current model on `as_of`: its newest in-order member released by then and not
    retired (a retirement dated by then, or a retired status without a date)."""
    known = _known(lines, as_of)
    retired_on = [as_day(d) for d in known["retired_on"]]
    retired = np.array([(d is not None and d <= as_of) or (d is None and s == "retired")
                        for d, s in zip(retired_on, known["status"], strict=True)], dtype=bool)
    live = known[~retired & ~known["out_of_order"].astype(bool).to_numpy()]
    return live.groupby("line", sort=True).tail(1).reset_index(drop=True)


def mixture_atoms(p_change: float, law: ChangeLaw) -> tuple[np.ndarray, np.ndarray]:
    """The atoms of a ratio that is 1 with probability 1 − p, else a draw of `law`: (values, weights)."""
    return np.r_[1.0, law.ratios], np.r_[1.0 - p_change, p_change * law.weights]


def product_atoms(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The atoms of X·Y, X and Y independent discrete laws (values, weights)."""
    return np.outer(first[0], second[0]).reshape(-1), np.outer(first[1], second[1]).reshape(-1)


def atom_quantiles(atoms: tuple[np.ndarray, np.ndarray], probabilities) -> np.ndarray:
    """Quantiles of a discrete law (values, weights): the least value whose cumulative weight
    reaches each probability (the convention of `forecast.mixture_quantiles`)."""
    values, weights = atoms
    order = np.argsort(values, kind="stable")
    values, cdf = values[order], np.cumsum(weights[order])
    return np.array([values[min(np.searchsorted(cdf, q - 1e-12), len(values) - 1)] for q in probabilities])


def product_quantiles(first: tuple[np.ndarray, np.ndarray], second: tuple[np.ndarray, np.ndarray],
                      probabilities) -> np.ndarray:
    """Quantiles of X·Y, X and Y independent discrete laws (values, weights)."""
    return atom_quantiles(product_atoms(first, second), probabilities)


def successor_chance(rate: float, months, retires_on: date | None, as_of: date) -> np.ndarray:
    """1 − exp(−λ·h) at each horizon (`months`, a number or an array), or 1 from the day the current
    model's announced retirement falls."""
    months = np.asarray(months, dtype=float)
    chance = 1.0 - np.exp(-rate * months)
    if retires_on is not None and retires_on > as_of:
        forced = np.array([retires_on <= horizon_date(as_of, h) for h in months.reshape(-1)]).reshape(months.shape)
        chance = np.where(forced, 1.0, chance)
    return chance


def _scheduled_levels(current: pd.DataFrame, spots: pd.DataFrame, scheduled: pd.DataFrame, mode: str,
                      as_of: date, months: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each current model's spot in `mode` and its scheduled price S_h at each horizon (rows, horizons)."""
    spot = current["ticker"].map(spots.set_index("ticker")[f"beta_{mode}"]).to_numpy(float)
    frame = pd.DataFrame({"ticker": current["ticker"].to_numpy(object), f"beta_{mode}": spot})
    if not len(scheduled):
        return spot, np.repeat(spot[:, None], len(months), axis=1)
    return spot, np.column_stack([scheduled_beta(frame, scheduled, mode, as_of, h) for h in months])


def build_line_forwards(lines: pd.DataFrame, processes: pd.DataFrame, change_laws: pd.DataFrame,
                        spots: pd.DataFrame, scheduled: pd.DataFrame | None, as_of: date) -> pd.DataFrame:
    """LINE_FORWARD_COLUMNS for each line whose current model has a forecast and a positive spot,
    sync and batch, at each of HORIZONS; every table as known on `as_of`."""
    scheduled = pd.DataFrame(columns=SCHEDULED_COLUMNS) if scheduled is None else scheduled
    table = ProcessTable.read(processes, change_laws)
    process_rows = {(t, m): i for i, (t, m) in enumerate(zip(table.tickers, table.modes, strict=True))}
    rates = succession_rates(lines, as_of).set_index("line")
    law = succession_law(lines, as_of)
    law_stats = [law.mean, law.quantile(0.05), law.quantile(0.5), law.quantile(0.95), int(len(law.ratios))
                 if law is not NO_CHANGE else 0]
    months = np.array(HORIZONS, dtype=float)
    current = current_members(lines, as_of)
    p_change = table.p_change(months)
    rows = []
    for mode in ("sync", "batch"):
        spot, levels = _scheduled_levels(current, spots, scheduled, mode, as_of, months)
        for member, spot_now, level_now in zip(current.itertuples(), spot, levels, strict=True):
            at = process_rows.get((member.ticker, mode))
            if at is None or not spot_now > 0:
                continue
            rate = rates.loc[member.line]
            retires_on = as_day(member.retired_on)
            p_successor = successor_chance(float(rate["rate"]), months, retires_on, as_of)
            fixed_law = table.laws[table.law_names[at]]
            head = (member.line, member.maker, mode)
            for h, level, p, ps in zip(months, level_now, p_change[at], p_successor, strict=True):
                fixed = mixture_atoms(p, fixed_law)
                line_q = product_quantiles(fixed, mixture_atoms(ps, law), QUANTILES)
                fixed_q = atom_quantiles(fixed, QUANTILES)
                fixed_mean = float(mean_ratio(p, fixed_law.mean))
                rows.append((
                    *head, f"{int(h)}M", h, member.ticker, as_day(member.released), spot_now, level, p,
                    level * fixed_mean, *(level * fixed_q[[1, 0, 2]]), ps, float(rate["rate"]),
                    int(rate["successions"]), float(rate["exposure_months"]), float(rate["maker_rate"]), *law_stats,
                    retires_on, level * fixed_mean * float(mean_ratio(ps, law.mean)), *(level * line_q[[1, 0, 2]]),
                ))
    return pd.DataFrame(rows, columns=LINE_FORWARD_COLUMNS).sort_values(
        ["line", "mode", "months"], kind="stable").reset_index(drop=True)
