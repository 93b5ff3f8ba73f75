"""Scheduled changes from dated statements after the snapshot, and the level they put on forwards."""

from datetime import date

import pandas as pd

from pipelines.listings import PRICE_FIELDS
from pipelines.observations import OBSERVATION_COLUMNS
from pipelines.scheduled import build_scheduled_changes, horizon_date, level_ratios

AS_OF = date(2026, 11, 22)


def statement(day, input_, output, note=None, superseded=False, provenance="published", is_origin=True):
    return dict.fromkeys(OBSERVATION_COLUMNS) | {
        "ticker": "ARGON", "provider": "google", "provider_model_id": "argon", "is_origin": is_origin,
        "mode": "sync", "effective_date": day, "input": input_, "output": output, "source": "genai-prices",
        "source_version": "0.2.3", "source_released": date(2026, 11, 10), "provenance": provenance,
        "superseded": superseded, "authority": 43, "note": note}


SPOTS = pd.DataFrame([{"ticker": "ARGON", **{f"{field}_sync": None for field in PRICE_FIELDS},
                       "beta_sync": 10.0, "input_sync": 2.0}])


def test_each_field_that_changes_is_one_row_against_the_value_before_it():
    observations = pd.DataFrame([
        statement(date(2026, 11, 30), 2.0, 10.0, note="in force before 2026-12-01"),  # restates today's price
        statement(date(2026, 12, 1), 4.0, 20.0),
        statement(date(2027, 3, 1), 4.0, 15.0),
        statement(date(2026, 12, 1), 9.0, 90.0, superseded=True),  # lost to another statement
        statement(date(2026, 12, 5), 9.0, 90.0, is_origin=False),  # a host's price
        statement(date(2026, 10, 1), 1.0, 5.0),  # already history
    ], columns=OBSERVATION_COLUMNS)
    changes = build_scheduled_changes(observations, SPOTS, AS_OF)
    rows = list(zip(changes["effective_date"], changes["field"], changes["before"], changes["after"], strict=True))
    assert rows == [(date(2026, 12, 1), "input", 2.0, 4.0), (date(2026, 12, 1), "output", 10.0, 20.0),
                    (date(2027, 3, 1), "output", 20.0, 15.0)]
    assert changes["pct_change"].tolist() == [1.0, 1.0, -0.25]
    assert set(changes["announced_on"]) == {date(2026, 11, 10)}


def test_the_level_at_a_horizon_is_the_last_announced_price_by_its_date():
    changes = pd.DataFrame({"ticker": ["ARGON", "ARGON"], "mode": ["sync", "sync"], "field": ["output", "output"],
                            "effective_date": [date(2026, 12, 1), date(2027, 3, 1)], "after": [20.0, 15.0]})
    assert horizon_date(AS_OF, 1) == date(2026, 12, 22)  # 30.4375 days, rounded
    assert horizon_date(AS_OF, 0.25) == date(2026, 11, 30)
    assert level_ratios(changes, "ARGON", "sync", 10.0, AS_OF, [0.25, 1, 3, 6]).tolist() == [1.0, 2.0, 2.0, 1.5]
    assert level_ratios(changes, "ARGON", "batch", 10.0, AS_OF, [6]).tolist() == [1.0]
