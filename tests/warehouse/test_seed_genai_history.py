"""The shipped genai-prices release history: real facts read from it, a cross-check of its last
release against the installed genai-prices 0.2.3, its checks on read, and the span folding of
the script that builds it."""

import gzip
import importlib.metadata
import importlib.util
import math
from datetime import UTC, date, datetime

import pandas as pd
import pytest

from tests.warehouse.seeds import copy_seed, load_script, reseal
from warehouse.release_history import (
    GENAI_RELEASE_HISTORY,
    GENAI_RELEASE_HISTORY_META,
    read_genai_release_history,
)
from warehouse.seed_files import SEED_DIR

PRICES = ("input", "output", "cache_read", "cache_write")


@pytest.fixture(scope="module")
def history():
    return read_genai_release_history()


def _spans(frame, provider_id, model_id):
    return frame[(frame["provider_id"] == provider_id) & (frame["model_id"] == model_id)]


def test_the_file_reads_and_covers_every_release_to_0_2_3(history):
    frame, meta = history
    assert len(frame) == meta["rows"] == 3046
    assert meta["releases"] == len(meta["versions"]) == len(meta["release_files"]) == 78
    assert (meta["versions"][0], meta["versions"][-1]) == ("0", "0.2.3")
    assert (meta["source"], meta["licence"]) == ("genai-prices", "MIT")
    assert meta["repository"] == "https://github.com/pydantic/genai-prices"
    assert frame["first_released"].min() == date(2025, 7, 11)  # release "0"
    assert frame["last_released"].max() == date(2026, 11, 10)  # release 0.2.3
    assert isinstance(frame["first_released"].iloc[0], date)
    assert frame.groupby(["provider_id", "model_id"]).ngroups == 2597


def test_kimi_k2_turbo_preview_has_been_1_15_and_8_since_0_0_56(history):
    # Evidence: every release from 0.0.56 (uploaded 2026-03-20) to 0.2.3 lists it at these prices,
    # and no release before 0.0.56 lists it at all. 0.1.5 (2026-08-31) first flags it deprecated,
    # which starts a second span at the same prices.
    spans = _spans(history[0], "moonshotai", "kimi-k2-turbo-preview")
    assert len(spans) == 2
    first, span = spans.iloc[0], spans.iloc[-1]
    assert (first["first_version"], first["first_released"], first["last_version"]) == (
        "0.0.56", date(2026, 3, 20), "0.1.4")
    assert pd.isna(first["deprecated"])
    assert (span["first_version"], span["first_released"]) == ("0.1.5", date(2026, 8, 31))
    assert (span["last_version"], span["last_released"]) == ("0.2.3", date(2026, 11, 10))
    for row in (first, span):
        assert (row["input"], row["output"], row["cache_read"]) == (1.15, 8.0, 0.15)
        assert math.isnan(row["cache_write"])
    assert bool(span["deprecated"]) is True


def test_old_openai_and_anthropic_models_are_listed_from_the_first_release(history):
    # Evidence: release "0", uploaded 2025-07-11, already lists these; it is the earliest release,
    # so the data can only say "since 2025-07-11 at the latest".
    frame, _ = history
    ada = _spans(frame, "openai", "ada").iloc[0]
    assert (ada["first_version"], ada["first_released"]) == ("0", date(2025, 7, 11))
    assert (ada["input"], ada["output"]) == (0.4, 0.4)
    gpt4 = _spans(frame, "openai", "gpt-4").iloc[0]
    assert (gpt4["first_released"], gpt4["input"], gpt4["output"]) == (date(2025, 7, 11), 30.0, 60.0)
    opus = _spans(frame, "anthropic", "claude-3-opus-latest").iloc[0]
    assert (opus["first_released"], opus["input"], opus["output"]) == (date(2025, 7, 11), 15.0, 75.0)


def test_a_price_change_between_releases_splits_the_span(history):
    # Evidence: openai gpt-5.6-terra is 2.5/15 in 0.0.72..0.1.0 and 2/12 from 0.1.1 (2026-08-01).
    spans = _spans(history[0], "openai", "gpt-5.6-terra")
    last_two = spans.iloc[-2:][["last_version", "first_version", "input", "output"]]
    assert last_two.iloc[0]["last_version"] == "0.1.0"
    assert (last_two.iloc[0]["input"], last_two.iloc[0]["output"]) == (2.5, 15.0)
    assert last_two.iloc[1]["first_version"] == "0.1.1"
    assert (last_two.iloc[1]["input"], last_two.iloc[1]["output"]) == (2.0, 12.0)


def test_time_of_day_prices_are_taken_at_midday_utc(history):
    # deepseek-chat's default price is off-peak (0.135/0.55); 12:00 UTC falls in its
    # 00:30-16:30 UTC window, whose price is 0.27/1.10.
    span = _spans(history[0], "deepseek", "deepseek-chat").iloc[-1]
    assert (span["input"], span["output"]) == (0.27, 1.1)


@pytest.mark.slow  # reads every price of the installed package
def test_every_model_in_0_2_3_ends_there_at_the_installed_package_prices(history):
    """Cross-checks the wheel loader against the real package, model by model."""
    from genai_prices import data_snapshot

    assert importlib.metadata.version("genai-prices") == "0.2.3"
    frame, meta = history
    upload = next(r["uploaded"] for r in meta["release_files"] if r["version"] == "0.2.3")
    noon = datetime.fromisoformat(upload[:10]).replace(hour=12, tzinfo=UTC)
    last = frame.drop_duplicates(["provider_id", "model_id"], keep="last").set_index(
        ["provider_id", "model_id"]
    )
    ending = last[last["last_version"] == "0.2.3"]

    installed = {}
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            price = model.get_prices(noon)
            installed.setdefault((provider.id, model.id), tuple(
                None if (v := getattr(price, f"{key}_mtok", None)) is None
                else float(getattr(v, "base", v))
                for key in PRICES
            ))
    assert set(installed) == set(ending.index)
    mismatches = [
        (key, want, got)
        for key, want in installed.items()
        if want != (got := tuple(None if math.isnan(v) else v for v in ending.loc[key, list(PRICES)]))
    ]
    assert mismatches == []


def test_licence_and_attribution_ship_beside_the_file():
    assert "MIT License" in (SEED_DIR / "LICENSE.genai-prices").read_text()
    assert "genai_release_history.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()


def _rewrite(seed, edit):
    """Edit the CSV text and re-seal the checksum, so only the content check can object."""
    text = gzip.decompress((seed / GENAI_RELEASE_HISTORY).read_bytes()).decode()
    reseal(seed, GENAI_RELEASE_HISTORY, GENAI_RELEASE_HISTORY_META, edit(text).encode())


def test_a_damaged_file_is_a_value_error_naming_it(tmp_path):
    seed = copy_seed(tmp_path)
    raw = bytearray((seed / GENAI_RELEASE_HISTORY).read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    (seed / GENAI_RELEASE_HISTORY).write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=GENAI_RELEASE_HISTORY):
        read_genai_release_history(seed)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda t: t.replace(",1.15,8.0,", ",-1.15,8.0,", 1), "input must be a finite number"),
        (lambda t: t.replace(",2026-03-20,", ",2026-13-20,", 1), "bad first_released"),
        (lambda t: t.replace("provider_id,", "provider,", 1), "missing columns"),
        (lambda t: "\n".join(t.splitlines()[:-1]) + "\n", "rows but"),
    ],
)
def test_bad_content_with_a_matching_checksum_is_a_value_error(tmp_path, edit, message):
    seed = copy_seed(tmp_path)
    _rewrite(seed, edit)
    with pytest.raises(ValueError, match=message):
        read_genai_release_history(seed)


def test_a_missing_file_is_file_not_found(tmp_path):
    seed = copy_seed(tmp_path)
    (seed / GENAI_RELEASE_HISTORY).unlink()
    with pytest.raises(FileNotFoundError):
        read_genai_release_history(seed)


def test_spans_split_on_a_price_change_and_on_a_gap():
    script = load_script("build_genai_release_history")
    entry = {"provider_id": "p", "model_id": "m", "deprecated": None, "name": "M",
             "context_window": None, "aliases": ["m"]}

    def listed(*prices):
        return {("p", "m"): {**entry, "prices": prices}}

    rows = script.spans([listed(1.0, 2.0, None, None), listed(1.0, 2.0, None, None),
                         listed(0.5, 2.0, None, None), {}, listed(0.5, 2.0, None, None)])
    versions = [script.RELEASES[i].version for i in range(5)]
    assert [(r[2], r[4], r[6]) for r in rows] == [
        (versions[0], versions[1], 1.0), (versions[2], versions[2], 0.5),
        (versions[4], versions[4], 0.5),
    ]
    assert len(script.RELEASES) == 78 and script.RELEASES[-1].version == "0.2.3"
