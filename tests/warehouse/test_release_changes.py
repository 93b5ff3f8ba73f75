"""The shipped change file of model-prices and LiteLLM releases: its shape and provenance, a
replay of it against the current seeds, its checks on read, the script's sampling and change
rows, and the dated price changes it gives for four models against the providers' own dates."""

import json
from datetime import date
from importlib.resources import files

import pytest

from pipelines.ingest_litellm import litellm_listings
from pipelines.ingest_releases import genai_span_listings, release_change_listings
from pipelines.listings import same_price
from tests.warehouse.seeds import copy_seed, load_script, reseal
from warehouse.release_history import (
    PRICE_COLUMNS,
    RELEASE_CHANGES,
    RELEASE_CHANGES_COLUMNS,
    RELEASE_CHANGES_META,
    read_genai_release_history,
    read_release_changes,
)
from warehouse.seed_files import SEED_DIR, read_litellm_prices


@pytest.fixture(scope="module")
def shipped():
    return read_release_changes()


@pytest.fixture(scope="module")
def script():
    return load_script("build_release_changes")


@pytest.fixture(scope="module")
def listings(shipped):
    return release_change_listings(*shipped)


def _replayed(frame, source):
    """The last state of every series: what the last release read lists."""
    state = {}
    for row in frame[frame["source"] == source].itertuples(index=False):
        key = (row.provider, row.model_id, row.mode)
        if row.change == "delisted":
            state.pop(key, None)
        else:
            state[key] = tuple(None if v != v else v for v in (getattr(row, k) for k in PRICE_COLUMNS))
    return state


def _assert_same_prices(got, expected):
    """Equal keys, and prices equal to listings.PRICE_RTOL: a restatement that differs only in the
    last bits of a float (9.99999e-06 once written 9.999990000000002e-06) is no change."""
    assert set(got) == set(expected)
    assert [k for k in got if not all(same_price(a, b) for a, b in zip(got[k], expected[k]))] == []


# --- shape and provenance ---------------------------------------------------------------------

def test_the_file_reads_with_its_columns_and_counts(shipped):
    frame, meta = shipped
    assert len(frame) == meta["rows"] == 8221
    assert meta["columns"] == list(RELEASE_CHANGES_COLUMNS)
    counts = frame.groupby(["source", "change"]).size().to_dict()
    assert counts == {(s, c): n for s, by in meta["rows_by_source"].items() for c, n in by.items() if n}
    assert meta["rows_by_source"]["litellm"] == {"listed": 5147, "price": 1158, "delisted": 1120}
    assert meta["rows_by_source"]["model-prices"] == {"listed": 741, "price": 51, "delisted": 4}
    assert isinstance(frame["released"].iloc[0], date)
    assert (SEED_DIR / RELEASE_CHANGES).stat().st_size < 200_000


def test_every_model_prices_release_is_read(shipped):
    releases = shipped[1]["sources"]["model-prices"]["releases"]
    assert [r["version"] for r in releases] == ["0.0.1", "0.0.2", "0.0.3", "0.0.4", "0.0.5"]
    assert [r["member"] for r in releases] == ["model_prices/data/prices.json"] * 2 + ["model_prices/snapshot.json"] * 3
    assert [r["uploaded"][:10] for r in releases] == ["2026-10-01", "2026-10-03", "2026-10-04", "2026-10-08", "2026-10-26"]


def test_litellm_releases_run_from_the_first_with_the_map_to_the_seeds_release(shipped):
    litellm = shipped[1]["sources"]["litellm"]
    releases = litellm["releases"]
    assert len(releases) == 124
    assert (releases[0]["version"], releases[0]["uploaded"][:10]) == ("0.11.1", "2023-10-20")
    assert (releases[-1]["version"], releases[-1]["uploaded"][:10]) == ("1.110.2", "2026-11-20")
    uploaded = [r["uploaded"] for r in releases]
    assert uploaded == sorted(uploaded)
    for r in releases:
        assert len(r["sha256"]) == len(r["member_sha256"]) == 64 and r["file"].startswith(f"litellm-{r['version']}-")
    # The last release read is the one the litellm_prices seed was taken from: the same data file.
    seed_meta = json.loads((SEED_DIR / "litellm_prices.meta.json").read_text())
    assert seed_meta["source_version"] == releases[-1]["version"]
    assert seed_meta["package_file_sha256"] == releases[-1]["member_sha256"]


def test_litellm_releases_are_at_most_a_week_apart_except_the_listed_gaps(shipped):
    litellm = shipped[1]["sources"]["litellm"]
    days = [date.fromisoformat(r["uploaded"][:10]) for r in litellm["releases"]]
    versions = [r["version"] for r in litellm["releases"]]
    longer = [{"after": a, "before": b, "days": (d2 - d1).days}
              for a, b, d1, d2 in zip(versions, versions[1:], days, days[1:]) if (d2 - d1).days > 7]
    assert longer == litellm["gaps"]
    # The registry holds no LiteLLM release in between; later gaps are weeks without a stable release.
    assert longer[0] == {"after": "1.14.4", "before": "1.53.1", "days": 350}
    assert max(g["days"] for g in longer[1:]) == 18


def test_licences_and_attribution_ship_beside_the_file():
    assert "MIT License" in (SEED_DIR / "LICENSE.model-prices").read_text()
    assert "models.dev" in (SEED_DIR / "LICENSE.models.dev").read_text()
    assert "MIT License" in (SEED_DIR / "LICENSE.litellm").read_text()
    assert "# Attribution: release_changes.csv.gz" in (SEED_DIR / "ATTRIBUTION.md").read_text()


# --- replayed against the current seeds --------------------------------------------------------

def test_replaying_litellm_rows_gives_the_shipped_maps_listings(shipped):
    """Every change row applied in order ends at what 1.110.2's map gives, entry by entry."""
    entries, meta = read_litellm_prices()
    released = date.fromisoformat(meta["released"])
    expected = {}
    for entry in entries:
        entry = {k: v for k, v in entry.items() if k != "deprecation_date"}
        for listing in litellm_listings([entry], meta["source_version"], released):
            expected[(entry["litellm_provider"], entry["key"], listing.mode)] = tuple(
                getattr(listing, k) for k in PRICE_COLUMNS)
    _assert_same_prices(_replayed(shipped[0], "litellm"), expected)


def test_replaying_model_prices_rows_gives_the_installed_0_0_5(shipped, script):
    snapshot = json.loads((files("model_prices") / "snapshot.json").read_text())
    expected = script.model_prices_series(snapshot, script.MODEL_PRICES_RELEASES[-1])
    _assert_same_prices(_replayed(shipped[0], "model-prices"), expected)


# --- checks on read ----------------------------------------------------------------------------

def test_a_changed_file_fails_its_checksum(tmp_path):
    seed = copy_seed(tmp_path)
    data = bytearray((seed / RELEASE_CHANGES).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (seed / RELEASE_CHANGES).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="sha256"):
        read_release_changes(seed)


@pytest.mark.parametrize("row, message", [
    ("litellm,openai,o3,sync,1.0,2025-06-14,delisted,2.0,8.0,,", "delisted row states a price"),
    ("litellm,openai,o3,sync,1.0,2025-06-14,price,2.0,,,", "without an input and output"),
    ("litellm,openai,o3,flex,1.0,2025-06-14,price,2.0,8.0,,", "mode must be one of"),
    ("litellm,openai,o3,sync,1.0,2025-06-14,price,-2.0,8.0,,", "input must be"),
    ("litellm,openai,o3,sync,1.0,14/06/2025,price,2.0,8.0,,", "bad released"),
])
def test_a_damaged_row_is_a_value_error_naming_the_file(tmp_path, row, message):
    seed = copy_seed(tmp_path)
    content = ",".join(RELEASE_CHANGES_COLUMNS) + "\n" + row + "\n"
    reseal(seed, RELEASE_CHANGES, RELEASE_CHANGES_META, content.encode(), rows=1)
    with pytest.raises(ValueError, match=f"{RELEASE_CHANGES}.*{message}"):
        read_release_changes(seed)


# --- the script's sampling and change rows -------------------------------------------------------

def _release(script, version, day):
    return script.Release(version, f"litellm-{version}-py3-none-any.whl", "0" * 64, f"{day}T12:00:00Z")


def test_mainline_leaves_out_later_patches_of_older_branches(script):
    releases = [_release(script, v, d) for v, d in
                [("1.108.0", "2026-11-04"), ("1.109.0", "2026-11-11"), ("1.108.14", "2026-11-12"), ("1.110.0", "2026-11-18")]]
    assert [r.version for r in script.mainline(releases)] == ["1.108.0", "1.109.0", "1.110.0"]


def test_sample_takes_the_last_release_within_a_week_and_crosses_longer_gaps(script):
    days = ["2025-01-01", "2025-01-03", "2025-01-08", "2025-01-09", "2025-02-01", "2025-02-02"]
    releases = [_release(script, f"1.{i}.0", d) for i, d in enumerate(days)]
    # 01-09 is the last release before a longer gap, so it is read too; after the gap, the next one.
    assert [r.released for r in script.sample(releases)] == [
        "2025-01-01", "2025-01-08", "2025-01-09", "2025-02-01", "2025-02-02"]


def test_changes_writes_listed_repriced_and_delisted_rows(script):
    releases = [_release(script, f"1.{i}.0", f"2025-01-0{i + 1}") for i in range(3)]
    series = [{("openai", "o3", "sync"): (10.0, 40.0, 2.5, None), ("openai", "gone", "sync"): (1.0, 2.0, None, None)},
              {("openai", "o3", "sync"): (10.0, 40.0, 2.5, None)},
              {("openai", "o3", "sync"): (2.0, 8.0, 0.5, None), ("openai", "gone", "sync"): (1.0, 2.0, None, None)}]
    rows = script.changes("litellm", releases, series)
    assert [(r[2], r[4], r[6]) for r in rows] == [
        ("gone", "1.0.0", "listed"), ("gone", "1.1.0", "delisted"), ("gone", "1.2.0", "listed"),
        ("o3", "1.0.0", "listed"), ("o3", "1.2.0", "price")]
    assert rows[-1][7:] == (2.0, 8.0, 0.5, None)


def test_model_prices_first_data_format_is_laid_out_as_the_snapshot(script):
    v1 = {"schema_version": 1, "source_committed_at": "2026-09-30T20:30:47Z", "providers": {"anthropic": {
        "claude-opus-4-6": [{"commit": "fc63", "valid_from": "2026-04-08T04:47:19Z", "rates": {
            "input": 5.0, "output": 25.0, "cache_read": 0.5, "modes": {"fast": {"input": 30.0, "output": 150.0}}}}]}}}
    release = script.MODEL_PRICES_RELEASES[0]
    assert script.model_prices_series(script.snapshot_of(v1), release) == {
        ("anthropic", "claude-opus-4-6", "sync"): (5.0, 25.0, 0.5, None)}  # fast mode is another product


# --- dated price changes against the providers' own dates -----------------------------------------

def _history(listings, provider, model, source="litellm", mode="sync"):
    return [(r.effective_date, r.input, r.output) for r in listings
            if (r.source, r.provider, r.source_model_id, r.mode) == (source, provider, model, mode)]


def _days_after(measured: date, provider_day: date) -> int:
    return (measured - provider_day).days


@pytest.mark.slow  # replays the price map's releases
def test_o3_cut_is_dated_within_a_week_of_openais(listings):
    # Evidence: OpenAI cut o3 by 80% on 2025-06-10, $10/$40 to $2/$8 per million tokens
    # (https://community.openai.com/t/o3-is-80-cheaper-and-introducing-o3-pro/1284925; genai-prices
    # 0.2.3 dates its o3 price change 2025-06-10). LiteLLM 1.72.4 (2025-06-11) is the first release
    # with the cut; the weekly sample reads 1.72.2 (2025-06-07) and then 1.72.6 (2025-06-14).
    history = _history(listings, "openai", "o3")
    assert history == [(date(2025, 4, 19), 10.0, 40.0), (date(2025, 6, 14), 2.0, 8.0)]
    assert 0 <= _days_after(history[1][0], date(2025, 6, 10)) <= 7  # measured: 4 days


def test_deepseek_v3_promotion_end_is_dated_on_deepseeks_day(listings):
    # Evidence: DeepSeek-V3's launch note (https://api-docs.deepseek.com/news/news1226, 2024-12-26)
    # keeps the old $0.14/$0.28 until 2025-02-08 16:00 UTC, then $0.27/$1.10 (cache hit $0.07).
    history = _history(listings, "deepseek", "deepseek-chat")
    change = next(h for h in history if h[1:] == (0.27, 1.1))
    assert history[history.index(change) - 1][1:] == (0.14, 0.28)
    assert _days_after(change[0], date(2025, 2, 8)) == 0  # LiteLLM 1.60.7 and 1.60.8, both that day


def test_deepseek_v3_1_and_v3_2_repricings_reach_litellm_late(listings):
    """Not forced into the window: the data show LiteLLM lagging DeepSeek by weeks and months."""
    # Evidence: V3.1's note (https://api-docs.deepseek.com/news/news250821) sets $0.56/$1.68 from
    # 2025-09-05 16:00 UTC, ending the off-peak discount begun 2025-02-26 (model-prices 0.0.5's note
    # on deepseek-chat says the same); V3.2-Exp
    # (https://api-docs.deepseek.com/news/news250929) cuts it to $0.28/$0.42 on 2025-09-29. Weekly
    # releases cover both dates. LiteLLM kept `deepseek/deepseek-chat` at $0.27/$1.10 and first
    # stated a V3.1 price (rounded to $0.60/$1.70, under a re-added `deepseek-chat` key) in 1.77.5,
    # the V3.2 price in 1.81.0.
    history = _history(listings, "deepseek", "deepseek-chat")
    assert history[-2:] == [(date(2025, 9, 28), 0.6, 1.7), (date(2026, 1, 18), 0.28, 0.42)]
    assert _days_after(history[-2][0], date(2025, 9, 5)) == 23
    assert _days_after(history[-1][0], date(2025, 9, 29)) == 111


def test_gpt_4o_and_gemini_1_5_flash_changes_fall_in_the_registrys_gap(shipped, listings):
    """Not covered: no LiteLLM release on the registry between 2023-12-14 and 2024-11-28."""
    # Evidence: the `gpt-4o` alias moved from gpt-4o-2024-05-13 ($5/$15) to gpt-4o-2024-08-06
    # ($2.50/$10) on 2024-10-02 (OpenAI's model changelog, https://platform.openai.com/docs/changelog);
    # Google cut Gemini 1.5 Flash to $0.075/$0.30 (prompts up to 128K; -78% input) from 2024-08-12
    # (https://developers.googleblog.com/en/gemini-15-flash-updates-google-ai-studio-gemini-api/).
    gap = next(g for g in shipped[1]["sources"]["litellm"]["gaps"] if g["after"] == "1.14.4")
    assert gap["before"] == "1.53.1"
    # Neither model is in the maps before the gap; both are first listed after it at the new price.
    assert _history(listings, "openai", "gpt-4o") == [(date(2024, 11, 28), 2.5, 10.0)]
    assert _history(listings, "google", "gemini-1.5-flash") == [(date(2024, 11, 28), 0.075, 0.3)]


def test_genai_prices_and_model_prices_start_after_all_four_dates(listings):
    # genai-prices' first release is 2025-07-11, model-prices' 2026-10-01: both first list o3 at
    # the price after the cut, so neither dates a change of these four models.
    frame, meta = read_genai_release_history()
    genai = genai_span_listings(frame, meta["repository"])
    assert _history(genai, "openai", "o3", source="genai-prices") == [(date(2025, 7, 11), 2.0, 8.0)]
    assert _history(listings, "openai", "o3", source="model-prices") == [(date(2026, 10, 1), 2.0, 8.0)]
