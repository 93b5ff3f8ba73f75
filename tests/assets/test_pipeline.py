"""The whole graph materialised from the bundled sources: real contents, pinned."""

from datetime import date

import pandas as pd
import pytest

from pipelines.ingest_genai import SOURCE as GENAI
from tests.conftest import AS_OF
from warehouse.release_history import read_genai_release_history, read_release_changes_meta
from warehouse.schemas import SCHEMAS


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: this module's checks are about every model."""
    return full_store


def _history(store, ticker, mode="sync"):
    history = store.read_table("price_history")
    return history[(history["ticker"] == ticker) & (history["mode"] == mode)].sort_values("date")


def test_manifest_names_every_table_with_row_counts_and_sources(store):
    manifest = store.current()
    assert set(manifest.tables) == set(SCHEMAS)
    # Empty while no source is read live, or while no recorded level has been restated.
    empty = {"source_fetches", "openrouter_prices", "ici_revisions"}
    for name, info in manifest.tables.items():
        assert len(store.read_table(name)) == info.rows
        assert (info.rows == 0) == (name in empty), name
    assert manifest.extra["as_of"] == AS_OF and manifest.extra["live"] == {}
    assert manifest.extra["sources"] == {"genai-prices": "0.2.3", "model-prices": "0.0.5",
                                         "model-price-radar-mcp": "0.1.0", "litellm": "1.110.2",
                                         "models.dev": "0.20260818.0", "tokenlens": "1.3.0",
                                         "models.dev releases": "1.0.398"}


def test_sonnet_4_spot_is_3_in_15_out_030_cache_read(store):
    models = store.read_table("models").set_index("ticker")
    assert models.loc["SONNET-4", "model_id"] == "claude-sonnet-4-20250514"
    assert models.loc["SONNET-4", "provider"] == "anthropic"
    assert "claude-sonnet-4-0" in models.loc["SONNET-4", "aliases"]
    today = _history(store, "SONNET-4").iloc[-1]
    assert (today["date"], today["input"], today["output"], today["cache_read"]) == (date(2026, 11, 22), 3.0, 15.0, 0.3)
    # The latest dated statement steers: model-prices' sighting of 2025-12-08 is later than
    # genai-prices' first listing of the same price (release 0, 2025-07-11); both agree.
    assert today["provenance"] == "carried_forward" and today["observed_on"] == date(2025, 12, 8)
    assert today["source"] == "model-prices"


def test_o3_history_shows_the_june_2025_cut_as_published(store):
    o3 = _history(store, "O3").set_index("date")
    before, after = o3.loc[date(2025, 6, 9)], o3.loc[date(2025, 6, 10)]
    assert (before["input"], before["output"]) == (10.0, 40.0)
    assert (after["input"], after["output"]) == (2.0, 8.0)
    assert after["provenance"] == "published" and after["source"] == "genai-prices"
    assert o3.loc[date(2025, 6, 20), "provenance"] == "carried_forward"


def test_oldest_archived_points_date_from_2023(store):
    history = store.read_table("price_history")
    archived = history[history["provenance"] == "archived"]
    assert archived["date"].min() == date(2023, 7, 26)
    # The web archive's copies of OpenRouter's catalogue, and the dated releases of the price packages.
    radar = archived["source"].eq("model-price-radar-mcp")
    assert archived.loc[radar, "source_url"].str.startswith("https://web.archive.org/web/2").all()
    releases = archived[~radar]
    assert set(releases["source"]) == {"genai-prices", "model-prices"}
    assert set(releases["source_url"]) == {"https://github.com/pydantic/genai-prices",
                                           "https://github.com/wakamex/model-prices"}
    assert releases["date"].min() == date(2025, 7, 11)  # genai-prices' first release


def test_every_provenance_marker_appears_and_none_other(store):
    markers = set(store.read_table("price_history")["provenance"])
    assert markers == {"published", "archived", "first_observed", "current", "carried_forward"}


def test_coverage_reaches_150_tickers_across_10_origin_providers(store):
    models = store.read_table("models")
    assert len(models) >= 150 and models["provider"].nunique() >= 10
    assert models["ticker"].is_unique
    for ticker in ["SONNET-4", "OPUS-4.1", "GPT-4.1", "GPT-4.1-MINI", "O3", "GEMINI-2.5-PRO", "GROK-4",
                   "DEEPSEEK-V3", "MISTRAL-LARGE"]:
        assert ticker in set(models["ticker"]), ticker


def test_registry_records_carry_every_contract_field(store):
    models = store.read_table("models")
    for column in ["ticker", "model_id", "display_name", "provider", "family", "tier", "is_reasoning",
                   "context_window", "aliases", "first_seen", "status", "deprecated_on", "retired_on",
                   "input_modalities", "output_modalities", "max_output_tokens"]:
        assert column in models.columns
    assert set(models["tier"]) <= {"frontier", "mid", "efficient"}
    assert set(models["status"]) == {"active", "deprecated", "retired"}
    o3 = models.set_index("ticker").loc["O3"]
    assert bool(o3["is_reasoning"]) and o3["family"] == "openai/o-series" and o3["tier"] == "frontier"


def test_observations_record_source_version_and_a_url_for_dated_entries(store):
    observations = store.read_table("price_observations")
    # A dated release's statement names that release and its upload day; the rest, the version in use.
    releases = {**{(GENAI, r["version"]): r["uploaded"][:10] for r in read_genai_release_history()[1]["release_files"]},
                **{(source, r["version"]): r["uploaded"][:10]
                   for source, info in read_release_changes_meta()["sources"].items() for r in info["releases"]}}
    archived = observations[observations["provenance"].eq("archived")
                            & observations["source"].isin([GENAI, "model-prices", "litellm"])]
    # LiteLLM's 2835 lost six on 2026-12-04 (one name, one model): statements of pointers that name
    # no model known on their day (mistral-medium 2023, codestral-latest and mistral-large-latest
    # 2024-11-28), a host's mistral-medium-3 (a pointer), and step-3-5-flash-2603 (now one model with
    # step-3-5-flash, whose statement of that release is the same).
    assert len(archived) == 194 + 1 + 2829
    for source, version, released in archived[["source", "source_version", "source_released"]].itertuples(index=False):
        assert releases[(source, version)] == released.isoformat(), (source, version)
    rest = observations.drop(archived.index)
    versions = rest.groupby("source")["source_version"].unique().map(list).to_dict()
    # A host median names the versions of the sources its hosts' offers come from.
    assert set(versions.pop("host-median")) <= {"genai-prices 0.2.3", "litellm 1.110.2", "genai-prices 0.2.3, litellm 1.110.2"}
    assert versions == {"genai-prices": ["0.2.3"], "model-prices": ["0.0.5"], "model-price-radar-mcp": ["0.1.0"],
                        "litellm": ["1.110.2"]}
    released = rest.groupby("source")["source_released"].unique().map(sorted).to_dict()
    assert released["genai-prices"] == [date(2026, 11, 10)]  # 0.2.3's upload day
    assert released["model-prices"] == [date(2026, 10, 26)]  # the data's updated_at
    assert released["litellm"] == [date(2026, 11, 20)]
    dated = observations[observations["source"] == "model-prices"]
    assert dated["source_url"].str.startswith("https://").all()


def test_disagreements_between_sources_stay_visible(store):
    observations = store.read_table("price_observations")
    losers = observations[observations["superseded"]]
    disagreements = losers[losers["note"].fillna("").str.startswith("disagrees with")]
    assert len(disagreements) > 0
    assert disagreements["superseded_by"].notna().all()


def test_hosts_are_providers_of_models_not_models(store):
    models = store.read_table("models")
    providers = store.read_table("providers")
    assert not set(models["provider"]) & {"openrouter", "aws", "azure", "together", "fireworks"}
    sonnet = providers[(providers["ticker"] == "SONNET-4") & (providers["mode"] == "sync")]
    assert sonnet["is_origin"].sum() >= 1
    assert len(sonnet[~sonnet["is_origin"]]) >= 1
    origin = sonnet[sonnet["is_origin"] & (sonnet["provider"] == "anthropic")].iloc[0]
    assert (origin["input"], origin["output"]) == (3.0, 15.0)


def test_history_is_daily_without_gaps_to_the_snapshot_date(store):
    history = store.read_table("price_history")
    dates = pd.to_datetime(history["date"])
    spans = dates.groupby([history["ticker"], history["mode"]]).agg(["min", "max", "count"])
    assert ((spans["max"] - spans["min"]).dt.days + 1 == spans["count"]).all()
    assert (spans["max"] == pd.Timestamp(AS_OF)).all()


@pytest.mark.parametrize("table", ["price_observations", "price_history"])
def test_no_negative_or_missing_output_price(store, table):
    frame = store.read_table(table)
    assert frame["output"].notna().all() and (frame["output"] >= 0).all()
