"""The three rules for a price the sources disagree on (`pipelines.price_rules`), on small
hand-made statement frames shaped after the bundled data's cases."""

from datetime import date

import pandas as pd

from pipelines.evidence import compared, price_disputes
from pipelines.history import build_price_history
from pipelines.observations import OBSERVATION_COLUMNS, adjudicate, authority
from pipelines.price_rules import CONVERTED_NOTE, majority

GENAI, MP, LITELLM = "genai-prices", "model-prices", "litellm"
TODAY = date(2026, 12, 4)
RANK_OF = {"published": 4, "current": 3, "first_observed": 2, "archived": 1}


def row(day, source, provenance, released=None, mode="sync", model_id="m", note=None, **prices):
    """One statement of the maker's own price; `released`: the day its source published it."""
    record = dict.fromkeys(OBSERVATION_COLUMNS) | {
        "ticker": "T", "provider": "maker", "provider_model_id": model_id, "is_origin": True, "mode": mode,
        "effective_date": day, "source": source, "source_version": "v", "provenance": provenance,
        "source_released": released or day, "superseded": False, "note": note} | prices
    return record


def frame(*rows):
    out = pd.DataFrame(list(rows), columns=OBSERVATION_COLUMNS)
    out["authority"] = authority(out["provenance"], out["source"])
    for column in ("input", "output", "cache_read", "cache_write"):
        out[column] = out[column].astype(float)
    return out


def spot(statements, mode="sync"):
    history = build_price_history(adjudicate(statements, as_of=TODAY), TODAY)
    today = history[(history["date"] == TODAY) & (history["mode"] == mode)].iloc[0]
    return today["input"], today["output"], today["cache_read"], today["source"]


def disputes(statements):
    out = adjudicate(statements, as_of=TODAY)
    return price_disputes(compared(out, build_price_history(out, TODAY), TODAY))


def test_majority_needs_two_voters_and_more_than_half():
    assert majority({"a": 1.0, "b": 1.0, "c": 2.0}) == (1.0, ["a", "b"])
    assert majority({"a": 1.0, "b": 2.0}) is None
    assert majority({"a": 1.0, "b": 1.0, "c": 2.0, "d": 2.0}) is None


def test_rule_1_a_majority_of_independent_sources_beats_one_source():
    # GEMINI-3.5-FLASH-LITE batch: genai-prices 0.02 for cache reads, dated later; model-prices
    # (2026-10-26) and LiteLLM (2026-11-20), each asserted after it, state 0.015.
    statements = frame(
        row(date(2026, 7, 21), MP, "first_observed", date(2026, 10, 26), "batch", input=0.15, output=1.25,
            cache_read=0.015),
        row(date(2026, 10, 14), GENAI, "current", date(2026, 11, 10), "batch", input=0.15, output=1.25,
            cache_read=0.02),
        row(date(2026, 11, 20), LITELLM, "current", mode="batch", input=0.15, output=1.25, cache_read=0.015),
        # a route of the same source leaving the field unstated is no vote against
        row(date(2026, 11, 20), LITELLM, "current", mode="batch", model_id="m-latest", input=0.15, output=1.25),
    )
    assert spot(statements, "batch") == (0.15, 1.25, 0.015, MP)
    out = disputes(statements)
    lost = out[(out["source"] == GENAI) & (out["field"] == "cache_read")].iloc[0]
    assert lost["value"] == 0.02 and lost["rule"] == "majority"
    assert lost["reason"] == "outvoted: cache_read 0.02 against 0.015 stated by litellm, models.dev"


def test_rule_1_routes_of_one_source_are_one_vote():
    # QWEN3-VL-32B-THINKING: LiteLLM states 2.87 on three Alibaba routes, model-prices 0.64:
    # one source against one, no majority; the cross-check does not set the price.
    statements = frame(
        row(date(2026, 1, 16), MP, "first_observed", date(2026, 10, 26), input=0.16, output=0.64),
        *[row(date(2026, 11, 20), LITELLM, "current", model_id=route, input=0.16, output=2.87)
          for route in ("dashscope", "qwencloud", "qwen_ai_platform")],
    )
    assert spot(statements)[:2] == (0.16, 0.64)
    assert set(disputes(statements)["rule"]) == {"agrees", "cross_check"}


def test_rule_1_a_vote_older_than_a_dated_change_does_not_count():
    # GEMINI-4-ARGON: the maker's dated rise (2026-12-01) against lists published before it.
    statements = frame(
        row(date(2026, 10, 13), MP, "first_observed", date(2026, 10, 26), input=2.0, output=10.0),
        row(date(2026, 11, 30), GENAI, "published", date(2026, 11, 10), input=2.0, output=10.0),
        row(date(2026, 12, 1), GENAI, "published", date(2026, 11, 10), input=4.0, output=20.0),
        row(date(2026, 11, 20), LITELLM, "current", input=2.0, output=10.0),
    )
    assert spot(statements)[:2] == (4.0, 20.0)


def test_rule_2_a_usd_list_beats_a_price_converted_from_yuan():
    # DEEPSEEK-V3.2's shape: a later statement converted from CNY against the USD list.
    statements = frame(
        row(date(2025, 12, 8), MP, "first_observed", date(2026, 10, 26), input=0.28, output=0.42),
        row(date(2026, 6, 24), GENAI, "current", date(2026, 11, 10), note=CONVERTED_NOTE, input=0.2288,
            output=0.3432),
    )
    assert spot(statements)[:2] == (0.28, 0.42)
    out = disputes(statements)
    assert set(out.loc[out["source"] == GENAI, "rule"]) == {"usd_list"}
    # without a USD list, the converted price stands
    assert spot(statements[statements["source"] == GENAI])[:2] == (0.2288, 0.3432)


def test_rule_3_the_newest_dated_statement_sets_the_price_unless_it_is_a_cross_check():
    # GROK-CODE-FAST-1: LiteLLM's newest statement (1/2) never sets the price; genai-prices'
    # newer list beats model-prices' older first sighting.
    statements = frame(
        row(date(2025, 9, 29), MP, "first_observed", date(2026, 10, 26), input=0.2, output=1.5, cache_read=0.02),
        row(date(2026, 1, 6), GENAI, "current", date(2026, 11, 10), input=0.2, output=1.5, cache_read=0.02),
        row(date(2026, 11, 20), LITELLM, "current", input=1.0, output=2.0, cache_read=0.2),
    )
    assert spot(statements) == (0.2, 1.5, 0.02, GENAI)
    out = disputes(statements)
    assert set(out.loc[out["source"] == LITELLM, "rule"]) == {"cross_check"}
    newer = frame(
        row(date(2025, 9, 29), MP, "first_observed", date(2026, 10, 26), input=0.2, output=1.5),
        row(date(2026, 11, 1), GENAI, "published", date(2026, 11, 10), input=0.3, output=1.8),
    )
    assert spot(newer)[:2] == (0.3, 1.8)
