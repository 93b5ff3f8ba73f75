"""Reconciliation: authority ranks, superseded statements and the priced-model filter."""

from datetime import date

import numpy as np
import pandas as pd
import pytest

from pipelines.history import build_price_history
from pipelines.observations import (
    OBSERVATION_COLUMNS,
    PRICE_COLUMNS,
    Rejection,
    adjudicate,
    authority,
    mark_superseded,
    priced_models_only,
    rejections,
)

GENAI, MP, ARCHIVE = "genai-prices", "model-prices", "model-price-radar-mcp"


@pytest.mark.parametrize("provenance, source, expected", [
    ("published", GENAI, 43),
    ("published", MP, 42),
    ("current", GENAI, 33),
    ("first_observed", MP, 22),
    ("archived", ARCHIVE, 11),
    ("carried_forward", "elsewhere", 0),
])
def test_authority_values(provenance, source, expected):
    assert authority(pd.Series([provenance]), pd.Series([source])).tolist() == [expected]


def test_authority_order():
    ranks = authority(pd.Series(["archived", "first_observed", "current", "published"]),
                      pd.Series([ARCHIVE, MP, GENAI, GENAI])).tolist()
    assert ranks == sorted(ranks) and len(set(ranks)) == 4


def statement(source, provenance, input_, output, day=date(2025, 6, 10), note=None, ticker="O3",
              provider="openai", model_id="o3", cache_read=None, tiers=None):
    return dict.fromkeys(PRICE_COLUMNS) | {
        "ticker": ticker, "provider": provider, "provider_model_id": model_id, "mode": "sync",
        "effective_date": day, "input": input_, "output": output, "cache_read": cache_read,
        "tiers": tiers, "source": source,
        "provenance": provenance, "note": note,
        "authority": int(authority(pd.Series([provenance]), pd.Series([source])).iloc[0]),
    }


def superseded(rows):
    frame = mark_superseded(pd.DataFrame(rows))
    return frame.set_index(["source", "effective_date"])


def test_disagreeing_statement_is_superseded_and_noted():
    out = superseded([
        statement(MP, "first_observed", 2.0, 10.0, note="models.dev value"),
        statement(GENAI, "published", 2.0, 8.0),
    ])
    winner, loser = out.loc[(GENAI, date(2025, 6, 10))], out.loc[(MP, date(2025, 6, 10))]
    assert not winner["superseded"] and pd.isna(winner["superseded_by"]) and pd.isna(winner["note"])
    assert loser["superseded"]
    assert loser["superseded_by"] == "genai-prices (published)"
    assert loser["note"] == "disagrees with genai-prices (published); models.dev value"


def test_disagreement_in_an_optional_field_is_noted():
    out = superseded([statement(GENAI, "published", 2.0, 8.0, cache_read=0.5),
                      statement(MP, "published", 2.0, 8.0)])
    assert out.loc[(MP, date(2025, 6, 10)), "note"] == "disagrees with genai-prices (published)"


def test_identical_statement_is_superseded_without_a_note():
    out = superseded([statement(MP, "first_observed", 2.0, 8.0, tiers='[{"above":1}]'),
                      statement(GENAI, "current", 2.0, 8.0, tiers='[{"above":1}]')])
    loser = out.loc[(MP, date(2025, 6, 10))]
    assert loser["superseded"] and loser["superseded_by"] == "genai-prices (current)"
    assert pd.isna(loser["note"])


def test_statements_on_different_days_or_providers_do_not_compete():
    out = mark_superseded(pd.DataFrame([
        statement(GENAI, "published", 2.0, 8.0),
        statement(MP, "first_observed", 3.0, 9.0, day=date(2025, 6, 11)),
        statement(ARCHIVE, "archived", 4.0, 16.0, provider="openrouter", model_id="openai/o3"),
    ]))
    assert out["superseded"].tolist() == [False, False, False]
    assert out["superseded_by"].isna().all()


def test_three_statements_two_losers_name_the_same_winner():
    out = superseded([statement(ARCHIVE, "archived", 2.0, 8.0), statement(MP, "published", 2.0, 8.0),
                      statement(GENAI, "current", 2.0, 9.0)])
    day = date(2025, 6, 10)
    assert out.loc[(MP, day), "superseded"] == np.False_
    assert out.loc[(GENAI, day), "superseded_by"] == out.loc[(ARCHIVE, day), "superseded_by"] == "model-prices (published)"
    assert out.loc[(GENAI, day), "note"] == "disagrees with model-prices (published)"
    assert pd.isna(out.loc[(ARCHIVE, day), "note"])


def mapped(maker, model, is_origin, day, output, mode="sync", source=GENAI):
    return {"_maker": maker, "_model": model, "is_origin": is_origin, "mode": mode,
            "effective_date": day, "output": output, "source": source}


def test_priced_models_only():
    frame = pd.DataFrame([
        mapped("zai", "glm-5.2", True, date(2026, 1, 1), 2.0),
        mapped("zai", "glm-5.2", True, date(2026, 6, 13), 0.0),  # latest origin sync price is free
        mapped("zai", "glm-5.2", False, date(2026, 7, 1), 1.5),  # a host's price does not count
        mapped("openai", "o3", True, date(2025, 4, 16), 0.0),
        mapped("openai", "o3", True, date(2025, 6, 10), 8.0),
        mapped("openai", "o3", False, date(2025, 6, 10), 8.0),
        mapped("openai", "o3", True, date(2026, 1, 1), 0.0, mode="batch"),  # batch does not decide
        mapped("openai", "o3", True, date(2026, 11, 20), 0.0, source="litellm"),  # nor does a cross-check
        mapped("meta", "llama-4", False, date(2025, 4, 5), 0.6),  # no maker's own price at all
    ])
    kept = priced_models_only(frame)
    assert sorted(set(zip(kept["_maker"], kept["_model"]))) == [("openai", "o3")]
    assert len(kept) == 5


def stale_frame(*rows):
    """Statements for one (ticker, provider, mode): (date, input, output, source, provenance)."""
    records = [dict.fromkeys(OBSERVATION_COLUMNS) | {
        "ticker": "DEEPSEEK-V3", "provider": "deepseek", "provider_model_id": "deepseek-chat", "is_origin": True,
        "mode": "sync", "effective_date": day, "input": price_in, "output": price_out, "source": source,
        "source_version": "v", "provenance": provenance, "superseded": False,
        "authority": {"published": 43, "current": 33, "first_observed": 22}[provenance],
    } for day, price_in, price_out, source, provenance in rows]
    return pd.DataFrame(records, columns=OBSERVATION_COLUMNS)


TODAY = date(2026, 11, 22)


def _spot(frame, as_of=TODAY):
    frame = adjudicate(frame)
    history = build_price_history(frame, as_of)
    return history[history["date"] == as_of][["input", "output", "source"]].iloc[0].tolist()


def test_a_dated_price_beats_a_current_price_first_listed_earlier():
    # genai-prices kept listing DeepSeek's 2025 price from its first release (2025-07-11);
    # model-prices dates the cut after that, so the cut stands.
    frame = stale_frame((date(2025, 6, 10), 0.27, 1.10, MP, "first_observed"),
                        (date(2026, 6, 6), 0.14, 0.28, MP, "first_observed"),
                        (date(2025, 7, 11), 0.27, 1.10, GENAI, "current"))
    assert _spot(frame) == [0.14, 0.28, MP]


def test_a_current_price_first_listed_later_beats_an_older_dated_price():
    # KIMI-K2-TURBO-PREVIEW: a dataset's first sighting (2025-08-08) at 2.40/10.00; every
    # genai-prices release since 0.0.56 (2026-03-20) lists 1.15/8.00.
    frame = stale_frame((date(2025, 8, 8), 2.40, 10.00, MP, "first_observed"),
                        (date(2026, 3, 20), 1.15, 8.00, GENAI, "current"))
    assert _spot(frame) == [1.15, 8.00, GENAI]
    assert _spot(frame, date(2026, 3, 19)) == [2.40, 10.00, MP]


def test_a_cross_check_never_sets_a_price_but_stays_in_the_table():
    frame = stale_frame((date(2026, 3, 20), 1.15, 8.00, GENAI, "current"),
                        (date(2026, 11, 20), 2.40, 10.00, "litellm", "current"))
    frame["authority"] = frame["authority"].astype("int8")
    out = adjudicate(frame)
    check = out[out["source"] == "litellm"].iloc[0]
    assert check["superseded"] and pd.isna(check["superseded_by"])
    assert check["note"].startswith("cross-check only")
    assert not out[out["source"] == GENAI]["superseded"].any()
    assert _spot(frame) == [1.15, 8.00, GENAI]


def test_a_rejected_statement_never_sets_the_price_and_says_why():
    frame = stale_frame((date(2026, 10, 10), 1.5, 17.5, MP, "first_observed"),
                        (date(2026, 7, 30), 1.5, 9.0, GENAI, "current"))
    frame["provider_model_id"] = "gemini-omni-1.1-flash"
    frame["provider"] = "google"
    rejected = [Rejection(MP, "google", "gemini-omni-1.1-flash", "output", 17.5, "the video-output rate")]
    out = adjudicate(frame, rejected)
    row = out[out["source"] == MP].iloc[0]
    assert row["superseded"] and row["superseded_by"] == "rejected_statements.csv"
    assert row["note"] == "rejected: output 17.5 is the video-output rate"
    history = build_price_history(out, TODAY)
    assert set(history["output"]) == {9.0}
    # a later correction by the source (another value) is not rejected
    frame.loc[frame["source"] == MP, "output"] = 9.0
    assert not adjudicate(frame, rejected)["superseded"].any()


@pytest.mark.parametrize("row, message", [
    ({"reason": " "}, "has no reason"),
    ({"field": "price"}, "unknown field"),
])
def test_rejections_need_a_reason_and_a_known_field(row, message):
    base = {"source": MP, "provider": "google", "model_id": "m", "field": "output", "value": "17.5",
            "reason": "the video rate"}
    with pytest.raises(ValueError, match=message):
        rejections(pd.DataFrame([base | row]))
