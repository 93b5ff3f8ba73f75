"""The daily price history: which observations steer it, and how days between them are filled."""

from datetime import date, timedelta

import pandas as pd

from pipelines.history import build_price_history, history_points
from pipelines.observations import OBSERVATION_COLUMNS

AS_OF = date(2025, 1, 8)
GENAI, MP, ARCHIVE = "genai-prices", "model-prices", "model-price-radar-mcp"


def obs(day, input_, output, provenance, source, authority, provider="openai", is_origin=True,
        mode="sync", cache_read=None, superseded=False, ticker="O3"):
    row = dict.fromkeys(OBSERVATION_COLUMNS)
    row.update(
        ticker=ticker, provider=provider, provider_model_id="o3", is_origin=is_origin, mode=mode,
        effective_date=day, input=input_, output=output, cache_read=cache_read, source=source,
        source_version="v", source_url=f"https://example.com/{day}", provenance=provenance,
        authority=authority, superseded=superseded,
    )
    return row


def d(n: int) -> date:
    return date(2025, 1, n)


OBSERVATIONS = pd.DataFrame([
    obs(d(1), 4.0, 16.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False),
    obs(d(3), 3.0, 15.0, "published", GENAI, 43, cache_read=0.3),
    obs(d(3), 3.0, 12.0, "first_observed", MP, 22),  # same day, less authority
    obs(d(4), 99.0, 99.0, "first_observed", MP, 22, superseded=True),
    obs(d(5), 5.0, 20.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False),  # after origin
    obs(d(5), 7.0, 21.0, "current", GENAI, 33, provider="together", is_origin=False),  # other host
    obs(d(6), 2.0, 10.0, "current", GENAI, 33, cache_read=None),
    obs(d(10), 1.0, 1.0, "published", GENAI, 43),  # after as_of
    obs(d(7), 1.0, 4.0, "current", GENAI, 33, mode="batch"),
], columns=OBSERVATION_COLUMNS)


def test_history_points():
    points = history_points(OBSERVATIONS, AS_OF)
    assert list(zip(points["mode"], points["effective_date"], points["source"], points["output"])) == [
        ("batch", d(7), GENAI, 4.0),
        ("sync", d(1), ARCHIVE, 16.0),
        ("sync", d(3), GENAI, 15.0),
        ("sync", d(6), GENAI, 10.0),
    ]


def test_daily_history():
    history = build_price_history(OBSERVATIONS, AS_OF)
    assert len(history) == 10  # sync: 1..8 January (8 days); batch: 7..8 January (2 days)
    sync = history[history["mode"] == "sync"].reset_index(drop=True)
    assert sync["date"].tolist() == [d(n) for n in range(1, 9)]
    assert sync["provenance"].tolist() == [
        "archived", "carried_forward", "published", "carried_forward", "carried_forward",
        "current", "carried_forward", "carried_forward",
    ]
    assert sync["observed_on"].tolist() == [d(1), d(1), d(3), d(3), d(3), d(6), d(6), d(6)]
    assert sync["input"].tolist() == [4.0, 4.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0]
    assert sync["output"].tolist() == [16.0, 16.0, 15.0, 15.0, 15.0, 10.0, 10.0, 10.0]
    assert sync["source"].tolist() == [ARCHIVE] * 2 + [GENAI] * 6
    assert sync["source_url"].iloc[4] == "https://example.com/2025-01-03"
    # The 6 January observation leaves cache_read empty; it is not filled from 3 January.
    assert sync["cache_read"].isna().tolist() == [True, True, False, False, False, True, True, True]
    assert sync["cache_read"].iloc[2] == 0.3
    batch = history[history["mode"] == "batch"]
    assert batch["date"].tolist() == [d(7), d(8)]
    assert batch["provenance"].tolist() == ["current", "carried_forward"]
    assert set(history["ticker"]) == {"O3"}


def test_series_without_archive_starts_at_the_first_origin_point():
    frame = OBSERVATIONS[OBSERVATIONS["provider"] != "openrouter"]
    sync = build_price_history(frame, AS_OF).query("mode == 'sync'")
    assert sync["date"].min() == d(3) and len(sync) == 6


def test_archive_alone_does_not_make_a_series():
    frame = pd.DataFrame([obs(d(1), 4.0, 16.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False)],
                         columns=OBSERVATION_COLUMNS)
    assert build_price_history(frame, AS_OF).empty


def test_history_ends_on_as_of_with_one_row_per_day():
    as_of = date(2025, 3, 1)
    history = build_price_history(OBSERVATIONS, as_of)
    sync = history[history["mode"] == "sync"]
    assert len(sync) == (as_of - d(1)).days + 1 == 60
    assert sync["date"].iloc[-1] == as_of
    # the 10 January statement is now known and steers the series from that day
    assert sync.set_index("date").loc[d(10), "provenance"] == "published"
    assert sync.set_index("date").loc[d(10) + timedelta(days=1), "observed_on"] == d(10)
