"""The history as it could be known each day, and the index built from it: a statement published
after the day it asserts reaches no day before its publication."""

from datetime import date, timedelta

import pandas as pd
import pytest

from pipelines.history import cutoff_days
from pipelines.ici import as_known, build_ici_history
from pipelines.known_history import as_known_each_day, epochs, known_at

REBALANCE = date(2026, 4, 1)
IN_FORCE, PUBLISHED = REBALANCE + timedelta(days=10), REBALANCE + timedelta(days=40)


@pytest.fixture(scope="module")
def tables(store):
    return store.read_table("price_observations"), store.read_table("models")


@pytest.fixture(scope="module")
def as_of(store):
    return date.fromisoformat(store.current().extra["as_of"])


def test_every_day_is_priced_from_statements_published_by_that_day(tables, as_of):
    observations, models = tables
    rows, baskets = as_known(observations, models, as_of)
    assert len(rows) > 1000 and set(rows["ticker"]) <= set().union(*(set(b["ticker"]) for b in baskets.values()))
    assert (pd.to_datetime(rows["known_on"]) <= pd.to_datetime(rows["date"])).all()
    # Today's knowledge would have priced some of those days with statements published later.
    today = known_at(observations, as_of).history
    today = today[today["ticker"].isin(set(rows["ticker"])) & (today["date"] >= date(2024, 1, 1))]
    assert (pd.to_datetime(today["known_on"]) > pd.to_datetime(today["date"])).any()


def test_each_epoch_opens_on_a_late_publication_and_the_epochs_cover_every_day_once(tables, as_of):
    observations, _ = tables
    views = list(epochs(observations, date(2024, 1, 1), as_of))
    assert views[0].begin == date(2024, 1, 1) and views[-1].end == as_of and len(views) > 1
    for before, after in zip(views[:-1], views[1:], strict=True):
        assert after.begin == before.end + timedelta(days=1)
    days = as_known_each_day(views).groupby(["ticker", "mode"])["date"]
    assert (days.nunique() == days.size()).all()  # one row per series and day


def test_each_epochs_rows_are_those_a_build_on_that_day_shows(tables, as_of):
    """A build of the history on a day, from what was known then, shows for that day the row the
    epochs give it: at each epoch's first and last day, and the day before each cut-off (a host
    median beginning: a build after it drops the maker's statements for the whole series)."""
    observations, _ = tables
    views = list(epochs(observations, date(2024, 1, 1), as_of))
    every_day = as_known_each_day(views)

    def on(frame, day):
        return sorted(frame.loc[frame["date"] == day, ["ticker", "mode", "input", "output"]].itertuples(index=False))

    days = {day for view in views for day in (view.begin, view.end)}
    days |= {day - timedelta(days=1) for day in cutoff_days(observations) if date(2024, 1, 2) <= day <= as_of}
    assert any(day + timedelta(days=1) in cutoff_days(observations) for day in days)
    for day in sorted(days):
        assert on(every_day, day) == on(known_at(observations, day).history, day), day


def test_a_host_median_beginning_inside_an_epoch_does_not_reach_back_before_its_first_day(tables, as_of):
    """GEMMA-3-27B's hosts' median begins on 2026-06-05, known that day. Give it a maker's price
    known from 2026-06-01: a build on 2026-06-04 shows the maker's price, one on 2026-06-05 the
    median, and so must the epochs."""
    observations, _ = tables
    median = observations[(observations["ticker"] == "GEMMA-3-27B") & (observations["source"] == "host-median")]
    assert median["effective_date"].min() == date(2026, 6, 5)
    maker = median.head(1).assign(source="model-prices", effective_date=date(2026, 6, 1), output=0.123,
                                  known_from=date(2026, 6, 1), source_released=date(2026, 6, 1))
    with_maker = pd.concat([observations, maker], ignore_index=True)
    rows = as_known_each_day(list(epochs(with_maker, date(2024, 1, 1), as_of)))
    output = rows[(rows["ticker"] == "GEMMA-3-27B") & (rows["mode"] == "sync")].set_index("date")["output"]
    for day in (date(2026, 6, 4), date(2026, 6, 5)):
        built = known_at(with_maker, day).history
        expected = built[(built["ticker"] == "GEMMA-3-27B") & (built["mode"] == "sync") & (built["date"] == day)]
        assert output[day] == expected["output"].item(), day
    assert output[date(2026, 6, 4)] == 0.123


def _member(observations, models, as_of):
    """A sync constituent of the basket fixed on REBALANCE, and a statement of its maker to copy."""
    _, baskets = as_known(observations, models, as_of)
    ticker = baskets[REBALANCE]["ticker"].iloc[0]
    stated = observations[(observations["ticker"] == ticker) & (observations["mode"] == "sync")
                          & observations["is_origin"] & ~observations["superseded"]
                          & (observations["effective_date"] <= REBALANCE)]
    return ticker, stated.sort_values("effective_date").tail(1)


def test_a_later_restatement_moves_the_index_from_its_publication_not_before(tables, as_of):
    """The maker restates a constituent's output at ten times its price, in force from IN_FORCE
    but published only on PUBLISHED: the index's days before PUBLISHED keep the old price."""
    observations, models = tables
    ticker, last = _member(observations, models, as_of)
    old = _sync_output(observations, models, as_of, ticker)[IN_FORCE]
    restated = last.assign(output=old * 10, effective_date=IN_FORCE, known_from=PUBLISHED,
                           source_released=PUBLISHED)
    with_restatement = pd.concat([observations, restated], ignore_index=True)
    output = _sync_output(with_restatement, models, as_of, ticker)
    assert output[IN_FORCE] == output[PUBLISHED - timedelta(days=1)] == pytest.approx(old, rel=1e-12)
    assert output[PUBLISHED] == pytest.approx(old * 10, rel=1e-12)
    levels = [_sync_levels(frame, models, as_of) for frame in (observations, with_restatement)]
    assert levels[1][IN_FORCE] == pytest.approx(levels[0][IN_FORCE], rel=1e-12)
    assert levels[1][PUBLISHED - timedelta(days=1)] == pytest.approx(levels[0][PUBLISHED - timedelta(days=1)],
                                                                     rel=1e-12)
    assert levels[1][PUBLISHED] > levels[0][PUBLISHED]


def _sync_output(observations, models, as_of, ticker):
    """The ticker's sync output each day, as known that day."""
    rows, _ = as_known(observations, models, as_of)
    return rows[(rows["ticker"] == ticker) & (rows["mode"] == "sync")].set_index("date")["output"]


def _sync_levels(observations, models, as_of):
    rows, baskets = as_known(observations, models, as_of)
    history = build_ici_history(rows, models, observations, as_of, baskets=baskets)
    return history[history["type"] == "sync"].set_index("date")["value"]


def test_a_model_first_published_later_is_in_no_view_before(tables, as_of):
    observations, models = tables
    _, last = _member(observations, models, as_of)
    late = last.assign(ticker="LATE-MODEL", provider_model_id="late-model", effective_date=REBALANCE,
                       known_from=PUBLISHED, source_released=PUBLISHED)
    with_late = pd.concat([observations, late], ignore_index=True)
    assert "LATE-MODEL" not in set(known_at(with_late, PUBLISHED - timedelta(days=1)).history["ticker"])
    history = known_at(with_late, PUBLISHED).history
    assert history[history["ticker"] == "LATE-MODEL"]["date"].min() == REBALANCE
