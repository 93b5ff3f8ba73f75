"""Dates as integers (`pipelines/days.py`), against pandas' own grouping of date objects."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.days import days_since_1970, earliest

ROWS = pd.DataFrame({
    "ticker": ["B", "A", "B", "A", "C", "B"],
    "mode": ["sync", "sync", "batch", "sync", "sync", "sync"],
    "date": [date(2026, 3, 2), date(2025, 12, 31), date(2024, 2, 29), date(2026, 1, 1), date(1970, 1, 1),
             date(2026, 3, 1)],
})


def test_days_since_1970_by_hand():
    assert days_since_1970(ROWS["date"]).tolist() == [20514, 20453, 19782, 20454, 0, 20513]
    assert days_since_1970(np.array(["2026-03-02"], dtype="datetime64[D]")).tolist() == [20514]


@pytest.mark.parametrize("sort", [True, False])
def test_the_earliest_day_per_ticker_is_pandas_minimum(sort):
    mine = earliest(ROWS["date"], ROWS["ticker"], sort=sort)
    pandas = ROWS.groupby("ticker", sort=sort)["date"].min()
    pd.testing.assert_series_equal(mine, pandas)
    assert mine.to_dict() == {"A": date(2025, 12, 31), "B": date(2024, 2, 29), "C": date(1970, 1, 1)}
    assert list(mine.index) == (["A", "B", "C"] if sort else ["B", "A", "C"])


def test_the_earliest_day_per_pair_of_keys():
    mine = earliest(ROWS["date"], [ROWS["ticker"], ROWS["mode"]])
    pd.testing.assert_series_equal(mine, ROWS.groupby(["ticker", "mode"])["date"].min())
    assert mine[("B", "sync")] == date(2026, 3, 1)


def test_a_missing_date_is_skipped_and_no_rows_give_no_groups():
    rows = ROWS.assign(date=[None, *ROWS["date"][1:]])
    mine = earliest(rows["date"], rows["ticker"])
    pd.testing.assert_series_equal(mine, rows.groupby("ticker")["date"].min())
    assert mine["B"] == date(2024, 2, 29)
    assert earliest(ROWS["date"][:0], ROWS["ticker"][:0]).empty
