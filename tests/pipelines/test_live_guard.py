"""The live path's pure parts: a day's copy as observations, OpenRouter's API read, the guard
against bad prints, and which release-dated statements are new evidence."""

from datetime import date

import pandas as pd
import pytest

from pipelines.guard import (
    LISTED,
    UNCONFIRMED,
    broken_fetch,
    hold_unconfirmed,
    moved_fields,
    unconfirmed_moves,
    vanished,
)
from pipelines.ingest_openrouter import endpoint_listings, openrouter_listings
from pipelines.ingest_releases import new_evidence
from pipelines.listings import ARCHIVED, CURRENT, PUBLISHED, SYNC, Listing
from pipelines.live import DailyCopy, as_observations, is_live, live_version, read_on

D1, D2, D3 = date(2026, 11, 21), date(2026, 11, 22), date(2026, 11, 23)
URL = "http://mirror.example/data.json"


def listing(day, price_in, price_out, provenance=CURRENT, model="m", source="genai-prices", version="0.2.3"):
    return Listing(provider="acme", source_model_id=model, mode=SYNC, effective_date=day, input=price_in,
                   output=price_out, source=source, source_version=version, provenance=provenance)


def test_each_days_copy_is_dated_that_day_the_newest_current():
    documented = listing(date(2026, 3, 1), 4.0, 8.0, provenance=PUBLISHED)
    copies = [DailyCopy(D1, URL, "2026-11-21T06:00:00.000Z", [listing(D1, 2.0, 8.0), documented]),
              DailyCopy(D2, URL, "2026-11-22T06:00:00.000Z", [listing(D2, 1.0, 8.0), documented])]
    out = as_observations(copies)
    assert [(o.effective_date, o.provenance, o.input) for o in out] == [
        (D1, ARCHIVED, 2.0), (D2, CURRENT, 1.0), (date(2026, 3, 1), PUBLISHED, 4.0)]  # dated changes: newest only
    assert {o.source_url for o in out[:2]} == {URL}
    assert out[1].source_version == "live 2026-11-22 2026-11-22T06:00:00.000Z" and read_on(out[1].source_version) == D2
    assert out[0].note == f"read from {URL} at 2026-11-21T06:00:00.000Z" and out[0].source_released == D1
    assert is_live(pd.Series([live_version(D1, "t"), "0.2.3", None])).tolist() == [True, False, False]


def test_openrouter_prices_per_token_become_per_million_and_per_call_per_thousand():
    payload = {"data": [
        {"id": "a/priced", "name": "A", "context_length": 8192,
         "pricing": {"prompt": "0.0000025", "completion": "0.00001", "input_cache_read": "0.00000125",
                     "request": "0.005", "web_search": "0.01", "image": "0"}},
        {"id": "openrouter/auto", "pricing": {"prompt": "-1", "completion": "-1"}},  # a router
        {"id": "b/free:free", "pricing": {"prompt": "0", "completion": "0"}},
        {"id": "c/odd", "pricing": {"prompt": "n/a", "completion": "0.000001"}},
    ]}
    [only] = openrouter_listings(payload, D1, "", URL)
    assert (only.provider, only.source_model_id, only.effective_date, only.provenance) == ("openrouter", "a/priced",
                                                                                        D1, CURRENT)
    assert (only.input, only.output, only.cache_read) == pytest.approx((2.5, 10.0, 1.25), rel=1e-12)
    assert (only.request_fee, only.web_search_fee) == pytest.approx((5.0, 10.0), rel=1e-12)
    assert only.cache_write is None and only.context_window == 8192


def _observations(rows, provider="acme"):
    """Rows of (source, day, input, output, live) → the columns the guard reads: each live row
    read on its own day (its own fetch)."""
    frame = pd.DataFrame([{
        "ticker": "M", "provider": provider, "provider_model_id": "m", "mode": SYNC, "effective_date": day,
        "input": price_in, "output": price_out, "source": source, "authority": 30,
        "source_version": live_version(day, "t") if live else "0.2.3", "source_url": URL, "provenance": CURRENT,
        "source_released": day, "superseded": False, "note": None} for source, day, price_in, price_out, live in rows])
    return frame


def test_moves_over_half_and_to_or_from_zero_are_big():
    before = pd.Series({"input": 2.0, "output": 8.0})
    assert moved_fields(before, pd.Series({"input": 0.9, "output": 8.0}), 0.5) == ["input"]  # −55%
    assert moved_fields(before, pd.Series({"input": 1.0, "output": 12.0}), 0.5) == []  # −50%, +50%: not over
    assert moved_fields(before, pd.Series({"input": 0.0, "output": 80.0}), 0.5) == ["input", "output"]
    assert moved_fields(pd.Series({"input": 0.0, "output": 1.0}), pd.Series({"input": 0.1, "output": 1.0}),
                        0.5) == ["input"]


def test_an_unconfirmed_tenfold_print_is_held_and_becomes_an_event_row():
    frame = _observations([("genai-prices", D1, 2.0, 8.0, True), ("genai-prices", D2, 2.0, 80.0, True)])
    held = hold_unconfirmed(frame)
    assert held["superseded"].tolist() == [False, True]
    assert held.at[1, "note"].startswith(f"{UNCONFIRMED}: output 8 → 80 on genai-prices alone")
    moves = unconfirmed_moves(held)
    assert moves[["field", "before", "after", "date"]].values.tolist() == [["output", 8.0, 80.0, D2]]


def test_the_guard_holds_a_move_of_more_than_half_by_default_and_passes_a_halving():
    over = _observations([("genai-prices", D1, 2.0, 8.0, True), ("genai-prices", D2, 2.0, 3.6, True)])  # −55%
    halved = _observations([("genai-prices", D1, 2.0, 8.0, True), ("genai-prices", D2, 2.0, 4.0, True)])  # −50%
    risen = _observations([("genai-prices", D1, 2.0, 8.0, True), ("genai-prices", D2, 2.0, 12.4, True)])  # +55%
    assert hold_unconfirmed(over)["superseded"].tolist() == [False, True]
    assert not hold_unconfirmed(halved)["superseded"].any()
    assert hold_unconfirmed(risen)["superseded"].tolist() == [False, True]


def test_a_big_move_the_next_fetch_repeats_is_accepted_and_one_it_undoes_stays_held():
    repeated = _observations([("genai-prices", d, 2.0, p, True) for d, p in ((D1, 8.0), (D2, 80.0), (D3, 80.0))])
    assert not hold_unconfirmed(repeated)["superseded"].any()
    undone = _observations([("genai-prices", d, 2.0, p, True) for d, p in ((D1, 8.0), (D2, 80.0), (D3, 8.0))])
    assert hold_unconfirmed(undone)["superseded"].tolist() == [False, True, False]


def test_a_second_source_confirms_a_big_move_the_same_day_or_before():
    cut = [("genai-prices", D1, 10.0, 40.0, True), ("genai-prices", D2, 2.0, 8.0, True)]
    confirmed = _observations(cut + [("model-prices", D2, 2.0, 8.0, False)])
    assert not hold_unconfirmed(confirmed)["superseded"].any()
    too_late = _observations(cut + [("model-prices", D3, 2.0, 8.0, False)])
    assert hold_unconfirmed(too_late)["superseded"].tolist() == [False, True, False]
    disagreeing = _observations(cut + [("model-prices", D2, 2.0, 9.0, False)])
    assert hold_unconfirmed(disagreeing)["superseded"].tolist() == [False, True, False]


def test_a_bundled_move_is_held_only_when_implausible():
    tenfold = _observations([("genai-prices", D1, 2.0, 8.0, False), ("genai-prices", D2, 2.0, 80.0, False)])
    assert hold_unconfirmed(tenfold).equals(tenfold)  # a host's routing moves its price that far
    slip = _observations([("genai-prices", D1, 2.0, 8.0, False), ("genai-prices", D2, 2.0, 8000.0, False),
                          ("genai-prices", D3, 2.0, 8.0, False)])
    held = hold_unconfirmed(slip)
    assert held["superseded"].tolist() == [False, True, False]
    assert held.at[1, "note"].startswith(f"{UNCONFIRMED}: output 8 → 8000 on genai-prices alone")
    assert unconfirmed_moves(held).empty  # never a price anyone charged: no event
    kept = _observations([("genai-prices", D1, 2.0, 8.0, False), ("genai-prices", D2, 2.0, 8000.0, False),
                          ("genai-prices", D3, 2.0, 8000.0, False)])
    assert not hold_unconfirmed(kept)["superseded"].any()  # the source's next statement repeats it
    # The first live fetch is compared with the source's bundled statement before it.
    first_live = _observations([("genai-prices", D1, 2.0, 8.0, False), ("genai-prices", D2, 2.0, 80.0, True)])
    assert hold_unconfirmed(first_live)["superseded"].tolist() == [False, True]


def test_a_price_a_hundred_times_from_every_other_is_held_until_another_source_states_it():
    hosts = _observations([("model-prices", D1, 0.2, 0.8, False)], provider="maker")
    slip = _observations([("litellm", D2, 200.0, 800.0, False), ("litellm", D3, 200.0, 800.0, False)], provider="host")
    held = hold_unconfirmed(pd.concat([hosts, slip], ignore_index=True))
    assert held["superseded"].tolist() == [False, True, True]  # repeated by the same source: still a slip
    assert held.at[1, "note"] == (f"{UNCONFIRMED}: input 200, output 800 on litellm is more than 100 times from "
                                  "every other price stated for the model by then; held until another source "
                                  "states it")
    within = _observations([("litellm", D2, 19.0, 79.0, False)], provider="host")  # 95 and 98.75 times: in line
    assert not hold_unconfirmed(pd.concat([hosts, within], ignore_index=True))["superseded"].any()
    seconded = _observations([("genai-prices", D2, 200.0, 800.0, False)], provider="host")
    confirmed = hold_unconfirmed(pd.concat([hosts, slip, seconded], ignore_index=True))
    assert not confirmed["superseded"].any()
    # A slip does not vouch for a later one: once it is out of line, the later one is asked again.
    other_slip = _observations([("litellm", D3, 2000.0, 8000.0, False)], provider="third")
    both = hold_unconfirmed(pd.concat([hosts, slip.iloc[:1], other_slip], ignore_index=True))
    assert both["superseded"].tolist() == [False, True, True]


def test_release_statements_are_read_only_as_new_evidence_for_listed_models():
    own = [listing(date(2026, 1, 10), 2.0, 8.0)]
    released = [listing(date(2025, 7, 11), 3.0, 12.0, ARCHIVED, version="0"),  # an earlier price: kept
                listing(date(2025, 12, 1), 2.0, 8.0, ARCHIVED, version="0.1"),  # listed before own dating: kept
                listing(date(2026, 2, 1), 2.0, 8.0, ARCHIVED, version="0.2"),  # already dated earlier: dropped
                listing(date(2025, 9, 1), 1.0, 1.0, ARCHIVED, model="gone", version="0.1")]  # not listed any more
    assert [r.source_version for r in new_evidence(released, own)] == ["0", "0.1"]


def test_an_endpoint_list_gives_each_hosts_cheapest_endpoint():
    payload = {"data": {"id": "meta-llama/llama-3.1-8b-instruct", "name": "Llama", "endpoints": [
        {"provider_name": "DeepInfra", "tag": "deepinfra/bf16", "pricing": {"prompt": "0.00000003", "completion": "0.00000005"}},
        {"provider_name": "DeepInfra", "tag": "deepinfra/fp8", "pricing": {"prompt": "0.00000002", "completion": "0.00000005"}},
        {"provider_name": "Together AI", "pricing": {"prompt": "0.00000018", "completion": "0.00000018"}},
        {"provider_name": "Some Host", "tag": "somehost", "pricing": {"prompt": "0", "completion": "0"}},  # free
        {"provider_name": "OpenRouter", "tag": "openrouter", "pricing": {"prompt": "0.1", "completion": "0.1"}},
    ]}}
    offers = endpoint_listings(payload, D1, "", URL)
    assert [(o.provider, o.source_model_id) for o in offers] == [
        ("deepinfra", "meta-llama/llama-3.1-8b-instruct"), ("together-ai", "meta-llama/llama-3.1-8b-instruct")]
    assert (offers[0].input, offers[0].output) == pytest.approx((0.02, 0.05), rel=1e-12)
    assert all(o.source == "openrouter" and o.provenance == CURRENT and o.effective_date == D1 for o in offers)


def test_a_model_a_live_source_stops_listing_is_an_unconfirmed_disappearance():
    def day_rows(day, models):
        return [{"ticker": m.upper(), "provider": "acme", "provider_model_id": m, "mode": SYNC, "effective_date": day,
                 "input": 1.0, "output": 4.0, "source": "genai-prices", "source_version": live_version(day, "t"),
                 "source_url": URL, "provenance": ARCHIVED, "superseded": False, "note": None} for m in models]
    frame = pd.DataFrame(day_rows(D1, ["a", "b", "c"]) + day_rows(D2, ["a", "c"]) + day_rows(D3, ["a", "b"]))
    gone = vanished(frame)
    # b left on D2 and came back (a slip); c left on D3, the newest day: both unconfirmed.
    assert gone[["ticker", "field", "before", "date"]].values.tolist() == [
        ["B", LISTED, 4.0, D2], ["C", LISTED, 4.0, D3]]
    assert "no longer listed by genai-prices" in gone.iloc[0]["detail"]
    # Confirmed gone by a later fetch: no event (and nothing retired).
    confirmed = pd.DataFrame(day_rows(D1, ["a", "c"]) + day_rows(D2, ["a"]) + day_rows(D3, ["a"]))
    assert vanished(confirmed).empty


def test_confirmation_comes_from_another_fetch_or_the_same_providers_price_elsewhere():
    cut = [("genai-prices", D1, 10.0, 40.0, True), ("genai-prices", D2, 2.0, 8.0, True)]
    # The same fetch stating the move twice (a dated change and today's price) is one word, not two.
    same_fetch = _observations(cut + [("genai-prices", D2, 2.0, 8.0, True)])
    same_fetch.loc[2, ["effective_date", "provenance", "source_released"]] = [D3, CURRENT, D2]
    same_fetch.loc[2, "source_version"] = same_fetch.loc[1, "source_version"]
    assert hold_unconfirmed(same_fetch)["superseded"].tolist() == [False, True, True]
    # Another source agreeing about another provider's price confirms nothing.
    elsewhere = pd.concat([_observations(cut), _observations([("litellm", D2, 2.0, 8.0, False)], provider="azure")],
                          ignore_index=True)
    assert hold_unconfirmed(elsewhere)["superseded"].tolist() == [False, True, False]


def test_a_dated_statement_read_again_on_a_later_day_is_confirmed():
    frame = _observations([("model-prices", D1, 10.0, 40.0, True), ("model-prices", D2, 2.0, 8.0, True)])
    frame["provenance"] = PUBLISHED
    frame["source_version"] = live_version(D3, "t")  # both from the newest fetch, of D3
    frame["source_released"] = [D1, D2]  # first read on D1 and D2: read again on D3
    assert not hold_unconfirmed(frame)["superseded"].any()
    frame["source_released"] = [D1, D3]  # the cut first read on D3: nothing has read it again
    assert hold_unconfirmed(frame)["superseded"].tolist() == [False, True]


def test_a_fetch_that_drops_most_models_is_broken_unless_the_next_one_agrees():
    assert broken_fetch(2, 4, None, 0.5) == ("lists 2 models against 4 in the last good fetch: a broken fetch, "
                                             "not a mass retirement")
    assert broken_fetch(3, 4, None, 0.5) is None and broken_fetch(2, None, None, 0.5) is None
    assert broken_fetch(2, 4, 2, 0.5) is None  # refused once with the same count: the source did shrink
