"""What a snapshot changes against the one it replaces, on hand-made tables."""

import numpy as np
import pandas as pd

from pipelines.changes import what_changed


def spots(*rows):
    """(ticker, input_sync, beta_sync, input_batch, beta_batch)."""
    return pd.DataFrame(rows, columns=["ticker", "input_sync", "beta_sync", "input_batch", "beta_batch"])


def events(*rows):
    return pd.DataFrame(rows, columns=["event_id", "kind"])


def test_models_prices_events_and_sources_that_changed():
    old = spots(("A", 1.0, 4.0, 0.5, 2.0), ("B", 2.0, 8.0, np.nan, np.nan), ("C", 3.0, 9.0, np.nan, np.nan),
                ("GONE", 1.0, 1.0, np.nan, np.nan))
    new = spots(("A", 0.8, 4.0, 0.5, 2.0),       # a sync input cut
                ("B", 2.0, 8.0, 1.0, 4.0),       # batch appears
                ("C", 3.0, 9.0, np.nan, np.nan),  # unchanged, no batch either side
                ("NEW", 1.0, 2.0, np.nan, np.nan))
    changes = what_changed(old, new, events(("e1", "price_cut")),
                           events(("e1", "price_cut"), ("e2", "price_cut"), ("e3", "new_model"), ("e4", "batch_change")),
                           {"genai-prices": "0.2.3", "litellm": "1.110.2"}, {"genai-prices": "0.2.4", "litellm": "1.110.2"})
    assert (changes.models_added, changes.models_removed, changes.prices_changed) == (["NEW"], ["GONE"], ["A", "B"])
    assert changes.events_by_kind == {"batch_change": 1, "new_model": 1, "price_cut": 1}
    assert changes.sources_changed == {"genai-prices": ["0.2.3", "0.2.4"]}
    assert changes.counts() == {"models_added": 1, "models_removed": 1, "prices_changed": 2, "events": 3,
                                "events.batch_change": 1, "events.new_model": 1, "events.price_cut": 1,
                                "sources_changed": 1}
    table = changes.markdown()
    assert "| prices changed | 2 | A, B |" in table and "| source genai-prices | 1 | 0.2.3 → 0.2.4 |" in table


def test_nothing_changed_is_all_zeros():
    same = spots(("A", 1.0, 4.0, np.nan, np.nan))
    changes = what_changed(same, same.copy(), events(("e1", "price_cut")), events(("e1", "price_cut")), {}, {})
    assert changes.counts() == {"models_added": 0, "models_removed": 0, "prices_changed": 0, "events": 0,
                                "sources_changed": 0}
