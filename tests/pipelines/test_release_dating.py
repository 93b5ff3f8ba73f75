"""Dating a catalogue's undated current price by the releases that listed it."""

from datetime import date

import numpy as np
import pandas as pd

from pipelines.release_dating import ReleaseDating, release_dating, releases_of

RELEASES = [("0", date(2025, 7, 11)), ("0.1", date(2025, 9, 1)), ("0.2", date(2026, 3, 20)),
            ("0.3", date(2026, 10, 29)), ("0.4", date(2026, 11, 10))]


def spans(*rows):
    """(model_id, first_version, last_version, input, output, cache_read)."""
    first = dict(RELEASES)
    return pd.DataFrame([{"provider_id": "p", "model_id": m, "first_version": a, "last_version": b,
                          "first_released": first[a], "last_released": first[b], "input": i, "output": o,
                          "cache_read": c} for m, a, b, i, o, c in rows])


def test_a_run_reaches_back_through_spans_that_changed_only_the_cache_price():
    dating = release_dating(spans(("m", "0", "0.1", 1.0, 2.0, np.nan), ("m", "0.2", "0.4", 1.0, 2.0, 0.1)),
                            RELEASES, "0.4")
    assert (dating.version, dating.released) == ("0.4", date(2026, 11, 10))
    assert dating.asserted_since("p", "m", 1.0, 2.0) == date(2025, 7, 11)


def test_a_run_stops_at_a_price_change_and_at_a_gap():
    changed = spans(("m", "0", "0.1", 2.4, 10.0, np.nan), ("m", "0.2", "0.4", 1.15, 8.0, np.nan))
    assert release_dating(changed, RELEASES, "0.4").asserted_since("p", "m", 1.15, 8.0) == date(2026, 3, 20)
    gap = spans(("m", "0", "0.1", 1.0, 2.0, np.nan), ("m", "0.3", "0.4", 1.0, 2.0, np.nan))  # absent from 0.2
    assert release_dating(gap, RELEASES, "0.4").asserted_since("p", "m", 1.0, 2.0) == date(2026, 10, 29)


def test_no_date_for_another_price_a_model_the_release_drops_or_an_unknown_release():
    dating = release_dating(spans(("m", "0", "0.4", 1.0, 2.0, np.nan), ("gone", "0", "0.2", 1.0, 2.0, np.nan)),
                            RELEASES, "0.4")
    assert dating.asserted_since("p", "m", 1.0, 2.5) is None
    assert dating.asserted_since("p", "gone", 1.0, 2.0) is None
    assert dating.asserted_since("p", "m", None, 2.0) is None
    assert release_dating(spans(("m", "0", "0.4", 1.0, 2.0, np.nan)), RELEASES, "0.5") == ReleaseDating("0.5")


def test_releases_of_reads_the_meta_in_release_order():
    meta = {"release_files": [{"version": "0", "uploaded": "2025-07-11T17:41:26.977388Z"},
                              {"version": "0.2.3", "uploaded": "2026-11-10T09:00:00Z"}]}
    assert releases_of(meta) == [("0", date(2025, 7, 11)), ("0.2.3", date(2026, 11, 10))]
