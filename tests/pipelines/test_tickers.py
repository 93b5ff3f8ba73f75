"""Tickers: the base form of a maker's id and deterministic collision handling."""

from datetime import date
from itertools import permutations

import pytest

from pipelines.tickers import TickerRequest as R
from pipelines.tickers import assign_tickers, base_ticker, full_ticker, has_snapshot_suffix


@pytest.mark.parametrize("model_id, expected", [
    ("claude-sonnet-4-20250514", "SONNET-4"),
    ("claude-sonnet-4-0", "SONNET-4"),
    ("claude-opus-4-1", "OPUS-4.1"),
    ("claude-opus-4-1-20250805", "OPUS-4.1"),
    ("claude-sonnet-4-5", "SONNET-4.5"),
    ("gpt-4.1", "GPT-4.1"),
    ("gpt-4.1-mini", "GPT-4.1-MINI"),
    ("gpt-4o-2024-08-06", "GPT-4O"),
    ("o3", "O3"),
    ("gemini-2.5-pro", "GEMINI-2.5-PRO"),
    ("gemini-2.0-flash-001", "GEMINI-2.0-FLASH"),
    ("grok-4-0709", "GROK-4"),
    ("mistral-large-latest", "MISTRAL-LARGE-LATEST"),
    ("claude-3-5-sonnet", "SONNET-3.5"),
    ("claude-3-5-sonnet-20241022", "SONNET-3.5"),
    ("claude-3-opus-20240229", "OPUS-3"),
    ("claude-3-7-sonnet-latest", "SONNET-3.7-LATEST"),
    ("claude-2", "CLAUDE-2"),
    ("qwen3-235b-a22b-2507", "QWEN3-235B-A22B-2507"),
    ("gpt-4-32k", "GPT-4-32K"),
])
def test_base_ticker(model_id, expected):
    assert base_ticker(model_id) == expected


@pytest.mark.parametrize("model_id, expected", [
    ("gpt-4o-2024-05-13", "GPT-4O-2024-05-13"),
    ("grok-4-0709", "GROK-4-0709"),
    ("claude-3-5-sonnet-20240620", "SONNET-3.5-20240620"),
])
def test_full_ticker(model_id, expected):
    assert full_ticker(model_id) == expected


@pytest.mark.parametrize("model_id, expected", [
    ("gpt-4o", False), ("gpt-4o-2024-08-06", True), ("claude-sonnet-4-0", True), ("o3-mini-latest", False),
])
def test_has_snapshot_suffix(model_id, expected):
    assert has_snapshot_suffix(model_id) is expected


D1, D2, D3 = date(2024, 5, 13), date(2024, 8, 6), date(2025, 1, 1)


@pytest.mark.parametrize("requests", list(permutations([
    R("openai", "gpt-4o-2024-05-13", D1), R("openai", "gpt-4o", D3),
])))
def test_undated_id_keeps_the_bare_ticker_whatever_its_first_seen(requests):
    assert assign_tickers(list(requests)) == {
        ("openai", "gpt-4o"): "GPT-4O",
        ("openai", "gpt-4o-2024-05-13"): "GPT-4O-2024-05-13",
    }


@pytest.mark.parametrize("requests", list(permutations([
    R("openai", "gpt-4-0613", D2), R("openai", "gpt-4-0314", D1),
])))
def test_earlier_first_seen_wins_between_dated_ids(requests):
    assert assign_tickers(list(requests)) == {
        ("openai", "gpt-4-0314"): "GPT-4",
        ("openai", "gpt-4-0613"): "GPT-4-0613",
    }


def test_override_wins_and_a_second_collision_takes_the_maker_suffix():
    requests = [
        R("deepseek", "deepseek-v3", D1),  # undated and earlier, but no override
        R("deepseek", "deepseek-chat", D2, override="DEEPSEEK-V3"),
    ]
    assert assign_tickers(requests) == {
        ("deepseek", "deepseek-chat"): "DEEPSEEK-V3",
        ("deepseek", "deepseek-v3"): "DEEPSEEK-V3-DEEPSEEK",  # its full-id ticker is taken too
    }


FOUR = [
    R("openai", "gpt-4o", D3),
    R("openai", "gpt-4o-2024-05-13", D1),
    R("openai", "gpt-4o-2024-08-06", D2),
    R("xai", "grok-4-0709", D2),
]
FOUR_EXPECTED = {
    ("openai", "gpt-4o"): "GPT-4O",
    ("openai", "gpt-4o-2024-05-13"): "GPT-4O-2024-05-13",
    ("openai", "gpt-4o-2024-08-06"): "GPT-4O-2024-08-06",
    ("xai", "grok-4-0709"): "GROK-4",
}


@pytest.mark.parametrize("requests", list(permutations(FOUR)))
def test_same_result_for_every_input_order(requests):
    result = assign_tickers(list(requests))
    assert result == FOUR_EXPECTED
    assert len(set(result.values())) == len(result)


def test_tickers_unique_when_two_makers_share_an_id():
    requests = [R("alpha", "model-x", D1), R("alpha", "model-x-2411", D1), R("beta", "model-x-2411", D2)]
    assert assign_tickers(requests) == {
        ("alpha", "model-x"): "MODEL-X",
        ("alpha", "model-x-2411"): "MODEL-X-2411",
        ("beta", "model-x-2411"): "MODEL-X-2411-BETA",
    }


def test_tie_between_makers_is_independent_of_input_order():
    requests = [R("alpha", "model-x-2411", D1), R("beta", "model-x-2411", D1)]
    assert assign_tickers(requests) == assign_tickers(requests[::-1])
