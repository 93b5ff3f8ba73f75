"""A tier threshold written in thousands (model-prices, LiteLLM) is read at the exact boundary
another source states for the same ticker one token below it (xAI's "≥ 200k" as above 199,999)."""

import json

import pandas as pd

from pipelines.tier_thresholds import exact_boundaries, read_at_exact_boundaries


def tiers(above, **rates):
    return json.dumps([{"above": above, **rates}], separators=(",", ":"))


def statements(*rows):
    return pd.DataFrame([{"ticker": t, "source": s, "mode": m, "tiers": tr, "note": n} for t, s, m, tr, n in rows])


def test_a_thousands_threshold_takes_the_exact_boundary_another_source_states():
    frame = statements(
        ("GROK-X", "genai-prices", "sync", tiers(199999, input=2.5), None),
        ("GROK-X", "model-prices", "batch", tiers(200000, input=2.0), None),
        ("GROK-X", "litellm", "sync", tiers(200000, input=2.5), "stated for the alias grok-x-latest"),
    )
    out = read_at_exact_boundaries(frame)
    assert [json.loads(t)[0]["above"] for t in out["tiers"]] == [199999, 199999, 199999]
    assert json.loads(out.at[1, "tiers"])[0]["input"] == 2.0  # the rates stay as stated
    assert pd.isna(out.at[0, "note"])  # the exact statement is untouched
    assert out.at[1, "note"].startswith("tier threshold written in thousands")
    assert out.at[2, "note"].startswith("stated for the alias grok-x-latest; tier threshold")  # notes keep their head


def test_without_an_exact_statement_a_threshold_stands_as_written():
    frame = statements(
        ("GEMINI-X", "genai-prices", "sync", tiers(200000, input=2.5), None),
        ("GEMINI-X", "model-prices", "sync", tiers(200000, input=2.5), None),
        ("GROK-Y", "model-prices", "sync", tiers(200000, input=2.5), None),  # another ticker's boundary is no evidence
        ("GROK-X", "genai-prices", "sync", tiers(199999, input=2.5), None),
        ("GROK-X", "model-prices", "sync", tiers(128000, input=2.5), None),  # not one token apart
    )
    out = read_at_exact_boundaries(frame)
    assert out["tiers"].tolist() == frame["tiers"].tolist()
    assert exact_boundaries(frame) == {"GROK-X": {199999}}
