"""The published forecast of a real snapshot against what the issue of forecasts promises: no curve
rises without evidence, every band holds its median, announced prices count from their date."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.scheduled import horizon_date


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


def _published(store):
    curves = store.read_table("forward_curves")
    as_of = date.fromisoformat(store.current().extra["as_of"])
    return curves, store.read_table("events"), store.read_table("models"), store.read_table("scheduled_changes"), as_of


def test_no_curve_rises_without_a_rise_in_its_family_or_a_scheduled_one(store):
    curves, events, models, scheduled, _ = _published(store)
    families = models.set_index("ticker")["family"]
    # Published rises, those soon undone included: a maker's increase, or a median of hosts that
    # rose or a restated listing that rose, which the forecast's family evidence still reads from
    # the history.
    rises = events[(events["kind"] == "price_increase")
                   | (events["kind"].isin(["hosts_changed", "restated"]) & (events["after"] > events["before"]))]
    risen = set(families.reindex(rises["ticker"]).dropna())
    announced_rise = set(scheduled.loc[(scheduled["field"] == "output") & (scheduled["after"] > scheduled["before"]),
                                       "ticker"])
    quiet = curves[~curves["ticker"].map(families).isin(risen) & ~curves["ticker"].isin(announced_rise)]
    assert len(quiet) > 1000  # most curves: a family that never rose
    assert (quiet["beta_forward"] <= quiet["spot"]).all(), quiet[quiet["beta_forward"] > quiet["spot"]].head()
    sonnet = curves[(curves["ticker"] == "SONNET-4") & (curves["mode"] == "sync")]
    assert (sonnet["beta_forward"] <= 15.0).all()  # no Sonnet price has ever risen


def test_every_band_holds_its_median_and_the_mean_is_the_mixture(store):
    curves, *_ = _published(store)
    assert ((curves["p05"] <= curves["beta_median"]) & (curves["beta_median"] <= curves["p95"])).all()
    assert curves["p_change"].between(0, 1).all()
    expected = 1 + curves["p_change"] * (curves["change_mean"] - 1)
    assert np.allclose(curves["decay_factor"], expected, rtol=0, atol=1e-12)
    assert np.allclose(curves["beta_forward"], curves["scheduled"] * curves["decay_factor"], rtol=1e-15, atol=0)
    # Where a change is less likely than not, the median is the scheduled price itself.
    unlikely = curves[curves["p_change"] < 0.5]
    assert (unlikely["beta_median"] == unlikely["scheduled"]).all()


def test_a_scheduled_price_counts_from_its_date_and_not_before(store):
    curves, _, _, scheduled, as_of = _published(store)
    outputs = scheduled[scheduled["field"] == "output"]
    assert len(outputs)
    checked = 0
    for change in outputs.itertuples():
        rows = curves[(curves["ticker"] == change.ticker) & (curves["mode"] == change.mode)]
        for row in rows.itertuples():
            due = outputs[(outputs["ticker"] == change.ticker) & (outputs["mode"] == change.mode)
                          & (outputs["effective_date"] <= horizon_date(as_of, row.months))]
            level = due.sort_values("effective_date")["after"].iloc[-1] if len(due) else row.spot
            assert row.scheduled == level, (row.ticker_forward, row.scheduled, level)
            checked += 1
    assert checked
    before = pd.DataFrame([r for r in curves.itertuples() if r.scheduled != r.spot])
    assert len(before)  # some forward does move to an announced price
