"""The evidence behind a spot and the disputes table, on hand-built statements."""

from datetime import date

import pandas as pd

from pipelines.evidence import DISPUTE_COLUMNS, RULES, compared, price_disputes, spot_evidence
from pipelines.observations import CROSS_CHECK_NOTE, OBSERVATION_COLUMNS

AS_OF = date(2026, 11, 22)
GENAI, MP, LITELLM = "genai-prices", "model-prices", "litellm"


def statement(ticker, day, price_in, price_out, source, provenance, released, superseded=False, note=None,
              cache_read=None, mode="sync"):
    return dict.fromkeys(OBSERVATION_COLUMNS) | {
        "ticker": ticker, "provider": "deepseek", "provider_model_id": ticker.lower(), "is_origin": True,
        "mode": mode, "effective_date": day, "input": price_in, "output": price_out, "cache_read": cache_read,
        "source": source, "source_version": {GENAI: "0.2.3", MP: "0.0.5", LITELLM: "1.110.2"}[source],
        "provenance": provenance, "source_released": released, "superseded": superseded, "note": note,
        "authority": {"published": 43, "current": 33, "first_observed": 22}[provenance]}


def chosen(ticker, day, price_in, price_out, source, cache_read=None, mode="sync"):
    return {"ticker": ticker, "mode": mode, "date": AS_OF, "input": price_in, "output": price_out,
            "cache_read": cache_read, "cache_write": None, "source": source, "observed_on": day}


OBSERVATIONS = pd.DataFrame([
    # DEEPSEEK-V3: the catalogue repeats its 2025 price; a later dated statement won.
    statement("DEEPSEEK-V3", date(2025, 7, 11), 0.27, 1.10, GENAI, "current", date(2026, 11, 10)),
    statement("DEEPSEEK-V3", date(2025, 6, 1), 0.27, 1.10, MP, "first_observed", date(2026, 10, 26)),
    statement("DEEPSEEK-V3", date(2026, 6, 6), 0.14, 0.28, MP, "first_observed", date(2026, 10, 26)),
    statement("DEEPSEEK-V3", date(2026, 11, 20), 0.28, 0.42, LITELLM, "current", date(2026, 11, 20),
              superseded=True, note=CROSS_CHECK_NOTE),
    # O3: three sources agree (the cross-check counts as a vote).
    statement("O3", date(2025, 6, 10), 2.0, 8.0, GENAI, "published", date(2026, 11, 10), cache_read=0.5),
    statement("O3", date(2026, 10, 1), 2.0, 8.0, MP, "first_observed", date(2026, 10, 26), cache_read=0.5),
    statement("O3", date(2026, 11, 20), 2.0, 8.0, LITELLM, "current", date(2026, 11, 20), superseded=True,
              note=CROSS_CHECK_NOTE, cache_read=0.5),
    # KIMI: one source only; a statement after the snapshot date is not yet known.
    statement("KIMI", date(2026, 3, 20), 1.15, 8.0, GENAI, "current", date(2026, 11, 10)),
    statement("KIMI", date(2026, 12, 1), 2.0, 9.0, MP, "first_observed", date(2026, 10, 26)),
], columns=OBSERVATION_COLUMNS)
HISTORY = pd.DataFrame([
    chosen("DEEPSEEK-V3", date(2026, 6, 6), 0.14, 0.28, MP),
    chosen("O3", date(2026, 10, 1), 2.0, 8.0, MP, cache_read=0.5),
    chosen("KIMI", date(2026, 3, 20), 1.15, 8.0, GENAI),
])


def test_spot_evidence_grades_each_price_by_its_sources():
    pairs = compared(OBSERVATIONS, HISTORY, AS_OF)
    out = spot_evidence(pairs, pd.Series(["DEEPSEEK-V3", "KIMI", "O3", "NO-STATEMENT"]), AS_OF).set_index("ticker")
    assert out.loc["DEEPSEEK-V3"].tolist() == [[MP], [GENAI, LITELLM], date(2026, 10, 26), "disputed"]
    assert out.loc["O3"].tolist() == [[GENAI, LITELLM, MP], [], date(2026, 11, 20), "confirmed"]
    assert out.loc["KIMI"].tolist() == [[GENAI], [], date(2026, 11, 10), "single_source"]
    assert out.loc["NO-STATEMENT", "evidence"] == "single_source"
    assert out.loc["NO-STATEMENT", "sources_agreeing"] == []


def test_a_batch_or_cache_price_in_dispute_disputes_the_spot():
    """Every source states O3's sync price as chosen; model-prices states its batch cache read
    otherwise: the grade reads every published field, not only sync input and output. A price one
    side leaves unstated (genai-prices' batch cache read) is no evidence either way."""
    batch = [statement("O3", date(2026, 10, 1), 1.0, 4.0, MP, "first_observed", date(2026, 10, 26),
                       cache_read=0.3, mode="batch"),
             statement("O3", date(2025, 6, 10), 1.0, 4.0, GENAI, "published", date(2026, 11, 10), mode="batch")]
    history = pd.concat([HISTORY, pd.DataFrame([chosen("O3", date(2025, 6, 10), 1.0, 4.0, GENAI, cache_read=0.25,
                                                       mode="batch")])])
    statements = pd.concat([OBSERVATIONS, pd.DataFrame(batch, columns=OBSERVATION_COLUMNS)])
    out = spot_evidence(compared(statements, history, AS_OF), pd.Series(["O3"]), AS_OF).set_index("ticker")
    assert out.loc["O3"].tolist() == [[GENAI, LITELLM], [MP], date(2026, 11, 20), "disputed"]
    history.loc[history["mode"] == "batch", "cache_read"] = 0.3  # now model-prices states the chosen value
    out = spot_evidence(compared(statements, history, AS_OF), pd.Series(["O3"]), AS_OF).set_index("ticker")
    assert out.loc["O3"].tolist() == [[GENAI, LITELLM, MP], [], date(2026, 11, 20), "confirmed"]


def test_price_disputes_list_every_source_with_the_rule_that_decided():
    out = price_disputes(compared(OBSERVATIONS, HISTORY, AS_OF))
    assert list(out.columns) == DISPUTE_COLUMNS
    assert set(out["ticker"]) == {"DEEPSEEK-V3"}  # O3 and KIMI have nothing in dispute
    rows = out[out["field"] == "output"].set_index("source")
    assert rows["value"].to_dict() == {GENAI: 1.10, LITELLM: 0.42, MP: 0.28}
    assert rows["rule"].to_dict() == {GENAI: "later_statement", LITELLM: "cross_check", MP: "agrees"}
    assert rows.loc[GENAI, ["asserted_on", "published_on", "chosen_value", "chosen_source", "chosen_asserted_on"]
                    ].tolist() == [date(2025, 7, 11), date(2026, 11, 10), 0.28, MP, date(2026, 6, 6)]
    assert rows.loc[GENAI, "reason"] == RULES["later_statement"]
    assert list(out["field"].unique()) == ["input", "output"]  # no source states a cache price here


def test_a_rejected_statement_is_a_dispute_with_its_own_reason():
    observations = pd.DataFrame([
        statement("OMNI", date(2026, 10, 10), 1.5, 17.5, MP, "first_observed", date(2026, 10, 26), superseded=True,
                  note="rejected: output 17.5 is the video-output rate"),
        statement("OMNI", date(2026, 10, 29), 1.5, 9.0, GENAI, "current", date(2026, 11, 10)),
    ], columns=OBSERVATION_COLUMNS)
    history = pd.DataFrame([chosen("OMNI", date(2026, 10, 29), 1.5, 9.0, GENAI)])
    out = price_disputes(compared(observations, history, AS_OF))
    rejected = out[out["rule"] == "rejected"].iloc[0]
    assert (rejected["field"], rejected["value"], rejected["reason"]) == (
        "output", 17.5, "rejected: output 17.5 is the video-output rate")


def test_a_build_of_an_earlier_day_confirms_a_price_on_the_day_it_was_first_known_never_later():
    """KIMI's catalogue price, read from the release of 2026-11-10, was first published on
    2026-04-02: a build of 2026-06-01 says it was confirmed then, not on a day still to come."""
    earlier = date(2026, 6, 1)
    observations = OBSERVATIONS.copy()
    observations["known_from"] = [date(2026, 4, 2) if ticker == "KIMI" and source == GENAI else None
                                  for ticker, source in zip(observations["ticker"], observations["source"],
                                                            strict=True)]
    history = HISTORY.assign(date=earlier)
    out = spot_evidence(compared(observations, history, earlier), pd.Series(["KIMI"]), earlier).set_index("ticker")
    assert out.loc["KIMI", "last_confirmed"] == date(2026, 4, 2)
