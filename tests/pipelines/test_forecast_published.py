"""The published forecast of a real snapshot against what the issue of forecasts promises: no curve
rises without an announced price or its maker's own increase, every band holds its median,
announced prices count from their date."""

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


def test_no_curve_rises_without_an_announced_price_or_its_makers_own_increase(store):
    curves, events, models, scheduled, as_of = _published(store)
    families = models.set_index("ticker")["family"]
    # A maker's own increases: never a median of hosts moving, nor a restated listing.
    own = events[(events["kind"] == "price_increase") & (events["mode"] == "sync") & (events["field"] == "output")
                 & (events["effective_date"] <= as_of)]
    increases = {f"{ticker} on {day}" for ticker, day in zip(own["ticker"], own["effective_date"], strict=True)}
    announced_rise = set(scheduled.loc[(scheduled["field"] == "output") & (scheduled["after"] > scheduled["before"]),
                                       "ticker"])
    rising = curves[curves["beta_forward"] > curves["spot"]]
    assert rising[["ticker", "mode"]].drop_duplicates().shape[0] >= 20  # some families' makers did raise prices
    for row in rising.itertuples():
        named = [part.removeprefix("maker_increase: ") for part in row.evidence.split("; ")
                 if part.startswith("maker_increase: ")]
        by_announcement = "announced" in row.evidence and row.ticker in announced_rise
        by_maker = bool(named) and named[0] in increases \
            and families[named[0].split(" on ")[0]] == families[row.ticker]
        assert by_announcement or by_maker, (row.ticker, row.mode, row.tenor, row.evidence)
    # And a curve that names no evidence of a rise never rises.
    quiet = curves[curves["evidence"] == "no_rise_evidence"]
    assert len(quiet) > 1000  # most curves: a family whose maker never raised a price
    assert (quiet["beta_forward"] <= quiet["spot"] * (1 + 1e-15)).all()
    sonnet = curves[(curves["ticker"] == "SONNET-4") & (curves["mode"] == "sync")]
    assert (sonnet["beta_forward"] <= 15.0).all()  # no Sonnet price has ever risen
    for host_median in ("LLAMA-3.2-1B", "LLAMA-3.1-8B", "GEMMA-3-27B", "MIXTRAL-8X22B-INSTRUCT"):
        assert (curves.loc[curves["ticker"] == host_median, "beta_forward"]
                <= curves.loc[curves["ticker"] == host_median, "spot"] * (1 + 1e-15)).all(), host_median


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
