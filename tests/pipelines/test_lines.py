"""The line rule (methodology §5, "Lines") on hand-made registries: which line a model is in, who
is no member, the release order and date, and each succession's price ratio."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.lines import (
    BEFORE_RETIREMENT,
    DATA_START,
    FIRST_SEEN,
    LINE_COLUMNS,
    build_lines,
    exclusion,
    line_members,
    line_of,
    out_of_order,
    version_of,
)

TODAY = date(2026, 12, 1)


def registry(*rows) -> pd.DataFrame:
    """Registry rows: (ticker, model_id, provider, family, first_seen[, deprecated_on, retired_on, status])."""
    records = []
    for ticker, model_id, provider, family, seen, *rest in rows:
        deprecated, retired, status = (rest + [None, None, "active"])[:3] if rest else (None, None, "active")
        records.append({"ticker": ticker, "model_id": model_id, "provider": provider, "family": family,
                        "first_seen": date.fromisoformat(seen), "status": status, "is_reasoning": False,
                        "deprecated_on": date.fromisoformat(deprecated) if deprecated else None,
                        "retired_on": date.fromisoformat(retired) if retired else None})
    return pd.DataFrame.from_records(records)


@pytest.mark.parametrize(("ticker", "maker", "family", "line"), [
    ("SONNET-4.5", "anthropic", "anthropic/sonnet", "anthropic/sonnet"),  # versions drop
    ("GPT-4.1-MINI", "openai", "openai/gpt-mini", "openai/gpt-mini"),  # a variant word is in its family
    ("LLAMA-3.1-70B", "meta", "meta/llama", "meta/llama-70b"),  # open-weight sizes are lines
    ("LLAMA-3.1-8B", "meta", "meta/llama", "meta/llama-8b"),
    ("QWEN3-235B-A22B", "alibaba", "alibaba/qwen", "alibaba/qwen-235b-a22b"),
    ("GEMINI-1.5-FLASH-8B", "google", "google/gemini-flash", "google/gemini-flash-8b"),
    ("GPT-4-32K", "openai", "openai/gpt", "openai/gpt-32k"),  # a context variant is a sibling
    ("O3-MINI", "openai", "openai/o-series", "openai/o-series-mini"),  # a curated family names no variant
    ("O4-MINI-DEEP-RESEARCH", "openai", "openai/o-series", "openai/o-series-mini-deep-research"),
    ("O3", "openai", "openai/o-series", "openai/o-series"),
    ("DEEPSEEK-R1", "deepseek", "deepseek/reasoner", "deepseek/reasoner"),  # the maker's brand is no variant
    ("GLM-4.5V", "zai", "zai/glm", "zai/glm-v"),  # a vision sibling
    ("QWEN3-30B-A3B-THINKING", "alibaba", "alibaba/qwen-thinking", "alibaba/qwen-thinking-30b-a3b"),
    ("GPT-4-TURBO", "openai", "openai/gpt", "openai/gpt"),  # a release word under a curated family
    ("GPT-3.5-TURBO-16K", "openai", "openai/gpt-turbo", "openai/gpt-turbo-16k"),  # no curated rule: its own
    ("QWEN-TURBO", "alibaba", "alibaba/qwen-turbo", "alibaba/qwen-turbo"),  # the product's own name
])
def test_the_line_of_a_ticker(ticker, maker, family, line):
    assert line_of(ticker, maker, family) == line


@pytest.mark.parametrize(("ticker", "model_id", "line_tickers", "why"), [
    ("GEMINI-2.5-FLASH-PREVIEW", "gemini-2.5-flash-preview", set(), "preview"),
    ("GROK-BETA", "grok-beta", set(), "preview"),
    ("GPT-CHAT", "gpt-chat-latest", set(), "pointer"),  # serves whatever is newest
    ("GPT-5.1-CHAT", "gpt-5.1-chat-latest", set(), None),  # a pointer of one generation is a release
    ("GPT-4O-2024-05-13", "gpt-4o-2024-05-13", {"GPT-4O", "GPT-4O-2024-05-13"}, "snapshot of GPT-4O"),
    ("SONNET-4", "claude-sonnet-4-20250514", {"SONNET-4"}, None),  # its dated id is its own ticker
    ("MINISTRAL-14B", "ministral-14b-2512", {"MINISTRAL-14B"}, None),  # no undated ticker beside it
])
def test_who_is_no_member(ticker, model_id, line_tickers, why):
    assert exclusion(ticker, model_id, line_tickers) == why


def test_versions_and_releases_out_of_order():
    assert [version_of(t) for t in ("GROK-4.20", "GROK-4.3", "KIMI-K2.5", "GPT-4O", "O3-MINI")] == [4.2, 4.3, 2.5, 4, 3]
    assert np.isnan(version_of("MISTRAL-LARGE-2512")) and np.isnan(version_of("QWEN-PLUS"))
    assert np.isnan(version_of("LLAMA-70B"))  # a size is no version
    assert out_of_order([5.2, 5.4, 5.5, 5.3]) == [False, False, False, True]
    assert out_of_order([np.nan, 3.0, np.nan, 4.0]) == [False] * 4  # an unversioned name is never out of order


def test_members_in_release_order_with_their_evidence():
    models = registry(
        ("GPT-4", "gpt-4", "openai", "openai/gpt", "2023-07-26", "2026-10-23", "2026-10-23", "retired"),
        ("GPT-3.5", "gpt-3.5-0301", "openai", "openai/gpt", "2025-11-07", "2023-06-13", "2024-09-13", "retired"),
        ("GPT-4O", "gpt-4o", "openai", "openai/gpt", "2024-06-19"),
        ("GPT-4O-2024-05-13", "gpt-4o-2024-05-13", "openai", "openai/gpt", "2024-06-19"),
        ("GPT-5.5", "gpt-5.5", "openai", "openai/gpt", "2026-04-23"),
        ("GPT-5.3", "gpt-5.3", "openai", "openai/gpt", "2026-05-07"),
        ("GPT-4.5-PREVIEW", "gpt-4.5-preview", "openai", "openai/gpt-preview", "2025-02-27"),
        ("SONNET-3.5", "claude-3-5-sonnet", "anthropic", "anthropic/sonnet", "2024-09-05"),
        ("SONNET-3.7", "claude-3-7-sonnet", "anthropic", "anthropic/sonnet", "2025-02-27"),  # thinks: same line
        ("SONNET-5", "claude-sonnet-5", "anthropic", "anthropic/sonnet", "2027-01-01"),  # after as_of
    )
    members = line_members(models, TODAY)
    gpt = members[members["line"] == "openai/gpt"]
    assert gpt["ticker"].tolist() == ["GPT-3.5", "GPT-4", "GPT-4O", "GPT-5.5", "GPT-5.3"]
    assert gpt["release_basis"].tolist() == [BEFORE_RETIREMENT, DATA_START, FIRST_SEEN, FIRST_SEEN, FIRST_SEEN]
    assert gpt["released"].iloc[0] == date(2023, 6, 13)  # bounded by its deprecation
    assert gpt["dated"].tolist() == [False, False, True, True, True]
    assert gpt["out_of_order"].tolist() == [False, False, False, False, True]
    assert gpt["position"].tolist() == [1, 2, 3, 4, 5] and set(gpt["members"]) == {5}
    assert "(first seen on the first day of the data)" in gpt["evidence"].iloc[1]
    assert "out of order" in gpt["evidence"].iloc[4]
    assert members[members["line"] == "anthropic/sonnet"]["ticker"].tolist() == ["SONNET-3.5", "SONNET-3.7"]
    assert "openai/gpt-preview" not in set(members["line"])


def test_each_succession_prices_the_launch_against_the_predecessor_that_day():
    models = registry(("HAIKU-3", "claude-3-haiku", "anthropic", "anthropic/haiku", "2024-03-26"),
                      ("HAIKU-3.5", "claude-3-5-haiku", "anthropic", "anthropic/haiku", "2024-11-04"),
                      ("HAIKU-4.5", "claude-haiku-4-5", "anthropic", "anthropic/haiku", "2025-10-15"),
                      ("HAIKU-5", "claude-haiku-5", "anthropic", "anthropic/haiku", "2026-03-01"),
                      ("OPUS-3", "claude-3-opus", "anthropic", "anthropic/opus", "2024-03-26"))

    def point(ticker, day, output, provenance="published"):
        return {"ticker": ticker, "mode": "sync", "date": date.fromisoformat(day), "output": output,
                "provenance": provenance}

    history = pd.DataFrame([
        point("OPUS-3", "2024-03-20", 75.0),
        point("HAIKU-3", "2024-03-26", 1.25), point("HAIKU-3", "2024-11-01", 1.5),
        point("HAIKU-3", "2024-11-10", 1.25, "carried_forward"),  # a repeated day says nothing new
        point("HAIKU-3.5", "2024-11-10", 4.0),  # 6 days after its release: its launch price
        point("HAIKU-4.5", "2026-01-20", 5.0),  # 97 days after: no launch price
        point("HAIKU-5", "2026-03-02", 2.0), point("HAIKU-4.5", "2026-03-05", 4.0),  # predecessor priced later
    ])
    lines = build_lines(models, history, TODAY)
    assert list(lines.columns) == LINE_COLUMNS
    haiku = lines[lines["line"] == "anthropic/haiku"].set_index("ticker")
    assert haiku.loc["HAIKU-3.5", "predecessor"] == "HAIKU-3"
    assert haiku.loc["HAIKU-3.5", "launch_date"] == date(2024, 11, 10)
    assert haiku.loc["HAIKU-3.5", "successor_ratio"] == pytest.approx(4.0 / 1.5)
    assert np.isnan(haiku.loc["HAIKU-4.5", "successor_ratio"]) and haiku.loc["HAIKU-4.5", "launch_date"] is None
    assert haiku.loc["HAIKU-5", "successor_ratio"] == pytest.approx(2.0 / 5.0)  # 4.5's last price before that day
    assert np.isnan(haiku.loc["HAIKU-3", "successor_ratio"])  # the first has no predecessor
    # As known on an earlier day: later releases and later prices are not there.
    earlier = build_lines(models, history, date(2025, 12, 31))
    assert "HAIKU-5" not in set(earlier["ticker"])
    assert earlier.set_index("ticker").loc["HAIKU-3.5", "successor_ratio"] == pytest.approx(4.0 / 1.5)
