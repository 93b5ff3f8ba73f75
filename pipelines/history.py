"""Daily price history per ticker and mode, each point carrying where it came from.

The series follows the maker's own prices. Before the first of those, the archived host list
(OpenRouter, which lists makers' models at their list price) carries the history back to mid-2023;
once the maker's own data begins, the archive no longer steers the series, so a host's
markup or discount never masquerades as a price change. A day with no new observation repeats
the last one, marked `carried_forward`.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipelines.ingest_archive import HOST as ARCHIVE_HOST
from pipelines.listings import CARRIED_FORWARD, SYNC

POINT_COLUMNS = ["input", "output", "cache_read", "cache_write", "reasoning", "tiers",
                 "source", "source_version", "source_url", "provenance"]


def history_points(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """The observations that steer the series: one per (ticker, mode, date), the most authoritative."""
    known = observations[~observations["superseded"] & (observations["effective_date"] <= as_of)]
    origin = known[known["is_origin"]]
    first_origin = origin.groupby(["ticker", "mode"])["effective_date"].min().rename("first_origin")
    archived = known[(known["provider"] == ARCHIVE_HOST) & (known["mode"] == SYNC)]
    archived = archived.join(first_origin, on=["ticker", "mode"])
    archived = archived[archived["effective_date"] < archived["first_origin"]].drop(columns="first_origin")
    points = pd.concat([origin, archived], ignore_index=True)
    points = points.sort_values(["ticker", "mode", "effective_date", "authority"],
                                ascending=[True, True, True, False], kind="stable")
    return points.drop_duplicates(["ticker", "mode", "effective_date"], keep="first")


def daily_history(points: pd.DataFrame, as_of: date) -> pd.DataFrame:
    """One row per calendar day from each series' first point to `as_of`, gaps carried forward."""
    frames = []
    end = pd.Timestamp(as_of)
    for (ticker, mode), series in points.groupby(["ticker", "mode"], sort=True):
        observed_on = pd.DatetimeIndex(pd.to_datetime(series["effective_date"]))
        days = pd.date_range(observed_on.min(), end, freq="D")
        # Carry whole observations forward by position, so a field one observation leaves
        # empty is never filled from an older observation.
        position = pd.Series(range(len(series)), index=observed_on).reindex(days).ffill().astype(int)
        daily = series[POINT_COLUMNS].iloc[position.to_numpy()].reset_index(drop=True)
        daily.loc[~days.isin(observed_on), "provenance"] = CARRIED_FORWARD
        daily = daily.assign(ticker=ticker, mode=mode, date=days.date,
                             observed_on=observed_on[position.to_numpy()].date)
        frames.append(daily)
    columns = ["ticker", "mode", "date", *POINT_COLUMNS, "observed_on"]
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def build_price_history(observations: pd.DataFrame, as_of: date) -> pd.DataFrame:
    return daily_history(history_points(observations, as_of), as_of)
