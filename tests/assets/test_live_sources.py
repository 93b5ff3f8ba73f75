"""The live sources end to end: local servers answer in each upstream's real format (payloads cut
from real files, see tests/fixtures/upstreams/SOURCES.md), and the whole graph runs with
`ORACLE_LIVE_SOURCES` and the `ORACLE_SOURCE_URL_*` settings pointing at them.

Day 1 (2026-11-21) reads all four upstreams; each test then changes what the servers answer on
day 2 and refreshes again.
"""

import hashlib
import http.server
import json
import shutil
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import pytest
from dagster import AssetCheckSeverity, DagsterInstance, materialize
from litestar.testing import TestClient

from assets.live import FETCH_ASSETS, fetching
from assets.live_settings import LiveSources
from assets.refresh import refresh
from assets.resources import RefreshSettings, WarehouseResource
from pipelines.upstream_formats import OPENROUTER_ENDPOINTS, UPSTREAMS
from serve.app import create_app
from tests.serve.conftest import api_settings
from tests.small_universe import FLOORS, SmallUniverse
from warehouse.raw_store import FAILED, OK, RawStore
from warehouse.runs import last_run
from warehouse.snapshot import SnapshotStore
from warehouse.storage import Storage

# One worker runs the module, so the day-one warehouse every test copies is built once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("live_sources")]  # refreshes the graph, day after day

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upstreams"
DAY1, DAY2, DAY3 = "2026-11-21", "2026-11-22", "2026-11-23"
HAIKU, OPUS = "HAIKU-4.5", "OPUS-4.1"
LLAMA_ID = "meta-llama/llama-2-13b-chat"  # the one open-weight model of the OpenRouter cut
# Quick limits, and fetching for the tests' fixed past days (a run fetches only for today otherwise).
FAST = dict(timeout_seconds=0.5, retries=1, backoff_seconds=0.0, max_bytes=200_000, past_days=True)


def _load(name: str):
    return json.loads((FIXTURES / name).read_text())


class Upstreams(http.server.BaseHTTPRequestHandler):
    """Serves `routes`: path → bytes, or a fault: 500, "slow" (no answer in time), "truncated"
    (half the body of the path's last good payload) or "huge" (over the size cap)."""

    routes: dict[str, object] = {}

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802 (the standard library's name)
        answer = Upstreams.routes.get(self.path)
        if answer is None:
            return self.send_error(404)
        if answer == 500:
            return self.send_error(500)
        if answer == "slow":
            time.sleep(1.2)
            answer = b"{}"
        if answer == "huge":
            answer = b" " * 300_000
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(answer)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up waiting ("slow"): what the test is about


def payloads(genai=None, litellm=None, openrouter=None, model_prices=None) -> dict[str, object]:
    """The routes for one day: the fixtures, or the edited payloads given (a fault stays as is)."""
    def body(value, fixture):
        value = _load(fixture) if value is None else value
        return value if isinstance(value, (int, str)) and not isinstance(value, bool) else json.dumps(value).encode()

    snapshot = body(model_prices, "model_prices_snapshot.json")
    routes = {
        "/genai/data.json": body(genai, "genai_prices_data.json"),
        "/litellm/model_prices_and_context_window.json": body(litellm, "litellm_model_prices.json"),
        "/openrouter/api/v1/models": body(openrouter, "openrouter_models.json"),
        f"/openrouter/api/v1/models/{LLAMA_ID}/endpoints": body(None, "openrouter_endpoints.json"),
    }
    if isinstance(snapshot, bytes):
        digest = hashlib.sha256(snapshot).hexdigest()
        routes["/model-prices/latest.json"] = json.dumps({"sha256": digest}).encode()
        routes[f"/model-prices/{digest}.json"] = snapshot
    else:
        routes["/model-prices/latest.json"] = snapshot
    return routes


def genai_with(*edits: tuple[str, dict]) -> list:
    """genai-prices' fixture with each (model id, prices) edit applied."""
    data = _load("genai_prices_data.json")
    for model_id, prices in edits:
        for model in data[0]["models"]:
            if model["id"] == model_id:
                model["prices"].update(prices)
    return data


@pytest.fixture(scope="module")
def upstream(tmp_path_factory):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Upstreams)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def live_env(upstream):
    """The settings an operator sets, pointing every upstream at the local servers."""
    patch = pytest.MonkeyPatch()
    patch.setenv("ORACLE_LIVE_SOURCES", ",".join(UPSTREAMS))
    patch.setenv("ORACLE_SOURCE_URL_GENAI_PRICES", f"{upstream}/genai/data.json")
    patch.setenv("ORACLE_SOURCE_URL_LITELLM", f"{upstream}/litellm/model_prices_and_context_window.json")
    patch.setenv("ORACLE_SOURCE_URL_OPENROUTER", f"{upstream}/openrouter/api/v1/models")
    patch.setenv("ORACLE_SOURCE_URL_MODEL_PRICES", f"{upstream}/model-prices/")
    yield upstream
    patch.undo()


def run(root: Path | str, day: str, routes: dict | None = None, replay: bool = False) -> bool:
    if routes is not None:
        Upstreams.routes = routes
    return refresh(str(root), day, write=lambda line: None, replay=replay, live=LiveSources(**FAST),
                   sources=SmallUniverse(), floors=FLOORS)


@pytest.fixture(scope="module")
def day_one(live_env, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("live") / "warehouse"
    assert run(root, DAY1, payloads())
    return root


def copy_of(root: Path, folder: Path) -> Path:
    target = folder / "warehouse"
    shutil.copytree(root, target)
    return target


@pytest.fixture
def warehouse(day_one, tmp_path) -> Path:
    return copy_of(day_one, tmp_path)


CUT = "claude-haiku-4-5", {"input_mtok": 0.8}  # input, against 1.0
TENFOLD = "claude-opus-4-1", {"output_mtok": 750}  # output, against 75


@pytest.fixture(scope="module")
def day_two(day_one, live_env, tmp_path_factory) -> Path:
    """Day two, on which genai-prices cuts HAIKU-4.5's input 1.0 → 0.8 and, alone, prints
    OPUS-4.1's output ten times over: a cut published and a print held, each with its own
    outcome (read only)."""
    root = copy_of(day_one, tmp_path_factory.mktemp("day-two"))
    assert run(root, DAY2, payloads(genai=genai_with(CUT, TENFOLD)))
    return root


def table(root: Path, name: str) -> pd.DataFrame:
    return SnapshotStore(root).read_table(name)


def spot(root: Path, ticker: str) -> pd.Series:
    spots = table(root, "spots")
    return spots[spots["ticker"] == ticker].iloc[0]


def served(root: Path) -> dict:
    with TestClient(create_app(api_settings(warehouse=str(root), stale_after_hours=1e6))) as client:
        return client.get("/").json()


def test_day_one_reads_every_upstream_and_keeps_what_it_read(day_one, live_env):
    fetches = table(day_one, "source_fetches")
    assert sorted(fetches["source"]) == sorted([*UPSTREAMS, OPENROUTER_ENDPOINTS])
    assert set(fetches["outcome"]) == {OK}
    by_source = fetches.set_index("source")
    assert by_source.at[OPENROUTER_ENDPOINTS, "url"] == f"{live_env}/openrouter/api/v1/models/{LLAMA_ID}/endpoints"
    assert by_source.at["genai-prices", "url"] == f"{live_env}/genai/data.json"
    assert by_source.at["genai-prices", "models"] == 4 and by_source.at["openrouter", "models"] == 6
    raw = RawStore(day_one)
    for source in UPSTREAMS:
        record = raw.last_good(source)
        assert hashlib.sha256(raw.body(record)).hexdigest() == record.sha256 == by_source.at[source, "sha256"]
    genai_bytes = (FIXTURES / "genai_prices_data.json").read_bytes()
    assert raw.body(raw.last_good("genai-prices")) == json.dumps(json.loads(genai_bytes)).encode()
    assert served(day_one)["status"] == "ok"
    # OpenRouter's priced entries are host listings; the router (-1) and the free variant (0) are not.
    openrouter = table(day_one, "openrouter_prices")
    listed = openrouter[openrouter["provider"] == "openrouter"]
    assert sorted(listed["source_model_id"]) == ["gryphe/mythomax-l2-13b", "intel/neural-chat-7b",
                                                 "jebcarter/psyfighter-13b", LLAMA_ID]
    mythomax = listed.set_index("source_model_id").loc["gryphe/mythomax-l2-13b"]
    assert mythomax["input"] == pytest.approx(0.18, rel=1e-12) and mythomax["provenance"] == "current"
    # Its endpoint list: each host's cheapest endpoint is that host's offer; the router row is none.
    hosts = openrouter[openrouter["provider"] != "openrouter"].set_index("provider")
    assert sorted(hosts.index) == ["deepinfra", "lepton", "together"]
    assert set(hosts["source_model_id"]) == {LLAMA_ID}
    assert hosts.loc[["deepinfra", "lepton", "together"], "input"].tolist() == pytest.approx([0.1, 0.3, 0.22],
                                                                                            rel=1e-12)


def test_a_price_cut_between_two_fetches_is_an_event_on_the_day_it_was_seen(day_two, live_env):
    warehouse = day_two
    events = table(warehouse, "events")
    cut = events[(events["ticker"] == HAIKU) & (events["kind"] == "price_cut")
                 & (events["effective_date"] == pd.Timestamp(DAY2).date())]
    assert len(cut) == 1, events[events["ticker"] == HAIKU]
    cut = cut.iloc[0]
    assert (cut["field"], cut["before"], cut["after"]) == ("input", 1.0, 0.8)
    assert cut["source"] == "genai-prices" and cut["source_url"] == f"{live_env}/genai/data.json"
    assert spot(warehouse, HAIKU)["input_sync"] == 0.8
    # The snapshot says what it changed: one price, and the event it emitted.
    changes = SnapshotStore(warehouse).current().extra["changes"]
    assert (changes["prices_changed"], changes["prices_changed_first"]) == (1, [HAIKU])
    assert changes["events.price_cut"] == 1 and changes["models_added"] == changes["models_removed"] == 0
    history = table(warehouse, "price_history")
    days = history[(history["ticker"] == HAIKU) & (history["mode"] == "sync")].set_index("date")
    for day, provenance, price in ((DAY1, "archived", 1.0), (DAY2, "current", 0.8)):
        point = days.loc[pd.Timestamp(day).date()]
        assert (point["provenance"], point["source"], point["input"]) == (provenance, "genai-prices", price)
        assert point["source_url"] == f"{live_env}/genai/data.json"


def test_replay_rebuilds_an_identical_snapshot_from_the_kept_copies(day_two, live_env, tmp_path):
    warehouse = copy_of(day_two, tmp_path)
    first = SnapshotStore(warehouse).current()
    Upstreams.routes = {}  # the upstreams are gone: a replay fetches nothing
    assert run(warehouse, DAY2, replay=True)
    second = SnapshotStore(warehouse).current()
    assert second.snapshot_id != first.snapshot_id
    assert {n: t.sha256 for n, t in second.tables.items()} == {n: t.sha256 for n, t in first.tables.items()}
    # The same record of the day, but for what each changed against the snapshot before it: a
    # replay of the day changes nothing.
    assert {k: v for k, v in second.extra.items() if k != "changes"} == {
        k: v for k, v in first.extra.items() if k != "changes"}
    assert first.extra["changes"]["prices_changed"] == 1 and second.extra["changes"]["prices_changed"] == 0
    assert second.extra["changes"]["events"] == 0
    assert len(table(warehouse, "source_fetches")) == 10  # no fetch was made or recorded


FETCH_FAULTS = [
    (500, "server error 500"),
    ("slow", "timed out"),
    ("truncated", "invalid payload"),
    ("huge", "over the cap"),
    # The right shape, but not what genai-prices' own reader accepts: refused before any run reads it.
    (b'[{"id": "anthropic", "models": [{"id": "claude-haiku-4-5", "prices": "cheap"}]}]', "its parser refused"),
]


def _faulty(fault) -> dict:
    """Day 2's routes with genai-prices' answer replaced by `fault` (a cut nobody will read)."""
    routes = payloads(genai=genai_with(CUT))
    good = routes["/genai/data.json"]
    routes["/genai/data.json"] = good[: len(good) // 2] if fault == "truncated" else fault
    return routes


def fetch_only(warehouse: Path | str, day: str, live: LiveSources, *sources: str):
    """The fetch assets alone (of `sources`, else every one), as the UI materialises them."""
    chosen = [FETCH_ASSETS[source] for source in sources] or list(FETCH_ASSETS.values())
    return materialize(chosen, instance=DagsterInstance.ephemeral(), resources={
        "warehouse": WarehouseResource(root=str(warehouse)), "settings": RefreshSettings(as_of=day),
        "live": live, "sources": SmallUniverse()})


@pytest.mark.parametrize(("fault", "reason"), FETCH_FAULTS)
def test_a_failed_fetch_is_recorded_with_why_and_the_last_good_copy(warehouse, live_env, fault, reason):
    """The fetcher alone, for each fault; what a refresh makes of a failed fetch is the next test."""
    Upstreams.routes = _faulty(fault)
    assert fetch_only(warehouse, DAY2, LiveSources(**FAST), "genai-prices").success
    record = RawStore(warehouse).on_day("genai-prices", DAY2)[-1]
    assert record.outcome == FAILED and reason in record.reason and record.fallback
    assert record.fallback == RawStore(warehouse).last_good("genai-prices").fetched_at  # day 1's copy
    if isinstance(Upstreams.routes["/genai/data.json"], bytes):  # a body read whole is kept as it came, refused or not
        assert RawStore(warehouse).body(record) == Upstreams.routes["/genai/data.json"]


@pytest.fixture(scope="module")
def day_two_faults(day_one, live_env, tmp_path_factory) -> Path:
    """Day two with two faults of two sources, each with its own outcome: genai-prices answers
    500 (its cut is read by nobody), and LiteLLM lists 2 of its 5 priced entries (read only)."""
    root = copy_of(day_one, tmp_path_factory.mktemp("faults"))
    fewer = _load("litellm_model_prices.json")
    for key in DROPPED:
        del fewer[key]
    routes = payloads(litellm=fewer)
    routes["/genai/data.json"] = _faulty(500)["/genai/data.json"]
    assert run(root, DAY2, routes)  # the other sources go on
    return root


DROPPED = ("claude-sonnet-4-5", "gpt-4o", "deepseek/deepseek-chat")  # 2 of its 5 priced entries stay


def test_a_failed_fetch_falls_back_to_the_last_good_copy(day_two_faults, live_env):
    warehouse, reason = day_two_faults, "server error 500"
    record = RawStore(warehouse).on_day("genai-prices", DAY2)[-1]
    assert record.outcome == FAILED and reason in record.reason and record.fallback
    assert spot(warehouse, HAIKU)["input_sync"] == 1.0  # day 1's copy, not the cut nobody read
    descriptor = served(warehouse)
    assert descriptor["status"] == "degraded"
    assert "genai-prices" in descriptor["status_reason"] and reason in descriptor["status_reason"]


def test_a_tenfold_print_from_one_source_is_held(day_two, live_env):
    warehouse = day_two
    assert spot(warehouse, OPUS)["beta_sync"] == 75.0  # not published
    events = table(warehouse, "events")
    held = events[(events["ticker"] == OPUS) & (events["kind"] == "unconfirmed")]
    assert held[["field", "before", "after"]].values.tolist() == [["output", 75.0, 750.0]]
    assert held.iloc[0]["effective_date"] == pd.Timestamp(DAY2).date()
    disputes = table(warehouse, "price_disputes")
    row = disputes[(disputes["ticker"] == OPUS) & (disputes["rule"] == "unconfirmed")]
    assert row["value"].tolist() == [750.0] and "held until" in row.iloc[0]["reason"]
    with TestClient(create_app(api_settings(warehouse=str(warehouse), stale_after_hours=1e6))) as client:
        listed = client.get("/v1/events", params={"kind": "unconfirmed", "since": DAY1}).json()["data"]["events"]
    assert [(e["ticker"], e["after"]) for e in listed] == [(OPUS, 750.0)]


def test_a_held_print_the_next_fetch_repeats_is_confirmed_on_the_day_it_was_first_seen(day_two, live_env, tmp_path):
    warehouse = copy_of(day_two, tmp_path)
    assert run(warehouse, DAY3, payloads(genai=genai_with(CUT, TENFOLD)))
    assert spot(warehouse, OPUS)["beta_sync"] == 750.0
    events = table(warehouse, "events")
    rise = events[(events["ticker"] == OPUS) & (events["kind"] == "price_increase")]
    assert rise["effective_date"].tolist() == [pd.Timestamp(DAY2).date()]
    assert not (events["kind"] == "unconfirmed").any()


def test_a_source_that_drops_half_its_models_is_a_broken_fetch(day_two_faults, day_one, live_env):
    warehouse = day_two_faults
    record = RawStore(warehouse).on_day("litellm", DAY2)[-1]
    assert record.outcome == FAILED and "not a mass retirement" in record.reason and record.models == 2
    status = table(warehouse, "models").set_index("ticker")["status"]
    assert status.equals(table(day_one, "models").set_index("ticker")["status"])  # none retired by the drop
    for model_id in DROPPED:
        observations = table(day_one, "price_observations")
        ticker = observations.loc[observations["provider_model_id"] == model_id, "ticker"].iloc[0]
        assert spot(warehouse, ticker)["beta_sync"] == spot(day_one, ticker)["beta_sync"]
    assert "litellm" in served(warehouse)["status_reason"]


def test_every_source_down_publishes_nothing(warehouse, live_env):
    before = (warehouse / "manifest.json").read_bytes()
    assert not run(warehouse, DAY2, {path: 500 for path in payloads()})
    assert (warehouse / "manifest.json").read_bytes() == before
    # Stopped as soon as the fetches were known, before any source was read.
    assert last_run(warehouse).detail.startswith("source_fetches failed: every live source failed")
    descriptor = served(warehouse)
    assert descriptor["status"] == "degraded" and "every live source failed" in descriptor["status_reason"]


def test_the_live_sources_are_off_by_default(monkeypatch):
    monkeypatch.delenv("ORACLE_LIVE_SOURCES", raising=False)
    assert LiveSources().enabled() == ()
    assert LiveSources(sources="openrouter, litellm").enabled() == ("litellm", "openrouter")


def test_the_fetch_assets_show_what_they_read_in_the_dagster_ui(warehouse, live_env):
    routes = payloads()
    routes["/litellm/model_prices_and_context_window.json"] = 500
    Upstreams.routes = routes
    result = fetch_only(warehouse, DAY2, LiveSources(**FAST))
    shown = {source: result.asset_materializations_for_node(asset.op.name)[0].metadata
             for source, asset in FETCH_ASSETS.items()}
    genai = shown["genai-prices"]
    assert genai["bytes"].value == len(routes["/genai/data.json"]) and genai["models"].value == 4
    assert genai["fallback_used"].value is False
    assert genai["fetched_at"].value == RawStore(warehouse).on_day("genai-prices", DAY2)[-1].fetched_at
    # Each fetch's data version is its body's content hash, so a new catalogue is "upstream changed".
    versions = {source: result.asset_materializations_for_node(asset.op.name)[0].tags["dagster/data_version"]
                for source, asset in FETCH_ASSETS.items()}
    assert versions["genai-prices"] == "sha256:" + hashlib.sha256(routes["/genai/data.json"]).hexdigest()[:16]
    assert versions["litellm"] == "not read"  # failed: the source stays on its last good copy
    assert shown["openrouter"]["endpoint_lists"].value == 1 and shown["openrouter"]["endpoint_lists_failed"].value == 0
    litellm = shown["litellm"]
    assert litellm["fallback_used"].value is True and "server error 500" in litellm["reason"].value
    assert litellm["fallback_copy"].value == RawStore(warehouse).last_good("litellm").fetched_at
    # A failed fetch is a warning on its step, never green; a good one passes.
    checks = {e.asset_key.to_user_string(): e for e in result.get_asset_check_evaluations()}
    assert not checks["fetch_litellm"].passed and checks["fetch_litellm"].severity == AssetCheckSeverity.WARN
    assert "server error 500" in checks["fetch_litellm"].description
    assert checks["fetch_litellm"].description.endswith(f"using its last good copy of {litellm['fallback_copy'].value}")
    assert checks["fetch_genai_prices"].passed and checks["fetch_genai_prices"].description.startswith("read 4 models")
    # Off unless enabled: the asset says so and reads nothing.
    off = fetch_only(warehouse, DAY3, LiveSources(sources="litellm", **FAST), "openrouter")
    assert off.asset_materializations_for_node("fetch_openrouter")[0].metadata["read"].value == "not enabled"
    [skipped] = [e for e in off.get_asset_check_evaluations() if e.asset_key.to_user_string() == "fetch_openrouter"]
    assert skipped.passed and skipped.description == "not read: not enabled"
    assert RawStore(warehouse).on_day("openrouter", DAY3) == []


def test_a_failed_endpoint_list_keeps_its_hosts_last_good_offers_and_a_model_one_source_stops_listing_is_not_retired(
        warehouse, day_one, live_env):
    """Two faults of two sources on one day, each with its own outcome: OpenRouter's endpoint list
    fails, and genai-prices stops listing one of its four models (3 of 4: not a broken fetch)."""
    fewer = _load("genai_prices_data.json")
    fewer[0]["models"] = [m for m in fewer[0]["models"] if m["id"] != "claude-3-opus-latest"]
    routes = payloads(genai=fewer)
    routes[f"/openrouter/api/v1/models/{LLAMA_ID}/endpoints"] = 500
    assert run(warehouse, DAY2, routes)

    record = RawStore(warehouse).on_day(OPENROUTER_ENDPOINTS, DAY2)[-1]
    assert record.outcome == FAILED and "server error 500" in record.reason
    hosts = table(warehouse, "openrouter_prices")
    hosts = hosts[hosts["provider"] != "openrouter"]
    assert sorted(hosts["provider"]) == ["deepinfra", "lepton", "together"]  # day 1's copy, still current
    assert set(hosts["effective_date"]) == {pd.Timestamp(DAY1).date()} and set(hosts["provenance"]) == {"current"}
    reason = served(warehouse)["status_reason"]
    assert "openrouter-endpoints" in reason and "1 of 1 endpoint lists failed" in reason

    assert RawStore(warehouse).on_day("genai-prices", DAY2)[-1].outcome == OK
    observations = table(warehouse, "price_observations")
    ticker = observations.loc[observations["provider_model_id"] == "claude-3-opus-latest", "ticker"].iloc[0]
    events = table(warehouse, "events")
    gone = events[(events["kind"] == "unconfirmed") & (events["ticker"] == ticker)]
    assert gone[["field", "before"]].values.tolist() == [["listed", 75.0]]
    assert gone.iloc[0]["effective_date"] == pd.Timestamp(DAY2).date()
    status = table(warehouse, "models").set_index("ticker")["status"]
    assert status.equals(table(day_one, "models").set_index("ticker")["status"])
    assert spot(warehouse, ticker)["beta_sync"] == spot(day_one, ticker)["beta_sync"]


def test_raw_copies_live_on_the_same_storage_as_the_snapshots_an_fsspec_url(live_env):
    """The fetch assets alone, into a warehouse named by a URL (a whole refresh into one is
    tests/warehouse/test_warehouse_fsspec.py)."""
    url = f"memory://oracle-{uuid.uuid4().hex}/snapshots"
    Upstreams.routes = payloads()
    try:
        assert fetch_only(url, DAY1, LiveSources(**FAST)).success
        raw = RawStore(url)
        for source in UPSTREAMS:
            record = raw.last_good(source)
            assert record.as_of == DAY1 and hashlib.sha256(raw.body(record)).hexdigest() == record.sha256
        genai = raw.last_good("genai-prices")
        assert Storage(url).exists(Storage(url).join("raw", "genai-prices", "blobs", f"{genai.sha256}.json"))
        assert len(raw.records(OPENROUTER_ENDPOINTS)) == 1
    finally:
        storage = Storage(url)
        storage.remove(storage.root)


def test_a_run_for_another_day_fetches_nothing(monkeypatch):
    monkeypatch.setenv("ORACLE_LIVE_SOURCES", "litellm")
    today = datetime.now(UTC).date().isoformat()
    assert fetching(LiveSources(), RefreshSettings(as_of=today))
    assert not fetching(LiveSources(), RefreshSettings(as_of="2026-01-05"))  # a backfill: kept copies only
    assert not fetching(LiveSources(), RefreshSettings(as_of=today, replay=True))
    assert fetching(LiveSources(past_days=True), RefreshSettings(as_of="2026-01-05"))
