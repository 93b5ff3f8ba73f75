"""Forwards, history, the index, events, backtest and accuracy against the real snapshot.

Every expected number is read from the snapshot's own tables (`store`), never copied from a response.
"""

import hashlib
import json
import math
from datetime import date, timedelta

import numpy as np
import pandas as pd
import pytest

from pipelines.backtest import METHODS
from pipelines.events import EVENT_KINDS, VIEW_CHANGES
from pipelines.listings import PRICE_FIELDS
from tests.conftest import AS_OF

TODAY = date.fromisoformat(AS_OF)


def cell(value):
    """A table cell as the API writes it: NaN as null, dates as ISO text, numpy scalars as Python."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, date):
        return value.isoformat()
    return value.item() if hasattr(value, "item") else value


def rows_of(frame, columns=None):
    columns = columns or list(frame.columns)
    return [{c: cell(v) for c, v in zip(columns, row)} for row in frame[columns].itertuples(index=False, name=None)]


@pytest.fixture(scope="module")
def tables(store):
    names = ["forward_curves", "greeks", "price_history", "ici", "ici_history", "ici_constituents", "ici_published",
             "ici_revisions", "events", "backtest", "backtest_summary", "backtest_families", "accuracy",
             "backtest_reliability", "models"]
    return {name: store.read_table(name) for name in names}


def data(client, url):
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    envelope = {"data", "oracle_timestamp", "cache_age_seconds"}
    assert set(body) in (envelope, envelope | {"total", "next"})  # a list of every model says its total
    return body["data"]


def problem(client, url, status, code, field=None):
    response = client.get(url)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["code"] == code and body["status"] == status
    assert body["detail"] == body["error"] and body["detail"]
    if field is not None:
        assert [e["field"] for e in body["errors"]] == [field]
        assert all(e["message"] for e in body["errors"])
    return body


# --- forwards ------------------------------------------------------------------------------------


def test_o3_forwards_are_the_forward_curve_rows_and_its_greeks(client, tables):
    curve = data(client, "/v1/forwards/O3")
    curves, greeks = tables["forward_curves"], tables["greeks"]
    rows = curves[(curves["ticker"] == "O3") & (curves["mode"] == "sync")].sort_values("months")
    model = greeks[greeks["ticker"] == "O3"].iloc[0]
    assert curve["forwards"] == rows_of(rows, FORWARD_POINT)
    assert list(curve["forwards"][0]) == FORWARD_POINT  # in the table's column order
    assert (curve["ticker"], curve["mode"], curve["ticker_forward_prefix"]) == ("O3", "sync", "O3")
    assert (curve["model_id"], curve["display_name"]) == (model["model_id"], model["display_name"])
    assert curve["spot"] == rows["spot"].iloc[0] == model["beta_sync"]
    for name in ["theta", "sigma", "jump_rate", "jump_mean", "jump_std", "prior_weight"]:
        assert curve[name] == cell(model[name]), name
    assert curve["sigma"] == 0.0  # the law has no diffusion
    assert all(p["ticker_forward"] == f"O3-{p['tenor']}" for p in curve["forwards"])


# Every column of a forward curve row but the ones the curve states once (ticker, mode, spot).
FORWARD_POINT = ["ticker_forward", "tenor", "months", "scheduled", "p_change", "decay_factor", "beta_forward",
                 "beta_median", "p05", "p95", "change_mean", "change_p05", "change_p50", "change_p95", "evidence", "outlook"]


@pytest.mark.parametrize(("ticker", "mode"), [("LLAMA-3.2-1B", "sync"), ("GEMINI-3.6-FLASH", "batch"),
                                              ("O3", "sync"), ("DEEPSEEK-V4-PRO", "sync")])
def test_every_forward_point_is_the_law_by_hand(client, by_hand, ticker, mode):
    """Each point from the processes and change_laws rows by hand: P_h, E[R_h] = 1 + P_h·(m − 1),
    the mean S_h·E[R_h], the median and band S_h times the mixture's quantiles, and the change
    law's own mean and quantiles."""
    curve = data(client, f"/v1/forwards/{ticker}?mode={mode}")
    ratios, weights = by_hand.law(ticker, mode)
    mean = float(np.sum(ratios * weights) / np.sum(weights))
    assert curve["spot"] == by_hand.spots.loc[ticker, f"beta_{mode}"]
    for point in curve["forwards"]:
        h = point["months"]
        level = by_hand.scheduled_beta(ticker, mode, h)
        p = by_hand.p_change(ticker, mode, h)
        assert point["scheduled"] == level
        assert point["p_change"] == pytest.approx(p, rel=1e-12)
        assert point["decay_factor"] == pytest.approx(1 + p * (mean - 1), rel=1e-12)
        assert point["beta_forward"] == pytest.approx(level * (1 + p * (mean - 1)), rel=1e-12)
        for column, q in (("p05", 0.05), ("beta_median", 0.5), ("p95", 0.95)):
            assert point[column] == pytest.approx(level * by_hand.quantile(ticker, mode, h, q), rel=1e-12), column
        assert point["p05"] <= point["beta_median"] <= point["p95"]
        # What moves it: an announced price at this tenor, and a law that learnt from its family's rises.
        assert ("announced" in point["evidence"]) == (level != curve["spot"])
        assert ("maker_increase: " in point["evidence"]) == (by_hand.law_name[(ticker, mode)] == "family_rose")
        assert point["change_mean"] == pytest.approx(mean, rel=1e-12)
        for column, q in (("change_p05", 0.05), ("change_p50", 0.5), ("change_p95", 0.95)):
            assert point[column] == pytest.approx(by_hand.law_quantile(ticker, mode, q), rel=1e-12), column
    # The sheet's summary of the law: θ = −ln(E[R_12])/12, the coming month's hazard −ln(1 − P_1),
    # and the mean and spread of ln(new/old) of a change.
    logs = np.log(ratios)
    log_mean = float(np.sum(logs * weights) / np.sum(weights))
    assert curve["theta"] == pytest.approx(-np.log(1 + by_hand.p_change(ticker, mode, 12) * (mean - 1)) / 12,
                                           rel=1e-9, abs=1e-15)
    assert curve["jump_rate"] == pytest.approx(-np.log(1 - by_hand.chances[(ticker, mode)][0]), rel=1e-12)
    assert curve["jump_mean"] == pytest.approx(log_mean, rel=1e-12)
    assert curve["jump_std"] == pytest.approx(
        np.sqrt(np.sum((logs - log_mean) ** 2 * weights) / np.sum(weights)), rel=1e-12)
    assert curve["sigma"] == 0.0 and 0 <= curve["prior_weight"] <= 1
    if by_hand.law_name[(ticker, mode)] == "family_rose":
        assert curve["theta"] < 0 < curve["forwards"][-1]["decay_factor"] - 1  # expected to rise
    else:
        assert curve["theta"] >= 0 and all(p["decay_factor"] <= 1 + 1e-15 for p in curve["forwards"])


def test_a_batch_ticker_or_mode_batch_gives_the_batch_curve(client, tables):
    by_ticker = data(client, "/v1/forwards/o3.b")
    by_mode = data(client, "/v1/forwards/O3?mode=batch")
    assert by_ticker == by_mode
    curves, greeks = tables["forward_curves"], tables["greeks"]
    rows = curves[(curves["ticker"] == "O3") & (curves["mode"] == "batch")].sort_values("months")
    model = greeks[greeks["ticker"] == "O3"].iloc[0]
    assert by_mode["mode"] == "batch" and by_mode["ticker_forward_prefix"] == model["ticker_batch"]
    assert [p["beta_forward"] for p in by_mode["forwards"]] == list(rows["beta_forward"])
    assert [p["ticker_forward"] for p in by_mode["forwards"]] == list(rows["ticker_forward"])
    assert by_mode["spot"] == model["beta_batch"]
    assert (by_mode["theta"], by_mode["sigma"]) == (model["theta_batch"], model["sigma_batch"])


@pytest.mark.parametrize("name", ["o3", "openai/o3", "o3-2025-04-16", "O3"])
def test_forwards_find_a_model_by_any_of_its_names(client, name):
    assert data(client, f"/v1/forwards/{name}") == data(client, "/v1/forwards/O3")


def test_batch_for_a_model_without_batch_prices_is_a_404_that_says_so(client, tables):
    greeks = tables["greeks"]
    ticker = greeks.loc[greeks["ticker_batch"].isna(), "ticker"].iloc[0]
    for url in [f"/v1/forwards/{ticker}?mode=batch", f"/v1/forwards/{ticker.lower()}.b"]:
        body = problem(client, url, 404, "no_batch_price")
        assert ticker in body["detail"] and "batch" in body["detail"]


def test_a_batch_ticker_asked_for_in_sync_mode_is_a_contradiction(client):
    problem(client, "/v1/forwards/O3.B?mode=sync", 400, "invalid_input", "mode")


# --- history -------------------------------------------------------------------------------------


def _series(tables, ticker, mode):
    history = tables["price_history"]
    return history[(history["ticker"] == ticker) & (history["mode"] == mode)].sort_values("date")


def test_o3_history_shows_the_june_2025_cut_as_published(client, tables):
    body = data(client, "/v1/history/O3?from=2025-06-09&to=2025-06-11")
    series = _series(tables, "O3", "sync")
    window = series[(series["date"] >= date(2025, 6, 9)) & (series["date"] <= date(2025, 6, 11))]
    assert body["count"] == len(body["prices"]) == len(window) == 3
    assert (body["ticker"], body["model_id"], body["price_type"]) == ("O3", "o3", "sync")
    point = next(p for p in body["prices"] if p["timestamp"] == "2025-06-10")
    row = window[window["date"] == date(2025, 6, 10)].iloc[0]
    assert (point["input"], point["beta"]) == (row["input"], row["output"]) == (2.0, 8.0)
    assert point["provenance"] == row["provenance"] == "published"
    for name in ["cache_read", "cache_write", "source", "source_version", "source_url", "observed_on"]:
        assert point[name] == cell(row[name]), name


def test_history_defaults_to_the_whole_series_up_to_the_snapshot_date(client, tables):
    body = data(client, "/v1/history/O3")
    series = _series(tables, "O3", "sync")
    series = series[series["date"] <= TODAY]
    assert body["count"] == len(series)
    assert [p["timestamp"] for p in body["prices"]] == [d.isoformat() for d in series["date"]]
    assert [p["beta"] for p in body["prices"]] == list(series["output"])
    assert [p["provenance"] for p in body["prices"]] == list(series["provenance"])
    assert (body["from"], body["to"]) == (series["date"].iloc[0].isoformat(), AS_OF)


@pytest.mark.slow  # reads every model's history
def test_history_change_points_are_the_days_the_published_price_moved(client, tables):
    body = data(client, "/v1/history/O3?points=changes")
    series = _series(tables, "O3", "sync")
    series = series[series["date"] <= TODAY].reset_index(drop=True)
    # Independently: a day whose billed prices (NaN equal to NaN), tiers or peak hours differ from
    # the day before's, by pandas' own comparison of each row with the previous one.
    columns = [*PRICE_FIELDS, "tiers", "peak"]
    moved = [i == 0 or not series.loc[i, columns].equals(series.loc[i - 1, columns]) for i in range(len(series))]
    assert [p["timestamp"] for p in body["prices"]] == [d.isoformat() for d in series["date"][moved]]
    assert body["count"] < len(series) / 10  # O3's few price changes, not a row a day
    assert "2025-06-10" in [p["timestamp"] for p in body["prices"]]  # the June 2025 cut
    assert body["from"] == series["date"].iloc[0].isoformat()


def test_history_by_month_is_the_last_day_of_each_month(client, tables):
    body = data(client, "/v1/history/O3?interval=month&from=2025-05-15&to=2025-08-10")
    assert [p["timestamp"] for p in body["prices"]] == ["2025-05-31", "2025-06-30", "2025-07-31", "2025-08-10"]
    june = _series(tables, "O3", "sync").set_index("date").loc[date(2025, 6, 30)]
    assert body["prices"][1]["beta"] == june["output"] == 8.0
    weeks = data(client, "/v1/history/O3?interval=week&from=2025-06-01&to=2025-06-20")
    assert [p["timestamp"] for p in weeks["prices"]] == ["2025-06-01", "2025-06-08", "2025-06-15", "2025-06-20"]


def test_history_refuses_an_unknown_view_and_two_at_once(client):
    assert client.get("/v1/history/O3?points=weekly").status_code == 400
    assert client.get("/v1/history/O3?interval=year").status_code == 400
    both = client.get("/v1/history/O3?points=changes&interval=month")
    assert both.status_code == 400 and both.json()["errors"][0]["field"] == "interval"


def test_batch_history_by_batch_ticker_and_by_mode(client, tables):
    by_ticker = data(client, "/v1/history/O3.B?to=2025-12-31")
    assert by_ticker == data(client, "/v1/history/openai/o3?mode=batch&to=2025-12-31")
    series = _series(tables, "O3", "batch")
    series = series[series["date"] <= date(2025, 12, 31)]
    assert by_ticker["price_type"] == "batch" and by_ticker["count"] == len(series)
    assert [p["beta"] for p in by_ticker["prices"]] == list(series["output"])


def test_a_valid_range_without_prices_is_an_empty_list(client):
    body = data(client, "/v1/history/O3?from=2020-01-01&to=2020-12-31")
    assert body["prices"] == [] and body["count"] == 0


# --- the index -----------------------------------------------------------------------------------


@pytest.mark.parametrize("url, variant", [("/v1/ici", "unified"), ("/v1/ici?type=unified", "unified"),
                                          ("/v1/ici?type=batch", "batch"), ("/v1/ici?type=sync", "sync")])
def test_the_index_is_the_ici_table_and_its_hash_recomputes(client, tables, url, variant):
    body = data(client, url)
    rows = tables["ici"][tables["ici"]["type"] == variant]
    head = rows.iloc[0]
    assert body["type"] == variant
    assert (body["value"], body["verification_hash"], body["methodology_version"]) == (
        head["value"], head["verification_hash"], head["methodology_version"])
    assert (body["as_of"], body["rebalance_date"]) == (head["as_of"].isoformat(), head["rebalance_date"].isoformat())
    assert (body["carried_forward"], body["oldest_input_days"]) == (head["carried_forward"], head["oldest_input_days"])
    assert body["constituents"] == rows_of(rows, ["ticker", "weight", "price", "contribution"])
    assert math.fsum(c["weight"] for c in body["constituents"]) == pytest.approx(1.0, abs=1e-12)
    # methodology §7: the hash recomputes from the published constituents alone.
    payload = {"methodology_version": body["methodology_version"], "type": body["type"], "as_of": body["as_of"],
               "link_factor": round(body["link_factor"], 12),
               "constituents": [[c["ticker"], round(c["weight"], 12), round(c["price"], 12)]
                                for c in sorted(body["constituents"], key=lambda c: c["ticker"])]}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == body["verification_hash"]
    # The level is chain-linked: the contributions are the link factor times weight times price.
    assert [c["contribution"] for c in body["constituents"]] == pytest.approx(
        [body["link_factor"] * c["weight"] * c["price"] for c in body["constituents"]], rel=1e-12)
    assert math.fsum(c["contribution"] for c in body["constituents"]) == pytest.approx(body["value"], rel=1e-12)
    # Each variant says which basket it covers: batch only the constituents with a batch price.
    assert body["covers"] == head["covers"]
    if variant == "batch":
        assert body["covers"].startswith(f"only the {len(rows)} of the ") and "another basket than sync's" in \
            body["covers"]
    else:
        assert body["covers"].startswith(f"{len(rows)} of the ")


def test_the_index_history_is_every_ici_history_row_of_the_type_nulls_kept(client, tables):
    body = data(client, "/v1/ici?type=batch")
    daily = tables["ici_history"]
    daily = daily[daily["type"] == "batch"]
    assert body["history"] == rows_of(daily, ["date", "value", "rebalance_date", "constituents", "composition_effect",
                                              "carried_forward", "oldest_input_days"])
    assert sum(point["value"] is None for point in body["history"]) == daily["value"].isna().sum() > 0
    last = body["history"][-1]
    assert (last["carried_forward"], last["oldest_input_days"]) == (body["carried_forward"], body["oldest_input_days"])


@pytest.mark.parametrize("variant", ["unified", "batch", "sync"])
def test_the_basket_in_force_on_a_date_is_the_last_rebalance_on_or_before_it(client, tables, variant):
    baskets = tables["ici_constituents"]
    columns = ["ticker", "maker", "tier", "hosts", "weight", "price"]
    for day, rebalance in [(date(2025, 5, 17), date(2025, 4, 1)), (date(2025, 4, 1), date(2025, 4, 1)),
                           (date(2024, 7, 1), date(2024, 7, 1))]:  # the small universe's first basket
        body = data(client, f"/v1/ici/constituents?type={variant}&date={day.isoformat()}")
        rows = baskets[(baskets["rebalance_date"] == rebalance) & (baskets["type"] == variant)]
        assert (body["type"], body["date"], body["rebalance_date"]) == (variant, day.isoformat(), rebalance.isoformat())
        assert body["constituents"] == rows_of(rows, columns) and len(rows) > 0
    today = data(client, f"/v1/ici/constituents?type={variant}")
    ici = tables["ici"][tables["ici"]["type"] == variant]
    assert today["date"] == TODAY.isoformat() and today["rebalance_date"] == ici["rebalance_date"].iloc[0].isoformat()
    # Today's level prices the basket's members that have a price today, at the basket's weights rescaled.
    priced = [c for c in today["constituents"] if c["ticker"] in set(ici["ticker"])]
    assert [c["ticker"] for c in priced] == ici["ticker"].tolist()
    total = math.fsum(c["weight"] for c in priced)
    assert [c["weight"] / total for c in priced] == pytest.approx(ici["weight"].tolist(), abs=1e-12)


def test_a_date_outside_the_index_history_is_a_400_naming_it(client):
    problem(client, "/v1/ici/constituents?date=2023-12-31", 400, "invalid_input", "date")
    problem(client, f"/v1/ici/constituents?date={(TODAY + timedelta(days=1)).isoformat()}", 400,
            "invalid_input", "date")


def test_the_published_record_is_every_level_as_first_published(client, tables, store):
    body = data(client, "/v1/ici/published?type=sync")
    published = tables["ici_published"]
    rows = published[published["type"] == "sync"]
    assert body["count"] == len(rows) > 0 and body["revisions"] == []
    assert [(p["date"], p["level"]) for p in body["levels"]] == [(d.isoformat(), v) for d, v in
                                                                 zip(rows["date"], rows["level"], strict=True)]
    assert {p["snapshot_id"] for p in body["levels"]} == {store.current().snapshot_id}
    # A first build publishes its whole history: every level it has, as it has it.
    daily = tables["ici_history"]
    daily = daily[(daily["type"] == "sync") & daily["value"].notna()]
    assert [p["level"] for p in body["levels"]] == daily["value"].tolist()


# --- events --------------------------------------------------------------------------------------


def _newest_first(frame):
    return frame.sort_values(["ticker", "mode", "field"], kind="stable").sort_values(
        "effective_date", ascending=False, kind="stable")


def test_events_default_to_the_thirty_days_before_the_snapshot(client, tables):
    body = data(client, "/v1/events")
    since = TODAY - timedelta(days=30)
    assert body["since"] == since.isoformat() and body["limit"] == 100
    window = tables["events"][tables["events"]["effective_date"] >= since]
    seen = window["kind"].isin(VIEW_CHANGES)  # a change in what the oracle sees: asked for by name only
    assert seen.any()
    expected = _newest_first(window[~seen]).head(100)
    assert body["count"] == len(body["events"]) == len(expected) > 0
    assert [e["event_id"] for e in body["events"]] == list(expected["event_id"])
    first = body["events"][0]
    assert {name: first[name] for name in expected.columns} == rows_of(expected.head(1))[0]
    for kind in VIEW_CHANGES:
        asked = data(client, f"/v1/events?kind={kind}")
        assert [e["event_id"] for e in asked["events"]] == \
            list(_newest_first(window[window["kind"] == kind])["event_id"])


def test_events_carry_the_original_oracles_names_beside_ours(client, tables):
    """O3's June 2025 cut, from $40 to $8 per million output tokens (the maker's announcement),
    in the names the original oracle's clients read: pct_change a fraction, its display, the
    output price before and after as beta."""
    body = data(client, "/v1/events?since=2025-06-01&ticker=O3&kind=price_cut&limit=1000")
    cut = next(e for e in body["events"] if e["field"] == "output" and e["effective_date"] == "2025-06-10")
    assert (cut["before"], cut["after"]) == (40.0, 8.0)
    assert cut["pct_change"] == pytest.approx(-0.8, rel=1e-12) and cut["percent_change"] == pytest.approx(-80.0)
    assert cut["pct_change_display"] == "-80.0%"
    assert (cut["beta_before"], cut["beta_after"]) == (40.0, 8.0)
    assert (cut["price_type"], cut["event_type"]) == ("sync", "price-cut")
    spot = data(client, "/v1/spots/O3")
    assert (cut["model_id"], cut["display_name"]) == (spot["model_id"], spot["display_name"]) and spot["model_id"] == "o3"
    row = tables["events"].set_index("event_id").loc[cut["event_id"]]
    assert cut["detected_at"] == row["observed_on"].isoformat() >= "2025-06-10"
    inputs = [e for e in body["events"] if e["field"] == "input"]
    assert inputs and all(e["beta_before"] is None and e["beta_after"] is None for e in inputs)
    released = data(client, "/v1/events?since=2020-01-01&ticker=O3&kind=new_model")["events"]
    assert [e["event_type"] for e in released] == ["model-release"] and released[0]["pct_change_display"] is None


def test_events_filter_by_ticker_alias_kind_and_limit(client, tables):
    events = tables["events"]
    body = data(client, "/v1/events?since=2020-01-01&ticker=openai/o3&limit=1000")
    expected = _newest_first(events[events["ticker"] == "O3"])
    assert body["ticker"] == "O3" and [e["event_id"] for e in body["events"]] == list(expected["event_id"])
    cuts = data(client, "/v1/events?since=2020-01-01&kind=price_cut&limit=5")
    assert cuts["count"] == 5 and all(e["kind"] == "price_cut" for e in cuts["events"])
    assert [e["event_id"] for e in cuts["events"]] == list(_newest_first(events[events["kind"] == "price_cut"])
                                                          .head(5)["event_id"])
    batch = data(client, "/v1/events?since=2020-01-01&ticker=o3.b")
    assert [e["event_id"] for e in batch["events"]] == list(expected[expected["mode"] == "batch"]["event_id"])


def test_events_after_the_snapshot_date_are_an_empty_list(client):
    body = data(client, "/v1/events?since=2099-01-01")
    assert body["events"] == [] and body["count"] == 0


# --- backtest and accuracy -----------------------------------------------------------------------


def test_backtest_pages_cover_the_filtered_rows_without_overlap(client, tables):
    predictions = tables["backtest"]
    filtered = predictions[(predictions["tenor"] == "3M") & (predictions["method"] == "oracle")]
    first = data(client, "/v1/backtest?tenor=3M&method=oracle&limit=50")
    second = data(client, "/v1/backtest?tenor=3M&method=oracle&limit=50&offset=50")
    assert first["total"] == second["total"] == len(filtered)
    assert (first["count"], first["limit"], first["offset"], first["next_offset"]) == (50, 50, 0, 50)
    assert first["predictions"] == rows_of(filtered.iloc[:50])
    assert second["predictions"] == rows_of(filtered.iloc[50:100])
    keys = [(p["anchor"], p["ticker"]) for p in first["predictions"] + second["predictions"]]
    assert len(set(keys)) == len(keys) == 100
    last = data(client, f"/v1/backtest?tenor=3M&method=oracle&limit=1000&offset={len(filtered) - 3}")
    assert last["count"] == 3 and last["next_offset"] is None
    beyond = data(client, f"/v1/backtest?tenor=3M&method=oracle&offset={len(filtered)}")
    assert beyond["predictions"] == [] and beyond["total"] == len(filtered)


def test_backtest_summary_families_and_filters_are_the_tables(client, tables):
    body = data(client, "/v1/backtest?tenor=1M&method=flat&family=OPENAI/O-SERIES&ticker=o3"
                        "&anchor_from=2025-09-01&anchor_to=2026-03-01")
    assert body["summary"] == rows_of(tables["backtest_summary"])
    families = tables["backtest_families"]
    assert body["families"] == rows_of(families[(families["tenor"] == "1M") & (families["method"] == "flat")
                                                & (families["family"] == "openai/o-series")])
    predictions = tables["backtest"]
    expected = predictions[(predictions["tenor"] == "1M") & (predictions["method"] == "flat")
                           & (predictions["ticker"] == "O3") & (predictions["anchor"] >= date(2025, 9, 1))
                           & (predictions["anchor"] <= date(2026, 3, 1))]
    assert body["total"] == len(expected) > 0 and body["predictions"] == rows_of(expected)
    unfiltered = data(client, "/v1/backtest?limit=1")
    assert unfiltered["total"] == len(predictions) and len(unfiltered["families"]) == len(families)


def test_accuracy_is_the_accuracy_table_the_reliability_and_a_headline(client, tables):
    body = data(client, "/v1/accuracy")
    assert set(body) == {"headline", "tenors", "reliability", "methods", "methodology", "note"}
    accuracy = tables["accuracy"]
    assert body["tenors"] == rows_of(accuracy)
    assert [(r["scope"], r["tenor"]) for r in body["tenors"]] == [
        (scope, tenor) for scope in ("all", "fixed_name", "line") for tenor in ("1M", "3M", "6M")]
    assert all(r["verdict"].startswith(f"At {r['tenor']} the {'line forward' if r['scope'] == 'line' else 'forecast'} ")
               for r in body["tenors"])
    assert body["reliability"] == rows_of(tables["backtest_reliability"])
    assert body["methods"] == list(METHODS) == ["oracle", "flat", "single_exp"]
    assert body["methodology"] == "docs/methodology.md" and body["note"].endswith(".")
    # The headline, read by hand from the scope-all rows of the table it summarises.
    every = accuracy[accuracy["scope"] == "all"]

    def tenors(mask):
        chosen = [t for t, keep in zip(every["tenor"], mask, strict=True) if keep]
        return "no tenor" if not chosen else chosen[0] if len(chosen) == 1 else (
            ", ".join(chosen[:-1]) + " and " + chosen[-1])

    def beats(ours, theirs, se):  # lower, by more than one standard error
        return (every[ours] < every[theirs]) & ((every[theirs] - every[ours]) > every[se])

    headline = body["headline"]
    assert headline.startswith("The forecast beats the flat forward as a distribution (lower CRPS by more than one "
                               f"standard error) at {tenors(beats('crps', 'crps_flat', 'crps_gap_se'))}; ")
    assert ("(lower Brier score by more than one standard error) at "
            f"{tenors(beats('brier', 'brier_base', 'brier_gap_se'))};") in headline
    close = (every["rel_rmse"] - every["rel_rmse_flat"]) <= every["rel_rmse_gap_se"]
    assert f"standard error of, flat's relative RMSE at {tenors(close)}" in headline
    if not close.all():
        assert f"worse by more than one standard error at {tenors(~close)};" in headline
    coverage = ", ".join(f"{100 * c:.1f}%" for c in every["coverage"])
    assert headline.endswith(f"its 90% band holds {coverage} of outcomes at 1M, 3M and 6M (90% is calibrated).")


def test_the_reliability_table_recomputes_from_the_predictions(tables):
    """Per tenor and bin of the oracle's p_change: the count, the mean chance and the share that
    changed, revisions left out."""
    predictions = tables["backtest"]
    oracle = predictions[(predictions["method"] == "oracle") & ~predictions["revision"]]
    edges = [0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    reliability = tables["backtest_reliability"]
    assert reliability["n"].sum() == len(oracle)
    for row in reliability.itertuples():
        assert (row.low, row.high) in list(zip(edges[:-1], edges[1:]))
        inside = oracle[(oracle["tenor"] == row.tenor) & (oracle["p_change"] >= row.low)
                        & ((oracle["p_change"] < row.high) | (row.high == 1.0))]
        assert row.n == len(inside) > 0
        assert row.predicted == pytest.approx(inside["p_change"].mean(), rel=1e-12)
        assert row.observed == pytest.approx(inside["changed"].mean(), rel=1e-12, abs=1e-15)


def test_backtest_prices_are_served_as_numbers(client, tables):
    assert tables["backtest"]["spot"].dtype == np.float64
    prediction = data(client, "/v1/backtest?limit=1")["predictions"][0]
    assert all(isinstance(prediction[c], float) for c in ("spot", "forecast", "median", "realised"))


# --- caching -------------------------------------------------------------------------------------

CACHED = ["/v1/forwards/O3", "/v1/history/O3?from=2026-11-01", "/v1/ici", "/v1/events", "/v1/backtest?limit=5",
          "/v1/accuracy"]


@pytest.mark.parametrize("url", CACHED)
def test_gets_carry_an_etag_and_answer_if_none_match_with_304(client, url):
    first = client.get(url)
    assert first.status_code == 200 and first.headers["cache-control"].startswith("public, max-age=")
    again = client.get(url, headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == first.headers["etag"]


def test_the_etag_depends_on_the_query(client):
    assert client.get("/v1/ici?type=sync").headers["etag"] != client.get("/v1/ici?type=batch").headers["etag"]


# --- bad input -----------------------------------------------------------------------------------

BAD = [
    # (url, status, code, field)
    ("/v1/forwards/O3?mode=weekly", 400, "invalid_input", "mode"),
    ("/v1/history/O3?mode=SYNC", 400, "invalid_input", "mode"),
    ("/v1/history/O3?from=2024-13-01", 400, "invalid_input", "from"),
    ("/v1/history/O3?from=yesterday", 400, "invalid_input", "from"),
    ("/v1/history/O3?to=2025-02-30", 400, "invalid_input", "to"),
    ("/v1/history/O3?from=2025-06-12&to=2025-06-11", 400, "invalid_input", "from"),
    ("/v1/history/O3?from=2099-01-01", 400, "invalid_input", "from"),
    ("/v1/ici?type=total", 400, "invalid_input", "type"),
    ("/v1/ici?type=", 400, "invalid_input", "type"),
    ("/v1/events?kind=cut", 400, "invalid_input", "kind"),
    ("/v1/events?since=2025-1-1", 400, "invalid_input", "since"),
    ("/v1/events?limit=0", 400, "invalid_input", "limit"),
    ("/v1/events?limit=1001", 400, "invalid_input", "limit"),
    ("/v1/events?limit=abc", 400, "invalid_input", "limit"),
    ("/v1/backtest?tenor=12M", 400, "invalid_input", "tenor"),
    ("/v1/backtest?method=oracle2", 400, "invalid_input", "method"),
    ("/v1/backtest?limit=0", 400, "invalid_input", "limit"),
    ("/v1/backtest?limit=1001", 400, "invalid_input", "limit"),
    ("/v1/backtest?limit=abc", 400, "invalid_input", "limit"),
    ("/v1/backtest?offset=-1", 400, "invalid_input", "offset"),
    ("/v1/backtest?offset=x", 400, "invalid_input", "offset"),
    ("/v1/backtest?anchor_from=2026-01-01&anchor_to=2025-01-01", 400, "invalid_input", "anchor_from"),
    ("/v1/backtest?anchor_to=2026-02-31", 400, "invalid_input", "anchor_to"),
    ("/v1/backtest?family=openai/o-seris", 400, "invalid_input", "family"),
    ("/v1/backtest?ticker=O3.B", 400, "invalid_input", "ticker"),
]


@pytest.mark.parametrize("url, status, code, field", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_a_problem_naming_the_field(client, url, status, code, field):
    problem(client, url, status, code, field)


@pytest.mark.parametrize("url, field, allowed", [
    ("/v1/forwards/O3?mode=x", "mode", ["sync", "batch"]),
    ("/v1/ici?type=x", "type", ["unified", "batch", "sync"]),
    ("/v1/events?kind=x", "kind", list(EVENT_KINDS)),
    ("/v1/backtest?tenor=x", "tenor", ["1M", "3M", "6M"]),
    ("/v1/backtest?method=x", "method", list(METHODS)),
])
def test_a_bad_enum_value_lists_the_allowed_ones(client, url, field, allowed):
    body = problem(client, url, 400, "invalid_input", field)
    assert body["allowed"] == allowed
    assert all(value in body["errors"][0]["message"] for value in allowed)


@pytest.mark.parametrize("url", ["/v1/forwards/SONET-4", "/v1/history/SONET-4", "/v1/events?ticker=SONET-4",
                                 "/v1/backtest?ticker=SONET-4"])
def test_an_unknown_model_is_a_404_with_suggestions(client, url):
    body = problem(client, url, 404, "unknown_model")
    assert "SONNET-4" in body["suggestions"]


@pytest.mark.parametrize("mode", ["sync", "batch"])
def test_every_forward_curve_is_the_per_model_curve(client, tables, mode):
    every = data(client, f"/v1/forwards?mode={mode}")
    models = tables["greeks"]
    sold = models if mode == "sync" else models[models["beta_batch"].notna()]
    assert [curve["ticker"] for curve in every] == sorted(sold["ticker"])
    for curve in every:
        assert curve == data(client, f"/v1/forwards/{curve['ticker']}?mode={mode}"), curve["ticker"]


def test_every_forward_curve_defaults_to_sync_and_refuses_other_modes(client):
    assert data(client, "/v1/forwards") == data(client, "/v1/forwards?mode=sync")
    refused = client.get("/v1/forwards?mode=weekly")
    assert refused.status_code == 400 and refused.json()["errors"][0]["field"] == "mode"
