"""The daily history built a part at a time (`history.daily_history_parts`) is the whole history
cut between series, and its check (`quality.history_problems`) judges it part by part."""

from datetime import date, timedelta

import pandas as pd
import pytest

from pipelines.history import build_price_history, daily_history, daily_history_parts, price_history_parts
from pipelines.observations import OBSERVATION_COLUMNS
from pipelines.quality import history_gaps, history_problems

AS_OF = date(2025, 1, 8)


def obs(ticker: str, mode: str, ago: int, output: float = 2.0, source: str = "genai-prices") -> dict:
    """A maker's observation made `ago` days before AS_OF."""
    row = dict.fromkeys(OBSERVATION_COLUMNS)
    row.update(ticker=ticker, provider="openai", provider_model_id=ticker.lower(), is_origin=True, mode=mode,
               effective_date=AS_OF - timedelta(days=ago), input=1.0, output=output, source=source,
               source_version="v", provenance="published", authority=43, superseded=False)
    return row


def points(*series: tuple[str, str, int]) -> pd.DataFrame:
    """One observation per (ticker, mode, days before AS_OF it was made)."""
    return pd.DataFrame([obs(*one) for one in series], columns=OBSERVATION_COLUMNS)


SERIES = points(("B", "sync", 7), ("A", "sync", 3), ("A", "batch", 5), ("A", "sync", 6), ("C", "sync", 0),
                ("B", "batch", 1))


@pytest.mark.parametrize("part_rows", [1, 4, 7, 12, 100])
def test_the_parts_are_the_whole_history_cut_between_series(part_rows):
    whole = daily_history(SERIES, AS_OF)
    parts = list(daily_history_parts(SERIES, AS_OF, part_rows))
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)
    keys = [set(zip(part["ticker"], part["mode"], strict=True)) for part in parts]
    assert all(not (a & b) for i, a in enumerate(keys) for b in keys[i + 1:])  # no series in two parts


def test_parts_hold_about_part_rows_rows_each():
    # In order: A batch 6 rows, A sync 7, B batch 2, B sync 8, C sync 1; a series goes to the part
    # its first row would fall in, so a part ends with whole series.
    sizes = [len(part) for part in daily_history_parts(SERIES, AS_OF, part_rows=8)]
    assert sizes == [13, 10, 1]


def test_no_point_gives_one_empty_part():
    parts = list(daily_history_parts(SERIES.iloc[0:0], AS_OF))
    assert len(parts) == 1 and parts[0].empty and list(parts[0].columns) == list(daily_history(SERIES, AS_OF).columns)


def test_the_published_history_in_parts_is_the_history():
    observations = pd.DataFrame([obs("A", "sync", 6), obs("A", "sync", 2, output=1.5), obs("B", "sync", 4),
                                 obs("B", "batch", 3, source="model-prices"), obs("C", "sync", -2)],
                                columns=OBSERVATION_COLUMNS)  # C's only price is dated after AS_OF
    whole = build_price_history(observations, AS_OF)
    assert len(whole) == 7 + 5 + 4 and set(whole["ticker"]) == {"A", "B"}
    parts = list(price_history_parts(observations, AS_OF, part_rows=3))
    assert len(parts) == 3
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)


def test_the_check_of_the_parts_is_the_check_of_the_whole():
    whole = daily_history(SERIES, AS_OF)
    gappy = whole.drop(index=[2, 20])  # one day out of two series
    parts = [gappy[gappy["ticker"] == ticker] for ticker in ("A", "B", "C")]
    problems, rows = history_problems(parts, AS_OF)
    assert problems == history_gaps(gappy, AS_OF) and len(problems) == 2
    assert rows == len(gappy)
    assert history_problems([whole], AS_OF) == ([], len(whole))


def test_a_series_in_two_parts_is_a_problem_of_its_own():
    whole = daily_history(SERIES, AS_OF)
    problems, _ = history_problems([whole.iloc[:4], whole.iloc[4:]], AS_OF)
    assert "A batch: split between parts of the table" in problems


def test_a_missing_price_in_any_part_is_reported():
    whole = daily_history(SERIES, AS_OF)
    broken = whole.assign(output=whole["output"].where(whole["ticker"] != "C"))
    problems, _ = history_problems([broken[broken["ticker"] != "C"], broken[broken["ticker"] == "C"]], AS_OF)
    assert problems == ["C: output missing"]


def test_each_day_says_when_its_statement_could_first_be_known():
    """A statement asserting a price from 6 days ago, first published 4 days ago, then one its
    source released 2 days ago (no own date): each day carries its statement's first known day."""
    first = obs("A", "sync", 6) | {"known_from": AS_OF - timedelta(days=4), "source_released": AS_OF - timedelta(days=1)}
    second = obs("A", "sync", 2, output=3.0) | {"source_released": AS_OF - timedelta(days=2)}
    history = daily_history(pd.DataFrame([first, second], columns=OBSERVATION_COLUMNS), AS_OF)
    assert history["known_on"].tolist() == [AS_OF - timedelta(days=4)] * 4 + [AS_OF - timedelta(days=2)] * 3
    assert history["observed_on"].tolist() == [AS_OF - timedelta(days=6)] * 4 + [AS_OF - timedelta(days=2)] * 3
