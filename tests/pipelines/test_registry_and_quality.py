"""Registry defaults and curated rules, today's providers, and the blocking data-quality rules."""

from datetime import date

import pandas as pd
import pytest

from pipelines.listings import PRICE_FIELDS
from pipelines.observations import OBSERVATION_COLUMNS
from pipelines.providers import PROVIDER_COLUMNS, build_providers
from pipelines.quality import coverage_shortfall, duplicate_values, history_gaps, negative_or_missing_prices
from pipelines.registry import Rules, choose_model_id, default_family, default_tier
from warehouse.seed_files import read_seed_csv


@pytest.mark.parametrize("maker, ticker, expected", [
    ("openai", "GPT-4.1-MINI", "openai/gpt-mini"),
    ("anthropic", "SONNET-4", "anthropic/sonnet"),
    ("anthropic", "SONNET-3.5", "anthropic/sonnet"),
    ("alibaba", "QWEN3-235B-A22B", "alibaba/qwen"),
    ("openai", "O3", "openai/o"),
    ("openai", "GPT-4-32K", "openai/gpt"),
    ("google", "GEMINI-2.5-PRO", "google/gemini-pro"),
    ("mistral", "MISTRAL-LARGE", "mistral/mistral-large"),
    ("deepseek", "DEEPSEEK-V3", "deepseek/deepseek"),
])
def test_default_family(maker, ticker, expected):
    assert default_family(maker, ticker) == expected


@pytest.mark.parametrize("output, expected", [
    (75.0, "frontier"), (10.0, "frontier"), (9.99, "mid"), (1.51, "mid"), (1.5, "efficient"), (0.0, "efficient"),
])
def test_default_tier(output, expected):
    assert default_tier(output) == expected


@pytest.mark.parametrize("ids, expected", [
    (["claude-sonnet-4-0", "claude-sonnet-4-20250514"], "claude-sonnet-4-20250514"),
    (["gpt-4o", "gpt-4o-2024-08-06"], "gpt-4o"),
    (["gpt-4o-2024-11-20", "gpt-4o-2024-05-13"], "gpt-4o-2024-05-13"),
    (["grok-4-0709"], "grok-4-0709"),
    (["mistral-large-latest"], "mistral-large-latest"),
    (["GPT-4.1", "gpt-4.1-2025-04-14"], "gpt-4.1"),
])
def test_choose_model_id(ids, expected):
    assert choose_model_id(ids) == expected


@pytest.fixture(scope="module")
def rules() -> Rules:
    return Rules.from_frame(read_seed_csv("model_rules"))


@pytest.mark.parametrize("kind, subject, expected", [
    ("tier", "anthropic/claude-opus-4-1", "frontier"),
    ("tier", "google/gemini-2.5-pro", "frontier"),
    ("tier", "google/gemini-2.5-flash", "efficient"),
    ("tier", "anthropic/claude-sonnet-4-20250514", "mid"),
    ("tier", "openai/gpt-4.1-mini", "efficient"),
    ("reasoning", "openai/o3", "true"),
    ("reasoning", "xai/grok-4-fast-non-reasoning", "false"),
    ("reasoning", "xai/grok-4-0709", "true"),
    ("reasoning", "openai/gpt-4.1", None),
    ("family", "openai/o3", "openai/o-series"),
    ("family", "openai/gpt-4.1", None),
])
def test_seed_rules(rules, kind, subject, expected):
    assert rules.first(kind, subject) == expected


def test_gemini_pro_is_not_efficient(rules):
    assert rules.first("tier", "google/gemini-2.5-pro") != "efficient"


def test_rules_first_match_wins():
    rules = Rules.from_frame(pd.DataFrame({"kind": ["tier", "tier", "family"], "pattern": ["a", "ab", "ab"],
                                           "value": ["one", "two", "fam"]}))
    assert (rules.first("tier", "xab"), rules.first("family", "xab"), rules.first("tier", "zzz")) == ("one", "fam", None)


def offer(ticker, provider, day, output, is_origin, superseded=False, model_id=None, authority=33,
          provenance="current"):
    row = dict.fromkeys(OBSERVATION_COLUMNS)
    row.update(ticker=ticker, provider=provider, provider_model_id=model_id or ticker.lower(), is_origin=is_origin,
               mode="sync", effective_date=day, input=output / 4, output=output, authority=authority,
               superseded=superseded, provenance=provenance, source="genai-prices")
    return row


def test_build_providers():
    observations = pd.DataFrame([
        offer("O3", "openai", date(2025, 4, 16), 40.0, True),
        offer("O3", "openai", date(2025, 6, 10), 8.0, True),
        offer("O3", "openai", date(2025, 6, 10), 9.0, True, superseded=True),
        offer("O3", "openai", date(2026, 1, 1), 1.0, True),  # after as_of
        offer("O3", "together", date(2025, 3, 1), 12.0, False, provenance="archived"),  # together's offer ended
        offer("O3", "azure", date(2025, 2, 1), 8.0, False),  # in today's catalogue, first listed in February
        offer("GPT-4O", "openai", date(2024, 5, 13), 15.0, True),  # old but the maker's own: stays
        offer("GPT-4O", "together", date(2025, 6, 1), 11.0, False),
        offer("GPT-4O", "openrouter", date(2025, 6, 1), 10.0, False, model_id="openai/gpt-4o"),
    ], columns=OBSERVATION_COLUMNS)
    out = build_providers(observations, date(2025, 7, 1))
    assert list(out.columns) == PROVIDER_COLUMNS
    assert list(zip(out["ticker"], out["provider"], out["effective_date"], out["output"])) == [
        ("GPT-4O", "openai", date(2024, 5, 13), 15.0),
        ("GPT-4O", "openrouter", date(2025, 6, 1), 10.0),
        ("GPT-4O", "together", date(2025, 6, 1), 11.0),
        ("O3", "openai", date(2025, 6, 10), 8.0),
        ("O3", "azure", date(2025, 2, 1), 8.0),
    ]


# --- quality --------------------------------------------------------------------------------------

def prices(*rows):
    """(ticker, input, output, cache_read, cache_write, reasoning) rows; every other price field empty."""
    frame = pd.DataFrame(rows, columns=["ticker", "input", "output", "cache_read", "cache_write", "reasoning"])
    return frame.assign(**{f: None for f in PRICE_FIELDS if f not in frame})


def test_negative_or_missing_prices():
    frame = prices(("A", None, 8.0, None, None, None), ("B", 2.0, 8.0, -1.0, None, None), ("C", 2.0, 8.0, 0.5, None, None))
    assert negative_or_missing_prices(frame) == ["A: input missing", "B: cache_read negative (-1.0)"]
    assert negative_or_missing_prices(prices(("C", 2.0, 8.0, 0.0, None, None))) == []


def test_duplicate_values():
    assert duplicate_values(pd.Series(["O3", "GPT-4O", "O3", "O3"])) == ["O3 appears 3 times"]
    assert duplicate_values(pd.Series(["O3", "GPT-4O"])) == []


def test_coverage_shortfall():
    models = pd.DataFrame({"ticker": ["O3", "GPT-4O"], "provider": ["openai", "openai"]})
    assert coverage_shortfall(models, 3, 2) == [
        "2 tickers, fewer than the floor of 3", "1 origin providers, fewer than the floor of 2",
    ]
    assert coverage_shortfall(models, 2, 1) == []


def history(days, ticker="O3", mode="sync"):
    return pd.DataFrame({"ticker": ticker, "mode": mode, "date": [date(2025, 1, n) for n in days]})


AS_OF = date(2025, 1, 4)


@pytest.mark.parametrize("days, expected", [
    ([1, 2, 3, 4], []),
    ([1, 2, 4], ["O3 sync: 3 rows for 4 days"]),  # a missing day
    ([1, 2, 2, 4], ["O3 sync: 4 rows for 4 days"]),  # a duplicated day hiding a missing one
    ([1, 2, 3, 3, 4], ["O3 sync: 5 rows for 4 days"]),  # a duplicated day
    ([1, 2, 3], ["O3 sync: ends 2025-01-03, not on the snapshot date 2025-01-04"]),
])
def test_history_gaps(days, expected):
    assert history_gaps(history(days), AS_OF) == expected


def test_history_gaps_checks_each_series():
    frame = pd.concat([history([1, 2, 3, 4]), history([3, 4], mode="batch"), history([2, 4], ticker="GPT-4O")])
    assert history_gaps(frame, AS_OF) == ["GPT-4O sync: 2 rows for 3 days"]


def test_surprises_a_table_shrinking_and_the_index_jumping():
    from datetime import date

    import pandas as pd

    from pipelines.quality import index_jumps, shrunk

    assert shrunk("models", None, 10, 0.1) == [] and shrunk("models", 100, 90, 0.1) == []
    assert shrunk("models", 100, 89, 0.1) == ["models: 89 rows, 11% fewer than the published snapshot's 100"]
    days = [date(2026, 11, 21), date(2026, 11, 22)]
    history = pd.DataFrame({"type": ["sync", "sync", "batch", "batch"], "date": days * 2,
                            "value": [2.0, 2.25, 1.0, 1.05]})
    assert index_jumps(history, 0.1) == ["sync: 2.000000 → 2.250000 (+12.5%) on 2026-11-22"]
