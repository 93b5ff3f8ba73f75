"""scripts/source_agreement.py: matching a ticker to a source entry, comparing every field both
state, and classifying LiteLLM's disagreements, on small hand-made frames and a tiny LiteLLM map."""

import gzip
import json
from datetime import UTC, date, datetime

import pandas as pd
import pytest

from tests.test_architecture import imported_roots
from tests.warehouse.seeds import ROOT, load_script

agreement = load_script("source_agreement")
classes = agreement.classes
sources = agreement.sources

# LiteLLM's own notation: USD per token, its key names and route prefixes.
TINY_LITELLM = {
    "claude-demo-1": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 3e-06,
                      "output_cost_per_token": 1.5e-05, "cache_read_input_token_cost": 3e-07,
                      "input_cost_per_token_batches": 1.5e-06, "output_cost_per_token_batches": 7.5e-06},
    "gemini/gemini-demo": {"litellm_provider": "gemini", "mode": "chat", "input_cost_per_token": 1.25e-06,
                           "output_cost_per_token": 1e-05, "input_cost_per_token_above_200k_tokens": 2.5e-06,
                           "output_cost_per_token_above_200k_tokens": 1.5e-05},
    "perplexity/sonar-demo": {"litellm_provider": "perplexity", "input_cost_per_token": 1e-06,
                              "output_cost_per_token": 1e-06},
    "perplexity/perplexity/sonar-demo": {"litellm_provider": "perplexity", "input_cost_per_token": 2.5e-07,
                                         "output_cost_per_token": 2.5e-06},
}


def spot(ticker, **columns):
    return pd.Series({"ticker": ticker, **columns})


def tickers(*rows):
    """Maker-priced tickers as `maker_priced` gives them: ids and the spot's statement."""
    return pd.DataFrame([{"ticker": t, "provider": maker, "model_id": model_id, "aliases": aliases,
                          "statement": statement} for t, maker, model_id, aliases, statement in rows])


@pytest.fixture
def litellm(tmp_path):
    path = tmp_path / "litellm.json.gz"
    path.write_bytes(gzip.compress(json.dumps(TINY_LITELLM).encode()))
    return sources.LiteLLM(sources.read_litellm(path))


def test_the_script_reads_no_ingest_code():
    for name in ("source_agreement", "agreement_sources", "agreement_classes"):
        assert imported_roots(ROOT / "scripts" / f"{name}.py") & {"pipelines", "assets", "serve"} == set()


def test_a_spot_states_only_its_non_empty_fields():
    statement = agreement.spot_statement(spot("X", input_sync=3.0, beta_sync=15.0, cache_read_sync=float("nan"),
                                              tiers_sync='[{"above":200000,"input":6.0}]', tiers_batch="[]",
                                              input_batch=1.5, beta_batch=None))
    assert statement == {"sync.input": 3.0, "sync.output": 15.0, "sync.tiers": [{"above": 200000, "input": 6.0}],
                         "batch.input": 1.5}


def test_a_field_one_side_states_is_not_compared_and_equal_is_to_one_part_in_a_million():
    both, only_ours, only_theirs = agreement.compare(
        {"sync.input": 3.0, "sync.output": 15.0, "sync.cache_read": 0.3},
        {"sync.input": 3.0 * (1 + 5e-7), "sync.output": 15.0 * (1 + 5e-6), "batch.input": 1.5})
    assert both == {"sync.input": True, "sync.output": False}
    assert only_ours == ["sync.cache_read"] and only_theirs == ["batch.input"]
    assert classes.close(0.0, 0.0) and not classes.close(0.0, 1e-9)


def test_tiers_agree_only_on_the_same_thresholds_and_the_rates_both_state():
    ours = [{"above": 200000, "input": 6.0, "output": 22.5, "cache_read": 0.6}]
    assert classes.tiers_agree(ours, [{"above": 200000, "input": 6.0, "output": 22.5}])
    assert not classes.tiers_agree(ours, [{"above": 199999, "input": 6.0, "output": 22.5}])
    assert not classes.tiers_agree(ours, [{"above": 200000, "input": 6.5, "output": 22.5}])


def test_a_ticker_is_looked_up_by_its_model_id_then_its_makers_own_aliases():
    ids = agreement.lookup_ids("claude-demo-1-20260101", ["anthropic/claude-demo-1", "us.anthropic.claude-demo-1",
                                                          "eu/claude-demo-1", "claude-demo-latest"])
    assert ids == ["claude-demo-1-20260101", "claude-demo-1", "claude-demo-latest"]


def test_litellm_is_read_in_its_own_units_and_matched_at_the_makers_route(litellm):
    key, used, statement = litellm.find("anthropic", ["claude-demo-1-20260101", "claude-demo-1"])
    assert (key, used) == ("claude-demo-1", "claude-demo-1")
    assert statement == pytest.approx({"sync.input": 3.0, "sync.output": 15.0, "sync.cache_read": 0.3,
                                       "batch.input": 1.5, "batch.output": 7.5})
    key, _, statement = litellm.find("google", ["gemini-demo"])
    assert key == "gemini/gemini-demo"
    assert statement["sync.tiers"] == [{"above": 200000, "input": 2.5, "output": 15.0}]
    assert litellm.find("openai", ["claude-demo-1"]) is None  # another maker's route is not asked
    # the key as written wins over a key whose route prefix was dropped
    assert litellm.find("perplexity", ["sonar-demo"])[0] == "perplexity/sonar-demo"


def test_measure_counts_matched_tickers_and_those_agreeing_on_every_field(litellm):
    frame = tickers(("DEMO-1", "anthropic", "claude-demo-1", ["anthropic/claude-demo-1"],
                     {"sync.input": 3.0, "sync.output": 15.0, "sync.cache_write": 3.75}),
                    ("GEMDEMO", "google", "gemini-demo", [],
                     {"sync.input": 1.25, "sync.output": 10.0, "sync.tiers": [{"above": 200000, "input": 2.5,
                                                                               "output": 16.0}]}),
                    ("NOWHERE", "anthropic", "claude-nowhere", [], {"sync.input": 1.0}))
    matches = agreement.measure(frame, litellm.find)
    summary = agreement.summarise("litellm", "test", matches)
    assert (summary.tickers, summary.matched, summary.agreeing) == (3, 2, 1)
    assert summary.per_field["sync.input"] == (2, 2) and summary.per_field["sync.tiers"] == (0, 1)
    assert summary.only_ours == 1  # DEMO-1's cache write, which LiteLLM does not state
    assert summary.only_theirs == 3  # DEMO-1's cache read and batch rates


def test_genai_prices_is_asked_through_its_own_lookup_at_the_snapshot_day():
    genai = sources.GenaiPrices(datetime(2026, 12, 4, 12, tzinfo=UTC))
    source_id, used, statement = genai.find("openai", ["gpt-4o"])
    assert source_id == "openai:gpt-4o" and used == "gpt-4o"
    assert statement["sync.input"] == 2.5 and statement["sync.output"] == 10.0
    assert genai.find("alibaba", ["qwen3-max"]) is None  # a maker genai-prices does not list


def row(field, ours, theirs, ticker="DEMO-1", source_id="claude-demo-1", their_statement=None, ours_statement=None):
    return {"ticker": ticker, "maker": "anthropic", "field": field, "source_id": source_id, "looked_up": "claude-demo-1",
            "ours": ours, "theirs": theirs, "their_statement": their_statement or {field: theirs},
            "ours_statement": ours_statement or {field: ours}}


def context(ours, history=None, curated=None):
    history = history if history is not None else pd.DataFrame(columns=["ticker", "mode", "date", "input", "output"])
    return classes.Context(ours=ours, makers={t: "anthropic" for t in ours}, history=history,
                           source_released=date(2026, 11, 20), curated=curated or {})


def test_a_price_the_ticker_had_before_is_stale():
    history = pd.DataFrame({"ticker": "DEMO-1", "mode": "sync", "date": [date(2026, 1, 1), date(2026, 6, 1)],
                            "input": [4.0, 3.0], "output": [20.0, 15.0]})
    ctx = context({"DEMO-1": {"sync.input": 3.0, "sync.output": 15.0}}, history)
    assert classes.classify(row("sync.input", 3.0, 4.0), ctx) == (
        classes.STALE, "DEMO-1 sync.input was 4 from 2026-01-01 to 2026-01-01")
    assert classes.classify(row("sync.input", 3.0, 5.0), ctx) == (classes.UNCLASSIFIED, "")


def test_a_tier_rate_or_a_variant_key_is_unit_or_tier():
    ours = {"sync.input": 3.0, "sync.output": 15.0, "sync.tiers": [{"above": 200000, "input": 6.0}]}
    ctx = context({"DEMO-1": ours})
    assert classes.classify(row("sync.input", 3.0, 6.0, ours_statement=ours), ctx)[0] == classes.UNIT_OR_TIER
    assert classes.classify(row("sync.input", 3.0, 9.0, source_id="claude-demo-1-priority"), ctx)[0] == classes.UNIT_OR_TIER
    # ×2 is a peak rate only for a maker that bills by the time of day
    assert classes.classify(row("sync.input", 3.0, 6.0), context({"DEMO-1": {"sync.input": 3.0}}))[0] == classes.UNCLASSIFIED


def test_an_entry_pricing_another_of_the_makers_models_is_identity():
    ours = {"DEMO-1": {"sync.input": 3.0, "sync.output": 15.0}, "DEMO-2": {"sync.input": 1.0, "sync.output": 5.0}}
    disputed = row("sync.input", 3.0, 1.0, their_statement={"sync.input": 1.0, "sync.output": 5.0})
    assert classes.classify(disputed, context(ours))[0] == classes.IDENTITY


def test_a_curated_row_classifies_while_its_values_hold(tmp_path):
    path = tmp_path / "curated.csv"
    path.write_text("ticker,field,source_id,ours,theirs,class,evidence\n"
                    "DEMO-1,sync.input,claude-demo-1,3,0,source error,LiteLLM states 0 for a paid model\n")
    ctx = context({"DEMO-1": {"sync.input": 3.0}}, curated=classes.read_curated(path))
    assert classes.classify(row("sync.input", 3.0, 0.0), ctx) == (
        classes.SOURCE_ERROR, "LiteLLM states 0 for a paid model (curated)")
    assert classes.classify(row("sync.input", 3.5, 0.0), ctx)[0] == classes.UNCLASSIFIED  # ours moved
    path.write_text("ticker,field,source_id,ours,theirs,class,evidence\nDEMO-1,sync.input,x,3,0,wrong,why\n")
    with pytest.raises(ValueError, match="is not one of"):
        classes.read_curated(path)


def test_the_published_curated_file_reads():
    curated = classes.read_curated(ROOT / "docs" / "agreement" / "litellm_disagreements.csv")
    assert curated and {r["class"] for r in curated.values()} <= set(classes.CLASSES)


def test_thresholds_one_token_apart_are_a_tier_convention():
    ours = [{"above": 199999, "input": 2.5, "output": 5.0}]
    theirs = [{"above": 200000, "input": 2.5, "output": 5.0}]
    disputed = row("sync.tiers", ours, theirs)
    assert classes.classify(disputed, context({"DEMO-1": {"sync.tiers": ours}}))[0] == classes.UNIT_OR_TIER


class _Clause:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class _Entry:
    def __init__(self, model_id, match):
        self.id, self.match = model_id, match


def test_a_genai_entry_found_by_a_prefix_of_another_model_is_no_match():
    prefix = _Entry("gemini-1.5-flash", _Clause(contains="gemini-1.5-flash"))
    assert not sources.lists(prefix, "gemini-1.5-flash-8b")  # a size: another model
    assert sources.lists(prefix, "gemini-1.5-flash-002")  # a build stamp: the same model
    listed = _Entry("gpt-5", _Clause(or_=[_Clause(equals="gpt-5"), _Clause(equals="gpt-5-codex")]))
    assert sources.lists(listed, "gpt-5-codex") and not sources.lists(listed, "gpt-5-mini")
    dated = _Entry("magistral-small", _Clause(starts_with="magistral-small-"))
    assert sources.lists(dated, "magistral-small-2506") and not sources.lists(dated, "magistral-small-vision")


def test_genai_prices_leaves_an_id_it_prices_only_under_another_model_unmatched():
    genai = sources.GenaiPrices(datetime(2026, 12, 4, 12, tzinfo=UTC))
    assert genai.find("google", ["gemini-1.5-flash-8b"]) is None
    assert genai.elsewhere["google"]["gemini-1.5-flash-8b"] == "google:gemini-1.5-flash"
    # its own entry for the 8B, under the other spelling, is a match
    assert genai.find("google", ["gemini-1.5-flash-8b", "gemini-flash-1.5-8b"])[0] == "google:gemini-flash-1.5-8b"


def test_litellm_reads_a_threshold_in_thousands_so_ours_one_token_short_is_compared_there():
    ours = {"sync.input": 1.25, "sync.tiers": [{"above": 199999, "input": 2.5}]}
    theirs = {"sync.input": 1.25, "sync.tiers": [{"above": 200000, "input": 2.5}]}
    view, notes = agreement.like_for_like(ours, theirs)
    assert view["sync.tiers"] == [{"above": 200000, "input": 2.5}] and notes == ["sync.tiers in thousands"]
    assert ours["sync.tiers"][0]["above"] == 199999  # our statement itself is not changed
    # a threshold that is not one token short of a thousand is compared as it is
    assert agreement.in_thousands([{"above": 128000}, {"above": 32767}]) == [{"above": 128000}, {"above": 32767}]


def test_one_flat_rate_for_a_model_billed_by_the_hour_is_compared_with_the_period_it_states():
    peak = {"peak": {"input": 0.3, "output": 1.2, "cache_read": 0.006},
            "off_peak": {"input": 0.15, "output": 0.6, "cache_read": 0.003}}
    ours = {"sync.input": 0.15, "sync.output": 0.6, "sync.cache_read": 0.003, "sync.peak": peak}
    at_peak = {"sync.input": 0.3, "sync.output": 1.2, "sync.cache_read": 0.006}
    view, notes = agreement.like_for_like(ours, at_peak)
    assert agreement.compare(view, at_peak)[0] == {"sync.input": True, "sync.output": True, "sync.cache_read": True}
    assert notes == ["sync rates of the peak period"]
    # the period is the one its input rate equals; the other rates must then agree on their own
    wrong = dict(at_peak, **{"sync.output": 1.5})
    assert agreement.compare(agreement.like_for_like(ours, wrong)[0], wrong)[0]["sync.output"] is False
    # a rate equal to neither period is compared with our standard (off-peak) rate
    assert agreement.like_for_like(ours, {"sync.input": 0.2})[0]["sync.input"] == 0.15
    assert agreement.period_stated(ours, dict(at_peak, **{"sync.peak": peak})) is None  # it states both


def test_our_price_on_a_past_day_is_read_from_the_price_history(tmp_path):
    history = pd.DataFrame({"ticker": ["DEMO-1", "DEMO-1", "DEMO-1"], "mode": ["sync", "sync", "batch"],
                            "date": [date(2026, 11, 19), date(2026, 11, 20), date(2026, 11, 20)],
                            "input": [2.0, 4.0, 2.0], "output": [10.0, 20.0, 10.0], "cache_read": [None, 0.4, None],
                            "tiers": [None, '[{"above":200000,"input":8.0}]', None], "peak": [None, None, None]})
    history.to_parquet(tmp_path / "price_history.parquet")
    frame = tickers(("DEMO-1", "google", "demo-1", [], {"sync.input": 5.0}), ("NEW-1", "google", "new-1", [], {}))
    day = agreement.on_day(frame, tmp_path, date(2026, 11, 20))
    assert day.loc[0, "statement"] == {"sync.input": 4.0, "sync.output": 20.0, "sync.cache_read": 0.4,
                                       "sync.tiers": [{"above": 200000, "input": 8.0}],
                                       "batch.input": 2.0, "batch.output": 10.0}
    assert day.loc[1, "statement"] == {}  # no price that day: unmatched, not compared


def test_a_ticker_without_a_price_that_day_is_not_matched(litellm):
    frame = tickers(("DEMO-1", "anthropic", "claude-demo-1", [], {}))
    assert agreement.measure(frame, litellm.find)[0].source_id is None
