"""Price truth on the real snapshot: one model one ticker, pointers as aliases, and every ticker
ever published still answering. Each case names its evidence."""

import pandas as pd
import pytest

from pipelines.quality import active_twins, names_on_several_tickers
from serve.lookup import ModelLookup
from warehouse.seed_files import read_seed_csv


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


@pytest.fixture(scope="module")
def lookup(store) -> ModelLookup:
    return ModelLookup(store.read_table("models"))


@pytest.fixture(scope="module")
def spots(store) -> pd.DataFrame:
    return store.read_table("spots").set_index("ticker")


def test_every_published_ticker_still_answers(lookup):
    published = read_seed_csv("published_tickers")
    assert len(published) == 452
    unresolved = []
    for ticker in published["ticker"]:
        try:
            lookup.resolve(ticker)
        except LookupError:
            unresolved.append(ticker)
    assert unresolved == []


@pytest.mark.parametrize("name", [
    "GROK-4.20-BETA-LATEST-REASONING", "GROK-4.20-BETA-LATEST-NON-REASONING",
    "GROK-4.20-EXPERIMENTAL-BETA-0304-REASONING", "GROK-4.20-EXPERIMENTAL-BETA-0304-NON-REASONING",
    "GROK-4.20-0309-REASONING", "grok-4.20-0309-non-reasoning",
])
def test_grok_4_20_beta_names_are_the_model_after_its_cut(lookup, spots, name):
    """genai-prices 0.2.3: xAI cut Grok 4.20 to 1.25/2.50 on 2026-04-30; the beta and experimental
    names are its pre-release names (model_aliases.csv), the 0309 ids its catalogue ids."""
    ticker = lookup.resolve(name).ticker
    assert ticker == "GROK-4.20"
    assert spots.loc[ticker, ["input_sync", "beta_sync"]].tolist() == [1.25, 2.5]


def test_mistral_small_is_small_3_2_not_the_2603_model(lookup, spots):
    """mistral-small-2506 is Small 3.2 at 0.10/0.30 in genai-prices, model-prices and LiteLLM;
    mistral-small-2603 (0.15/0.60) is another model with a ticker of its own."""
    small = lookup.resolve("MISTRAL-SMALL").ticker
    assert spots.loc[small, ["input_sync", "beta_sync"]].tolist() == [0.1, 0.3]
    assert lookup.resolve("mistral-small-2506").ticker == small
    other = lookup.resolve("mistral-small-2603").ticker
    assert other != small and spots.loc[other, ["input_sync", "beta_sync"]].tolist() == [0.15, 0.6]


def test_pointers_resolve_to_the_model_they_serve_today(lookup, store):
    """gemini-flash-latest: genai-prices 0.2.3 matches it to gemini-3.8-flash, and model-prices
    prices it at 3.8 Flash's 0.75/3.75 since 2026-08-21."""
    assert lookup.resolve("gemini-flash-latest").ticker == "GEMINI-3.8-FLASH"
    assert lookup.resolve("GEMINI-FLASH").ticker == "GEMINI-3.8-FLASH"  # its old ticker
    aliases = store.read_table("model_aliases")
    flash = aliases[aliases["alias"] == "gemini-flash-latest"].sort_values("valid_from")
    assert flash["ticker"].tolist()[-1] == "GEMINI-3.8-FLASH" and pd.isna(flash["valid_to"].tolist()[-1])


@pytest.mark.parametrize("ticker", ["MISTRAL-LARGE", "MISTRAL-MEDIUM-3.1", "MISTRAL-MEDIUM-3.5", "GEMINI-3.5-FLASH-LITE",
                                    "GEMINI-3.8-FLASH"])
def test_no_phantom_change_from_a_repointed_alias(store, ticker):
    """mistral-large-latest moved from Large 2411 (2/6) to Large 2512 (0.5/1.5) on 2025-12-08 and
    gemini-flash-lite-latest through three models: neither is a price change of any model."""
    events = store.read_table("events")
    mine = events[(events["ticker"] == ticker) & (events["mode"] == "sync")]
    assert not mine["kind"].isin(["price_cut", "price_increase"]).any() or ticker == "MISTRAL-LARGE"
    if ticker == "MISTRAL-LARGE":  # only Mistral Large's 2024 cuts (8/24 → 3/9 → 2/6), none since
        cuts = mine[mine["kind"] == "price_cut"]
        assert (pd.to_datetime(cuts["effective_date"]) < "2025-01-01").all()


# --- adjudication by dated evidence ---------------------------------------------------------------

def test_kimi_k2_turbo_preview_takes_the_catalogue_price_first_listed_after_the_old_sighting(spots, store):
    """model-prices first saw 2.40/10.00 on 2025-08-08; every genai-prices release from 0.0.56
    (uploaded 2026-03-20) to 0.2.3 lists 1.15/8.00, so the catalogue's statement is the later one."""
    kimi = spots.loc["KIMI-K2-TURBO-PREVIEW"]
    assert (kimi["input_sync"], kimi["beta_sync"]) == (1.15, 8.00)
    assert (kimi["source_sync"], kimi["observed_on_sync"]) == ("genai-prices", pd.Timestamp("2026-03-20").date())
    assert kimi["sources_disagreeing"].tolist() == ["model-prices"] and kimi["evidence"] == "disputed"
    disputes = store.read_table("price_disputes")
    old = disputes[(disputes["ticker"] == "KIMI-K2-TURBO-PREVIEW") & (disputes["field"] == "output")
                   & (disputes["source"] == "model-prices")].iloc[0]
    assert (old["value"], str(old["asserted_on"]), old["rule"]) == (10.0, "2025-08-08", "later_statement")


def test_gemini_omni_output_is_the_text_rate_not_the_video_rate(spots, store):
    """genai-prices quotes Google's page: "$9 text, $17.50 video"; LiteLLM lists 9.00. model-prices'
    17.50 is rejected (rejected_statements.csv) and published as a dispute."""
    for ticker in ("GEMINI-OMNI-1.1-FLASH", "GEMINI-OMNI-FLASH-PREVIEW"):
        assert (spots.loc[ticker, "input_sync"], spots.loc[ticker, "beta_sync"]) == (1.50, 9.00)
    disputes = store.read_table("price_disputes")
    rejected = disputes[(disputes["ticker"] == "GEMINI-OMNI-1.1-FLASH") & (disputes["rule"] == "rejected")]
    assert rejected[["source", "field", "value"]].values.tolist() == [["model-prices", "output", 17.5]]
    assert "video-output rate" in rejected["reason"].iloc[0]
    history = store.read_table("price_history")
    omni = history[(history["ticker"] == "GEMINI-OMNI-1.1-FLASH") & (history["mode"] == "sync")]
    assert set(omni["output"]) == {9.0}  # never the video rate, so no phantom cut either


def test_ministral_8b_output_slip_that_its_source_corrected_is_rejected(store):
    """genai-prices 0.0.22 to 0.1.4 listed Ministral 8B at 1.00 $/M output, and 0.1.5 restored
    0.10 with no change announced; OpenRouter's catalogue and LiteLLM listed 0.10 throughout.
    The 1.00 is rejected, so the history holds 0.10 and no rise and cut are made of it."""
    history = store.read_table("price_history")
    ministral = history[(history["ticker"] == "MINISTRAL-8B") & (history["mode"] == "sync")]
    assert len(ministral) > 500 and set(ministral["output"]) == {0.1}
    events = store.read_table("events")
    assert events[(events["ticker"] == "MINISTRAL-8B") & (events["field"] == "output")
                  & events["kind"].isin(["price_cut", "price_increase"])].empty
    observations = store.read_table("price_observations")
    slips = observations[(observations["ticker"] == "MINISTRAL-8B") & (observations["output"] == 1.0)]
    assert slips["source_version"].tolist() == ["0.0.22"] and slips["superseded"].all()
    assert slips["note"].iloc[0].startswith("rejected: output 1 is a slip the source itself corrected")


def test_deepseek_keeps_the_dated_cut_over_the_catalogue_that_repeats_the_2025_price(spots, store):
    """genai-prices lists 0.27/1.10 from its first release (2025-07-11) to 0.2.3; model-prices dates
    0.14/0.28 on 2026-06-06, later, so it stands, and the catalogue's price is a dispute."""
    assert (spots.loc["DEEPSEEK-V3", "input_sync"], spots.loc["DEEPSEEK-V3", "beta_sync"]) == (0.14, 0.28)
    disputes = store.read_table("price_disputes")
    genai = disputes[(disputes["ticker"] == "DEEPSEEK-V3") & (disputes["source"] == "genai-prices")
                     & (disputes["field"] == "output")].iloc[0]
    assert (genai["value"], str(genai["asserted_on"]), str(genai["published_on"]), genai["rule"]) == (
        1.10, "2025-07-11", "2026-11-10", "later_statement")


def test_every_disagreement_on_a_spot_is_in_the_disputes(spots, store):
    disputes = store.read_table("price_disputes")
    disputed = spots[spots["evidence"] == "disputed"]
    assert len(disputed) > 0
    # A rejected statement is published as a dispute but is no evidence against the spot; a dispute
    # of any price, batch or cache included, is.
    listed = disputes[~disputes["rule"].isin(["agrees", "rejected"])]
    for ticker, row in disputed.iterrows():
        assert set(row["sources_disagreeing"]) == set(listed.loc[listed["ticker"] == ticker, "source"]), ticker
    assert set(listed["ticker"]) == set(disputed.index)
    assert disputes["rule"].isin(["agrees", "later_statement", "same_date_authority", "cross_check", "rejected",
                                  "majority", "usd_list", "outranked"]).all()


def test_first_seen_is_the_earliest_statement_not_the_snapshot_day(store):
    """ADA is in genai-prices' first release (uploaded 2025-07-11); no model is first seen on the
    snapshot day merely because a catalogue lists it today."""
    models = store.read_table("models").set_index("ticker")
    assert str(models.loc["ADA", "first_seen"]) == "2025-07-11"
    assert (models["first_seen"] < pd.Timestamp("2026-11-22").date()).all()


# --- events, lifecycle and metadata ---------------------------------------------------------------

def test_nova_history_has_no_change_from_a_cross_region_route(store):
    """model-prices dates apac. (cross-region) ids of the Nova models at a 5% surcharge on 2026-09-09
    and the in-region ids again on 2026-09-11; neither is a price change of the model."""
    events = store.read_table("events")
    nova = events[events["ticker"].str.startswith("NOVA-") & events["kind"].isin(
        ["price_cut", "price_increase", "cache_change"])]
    assert nova[nova["effective_date"].astype(str).str.startswith("2026-09")].empty


def test_qwen3_7_plus_round_trips_are_flagged_reverted(store):
    """0.32 → 0.40 on 2026-09-09 (a dated snapshot id's first sighting) and back on 2026-09-28."""
    events = store.read_table("events")
    qwen = events[(events["ticker"] == "QWEN3.7-PLUS") & events["kind"].isin(["price_cut", "price_increase"])]
    september = qwen[qwen["effective_date"].astype(str).str.startswith("2026-09")]
    assert len(september) == 4 and september["reverted"].all()


def test_pointer_repoints_are_alias_moved_events(store):
    events = store.read_table("events")
    moved = events[events["kind"] == "alias_moved"]
    large = moved[moved["detail"].str.startswith("mistral-large-latest")].iloc[0]
    assert (large["ticker"], str(large["effective_date"])) == ("MISTRAL-LARGE-2512", "2025-12-08")
    assert large["detail"] == "mistral-large-latest moved from MISTRAL-LARGE to MISTRAL-LARGE-2512"


def test_names_windows_modalities_and_lifecycle_coverage(store):
    models = store.read_table("models")
    named = models["display_name"] != models["model_id"]
    assert named.mean() >= 0.95
    assert (models["display_name_source"] != "derived from the ticker").sum() >= 320  # 318 + 2 measured
    assert models["context_window"].notna().sum() >= 358  # every window any source states: 358 of 426 (84%)
    # Vision: of the tickers some LiteLLM entry of theirs says take images, at most 2% are
    # published text-only (4 of 219 measured: their makers' entries say text, only hosts' say image).
    by_ticker = models.set_index("ticker")
    assert "image" in list(by_ticker.loc["GPT-4O", "input_modalities"])
    assert "image" in list(by_ticker.loc["PIXTRAL-LARGE", "input_modalities"])
    asr = models.set_index("ticker").loc["QWEN3-ASR-FLASH"]
    assert list(asr["input_modalities"]) == ["audio"] and list(asr["output_modalities"]) == ["text"]
    babbage = models.set_index("ticker").loc["BABBAGE-002"]
    assert (babbage["status"], str(babbage["retired_on"])) == ("retired", "2026-09-28")  # LiteLLM's date


def test_lifecycle_is_judged_on_every_id_of_the_model_unless_another_lives_on(store):
    """model-prices marks claude-opus-4-6-20260205 removed, but lists claude-opus-4-6 alive; it
    marks claude-sonnet-4-20250514 removed (and LiteLLM 1.110.2 no longer lists it for Anthropic)."""
    models = store.read_table("models").set_index("ticker")
    # 24 of the retired are retired by the makers' own notices (warehouse/seed/lifecycle_notices.csv),
    # and one is deprecated by one (COMMAND: no shutdown day named).
    assert models["status"].value_counts().to_dict() == {"active": 269, "retired": 119, "deprecated": 72}
    assert models["status_source"].fillna("").str.startswith("the maker's notice of").sum() == 25
    assert (models.loc["ADA", "status"], str(models.loc["ADA", "retired_on"])) == ("retired", "2024-01-04")
    assert models.loc["OPUS-4.6", "status"] == "active" and models.loc["GROK-4.20", "status"] == "active"
    sonnet = models.loc["SONNET-4"]
    assert (sonnet["status"], sonnet["retired_on"], str(sonnet["retired_by"])) == ("retired", None, "2026-10-26")
    dated = models[models["deprecated_on"].notna() & models["retired_on"].notna()]
    assert (dated["deprecated_on"] <= dated["retired_on"]).all()


# Models the price sources still list (or mark removed without a day) that their makers retired.
RETIRED_BY_THEIR_MAKERS = ("HAIKU-3", "OPUS-3", "SONNET-3", "SONNET-3.5", "MISTRAL-7B", "MIXTRAL-8X7B",
                           "MISTRAL-LARGE", "CODEX-MINI", "GROK-CODE-FAST-1", "GPT-4O-SEARCH-PREVIEW", "GPT-4-32K",
                           "GPT-3.5-TURBO-0613", "GPT-3.5", "GEMINI-PRO", "GEMINI-1.0-PRO-VISION", "MISTRAL-MEDIUM-2312",
                           "R1-1776")


def test_models_their_makers_retired_are_retired_with_a_date_and_a_source(store):
    """Each is retired on a day its maker's notice (warehouse/seed/lifecycle_notices.csv) or LiteLLM
    states; COMMAND is deprecated since Cohere's notice of 2025-09-15, which names no shutdown day."""
    models = store.read_table("models").set_index("ticker")
    retired = models.loc[list(RETIRED_BY_THEIR_MAKERS)]
    assert (retired["status"] == "retired").all()
    assert retired["retired_on"].notna().all() and (retired["retired_by"] == retired["retired_on"]).all()
    assert retired["status_source"].str.contains(" retires | dates ").all()
    assert str(models.loc["GPT-3.5", "retired_on"]) == "2024-09-13"  # OpenAI's gpt-3.5-turbo-0301
    command = models.loc["COMMAND"]
    assert (command["status"], str(command["deprecated_on"]), command["retired_on"]) == (
        "deprecated", "2025-09-15", None)
    assert command["status_source"].startswith("the maker's notice of 2025-09-15")


def test_a_batch_variant_that_lists_no_prices_states_the_standard_rates(spots):
    """genai-prices 0.2.3's batch variant for gpt-3.5-turbo-1106 is empty ("The Batch table lists the
    same rates as standard", verified 2026-10-14): later than model-prices' 0.5/1.0, and LiteLLM agrees."""
    row = spots.loc["GPT-3.5-TURBO-1106"]
    assert (row["input_batch"], row["beta_batch"], row["r_batch"]) == (1.0, 2.0, 1.0)


def test_a_rejected_statement_is_no_evidence_either_way(spots, store):
    omni = spots.loc["GEMINI-OMNI-1.1-FLASH"]
    assert (list(omni["sources_agreeing"]), omni["evidence"]) == (["genai-prices", "litellm"], "confirmed")
    # Three spots are disputed only on a batch price: GEMINI-3.5-FLASH-LITE's and GPT-5.4's cache
    # reads (model-prices against the chosen), GPT-3.5-TURBO-1106's batch rates (LiteLLM's 1/2).
    # One name, one model (2026-12-04): 235/195/33 became 239/191/30. No longer disputed: SONAR (the
    # Agent API's 0.25/2.50 is SONAR-AGENT's), MISTRAL-MEDIUM-3.1 (LiteLLM's 1.50/7.50 for the pointer
    # mistral-medium is Medium 3.5's), MISTRAL-MEDIUM-3 (a pointer now); confirmed: MISTRAL-MEDIUM-2312,
    # SONAR-AGENT; four single-source duplicates merged.
    assert spots["evidence"].value_counts().to_dict() == {"confirmed": 239, "single_source": 191, "disputed": 30}
    disputes = store.read_table("price_disputes")
    # With the open-weight models: their hosts' median against model-prices' and LiteLLM's records
    # of the maker's (free or other) price.
    # GEMINI-OMNI-FLASH-PREVIEW is no dispute: model-prices' own release 0.0.3 (2026-10-04) listed the
    # 9.00 the others give, later than the rejected 17.50 it first recorded.
    # One name, one model (MISTRAL-MEDIUM-3's and MISTRAL-MEDIUM-3.1's sync rates, SONAR's) took 23
    # rows away; DEEPSEEK-V3.2 and GEMINI-3.5-FLASH-LITE's batch cache read are settled by the majority.
    assert (len(disputes), disputes.groupby(["ticker", "mode", "field"]).ngroups) == (186, 74)
    assert disputes["rule"].value_counts().to_dict() == {"agrees": 105, "cross_check": 53, "later_statement": 24,
                                                         "majority": 3, "rejected": 1}


# --- one model, one ticker; one name, one model ----------------------------------------------------

def test_no_name_on_two_tickers_and_no_active_twins(store):
    """Before: mistral-medium named MISTRAL-MEDIUM and MISTRAL-MEDIUM-3.1; SOLAR-MINI-4 and
    SOLAR-MINI4 were both active Solar Mini 4 at 0.10/0.40."""
    models = store.read_table("models")
    assert names_on_several_tickers(models) == []
    assert active_twins(models, store.read_table("spots")) == []


def test_mistral_medium_is_todays_medium_and_the_2023_model_only_its_own_id(lookup, spots, store):
    """mistral-medium and mistral-medium-3 are pointers (pointer_ids.csv): both serve Medium 3.5 at
    1.50/7.50 today; Medium 1 (2.70/8.10) answers to mistral-medium-2312 and its own ticker only."""
    for name in ("mistral-medium", "MISTRAL-MEDIUM", "mistral-medium-3", "MISTRAL-MEDIUM-3", "mistral-medium-latest"):
        assert lookup.resolve(name).ticker == "MISTRAL-MEDIUM-3.5", name
    assert spots.loc["MISTRAL-MEDIUM-3.5", ["input_sync", "beta_sync"]].tolist() == [1.5, 7.5]
    old = store.read_table("models").set_index("ticker").loc["MISTRAL-MEDIUM-2312"]
    assert list(old["aliases"]) == ["mistral-medium-2312"] and old["display_name"] == "Mistral Medium 1"
    assert spots.loc["MISTRAL-MEDIUM-2312", ["input_sync", "beta_sync"]].tolist() == [2.7, 8.1]
    assert lookup.resolve("mistral-medium-2505").ticker == "MISTRAL-MEDIUM-3.1"


def test_sonar_is_the_sonar_api_and_the_agent_api_product_is_apart(lookup, spots):
    """genai-prices 0.2.3: sonar 1/1 and 12 per 1,000 requests (low context); perplexity/sonar (the
    Agent API) 0.25/2.50 and web searches at 2.50 per 1,000."""
    assert lookup.resolve("sonar").ticker == "SONAR" and lookup.resolve("perplexity/sonar").ticker == "SONAR-AGENT"
    assert spots.loc["SONAR", ["input_sync", "beta_sync", "request_fee_sync"]].tolist() == [1.0, 1.0, 12.0]
    agent = spots.loc["SONAR-AGENT"]
    assert [agent["input_sync"], agent["beta_sync"], agent["web_search_fee_sync"]] == [0.25, 2.5, 2.5]
    assert pd.isna(agent["request_fee_sync"])


@pytest.mark.parametrize("old, ticker", [("SOLAR-MINI-4", "SOLAR-MINI4"), ("GROK-4.1-FAST", "GROK-4.1-FAST-REASONING"),
                                         ("STEP-3.5-FLASH-2603", "STEP-3.5-FLASH")])
def test_a_merged_ticker_answers_as_the_model(lookup, old, ticker):
    assert lookup.resolve(old).ticker == ticker
