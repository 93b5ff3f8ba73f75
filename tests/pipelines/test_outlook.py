"""A forward in words: the announcement first, else the chance of a change and the expected move."""

from datetime import date

import pandas as pd

from pipelines.outlook import announced_change, in_words

AS_OF = date(2026, 12, 4)


def changes(*rows):
    return pd.DataFrame([{"ticker": t, "mode": m, "field": f, "effective_date": d, "before": b, "after": a}
                         for t, m, f, d, b, a in rows])


def test_the_last_output_change_due_by_the_horizon_over_todays_price():
    table = changes(("M", "sync", "output", date(2027, 1, 1), 2.0, 4.0), ("M", "sync", "input", date(2027, 1, 1), 1, 2),
                    ("M", "sync", "output", date(2027, 3, 1), 4.0, 3.0), ("M", "batch", "output", date(2027, 1, 1), 1, 9))
    assert announced_change(table, "M", "sync", AS_OF, 1) == (date(2027, 1, 1), 2.0)  # 2027-01-03 is 1M out
    assert announced_change(table, "M", "sync", AS_OF, 6) == (date(2027, 3, 1), 1.5)  # 3 over today's 2
    assert announced_change(table, "M", "sync", date(2026, 11, 1), 1) is None  # nothing due by 2026-12-01
    assert announced_change(table, "N", "sync", AS_OF, 12) is None


def test_the_sentences():
    assert in_words(6, 0.0201, 1.0, (date(2027, 1, 1), 2.0)) == "announced: doubles on 2027-01-01"
    assert in_words(6, 0.02, 2.03, (date(2027, 1, 1), 2.0)) == \
        "announced: doubles on 2027-01-01; expected +103.0% in 6 months"
    assert in_words(3, 0.1, 0.5, (date(2027, 1, 1), 0.5)).startswith("announced: halves on 2027-01-01")
    assert in_words(3, 0.1, 0.7, (date(2027, 1, 1), 0.7)).startswith("announced: −30% on 2027-01-01")
    assert in_words(6, 0.02, 1.0) == "no change announced; 2% chance of a change in 6 months"
    assert in_words(1, 0.004, 1.0) == "no change announced; under 1% chance of a change in 1 month"
    assert in_words(12, 0.13, 0.959) == "no change announced; 13% chance of a change in 12 months, expected −4.1%"
    assert in_words(12, 0.13, 0.9996) == "no change announced; 13% chance of a change in 12 months"  # under 0.05%
    assert in_words(12, None, None) == "no change announced; no forecast (no price history to learn from)"


def test_every_published_tenor_says_its_own_figures(store):
    curves = store.read_table("forward_curves")
    for row in curves.itertuples():
        if row.scheduled == row.spot:
            assert row.outlook == in_words(row.months, row.p_change, row.beta_forward / row.spot)
    announced = curves[(curves["ticker"] == "GEMINI-3.6-FLASH") & (curves["mode"] == "sync") & (curves["months"] == 6)]
    assert announced["outlook"].iloc[0].startswith("announced: doubles on 2027-01-01")


def test_a_line_forward_in_words():
    from pipelines.outlook import line_in_words

    assert line_in_words(date(2027, 6, 3), 0.7003, 0.7) == \
        "following the line: expected −30.0% by 2027-06 (70% chance of a successor by then)"
    assert line_in_words(date(2027, 5, 24), 0.352, 1.2843) == \
        "following the line: expected +28.4% by 2027-05 (35% chance of a successor by then)"
    assert line_in_words(date(2026, 12, 22), 0.004, 1.0003) == \
        "following the line: no change expected by 2026-12 (under 1% chance of a successor by then)"
