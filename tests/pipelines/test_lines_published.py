"""The published `lines` and `line_forwards` on the whole bundled data: every maker with two
releases in a line is covered, every model is in at most one line, and every live line has a
forward at each month."""

import re
from datetime import date

import pandas as pd
import pytest

from pipelines.change_panel import POINTER, PREVIEW, name_class

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tables(full_store):
    return full_store.read_table("models"), full_store.read_table("lines"), full_store.read_table("line_forwards")


def _sizes(ticker: str) -> str:
    """The open-weight sizes in a ticker (`30B`, `A3B`): models of different sizes are different products."""
    return "-".join(t for t in ticker.split("-") if re.fullmatch(r"(\d+X)?[AE]?\d+(\.\d+)?[BM]", t))


def test_every_maker_with_two_releases_in_a_family_has_a_line_of_two(tables):
    models, lines, _ = tables
    releases = models[[name_class(m) not in (PREVIEW, POINTER) for m in models["model_id"]]]
    releases = releases.assign(sizes=[_sizes(t) for t in releases["ticker"]])
    per_family = releases.groupby(["provider", "family", "sizes"])["ticker"].nunique()
    makers = set(per_family[per_family >= 2].index.get_level_values("provider"))
    covered = set(lines.loc[lines["members"] >= 2, "maker"])
    assert makers == covered  # and a maker with a line of two has two releases of one family and size
    assert len(makers) >= 19  # on the bundled data of 2026-12-04: anthropic, openai, google, xai, …


def test_each_model_is_in_one_line_at_most_and_each_line_is_one_makers(tables):
    models, lines, _ = tables
    assert not lines["ticker"].duplicated().any()
    assert set(lines["ticker"]) <= set(models["ticker"])
    assert (lines.groupby("line")["maker"].nunique() == 1).all()
    assert all(line.startswith(maker + "/") for line, maker in zip(lines["line"], lines["maker"], strict=True))
    ordered = lines.groupby("line")["released"].apply(lambda d: list(d) == sorted(d))
    assert ordered.all()


def test_the_known_lines(tables):
    _, lines, _ = tables
    members = lines.sort_values(["line", "position"]).groupby("line")["ticker"].apply(list)
    assert members["anthropic/sonnet"][-4:] == ["SONNET-4.5", "SONNET-4.6", "SONNET-5", "SONNET-5.5"]
    assert members["openai/gpt-mini"] == ["GPT-4O-MINI", "GPT-4.1-MINI", "GPT-5-MINI", "GPT-5.4-MINI"]
    assert members["google/gemini-flash-lite"][:2] == ["GEMINI-2.0-FLASH-LITE", "GEMINI-2.5-FLASH-LITE"]
    assert members["openai/o-series-mini"] == ["O1-MINI", "O3-MINI", "O4-MINI"]
    assert "LLAMA-3.1-8B" in members["meta/llama-8b"] and "LLAMA-3.3-70B" in members["meta/llama-70b"]
    # OpenAI's turbo releases follow their generation: GPT-4 Turbo at half GPT-4's output price.
    assert members["openai/gpt"][:6] == ["GPT-3.5", "GPT-3.5-TURBO", "GPT-4", "GPT-4-TURBO", "GPT-4O", "GPT-4.1"]
    assert "openai/gpt-turbo" not in members.index
    turbo = lines[lines["ticker"] == "GPT-4-TURBO"].iloc[0]
    assert turbo["predecessor"] == "GPT-4" and turbo["successor_ratio"] == 0.5
    sonnet = lines[lines["ticker"] == "SONNET-4.5"].iloc[0]
    assert sonnet["released"] == date(2025, 9, 29) and sonnet["predecessor"] == "SONNET-4"


def test_every_line_forward_answers_each_month_with_its_band_around_its_median(tables):
    _, _, forwards = tables
    months = forwards.groupby(["line", "mode"])["months"].apply(list)
    assert (months.apply(lambda m: m == [float(h) for h in range(1, 13)])).all()
    assert ((forwards["p05"] <= forwards["beta_median"]) & (forwards["beta_median"] <= forwards["p95"])).all()
    assert forwards["p_successor"].between(0, 1).all()
    assert pd.Series(forwards.groupby(["line", "mode"])["p_successor"].apply(lambda p: p.is_monotonic_increasing)).all()
