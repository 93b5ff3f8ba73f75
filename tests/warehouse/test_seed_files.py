"""The shipped archive file: its contents, its checks on read, and the script that rebuilds it."""

import gzip
import json
import zipfile
from datetime import date

import pytest

from tests.warehouse.seeds import copy_seed, load_script
from warehouse.seed_files import SEED_DIR, read_price_archive, read_seed_csv


def test_shipped_archive_spans_mid_2023_to_september_2026():
    archive, meta = read_price_archive()
    assert len(archive) == meta["rows"] == 7155
    assert archive["date"].nunique() == meta["snapshots"] == 31
    assert (archive["date"].min(), archive["date"].max()) == (date(2023, 7, 26), date(2026, 9, 2))
    assert (archive[["input", "output"]] > 0).all().all()
    assert (meta["source"], meta["source_version"], meta["licence"]) == ("model-price-radar-mcp", "0.1.0", "MIT")
    gpt4 = archive[(archive["date"] == date(2023, 7, 26)) & (archive["model_id"] == "openai/gpt-4")].iloc[0]
    assert (gpt4["input"], gpt4["output"]) == (30.0, 60.0)


def test_licence_and_attribution_ship_beside_the_file():
    assert "MIT License" in (SEED_DIR / "LICENSE.model-price-radar-mcp").read_text()
    assert "model-price-radar-mcp" in (SEED_DIR / "ATTRIBUTION.md").read_text()


def test_a_missing_archive_is_file_not_found(tmp_path):
    seed = copy_seed(tmp_path)
    (seed / "price_archive.csv.gz").unlink()
    with pytest.raises(FileNotFoundError):
        read_price_archive(seed)


def test_a_corrupt_archive_is_a_value_error_naming_the_file(tmp_path):
    seed = copy_seed(tmp_path)
    (seed / "price_archive.csv.gz").write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match="price_archive.csv.gz"):
        read_price_archive(seed)


def test_a_negative_price_in_the_archive_is_rejected(tmp_path):
    seed = copy_seed(tmp_path)
    rows = "date,model_id,input,output\n2023-07-26,openai/gpt-4,-30,60\n"
    (seed / "price_archive.csv.gz").write_bytes(gzip.compress(rows.encode()))
    with pytest.raises(ValueError):
        read_price_archive(seed)


def test_seed_csv_skips_comment_lines():
    makers = read_seed_csv("makers")
    assert list(makers.columns) == ["pattern", "maker"]
    assert makers.iloc[0].tolist() == ["^claude", "anthropic"]


def _fake_wheel(tmp_path, history):
    script = load_script("build_price_archive")
    wheel = tmp_path / "model_price_radar_mcp-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(script.DATA_FILE, gzip.compress(json.dumps(history).encode(), mtime=0))
        zf.writestr("model_price_radar_mcp-0.1.0.dist-info/licenses/LICENSE", "MIT License\n")
    return script, wheel


def test_the_rebuild_script_flattens_drops_free_entries_and_is_byte_stable(tmp_path):
    history = {"built": "2026-10-01", "source": "https://web.archive.org/web/*/openrouter.ai/api/v1/models",
               "snapshots": [{"date": "2023-07-26", "prices": {"openai/gpt-4": [30.0, 60.0],
                                                                "google/palm-2-chat-bison": [0.0, 0.0]}},
                             {"date": "2023-08-30", "prices": {"anthropic/claude-2": [11.02, 32.68]}}]}
    script, wheel = _fake_wheel(tmp_path, history)
    first, second = tmp_path / "a", tmp_path / "b"
    meta = script.build(wheel, first)
    script.build(wheel, second)
    assert (first / "price_archive.csv.gz").read_bytes() == (second / "price_archive.csv.gz").read_bytes()
    assert (meta["rows"], meta["dropped_missing"], meta["snapshots"]) == (2, 1, 2)
    archive, _ = read_price_archive(first)
    assert archive[["model_id", "input", "output"]].values.tolist() == [["openai/gpt-4", 30.0, 60.0],
                                                                        ["anthropic/claude-2", 11.02, 32.68]]
