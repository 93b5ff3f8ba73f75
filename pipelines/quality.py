"""Data-quality rules the pipeline enforces before it publishes (run as blocking asset checks).

Each returns a list of problems, empty when the data passes, so a failed check can say
exactly which rows are wrong.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from pipelines.listings import PRICE_FIELDS


def negative_or_missing_prices(frame: pd.DataFrame, label: str = "ticker") -> list[str]:
    problems = []
    for column in ("input", "output"):
        missing = frame[frame[column].isna()]
        problems += [f"{row[label]}: {column} missing" for _, row in missing.head(20).iterrows()]
    for column in PRICE_FIELDS:
        negative = frame[frame[column] < 0]
        problems += [f"{row[label]}: {column} negative ({row[column]})" for _, row in negative.head(20).iterrows()]
    return problems


def duplicate_values(values: pd.Series) -> list[str]:
    duplicated = values[values.duplicated(keep=False)]
    return [f"{value} appears {count} times" for value, count in duplicated.value_counts().items()]


def names_on_several_tickers(models: pd.DataFrame) -> list[str]:
    """Each name (ticker in lower case, model id or alias) that more than one ticker answers to:
    one name, one model."""
    names = pd.DataFrame({"ticker": models["ticker"].to_numpy(dtype=object),
                          "name": [{t.lower(), m, *a} for t, m, a in zip(models["ticker"], models["model_id"],
                                                                          models["aliases"], strict=True)]})
    owners = names.explode("name").drop_duplicates().groupby("name")["ticker"].agg(sorted)
    return [f"{name} names {', '.join(tickers)}" for name, tickers in owners.items() if len(tickers) > 1]


def active_twins(models: pd.DataFrame, spots: pd.DataFrame) -> list[str]:
    """Active tickers with the same display name and the same sync input and output prices: one
    model published twice."""
    active = models.loc[models["status"] == "active", ["ticker", "display_name"]].merge(
        spots[["ticker", "input_sync", "beta_sync"]], on="ticker")
    twins = active.groupby(["display_name", "input_sync", "beta_sync"])["ticker"].agg(sorted)
    return [f"{', '.join(tickers)}: {name} at {i:g}/{o:g}" for (name, i, o), tickers in twins.items()
            if len(tickers) > 1]


def coverage_shortfall(models: pd.DataFrame, min_tickers: int, min_providers: int) -> list[str]:
    problems = []
    if len(models) < min_tickers:
        problems.append(f"{len(models)} tickers, fewer than the floor of {min_tickers}")
    providers = models["provider"].nunique()
    if providers < min_providers:
        problems.append(f"{providers} origin providers, fewer than the floor of {min_providers}")
    return problems


def history_gaps(history: pd.DataFrame, as_of) -> list[str]:
    """Each (ticker, mode) series must have one row per day from its first day to `as_of`."""
    problems = []
    dates = pd.to_datetime(history["date"])
    grouped = dates.groupby([history["ticker"], history["mode"]])
    spans = grouped.agg(["min", "max", "count", "nunique"])
    expected = (spans["max"] - spans["min"]).dt.days + 1
    short = ((spans["count"] != expected) | (spans["nunique"] != spans["count"])).to_numpy(dtype=bool)
    late = (spans["max"].dt.date != as_of).to_numpy(dtype=bool)
    for at in np.flatnonzero(short | late):  # only the series with a problem: a large universe has 100,000
        (ticker, mode), last = spans.index[at], spans["max"].iat[at]
        if short[at]:
            problems.append(f"{ticker} {mode}: {spans['count'].iat[at]} rows for {expected.iat[at]} days")
        if late[at]:
            problems.append(f"{ticker} {mode}: ends {last.date()}, not on the snapshot date {as_of}")
    return problems


# What `history_problems` reads of the history: the series, their days and their prices.
HISTORY_CHECK_COLUMNS = ["ticker", "mode", "date", *PRICE_FIELDS]


def history_problems(parts: Iterable[pd.DataFrame], as_of) -> tuple[list[str], int]:
    """`history_gaps` and `negative_or_missing_prices` of a history read in parts that each hold
    whole series, and the rows read. A series found in two parts is a problem of its own: its
    gaps cannot be judged part by part."""
    problems, rows, seen = [], 0, set()
    for part in parts:
        series = set(part[["ticker", "mode"]].drop_duplicates().itertuples(index=False, name=None))
        problems += [f"{ticker} {mode}: split between parts of the table" for ticker, mode in sorted(series & seen)]
        seen |= series
        problems += history_gaps(part, as_of) + negative_or_missing_prices(part)
        rows += len(part)
    return problems, rows


def index_inconsistencies(ici: pd.DataFrame, tolerance: float = 1e-9) -> list[str]:
    problems = []
    for variant, rows in ici.groupby("type"):
        if abs(rows["weight"].sum() - 1) > tolerance:
            problems.append(f"{variant}: weights sum to {rows['weight'].sum()!r}")
        if abs(rows["contribution"].sum() - rows["value"].iloc[0]) > tolerance * max(1.0, rows["value"].iloc[0]):
            problems.append(f"{variant}: value {rows['value'].iloc[0]!r} is not the sum of contributions")
    return problems


def malformed_forwards(curves: pd.DataFrame) -> list[str]:
    """Forward rows whose forward, median or band bound is not a positive finite price, whose band
    does not hold its median, or whose chance of change is not a probability."""
    prices = curves[["beta_forward", "beta_median", "p05", "p95"]].to_numpy(dtype=float)
    ordered = (curves["p05"] <= curves["beta_median"]) & (curves["beta_median"] <= curves["p95"])
    chance = curves["p_change"].between(0.0, 1.0)
    bad = ~(np.isfinite(prices).all(axis=1) & (prices > 0).all(axis=1) & ordered.to_numpy() & chance.to_numpy())
    return [f"{row.ticker_forward}: forward {row.beta_forward}, median {row.beta_median}, band "
            f"[{row.p05}, {row.p95}], p_change {row.p_change}" for row in curves[bad].head(20).itertuples()]


# --- surprises: worth a look, never a reason to hold a snapshot back ------------------------------

def shrunk(name: str, before: int | None, after: int, share: float) -> list[str]:
    """A table that lost more than `share` of its rows against the published one (None: there
    is none yet)."""
    if before is None or before == 0 or after >= before * (1 - share):
        return []
    return [f"{name}: {after:,} rows, {1 - after / before:.0%} fewer than the published snapshot's {before:,}"]


def index_jumps(history: pd.DataFrame, share: float) -> list[str]:
    """Each variant whose last level moved by more than `share` from the day before."""
    problems = []
    for variant, rows in history.sort_values("date").groupby("type", sort=True):
        levels = rows["value"].dropna()
        if len(levels) >= 2 and abs(levels.iloc[-1] / levels.iloc[-2] - 1) > share:
            problems.append(f"{variant}: {levels.iloc[-2]:.6f} → {levels.iloc[-1]:.6f} "
                            f"({levels.iloc[-1] / levels.iloc[-2] - 1:+.1%}) on {rows['date'].iloc[-1]}")
    return problems
