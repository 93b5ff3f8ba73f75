"""Change points and period ends of a daily series, by hand."""

from datetime import date, timedelta

import numpy as np
import pandas as pd

from pipelines.history_points import change_points, period_ends


def _series(prices):
    start = date(2026, 1, 1)
    return pd.DataFrame({"date": [start + timedelta(days=i) for i in range(len(prices))],
                         "output": [p[0] for p in prices], "input": [p[1] for p in prices]})


def test_a_change_point_is_the_first_day_and_each_day_a_price_moves():
    rows = _series([(10, 2), (10, 2), (8, 2), (8, 2), (8, 1.5), (8, np.nan), (8, np.nan), (10, 2)])
    assert change_points(rows, ["output", "input"]).tolist() == [True, False, True, False, True, True, False, True]
    assert change_points(rows.iloc[0:0], ["output"]).tolist() == []


def test_a_period_ends_on_its_last_row():
    # 2026-01-01 is a Thursday: the first ISO week ends on Sunday the 4th, January on the 31st.
    dates = pd.Series([date(2026, 1, 1) + timedelta(days=i) for i in range(40)])
    weeks = period_ends(dates, "week")
    assert [d.isoformat() for d in dates[weeks]] == ["2026-01-04", "2026-01-11", "2026-01-18", "2026-01-25",
                                                     "2026-02-01", "2026-02-08", "2026-02-09"]
    months = period_ends(dates, "month")
    assert [d.isoformat() for d in dates[months]] == ["2026-01-31", "2026-02-09"]
    assert period_ends(dates, "day").all()
