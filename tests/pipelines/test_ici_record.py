"""The index's record: levels published once, restatements appended as revisions, by hand."""

from datetime import UTC, date, datetime

import numpy as np
import pandas as pd
import pytest

from pipelines.ici_record import PUBLISHED_COLUMNS, REVISION_COLUMNS, in_force, record_levels

D1, D2, D3 = date(2026, 11, 22), date(2026, 11, 23), date(2026, 11, 24)
FIRST, SECOND, THIRD = (datetime(2026, 11, day, 6, tzinfo=UTC) for day in (23, 24, 25))


def history(*rows):
    """(date, type, value, constituents[, carried_forward])."""
    rows = [(*row, 0)[:5] for row in rows]
    return pd.DataFrame(rows, columns=["date", "type", "value", "constituents", "carried_forward"])


EMPTY_PUBLISHED = pd.DataFrame(columns=PUBLISHED_COLUMNS)
EMPTY_REVISIONS = pd.DataFrame(columns=REVISION_COLUMNS)


def test_the_first_build_publishes_every_level_it_has_and_no_null():
    built = history((D1, "sync", 2.0, 20, 3), (D1, "batch", np.nan, 0), (D2, "sync", 2.5, 20, 4))
    published, revisions = record_levels(built, EMPTY_PUBLISHED, EMPTY_REVISIONS, FIRST, "s1", "ici-2.0")
    assert published.values.tolist() == [[D1, "sync", 2.0, 20, 3, FIRST, "s1", "ici-2.0"],
                                         [D2, "sync", 2.5, 20, 4, FIRST, "s1", "ici-2.0"]]
    assert revisions.empty and list(revisions.columns) == REVISION_COLUMNS


def test_a_later_build_appends_new_days_and_revises_changed_ones_without_touching_the_published():
    first = history((D1, "sync", 2.0, 20), (D2, "sync", 2.5, 20), (D2, "batch", 1.5, 6))
    published, revisions = record_levels(first, EMPTY_PUBLISHED, EMPTY_REVISIONS, FIRST, "s1", "ici-2.0")
    # Next day: D1 unchanged up to float noise, D2's sync restated by new data (same
    # constituents), D2's batch with one more constituent priced, D3 new.
    second = history((D1, "sync", 2.0 * (1 + 1e-15), 20), (D2, "sync", 2.4, 20), (D2, "batch", 1.25, 7),
                     (D3, "sync", 2.4, 20))
    published2, revisions2 = record_levels(second, published, revisions, SECOND, "s2", "ici-2.0")
    assert published2.iloc[:3].values.tolist() == published.values.tolist()  # published stays as it was
    assert published2.iloc[3].tolist() == [D3, "sync", 2.4, 20, 0, SECOND, "s2", "ici-2.0"]
    assert revisions2.values.tolist() == [
        [D2, "sync", 2.5, 2.4, 20, 20, "a constituent's price for the day was restated by newer data", SECOND, "s2",
         "ici-2.0"],
        [D2, "batch", 1.5, 1.25, 6, 7, "constituents priced that day 6 → 7", SECOND, "s2", "ici-2.0"],
    ]
    # A third build under a new methodology: the level in force is the revision's, not the published one.
    third = history((D1, "sync", 2.0, 20), (D2, "sync", 2.2, 20), (D2, "batch", 1.25, 7), (D3, "sync", 2.4, 20))
    published3, revisions3 = record_levels(third, published2, revisions2, THIRD, "s3", "ici-3.0")
    assert published3.values.tolist() == published2.values.tolist()
    assert revisions3.iloc[2].tolist() == [D2, "sync", 2.4, 2.2, 20, 20, "methodology ici-2.0 → ici-3.0", THIRD,
                                           "s3", "ici-3.0"]
    # The same build again records nothing more.
    again = record_levels(third, published3, revisions3, THIRD, "s4", "ici-3.0")
    assert again[0].values.tolist() == published3.values.tolist()
    assert again[1].values.tolist() == revisions3.values.tolist()


def test_in_force_is_the_newest_revision_else_the_published_level():
    published = pd.DataFrame([[D1, "sync", 2.0, 20, 0, FIRST, "s1", "ici-2.0"],
                              [D2, "sync", 3.0, 20, 0, FIRST, "s1", "ici-2.0"]], columns=PUBLISHED_COLUMNS)
    revisions = pd.DataFrame([[D1, "sync", 2.0, 2.1, 20, 20, "r", SECOND, "s2", "ici-2.0"],
                              [D1, "sync", 2.1, 2.2, 20, 19, "r", THIRD, "s3", "ici-2.0"]], columns=REVISION_COLUMNS)
    assert in_force(published, revisions)[["date", "level", "constituents"]].values.tolist() == [
        [D2, 3.0, 20], [D1, 2.2, 19]]


def test_a_recorded_level_that_loses_its_value_is_revised_to_null():
    published, revisions = record_levels(history((D1, "batch", 1.5, 6)), EMPTY_PUBLISHED, EMPTY_REVISIONS, FIRST,
                                         "s1", "ici-2.0")
    _, revised = record_levels(history((D1, "batch", np.nan, 0)), published, revisions, SECOND, "s2", "ici-2.0")
    assert revised["old"].tolist() == [1.5] and np.isnan(revised["new"].iloc[0])
    assert revised["reason"].tolist() == ["constituents priced that day 6 → 0"]


@pytest.mark.parametrize("noise", [1e-13, -1e-13])
def test_float_noise_is_no_restatement(noise):
    published, revisions = record_levels(history((D1, "sync", 2.0, 20)), EMPTY_PUBLISHED, EMPTY_REVISIONS, FIRST,
                                         "s1", "ici-2.0")
    _, revised = record_levels(history((D1, "sync", 2.0 * (1 + noise), 20)), published, revisions, SECOND, "s2",
                               "ici-2.0")
    assert revised.empty
