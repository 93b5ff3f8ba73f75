"""A build for a day reads only the statements published by then (`pipelines.listings.known_by`),
and a catalogue's price is known from the first release that listed it (`release_dating`)."""

from datetime import date

import pandas as pd

from pipelines.listings import Listing, known_by, listings_frame
from pipelines.release_dating import release_dating

DAY = date(2026, 6, 1)


def listing(model: str, released: date | None, known_from: date | None = None) -> Listing:
    return Listing(provider="anthropic", source_model_id=model, mode="sync", effective_date=date(2026, 1, 1),
                   input=5.0, output=25.0, source="genai-prices", source_version="0.2.3", provenance="current",
                   source_released=released, known_from=known_from)


def test_a_statement_first_published_after_the_day_is_not_known_on_it():
    frame = listings_frame([
        listing("claude-opus-4-5", date(2026, 11, 10), known_from=date(2025, 11, 25)),  # listed since 2025
        listing("claude-opus-5", date(2026, 11, 10), known_from=date(2026, 7, 29)),  # first listed in July
        listing("claude-haiku-4-5", date(2026, 5, 15)),  # read from a release before the day
        listing("claude-sonnet-5", date(2026, 6, 2)),  # read from a release the day after
        listing("curated", None),  # no publication date: kept
    ])
    assert sorted(known_by(frame, DAY)["source_model_id"]) == ["claude-haiku-4-5", "claude-opus-4-5", "curated"]
    assert len(known_by(frame, date(2026, 11, 10))) == 5


SPANS = pd.DataFrame([
    # A price listed from 0.0.45, cut from 0.1.0 on, listed since at the new price.
    ("anthropic", "claude-opus-4-5", "0.0.45", date(2025, 11, 25), "0.0.90", date(2026, 8, 1), 15.0, 75.0),
    ("anthropic", "claude-opus-4-5", "0.1.0", date(2026, 8, 20), "0.2.3", date(2026, 11, 10), 5.0, 25.0),
], columns=["provider_id", "model_id", "first_version", "first_released", "last_version", "last_released",
            "input", "output"])
RELEASES = [("0.0.45", date(2025, 11, 25)), ("0.0.90", date(2026, 8, 1)), ("0.1.0", date(2026, 8, 20)),
            ("0.2.3", date(2026, 11, 10))]


def test_a_dated_price_is_known_from_the_first_release_that_listed_it_in_force():
    dating = release_dating(SPANS, RELEASES, "0.2.3")
    key = ("anthropic", "claude-opus-4-5")
    # The cut, dated 2026-08-15 by the maker, first appears in the release of 2026-08-20.
    assert dating.first_published(*key, 5.0, 25.0, date(2026, 8, 15)) == date(2026, 8, 20)
    # The price before it was listed from the first release of the history.
    assert dating.first_published(*key, 15.0, 75.0, date(2026, 8, 14)) == date(2025, 11, 25)
    # A price no release listed is not dated by the history (the release read dates it).
    assert dating.first_published(*key, 3.0, 15.0, date(2026, 8, 15)) is None
    assert dating.asserted_since(*key, 5.0, 25.0) == date(2026, 8, 20)
