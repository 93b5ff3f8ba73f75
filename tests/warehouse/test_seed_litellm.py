"""The shipped LiteLLM extract: its contents, its checks on read, and the script that builds it."""

import gzip
import hashlib
import json
import tomllib
from datetime import date

import pytest

from pipelines.ingest_litellm import litellm_listings, litellm_metadata
from pipelines.listings import SYNC
from tests.warehouse.seeds import ROOT, copy_seed, load_script, reseal
from warehouse.seed_files import SEED_DIR, read_litellm_prices

RELEASED = date(2026, 11, 20)


@pytest.fixture(scope="module")
def shipped():
    entries, meta = read_litellm_prices()
    return {e["key"]: e for e in entries}, meta


def test_shipped_file_matches_its_meta(shipped):
    entries, meta = shipped
    blob = (SEED_DIR / "litellm_prices.json.gz").read_bytes()
    assert hashlib.sha256(blob).hexdigest() == meta["file_sha256"]
    assert len(entries) == meta["rows"] == 4876
    assert (meta["source"], meta["source_version"], meta["released"], meta["licence"]) == \
        ("litellm", "1.110.2", "2026-11-20", "MIT")
    assert meta["data_file"] == "model_prices_and_context_window.json"
    assert "sample_spec" not in entries


def test_pinned_entries(shipped):
    entries, _ = shipped
    gpt4o = entries["gpt-4o"]  # LiteLLM 1.110.2 on OpenAI's gpt-4o
    assert (gpt4o["litellm_provider"], gpt4o["mode"]) == ("openai", "chat")
    assert (gpt4o["input"], gpt4o["output"], gpt4o["cache_read"]) == (2.5, 10.0, 1.25)
    assert (gpt4o["batch_input"], gpt4o["batch_output"]) == (1.25, 5.0)
    assert (gpt4o["max_input_tokens"], gpt4o["max_output_tokens"], gpt4o["deprecation_date"]) == (128000, 16384, "2027-01-14")
    pro = entries["gemini-2.5-pro"]  # Vertex AI's Gemini 2.5 Pro, retired before the release
    assert (pro["litellm_provider"], pro["deprecation_date"]) == ("vertex_ai-language-models", "2026-10-20")
    assert (pro["input"], pro["output"], pro["cache_read"]) == (1.25, 10.0, 0.125)
    assert pro["tiers"] == [{"above": 200000, "cache_read": 0.25, "cache_write": 0.25, "input": 2.5, "output": 15.0}]
    assert pro["fees"]["search_context_cost_per_query"]["search_context_size_medium"] == 0.035
    flash = entries["dashscope/qwen-flash"]  # tiers stated only as `tiered_pricing` ranges
    assert (flash["input"], flash["output"], flash["tiers"]) == (0.05, 0.4, [{"above": 256000, "input": 0.25, "output": 2.0}])
    assert entries["bedrock/claude-opus-latest"] == {"key": "bedrock/claude-opus-latest",
                                                     "alias_of": "global.anthropic.claude-opus-5-5"}


def test_the_shipped_file_feeds_the_transforms(shipped):
    entries, _ = shipped
    listings = {(r.provider, r.source_model_id, r.mode): r for r in litellm_listings(list(entries.values()), "1.110.2", RELEASED)}
    assert len(listings) == 3862
    assert listings[("openai", "gpt-4o", SYNC)].input == 2.5
    assert listings[("google", "gemini-2.5-pro", SYNC)].deprecated is True
    meta = litellm_metadata(list(entries.values()), RELEASED)
    assert meta.duplicated(["provider", "source_model_id"]).sum() == 0
    assert {"chat", "embedding", "image_generation", "audio_speech"} <= set(meta["mode"].dropna())


def test_licence_and_attribution_ship_beside_the_file():
    assert "MIT License" in (SEED_DIR / "LICENSE.litellm").read_text()
    assert "# Attribution: litellm_prices.json.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()


def test_litellm_is_not_a_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = project.get("dependencies", []) + sum(project.get("optional-dependencies", {}).values(), [])
    assert not [d for d in declared if d.lower().startswith("litellm")]


def test_corrupt_bytes_are_a_value_error_naming_the_file(tmp_path):
    seed = copy_seed(tmp_path)
    path = seed / "litellm_prices.json.gz"
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    with pytest.raises(ValueError, match="litellm_prices.json.gz"):
        read_litellm_prices(seed)


def _rewrite(seed, entries):
    """A well-formed file whose meta agrees with it, so the content checks are what fails."""
    reseal(seed, "litellm_prices.json.gz", "litellm_prices.meta.json", json.dumps(entries).encode(), rows=len(entries))


@pytest.mark.parametrize("entries, message", [
    ([{"key": "a", "input": -1.0}], "input must be a finite number"),
    ([{"key": "a", "tiers": [{"above": 1000, "output": "2"}]}], "tiers.output"),
    ([{"key": "a", "fees": {"search_context_cost_per_query": {"search_context_size_low": float("inf")}}}], "fees"),
    ([{"key": "a"}, {"key": "a"}], "duplicate keys"),
])
def test_damaged_content_is_rejected(tmp_path, entries, message):
    seed = copy_seed(tmp_path)
    _rewrite(seed, entries)
    with pytest.raises(ValueError, match=message):
        read_litellm_prices(seed)


def test_a_row_count_that_disagrees_with_the_meta_is_rejected(tmp_path):
    seed = copy_seed(tmp_path)
    _rewrite(seed, [{"key": "a"}])
    meta_path = seed / "litellm_prices.meta.json"
    meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), "rows": 2}))
    with pytest.raises(ValueError, match="1 entries but"):
        read_litellm_prices(seed)


@pytest.mark.parametrize("name", ["litellm_prices.json.gz", "litellm_prices.meta.json"])
def test_a_missing_file_is_file_not_found(tmp_path, name):
    seed = copy_seed(tmp_path)
    (seed / name).unlink()
    with pytest.raises(FileNotFoundError):
        read_litellm_prices(seed)


def test_the_script_output_is_deterministic():
    script = load_script("build_litellm_prices")
    raw = json.dumps({
        "sample_spec": {"input_cost_per_token": 0.0},
        "b/model": {"litellm_provider": "b", "mode": "chat", "input_cost_per_token": 2e-07,
                    "output_cost_per_token": 4e-07, "input_cost_per_token_above_128k_tokens": 4e-07,
                    "input_cost_per_request": 0.005, "supports_vision": True},
        "a-model": {"litellm_provider": "a", "mode": "embedding", "input_cost_per_token": 1e-08},
    }).encode()
    first, second = script.json_gz(script.extract(raw)), script.json_gz(script.extract(raw))
    assert first == second and first[4:8] == b"\0\0\0\0"  # gzip mtime 0
    entries = json.loads(gzip.decompress(first))
    assert [e["key"] for e in entries] == ["a-model", "b/model"]
    assert entries[1] == {"key": "b/model", "litellm_provider": "b", "mode": "chat", "input": 0.2, "output": 0.4,
                          "tiers": [{"above": 128000, "input": 0.4}], "fees": {"input_cost_per_request": 0.005},
                          "supports_vision": True}  # a capability flag is kept: it states an input modality
