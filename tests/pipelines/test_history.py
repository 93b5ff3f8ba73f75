"""The daily price history: which observations steer it, and how days between them are filled."""

from datetime import date, timedelta

import pandas as pd

from pipelines.history import (
    archive_agreement,
    archive_tracks_maker,
    build_price_history,
    daily_history,
    history_points,
    regional_variants,
)
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


def with_backfill(observations, as_of):
    """The history with the archive trusted for O3, whatever the evidence (tested apart below)."""
    return daily_history(history_points(observations, as_of, backfill={"O3"}), as_of)


def test_history_points():
    points = history_points(OBSERVATIONS, AS_OF, backfill={"O3"})
    assert list(zip(points["mode"], points["effective_date"], points["source"], points["output"])) == [
        ("batch", d(7), GENAI, 4.0),
        ("sync", d(1), ARCHIVE, 16.0),
        ("sync", d(3), GENAI, 15.0),
        ("sync", d(6), GENAI, 10.0),
    ]


def test_daily_history():
    history = with_backfill(OBSERVATIONS, AS_OF)
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
    history = with_backfill(OBSERVATIONS, as_of)
    sync = history[history["mode"] == "sync"]
    assert len(sync) == (as_of - d(1)).days + 1 == 60
    assert sync["date"].iloc[-1] == as_of
    # the 10 January statement is now known and steers the series from that day
    assert sync.set_index("date").loc[d(10), "provenance"] == "published"
    assert sync.set_index("date").loc[d(10) + timedelta(days=1), "observed_on"] == d(10)


def test_without_backfill_the_series_starts_at_the_makers_first_price():
    sync = build_price_history(OBSERVATIONS, AS_OF).query("mode == 'sync'")
    # One archived comparison is too little evidence, so the archive does not carry O3 back.
    assert sync["date"].min() == d(3) and "archived" not in set(sync["provenance"])


def evidence(ticker, maker, agreeing, disagreeing, start=date(2024, 1, 1)):
    """A maker's price of 2/8 from `start`, and monthly archived prices after it."""
    rows = [obs(start, 2.0, 8.0, "first_observed", MP, 22, provider=maker, ticker=ticker)]
    prices = [(2.0, 8.0)] * agreeing + [(1.0, 3.0)] * disagreeing
    for month, (price_in, price_out) in enumerate(prices, start=1):
        day = start + timedelta(days=31 * month)
        rows.append(obs(day, price_in, price_out, "archived", ARCHIVE, 11, provider="openrouter",
                        is_origin=False, ticker=ticker))
    return rows


def test_archive_agreement_compares_with_the_price_in_force_within_two_percent():
    rows = evidence("A", "openai", 1, 0) + [
        obs(date(2024, 3, 15), 2.03, 8.1, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False, ticker="A"),
        obs(date(2023, 12, 1), 2.0, 8.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False, ticker="A"),
    ]
    frame = pd.DataFrame(rows, columns=OBSERVATION_COLUMNS)
    comparisons = archive_agreement(frame)
    # The December point predates the maker's data, so there is nothing to compare it with.
    assert comparisons["agree"].tolist() == [True, True] and set(comparisons["maker"]) == {"openai"}


def test_a_ticker_with_enough_evidence_of_its_own_is_judged_on_it():
    frame = pd.DataFrame(evidence("GOOD", "openai", 9, 1) + evidence("BAD", "openai", 8, 2),
                         columns=OBSERVATION_COLUMNS)
    assert archive_tracks_maker(frame) == {"GOOD"}  # 90% agreement passes, 80% does not


def test_a_ticker_without_evidence_of_its_own_follows_its_maker():
    frame = pd.DataFrame(
        evidence("TRACKED", "anthropic", 10, 0) + evidence("HOSTED", "alibaba", 2, 8)
        + [obs(date(2023, 6, 1), 5.0, 15.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False,
               ticker="NEW-A"),
           obs(date(2024, 9, 1), 5.0, 15.0, "first_observed", MP, 22, provider="anthropic", ticker="NEW-A"),
           obs(date(2023, 6, 1), 5.0, 15.0, "archived", ARCHIVE, 11, provider="openrouter", is_origin=False,
               ticker="NEW-Q"),
           obs(date(2024, 9, 1), 5.0, 15.0, "first_observed", MP, 22, provider="alibaba", ticker="NEW-Q")],
        columns=OBSERVATION_COLUMNS)
    assert archive_tracks_maker(frame) == {"TRACKED", "NEW-A"}


def test_a_cross_region_id_never_steers_the_makers_series_when_the_in_region_id_is_stated():
    origin = pd.DataFrame({
        "ticker": ["NOVA-PRO"] * 3 + ["ONLY-REGIONAL"],
        "source": ["model-prices"] * 4,
        "provider_model_id": ["amazon.nova-pro-v1:0", "apac.amazon.nova-pro-v1:0", "eu.amazon.nova-pro-v1:0",
                              "us.amazon.other-v1:0"],
        "effective_date": [date(2025, 3, 1), date(2025, 1, 1), date(2025, 3, 1), date(2025, 1, 1)],
    })
    # NOVA-PRO's apac. and eu. routes carry a surcharge; a model stated only cross-region keeps it.
    assert regional_variants(origin).tolist() == [False, True, True, False]
    # Before the in-region id is stated, the apac. route is the model's only price.
    before = origin[origin["effective_date"] < date(2025, 3, 1)]
    assert regional_variants(before).tolist() == [False, False]
