"""The default /v1/events window holds no artefact: snapshots built on two as-of dates agree on
every event they both cover, nothing is dated on a snapshot day by an undated catalogue, and a
model's new_model event is on its first_seen."""

from datetime import date, timedelta

import pandas as pd
import pytest

from pipelines.events import recent_events
from serve.api.curves import EVENTS_WINDOW_DAYS
from tests.small_universe import refresh_small_universe
from warehouse.snapshot import SnapshotStore

# Refreshes a second snapshot of its own, once: one worker runs the module.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("earlier_snapshot")]

EARLIER = "2026-11-15"


@pytest.fixture(scope="module")
def earlier(tmp_path_factory) -> SnapshotStore:
    root = tmp_path_factory.mktemp("earlier")
    refresh_small_universe(root, EARLIER)
    return SnapshotStore(root)


def _window(store: SnapshotStore) -> tuple[date, pd.DataFrame]:
    as_of = date.fromisoformat(store.current().extra["as_of"])
    return as_of, recent_events(store.read_table("events"), as_of - timedelta(days=EVENTS_WINDOW_DAYS))


def _key(events: pd.DataFrame) -> set[tuple]:
    return set(zip(events["ticker"], events["mode"], events["kind"], events["field"], events["effective_date"],
                   events["after"].fillna(-1), strict=True))


@pytest.mark.parametrize("which", ["earlier", "store"])
def test_nothing_in_the_window_is_dated_on_the_snapshot_day_by_an_undated_catalogue(request, which):
    as_of, window = _window(request.getfixturevalue(which))
    assert len(window) > 0
    assert window[(window["effective_date"] == as_of) & (window["provenance"] == "current")].empty


@pytest.mark.parametrize("which", ["earlier", "store"])
def test_new_model_events_fall_on_first_seen(request, which):
    store = request.getfixturevalue(which)
    events = store.read_table("events")
    first_seen = store.read_table("models").set_index("ticker")["first_seen"]
    new = events[events["kind"] == "new_model"]
    assert (new["effective_date"].to_numpy() == new["ticker"].map(first_seen).to_numpy()).all()


def test_two_snapshots_agree_on_every_event_they_both_cover(earlier, store):
    """A week later, with the same sources, no event of the earlier window is restated or lost:
    an event that came from the snapshot day itself would differ. Both announce the same
    scheduled changes (dated after either snapshot)."""
    (as_of, _), (later_as_of, _) = _window(earlier), _window(store)
    window, later = earlier.read_table("events"), store.read_table("events")  # every kind, asked for or not
    start = later_as_of - timedelta(days=EVENTS_WINDOW_DAYS)  # the days both windows cover
    past = window[(window["effective_date"] >= start) & (window["effective_date"] <= as_of)]
    assert len(past) > 0 and _key(past) == _key(later[(later["effective_date"] >= start)
                                                      & (later["effective_date"] <= as_of)])
    announced = [w[w["effective_date"] > later_as_of] for w in (window, later)]
    assert len(announced[0]) == 21 and set(announced[0]["kind"]) == {"scheduled"}
    assert _key(announced[0]) == _key(announced[1])


def _known_from(store: SnapshotStore) -> pd.Series:
    """When each statement could first be read; none for the host medians, which the oracle
    works out from the hosts' statements it read."""
    observations = store.read_table("price_observations")
    return pd.to_datetime(observations["known_from"].fillna(observations["source_released"]))


def test_a_build_of_an_earlier_day_reads_only_what_was_published_by_then(earlier, store):
    """The later snapshot reads statements published after the earlier day (LiteLLM's map of
    2026-11-20); the earlier one none of them, and no model that only they name."""
    assert (_known_from(store) > pd.Timestamp(EARLIER)).any()
    assert (_known_from(earlier).dropna() <= pd.Timestamp(EARLIER)).all()
    later_only = set(store.read_table("price_observations").assign(_known=_known_from(store))
                     .groupby("ticker")["_known"].min().loc[lambda known: known > pd.Timestamp(EARLIER)].index)
    assert not later_only & set(earlier.read_table("models")["ticker"])
