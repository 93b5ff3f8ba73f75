"""Price events from small hand-made histories: which changes count, and their numbers."""

from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.events import EVENT_COLUMNS, EVENT_KINDS, build_events, pct_change, recent_events
from pipelines.history import POINT_COLUMNS

START = date(2025, 1, 1)
AS_OF = date(2025, 1, 31)
NAN = float("nan")


def d(n: int) -> date:
    return START + timedelta(days=n - 1)


def point(day, input_, output, cache_read=NAN, provenance="published", source="genai-prices"):
    return dict(day=day, input=input_, output=output, cache_read=cache_read, provenance=provenance,
                source=source)


def series(ticker, mode, points, end=AS_OF):
    """Daily rows from the first observed point to `end`, days between points carried forward."""
    by_day = {p["day"]: p for p in points}
    rows, last, day = [], None, min(by_day)
    while day <= end:
        observed = by_day.get(day)
        last = observed or last
        row = dict.fromkeys(POINT_COLUMNS)
        row.update(
            ticker=ticker, mode=mode, date=day, input=last["input"], output=last["output"],
            cache_read=last["cache_read"], cache_write=NAN, reasoning=NAN, source=last["source"],
            source_version="1.0", source_url=f"https://example.com/{ticker}/{last['day']}",
            provenance=last["provenance"] if observed else "carried_forward", observed_on=last["day"],
        )
        rows.append(row)
        day += timedelta(days=1)
    return rows


def history(*many):
    columns = ["ticker", "mode", "date", *POINT_COLUMNS, "observed_on"]
    return pd.DataFrame([row for rows in many for row in rows], columns=columns)


def models(active=("A",), deprecated=(), deprecated_on=None):
    """Tickers by status; `deprecated_on` dates the deprecated ones (None: no source dates them)."""
    return pd.DataFrame({"ticker": [*active, *deprecated],
                         "status": ["active"] * len(active) + ["deprecated"] * len(deprecated),
                         "deprecated_on": [None] * len(active) + [deprecated_on] * len(deprecated)})


def changes(events):
    """The events other than new_model, as comparable tuples."""
    rest = events[events["kind"] != "new_model"]
    return [(k, m, f, b, a, e) for k, m, f, b, a, e in zip(
        rest["kind"], rest["mode"], rest["field"], rest["before"], rest["after"], rest["effective_date"])]


def events_of(*sync_points, status=None):
    frame = history(series("A", "sync", list(sync_points)))
    return build_events(frame, status if status is not None else models(), AS_OF)


@pytest.mark.parametrize(("first", "second", "expected"), [
    # a cut of output alone
    ((3.0, 15.0), (3.0, 12.0), [("price_cut", "output", 15.0, 12.0, -0.2)]),
    # an increase of input alone
    ((2.0, 8.0), (3.0, 8.0), [("price_increase", "input", 2.0, 3.0, 0.5)]),
    # both fields cut
    ((4.0, 16.0), (2.0, 12.0), [("price_cut", "input", 4.0, 2.0, -0.5), ("price_cut", "output", 16.0, 12.0, -0.25)]),
    # one up, one down
    ((1.0, 10.0), (1.25, 5.0), [("price_increase", "input", 1.0, 1.25, 0.25), ("price_cut", "output", 10.0, 5.0, -0.5)]),
    # equal prices: no event
    ((3.0, 15.0), (3.0, 15.0), []),
    # below the precision of a price (a relative 1e-4): no event
    ((3.0, 15.0), (3.0, 15.0 * (1 + 9e-5)), []),
    # a change just above it still counts
    ((3.0, 15.0), (3.0, 15.0 * (1 + 2e-4)), [("price_increase", "output", 15.0, 15.0 * (1 + 2e-4), 2e-4)]),
])
def test_sync_price_changes(first, second, expected):
    # The same source's own listing moving to a price not stated before (another source taking over is `restated`).
    events = events_of(point(d(1), *first), point(d(10), *second, provenance="current"))
    changed = events[events["kind"] != "new_model"]
    got = list(zip(changed["kind"], changed["field"], changed["before"], changed["after"], changed["pct_change"]))
    assert len(got) == len(expected)
    for row, want in zip(got, expected):
        assert row[:4] == want[:4]
        assert row[4] == pytest.approx(want[4], rel=1e-6)
    assert (changed["effective_date"] == d(10)).all()
    assert (changed["provenance"] == "current").all() and (changed["source"] == "genai-prices").all()
    assert (changed["mode"] == "sync").all()


def test_each_point_is_compared_with_the_previous_observed_point():
    events = events_of(point(d(1), 2.0, 10.0), point(d(5), 2.0, 8.0), point(d(9), 2.0, 8.0), point(d(20), 2.0, 9.0))
    assert changes(events) == [
        ("price_cut", "sync", "output", 10.0, 8.0, d(5)),
        ("price_increase", "sync", "output", 8.0, 9.0, d(20)),
    ]


def test_carried_forward_rows_never_make_an_event():
    frame = history(series("A", "sync", [point(d(1), 2.0, 10.0)]))
    # A carried-forward day that (wrongly) holds another price is still no observation.
    frame.loc[frame["date"] == d(15), "output"] = 5.0
    assert changes(build_events(frame, models(), AS_OF)) == []


def test_new_model_is_the_first_sync_point():
    events = events_of(point(d(3), 1.0, 4.0, provenance="archived", source="model-price-radar-mcp"),
                       point(d(8), 1.0, 2.0))
    new = events[events["kind"] == "new_model"]
    assert len(new) == 1
    row = new.iloc[0]
    assert (row["ticker"], row["mode"], row["field"], row["after"], row["effective_date"]) == ("A", "sync", "output", 4.0, d(3))
    assert np.isnan(row["before"]) and np.isnan(row["pct_change"])
    assert (row["provenance"], row["source"]) == ("archived", "model-price-radar-mcp")
    assert row["event_id"] == "A:sync:output:2025-01-03"


@pytest.mark.parametrize(("cache", "expected"), [
    # a known value that moves
    ((0.5, 0.25), [(d(10), 0.5, 0.25, -0.5)]),
    # unknown to known is no change
    ((NAN, 0.3), []),
    # known to unknown is no change either
    ((0.3, NAN), []),
    # an observation that leaves the field empty neither hides a change nor makes one
    ((0.3, NAN, 0.3), []),
    ((0.3, NAN, 0.6), [(d(20), 0.3, 0.6, 1.0)]),
])
def test_cache_changes(cache, expected):
    days = [d(1), d(10), d(20)]
    events = events_of(*[point(day, 1.0, 4.0, cache_read=c) for day, c in zip(days, cache)])
    got = events[events["kind"] == "cache_change"]
    assert list(got["field"].unique()) in ([], ["cache_read"])
    assert [(e, b, a) for e, b, a in zip(got["effective_date"], got["before"], got["after"])] == [w[:3] for w in expected]
    assert list(got["pct_change"]) == pytest.approx([w[3] for w in expected])
    assert len(events) == 1 + len(expected)  # new_model, and nothing else


def test_batch_series_events():
    frame = history(
        series("A", "sync", [point(d(1), 2.0, 8.0)]),
        series("A", "batch", [point(d(4), 1.0, 4.0, cache_read=0.2, provenance="first_observed"),
                              point(d(12), 1.0, 5.0, cache_read=0.1),
                              point(d(18), 0.5, 5.0, cache_read=0.1)]),
    )
    events = build_events(frame, models(), AS_OF)
    batch = events[events["mode"] == "batch"]
    got = list(zip(batch["kind"], batch["field"], batch["before"].fillna(-1), batch["after"], batch["effective_date"]))
    assert got == [
        ("batch_change", "output", -1, 4.0, d(4)),
        ("cache_change", "cache_read", 0.2, 0.1, d(12)),
        ("batch_change", "output", 4.0, 5.0, d(12)),
        ("batch_change", "input", 1.0, 0.5, d(18)),
    ]
    assert batch["pct_change"].fillna(-1).tolist() == pytest.approx([-1, -0.5, 0.25, -0.5])
    assert batch["provenance"].iloc[0] == "first_observed"
    # A batch change is never reported as a sync cut or increase.
    assert set(events.loc[events["mode"] == "batch", "kind"]) == {"batch_change", "cache_change"}


def test_deprecated_is_dated_by_its_source_with_the_last_observation_before_it():
    frame = history(
        series("OLD", "sync", [point(d(1), 2.0, 8.0, provenance="archived", source="model-price-radar-mcp"),
                               point(d(6), 2.0, 8.0, provenance="first_observed", source="model-prices")]),
        series("OLD", "batch", [point(d(2), 1.0, 4.0), point(d(20), 1.0, 4.0)]),  # batch does not date it
        series("A", "sync", [point(d(1), 1.0, 2.0), point(d(9), 1.0, 2.0)]),
    )
    events = build_events(frame, models(active=("A",), deprecated=("OLD",), deprecated_on=d(8)), AS_OF)
    deprecated = events[events["kind"] == "deprecated"]
    assert len(deprecated) == 1
    row = deprecated.iloc[0]
    assert (row["ticker"], row["mode"], row["field"], row["effective_date"]) == ("OLD", "sync", "status", d(8))
    assert (row["provenance"], row["source"]) == ("first_observed", "model-prices")  # the d(6) observation
    undated = build_events(frame, models(active=("A",), deprecated=("OLD",)), AS_OF)
    assert "deprecated" not in set(undated["kind"])  # no source dates it: no event
    assert np.isnan(row["before"]) and np.isnan(row["after"]) and np.isnan(row["pct_change"])


def test_observations_after_as_of_are_ignored():
    frame = history(series("OLD", "sync", [point(d(1), 2.0, 8.0), point(d(25), 2.0, 4.0)]))
    events = build_events(frame, models(active=(), deprecated=("OLD",), deprecated_on=d(10)), d(20))
    assert list(events["kind"]) == ["new_model", "deprecated"]
    assert events["effective_date"].tolist() == [d(1), d(10)]
    assert "deprecated" not in set(build_events(frame, models(active=(), deprecated=("OLD",),
                                                              deprecated_on=d(25)), d(20))["kind"])


def test_columns_ids_and_order():
    frame = history(
        series("B", "sync", [point(d(2), 1.0, 2.0), point(d(7), 0.5, 2.0)]),
        series("A", "sync", [point(d(1), 3.0, 6.0, cache_read=0.3), point(d(7), 3.0, 9.0, cache_read=0.6)]),
        series("A", "batch", [point(d(7), 1.5, 4.5)]),
    )
    events = build_events(frame, models(active=("A", "B")), AS_OF)
    assert list(events.columns) == EVENT_COLUMNS
    assert list(events["event_id"]) == [
        "A:sync:output:2025-01-01",
        "B:sync:output:2025-01-02",
        "A:batch:output:2025-01-07",
        "A:sync:cache_read:2025-01-07",
        "A:sync:output:2025-01-07",
        "B:sync:input:2025-01-07",
    ]
    assert set(events["kind"]) <= set(EVENT_KINDS)


def test_empty_history_gives_empty_events():
    events = build_events(history(), models(), AS_OF)
    assert list(events.columns) == EVENT_COLUMNS and events.empty


@pytest.mark.parametrize(("before", "after", "expected"), [
    (40.0, 8.0, -0.8),
    (10.0, 2.0, -0.8),
    (2.0, 3.0, 0.5),
    (3.0, 3.3, 0.1),
    (0.25, 1.0, 3.0),
    (0.0, 1.0, NAN),
    (NAN, 1.0, NAN),
])
def test_pct_change(before, after, expected):
    got = float(pct_change([before], [after])[0])
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12)


@pytest.fixture
def sample():
    frame = history(
        series("O3", "sync", [point(d(1), 10.0, 40.0), point(d(10), 2.0, 8.0)]),
        series("GPT-4.1", "sync", [point(d(5), 2.0, 8.0), point(d(10), 2.0, 6.0), point(d(20), 2.0, 7.0)]),
    )
    return build_events(frame, models(active=("O3", "GPT-4.1")), AS_OF)


@pytest.mark.parametrize(("kwargs", "expected"), [
    (dict(since=d(10)), ["GPT-4.1:sync:output:2025-01-20", "GPT-4.1:sync:output:2025-01-10",
                         "O3:sync:input:2025-01-10", "O3:sync:output:2025-01-10"]),
    (dict(since=d(11)), ["GPT-4.1:sync:output:2025-01-20"]),
    (dict(since=d(1), ticker="o3"), ["O3:sync:input:2025-01-10", "O3:sync:output:2025-01-10",
                                     "O3:sync:output:2025-01-01"]),
    (dict(since=d(1), kind="new_model"), ["GPT-4.1:sync:output:2025-01-05", "O3:sync:output:2025-01-01"]),
    (dict(since=d(1), kind="price_increase"), ["GPT-4.1:sync:output:2025-01-20"]),
    (dict(since=d(1), ticker="gpt-4.1", kind="price_cut"), ["GPT-4.1:sync:output:2025-01-10"]),
    (dict(since=d(1), limit=2), ["GPT-4.1:sync:output:2025-01-20", "GPT-4.1:sync:output:2025-01-10"]),
    (dict(since=None, ticker="nope"), []),
    (dict(since=d(21)), []),
])
def test_recent_events(sample, kwargs, expected):
    assert list(recent_events(sample, **kwargs)["event_id"]) == expected


@pytest.mark.parametrize("kwargs", [dict(kind="price_drop"), dict(limit=-1)])
def test_recent_events_rejects_bad_filters(sample, kwargs):
    with pytest.raises(ValueError):
        recent_events(sample, d(1), **kwargs)


def test_a_change_undone_within_a_month_is_flagged_reverted_on_both_events():
    h = history(series("A", "sync", [point(d(1), 1.0, 4.0), point(d(5), 1.0, 5.0), point(d(20), 1.0, 4.0),
                                     point(d(25), 1.0, 3.0)]))
    events = build_events(h, models(), AS_OF)
    flagged = events[events["kind"] != "new_model"][["effective_date", "after", "reverted"]].values.tolist()
    assert flagged == [[d(5), 5.0, True], [d(20), 4.0, True], [d(25), 3.0, False]]


def test_a_change_undone_after_more_than_a_month_is_not_reverted():
    h = history(series("A", "sync", [point(d(1), 1.0, 4.0), point(d(2), 1.0, 5.0), point(d(34), 1.0, 4.0)],
                       end=d(40)))
    events = build_events(h, models(), d(40))
    assert not events["reverted"].any()


def test_new_model_is_dated_first_seen_and_deprecation_its_dated_flag():
    h = history(series("A", "sync", [point(d(10), 1.0, 4.0)]), series("B", "sync", [point(d(1), 1.0, 4.0)]))
    registry = pd.DataFrame({"ticker": ["A", "B"], "status": ["active", "deprecated"],
                             "first_seen": [d(3), d(1)], "deprecated_on": [None, d(7)]})
    events = build_events(h, registry, AS_OF).set_index(["ticker", "kind"])
    assert events.loc[("A", "new_model"), "effective_date"] == d(3)  # a source showed it before its series
    assert events.loc[("B", "deprecated"), "effective_date"] == d(7)


def test_a_repointed_alias_is_an_alias_moved_event_not_a_price_change():
    h = history(series("OLD", "sync", [point(d(1), 2.0, 6.0)]), series("NEW", "sync", [point(d(1), 0.5, 1.5)]))
    spans = pd.DataFrame({"alias": ["x-latest", "x-latest"], "maker": ["m", "m"], "ticker": ["OLD", "NEW"],
                          "model_id": ["x-1", "x-2"], "valid_from": [d(1), d(15)], "valid_to": [d(14), None],
                          "basis": ["price", "price"], "source": ["genai-prices", "model-prices"]})
    events = build_events(h, models(active=("OLD", "NEW")), AS_OF, spans)
    moved = events[events["kind"] == "alias_moved"]
    assert moved[["ticker", "effective_date", "source", "detail"]].values.tolist() == [
        ["NEW", d(15), "model-prices", "x-latest moved from OLD to NEW"]]
    assert set(events["kind"]) == {"new_model", "alias_moved"}


def test_an_alias_moved_back_within_a_month_is_flagged_reverted():
    h = history(series("A", "sync", [point(d(1), 0.4, 2.0)]), series("B", "sync", [point(d(1), 1.5, 7.5)]))
    spans = pd.DataFrame({"alias": ["m-latest"] * 3, "maker": ["m"] * 3, "ticker": ["B", "A", "B"],
                          "model_id": ["b", "a", "b"], "valid_from": [d(1), d(2), d(14)],
                          "valid_to": [d(1), d(13), None], "basis": ["price"] * 3, "source": ["mp"] * 3})
    moved = build_events(h, models(active=("A", "B")), AS_OF, spans)
    moved = moved[moved["kind"] == "alias_moved"]
    assert moved[["effective_date", "ticker", "reverted"]].values.tolist() == [[d(2), "A", True], [d(14), "B", True]]


def test_a_median_of_hosts_that_moves_is_hosts_changed_and_left_out_of_the_default_listing():
    """LLAMA-3.2-1B: a median of 3 hosts, then of 5 once another catalogue's hosts joined the set
    (output 0.201 → 0.100): no one's own price moved. A maker's own cut the same day is a cut."""
    median = "host-median"
    events = build_events(history(
        series("LLAMA", "sync", [point(d(1), 0.005, 0.201, source=median), point(d(10), 0.005, 0.100, source=median)]),
        series("A", "sync", [point(d(1), 1.0, 4.0), point(d(10), 1.0, 3.0)]),
    ), models(active=("A", "LLAMA")), AS_OF)
    assert changes(events) == [("price_cut", "sync", "output", 4.0, 3.0, d(10)),
                               ("hosts_changed", "sync", "output", 0.201, 0.100, d(10))]
    listed = recent_events(events, d(2))
    assert list(listed["kind"]) == ["price_cut"]  # the default listing: price changes only
    assert list(recent_events(events, d(2), kind="hosts_changed")["ticker"]) == ["LLAMA"]


def test_a_move_under_the_precision_of_a_price_is_no_event():
    """0.4 $/M stated per token and read back as 0.39998 is no cut; 0.4 → 0.396 (1%) is."""
    events = build_events(history(
        series("A", "sync", [point(d(1), 1.0, 0.4), point(d(10), 1.0, 0.39998)]),
        series("B", "sync", [point(d(1), 1.0, 0.4), point(d(10), 1.0, 0.396)]),
    ), models(active=("A", "B")), AS_OF)
    assert changes(events) == [("price_cut", "sync", "output", 0.4, 0.396, d(10))]


def _maker_statements(ticker, *stated):
    """The maker's own statements the observations hold: (day, input, output) each."""
    return pd.DataFrame([dict(ticker=ticker, mode="sync", is_origin=True, effective_date=day, input=i, output=o)
                         for day, i, o in stated])


def test_a_catalogue_correcting_its_own_undated_listing_is_restated_not_a_price_change():
    """MISTRAL-SMALL-3.2: the maker's price 0.1/0.3 since day 1; an older catalogue release listed
    0.075/0.2 (day 5), the newer one 0.1/0.3 again, with no dated change (day 20). The same
    shape dated by its source (`published`) is the maker's own increase."""
    stated = _maker_statements("A", (d(1), 0.1, 0.3), (d(5), 0.075, 0.2), (d(20), 0.1, 0.3))
    undated = history(series("A", "sync", [point(d(1), 0.1, 0.3, provenance="first_observed"),
                                           point(d(5), 0.075, 0.2, provenance="archived"),
                                           point(d(20), 0.1, 0.3, provenance="current")]))
    events = build_events(undated, models(), AS_OF, observations=stated)
    assert changes(events)[-2:] == [("restated", "sync", "input", 0.075, 0.1, d(20)),
                                    ("restated", "sync", "output", 0.2, 0.3, d(20))]
    assert "restated" not in set(recent_events(events, d(2))["kind"])  # out of the default listing
    dated = history(series("A", "sync", [point(d(5), 0.075, 0.2), point(d(20), 0.1, 0.3)]))
    assert {kind for kind, *_ in changes(build_events(dated, models(), AS_OF, observations=stated))} == \
        {"price_increase"}


def test_another_source_taking_a_series_over_at_another_price_is_restated():
    """GLM-5: one dataset's 0/0, then a catalogue's undated 1/3.2: what changed is which statement
    the oracle reads. A new price no one stated before, from the same source, stays a change."""
    frame = history(series("A", "sync", [point(d(1), 0.0, 0.0, provenance="first_observed", source="model-prices"),
                                         point(d(10), 1.0, 3.2, provenance="current")]),
                    series("B", "sync", [point(d(1), 1.0, 4.0, provenance="archived"),
                                         point(d(10), 1.0, 3.0, provenance="current")]))
    events = build_events(frame, models(active=("A", "B")), AS_OF, observations=_maker_statements("B", (d(1), 1.0, 4.0)))
    assert [(t, k, f) for t, k, f in zip(events["ticker"], events["kind"], events["field"], strict=True)
            if k != "new_model"] == [("A", "restated", "input"), ("A", "restated", "output"), ("B", "price_cut", "output")]
