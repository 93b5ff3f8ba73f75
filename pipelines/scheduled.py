"""Scheduled prices: changes a source announces for a date after the snapshot (contract §4).

A maker's dated price that starts after `as_of` (Google's Gemini 3.x Flash models rising on
2027-01-01, a model at 10 going to 20 on 2026-12-01) is not yet a price, but it is known: the
forecast starts from it (its atom of "no change" sits at the scheduled price from its date), so
forward curves, task-cost forwards, Monte Carlo paths and swap fixings use it from that date.
When the date arrives the same statement enters the price history like any dated price.

`scheduled_changes` lists them field by field, each against the value in force before it (today's
spot for the first), with the source that announced it and when that source published it.
"""

from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pandas as pd

from pipelines.listings import PRICE_FIELDS, PUBLISHED, same_price
from pipelines.months import DAYS_PER_MONTH

SCHEDULED_COLUMNS = ["ticker", "mode", "effective_date", "field", "before", "after", "pct_change", "source",
                     "source_version", "source_url", "announced_on"]
# A dated statement of the price in force *before* a change (genai-prices' undated first price,
# dated the day before its first change) restates today's price; it announces nothing.
IN_FORCE_BEFORE = "in force before"


def _announced(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The makers' own dated statements that start after `as_of`, one per (ticker, mode, date)."""
    future = observations[observations["is_origin"] & ~observations["superseded"]
                          & (observations["effective_date"] > as_of) & (observations["provenance"] == PUBLISHED)
                          & ~observations["note"].fillna("").str.startswith(IN_FORCE_BEFORE)]
    future = future.sort_values(["ticker", "mode", "effective_date", "authority"],
                                ascending=[True, True, True, False], kind="stable")
    return future.drop_duplicates(["ticker", "mode", "effective_date"], keep="first")


def build_scheduled_changes(observations: pd.DataFrame, spots: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """Every announced change of a price field after `as_of`, in SCHEDULED_COLUMNS, by ticker,
    mode, date and field. `spots` gives the value in force today (`{field}_{mode}`, β as `beta_`)."""
    today = spots.set_index("ticker")
    rows = []
    for (ticker, mode), points in _announced(observations, as_of).groupby(["ticker", "mode"], sort=True):
        if ticker not in today.index:
            continue
        in_force = {field: today.at[ticker, f"{'beta' if field == 'output' else field}_{mode}"]
                    for field in PRICE_FIELDS}
        for point in points.to_dict("records"):
            for field in PRICE_FIELDS:
                after = point[field]
                if pd.isna(after) or same_price(after, in_force[field]):
                    continue
                before = in_force[field]
                rows.append({"ticker": ticker, "mode": mode, "effective_date": point["effective_date"],
                             "field": field, "before": before, "after": float(after),
                             "pct_change": after / before - 1.0 if before and not pd.isna(before)
                             else math.nan,
                             "source": point["source"], "source_version": point["source_version"],
                             "source_url": point["source_url"], "announced_on": point["source_released"]})
                in_force[field] = float(after)
    frame = pd.DataFrame(rows, columns=SCHEDULED_COLUMNS)
    for column in ("before", "after", "pct_change"):
        frame[column] = frame[column].astype("float64")
    return frame.sort_values(["ticker", "mode", "effective_date", "field"], kind="stable").reset_index(drop=True)


def horizon_date(as_of: date, months: float) -> date:
    """The calendar day `months` after `as_of`: as_of + round(months·30.4375) days (contract
    units; the swap's fixing dates are these days)."""
    return as_of + timedelta(days=round(float(months) * DAYS_PER_MONTH))


def _announced_output(changes: pd.DataFrame, mode: str, day: date) -> pd.Series:
    """ticker → the last output price announced for `mode` on or before `day`."""
    due = changes[(changes["mode"] == mode) & (changes["field"] == "output") & (changes["effective_date"] <= day)]
    latest = due.sort_values("effective_date", kind="stable").drop_duplicates("ticker", keep="last")
    return latest.set_index("ticker")["after"].astype(float)


def scheduled_beta(spots: pd.DataFrame, changes: pd.DataFrame, mode: str, as_of: date, months: float) -> np.ndarray:
    """Each spots row's output price in `mode` in force `months` after `as_of` (today's where
    nothing is scheduled before then)."""
    announced = spots["ticker"].map(_announced_output(changes, mode, horizon_date(as_of, months)))
    today = spots[f"beta_{mode}"].to_numpy(dtype=float)
    return np.where(announced.notna().to_numpy(), announced.to_numpy(dtype=float, na_value=np.nan), today)


def scheduled_ratios(spots: pd.DataFrame, changes: pd.DataFrame, mode: str, as_of: date,
                     months: float) -> np.ndarray:
    """`level_ratios` of every spots row at one horizon: β_sched/β_0 in `mode` (1 where nothing is
    scheduled by then, or where today's β is not positive)."""
    beta = spots[f"beta_{mode}"].to_numpy(dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(beta > 0, scheduled_beta(spots, changes, mode, as_of, months) / beta, 1.0)


def level_ratios(changes: pd.DataFrame, ticker: str, mode: str, beta: float, as_of: date,
                 months) -> np.ndarray:
    """β_sched(t)/β_0 for one ticker and mode at each horizon in `months` (1 where nothing is
    scheduled by then): the factor an announced price puts on every forward of the model. The
    forward law moves β and takes every other price as a fixed ratio of it, so the announced
    output price carries the whole cost."""
    horizons = np.atleast_1d(np.asarray(months, dtype=float))
    if not beta > 0:
        return np.ones(len(horizons))
    return np.array([_announced_output(changes, mode, horizon_date(as_of, m)).get(ticker, beta) / beta
                     for m in horizons])
