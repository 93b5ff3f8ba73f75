"""The history as the forecast reads it: name classes, change points, lookups and the window panel."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.change_panel import (
    CHANGE,
    FEATURES,
    FIRST,
    FIXED,
    POINTER,
    PREVIEW,
    SLIP,
    SWITCH,
    UNVERSIONED,
    Histories,
    change_points,
    name_class,
    window_panel,
)
from pipelines.months import DAYS_PER_MONTH
from pipelines.registry import Rules

EXACT = 1e-12


@pytest.mark.parametrize(("model_id", "expected"), [
    ("chatgpt-4o-latest", POINTER), ("gemini-2.5-flash-preview", PREVIEW), ("deepseek-v4-flash-vision-exp", PREVIEW),
    ("sonar", UNVERSIONED), ("qwen-plus", UNVERSIONED), ("command-light", UNVERSIONED),
    ("claude-sonnet-4-20250514", FIXED), ("gpt-4.1", FIXED), ("openai/gpt-4o", FIXED), ("mistral-large-2512", FIXED),
])
def test_name_class(model_id, expected):
    assert name_class(model_id) == expected


def points(*rows, mode="sync"):
    """rows: (ticker, date, output, source[, provenance])."""
    return pd.DataFrame([dict(ticker=r[0], mode=mode, date=r[1], output=r[2], source=r[3],
                              provenance=r[4] if len(r) > 4 else "published") for r in rows])


def test_change_points_marks_changes_switches_and_slips():
    frame = change_points(points(
        ("A", date(2025, 1, 1), 10.0, "a"),
        ("A", date(2025, 2, 1), 10.0, "b"),  # the same price from b: the level's source is now b
        ("A", date(2025, 3, 1), 8.0, "b"),  # a change
        ("A", date(2025, 3, 20), 12.0, "b"),  # undone within 62 days below: a slip, both halves
        ("A", date(2025, 4, 10), 8.0, "b"),
        ("A", date(2025, 5, 1), 6.0, "c"),  # a switch of source
        ("A", date(2025, 5, 2), 5.0, "c", "carried_forward"),  # never read
        ("A", date(2025, 6, 1), 0.0, "c"),  # not a price
        ("A", date(2025, 8, 1), 3.0, "c"),  # after as_of
        ("B", date(2025, 1, 5), 2.0, "a"),
    ), as_of=date(2025, 7, 1))
    rows = list(zip(frame["ticker"], frame["date"], frame["price"], frame["kind"], strict=True))
    assert rows == [("A", date(2025, 1, 1), 10.0, FIRST), ("A", date(2025, 3, 1), 8.0, CHANGE),
                    ("A", date(2025, 3, 20), 12.0, SLIP), ("A", date(2025, 4, 10), 8.0, SLIP),
                    ("A", date(2025, 5, 1), 6.0, SWITCH), ("B", date(2025, 1, 5), 2.0, FIRST)]
    assert frame["ratio"].tolist()[1] == 0.8 and frame["ratio"].tolist()[4] == 0.75
    assert np.isnan(frame["ratio"].tolist()[0]) and np.isnan(frame["ratio"].tolist()[2])


def test_a_move_undone_after_62_days_is_two_changes():
    frame = change_points(points(("A", date(2025, 1, 1), 10.0, "a"), ("A", date(2025, 2, 1), 12.0, "a"),
                                 ("A", date(2025, 4, 4), 10.0, "a")), as_of=date(2025, 7, 1))  # 62 days: a slip
    assert frame["kind"].tolist() == [FIRST, SLIP, SLIP]
    frame = change_points(points(("A", date(2025, 1, 1), 10.0, "a"), ("A", date(2025, 2, 1), 12.0, "a"),
                                 ("A", date(2025, 4, 5), 10.0, "a")), as_of=date(2025, 7, 1))  # 63 days
    assert frame["kind"].tolist() == [FIRST, CHANGE, CHANGE]


def test_only_the_moves_the_events_call_own_changes_are_changes():
    """A median of hosts moving as a host joins, or a restated listing, is no cut or increase of
    the events: it sets the level, as a switch does, no law learns a change from it, and it keeps
    the events' kind, so that the backtest can say why it left a case out."""
    series = points(("A", date(2025, 1, 1), 10.0, "hosts"), ("A", date(2025, 2, 1), 5.0, "hosts"),  # a host joined
                    ("A", date(2025, 3, 1), 4.0, "hosts"), ("A", date(2025, 4, 1), 8.0, "hosts"),  # its own cut, rise
                    ("A", date(2025, 5, 1), 9.0, "hosts"), ("A", date(2025, 6, 1), 7.0, "hosts"))  # restated; unnamed
    moves = pd.DataFrame({"ticker": ["A", "A", "A", "A", "B"],
                          "date": [date(2025, 2, 1), date(2025, 3, 1), date(2025, 4, 1), date(2025, 5, 1),
                                   date(2025, 2, 1)],
                          "kind": ["hosts_changed", "price_cut", "price_increase", "restated", "price_cut"]})
    frame = change_points(series, date(2025, 7, 1), moves)
    assert frame["kind"].tolist() == [FIRST, "hosts_changed", CHANGE, CHANGE, "restated", SWITCH]
    assert frame["ratio"].tolist()[1:] == pytest.approx([0.5, 0.8, 2.0, 9 / 8, 7 / 9], abs=EXACT)
    unnamed = change_points(series, date(2025, 7, 1), moves.iloc[:0])["kind"].tolist()
    assert unnamed == [FIRST, SWITCH, SWITCH, SWITCH, SWITCH, SWITCH]
    assert change_points(series, date(2025, 7, 1))["kind"].tolist() == [FIRST] + [CHANGE] * 5  # no events read


def test_an_own_change_wins_its_day_over_another_kind_named_that_day():
    series = points(("A", date(2025, 1, 1), 10.0, "a"), ("A", date(2025, 2, 1), 5.0, "a"))
    moves = pd.DataFrame({"ticker": ["A", "A"], "date": [date(2025, 2, 1)] * 2, "kind": ["price_cut", "restated"]})
    assert change_points(series, date(2025, 7, 1), moves)["kind"].tolist() == [FIRST, CHANGE]


def test_a_familys_last_rise_names_the_model_and_the_day():
    changes = pd.DataFrame([("A", date(2025, 1, 1), 10.0, np.nan, FIRST), ("A", date(2025, 3, 1), 12.0, 1.2, CHANGE),
                            ("A2", date(2025, 1, 1), 4.0, np.nan, FIRST), ("A2", date(2025, 5, 1), 5.0, 1.25, CHANGE),
                            ("A2", date(2025, 6, 1), 2.0, 0.4, CHANGE), ("B", date(2025, 1, 1), 1.0, np.nan, FIRST)],
                           columns=["ticker", "date", "price", "ratio", "kind"])
    h = Histories(changes, MODELS, NO_RULES)
    assert h.last_family_rise(["A", "A2", "A", "B"], days("2025-02-28", "2025-04-01", "2025-07-01", "2025-07-01")) \
        == ["", "A on 2025-03-01", "A2 on 2025-05-01", ""]


MODELS = pd.DataFrame([
    dict(ticker="A", provider="p", model_id="a-1", family="p/a", is_reasoning=True),
    dict(ticker="A2", provider="p", model_id="a-2", family="p/a", is_reasoning=False),
    dict(ticker="B", provider="q", model_id="b-preview", family="q/b", is_reasoning=False),
])
NO_RULES = Rules.from_frame(pd.DataFrame(columns=["kind", "pattern", "value"]))


def histories() -> Histories:
    changes = change_points(points(
        ("A", date(2025, 1, 15), 20.0, "a"), ("A", date(2025, 3, 10), 10.0, "a"),  # a cut, ratio 0.5
        ("A", date(2025, 4, 20), 12.0, "b"),  # a switch
        ("A2", date(2025, 2, 1), 1.0, "a"), ("A2", date(2025, 6, 1), 3.0, "a"),  # a rise in family p/a
        ("B", date(2025, 1, 1), 2.0, "a"),
    ), as_of=date(2025, 12, 31))
    return Histories(changes, MODELS, NO_RULES)


def days(*values):
    return np.array(values, dtype="datetime64[D]")


def test_histories_lookups():
    h = histories()
    assert h.tickers == ["A", "A2", "B"]
    assert h.price_at(["A"] * 5, days("2025-01-14", "2025-01-15", "2025-03-09", "2025-03-10", "2025-05-01")) \
        == pytest.approx([np.nan, 20.0, 20.0, 10.0, 12.0], nan_ok=True)
    count, ratio = h.moved_between(["A", "A", "A2"], days("2025-01-15", "2025-03-10", "2025-01-01"),
                                   days("2025-03-10", "2025-12-31", "2025-12-31"))
    assert count.tolist() == [1.0, 0.0, 1.0] and ratio == pytest.approx([0.5, 1.0, 3.0], abs=EXACT)  # the switch: none
    assert h.first_revision(["A", "A", "A2"], days("2025-04-01", "2025-04-20", "2025-01-01"),
                            days("2025-04-20", "2025-12-31", "2025-12-31")).tolist() == [SWITCH, "", ""]
    assert h.family_rose(["A", "A", "B"], days("2025-05-31", "2025-06-01", "2025-12-31")).tolist() \
        == [False, True, False]
    assert h.changes_upto(["A", "A"], days("2025-03-09", "2025-03-10")).tolist() == [0.0, 1.0]
    assert h.age_months(["B"], days("2025-02-01")) == pytest.approx([31 / DAYS_PER_MONTH], abs=EXACT)


def test_features_by_hand():
    h = histories()
    row = h.features(["A"], days("2025-07-01")).iloc[0]
    assert list(row.index) == FEATURES
    # First price 15 January, last change 10 March: 167 and 113 days before 1 July.
    assert row["log_age"] == pytest.approx(math.log1p(167 / DAYS_PER_MONTH), abs=EXACT)
    assert row["log_since_change"] == pytest.approx(math.log1p(113 / DAYS_PER_MONTH), abs=EXACT)
    assert (row["changed_before"], row["log_changes"]) == (1.0, pytest.approx(math.log(2), abs=EXACT))
    assert (row["pointer"], row["preview"], row["unversioned"]) == (0.0, 0.0, 0.0)
    # 12 $/M in force (the switch sets the level): frontier (10 $/M and above).
    assert (row["frontier"], row["mid"], row["reasoning"]) == (1.0, 0.0, 1.0)
    assert row["log_price"] == pytest.approx(math.log(12.0), abs=EXACT)
    # Provider p: 2 changes (A's cut, A2's rise) in the six months to 1 July, 2 models live.
    assert row["provider_rate"] == pytest.approx(math.log1p(10 * 2 / 2), abs=EXACT)
    # The family's other model (A2) rose on 1 June; A2 (first 1 February) is newer than A.
    assert (row["family_changed"], row["newer_in_family"]) == (1.0, 1.0)
    other = h.features(["A2", "B"], days("2025-03-01", "2025-03-01"))
    assert other["newer_in_family"].tolist() == [0.0, 0.0]
    assert other["family_changed"].tolist() == [0.0, 0.0]  # A's cut on 10 March is after 1 March
    assert other["preview"].tolist() == [0.0, 1.0]
    assert other["mid"].tolist() == [0.0, 1.0]  # 1 $/M is efficient (≤ 1.5), 2 $/M mid


def test_window_panel_by_hand():
    panel = window_panel(histories(), date(2025, 5, 10), horizons=(1, 3))
    a = panel[panel["ticker"] == "A"]
    # A's first price is 15 January: its windows start on 1 February, 1 March, 1 April (1M) and 1 February (3M).
    assert list(zip(a["months"], a["anchor"])) == [(1.0, date(2025, 2, 1)), (1.0, date(2025, 3, 1)),
                                                   (1.0, date(2025, 4, 1)), (3.0, date(2025, 2, 1))]
    assert a["changed"].tolist() == [False, True, False, True]
    assert a["ratio"].tolist() == pytest.approx([1.0, 0.5, 1.0, 0.5], abs=EXACT)
    assert a["family_rose"].tolist() == [False] * 4
    b = panel[panel["ticker"] == "B"]  # first price on 1 January: its first window starts that day
    assert b["anchor"].tolist() == [date(2025, m, 1) for m in (1, 2, 3, 4)] + [date(2025, 1, 1), date(2025, 2, 1)]
    features = histories().features(["A"], days("2025-03-01")).iloc[0]
    assert a.iloc[1][FEATURES].to_numpy(float) == pytest.approx(features.to_numpy(float), abs=EXACT)


def test_an_empty_history():
    empty = Histories(change_points(points(("A", date(2025, 1, 1), 1.0, "a")).iloc[:0], date(2025, 1, 1)),
                      MODELS, NO_RULES)
    assert empty.tickers == [] and window_panel(empty, date(2025, 6, 1)).empty
