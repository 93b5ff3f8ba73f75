"""A damaged snapshot is never served: every table is checked against the manifest before the
server switches to it, and the snapshot is checked for sense (the tables the API reads, rows in
those it cannot answer without, spots with prices). With a good snapshot serving, a newer damaged
or senseless one is refused and `/` says why; a server started on one serves the newest good
snapshot on disk and says so; a deleted pointer is said; with no good snapshot, `/health` is 503."""

import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from litestar.testing import TestClient

from serve.app import create_app
from serve.servable import NON_EMPTY_TABLES, OPTIONAL_TABLES_READ, SPOT_PRICE_COLUMNS, TABLES_READ
from tests.serve.conftest import api_settings
from warehouse.schemas import SCHEMAS, SPOTS

pytestmark = pytest.mark.slow  # faults injected: each test damages copies of the snapshot and loads them

FOREVER = 24 * 365 * 100  # hours: the snapshot is dated; keep it fresh whenever the tests run


def _pointer(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _publish_copy(root: Path, snapshot_id: str, **manifest_changes) -> Path:
    """A second snapshot: the current one's folder under a new id, and the pointer moved to it."""
    manifest = _pointer(root)
    shutil.copytree(root / manifest["snapshot_id"], root / snapshot_id)
    _publish_manifest(root, {**manifest, "snapshot_id": snapshot_id, **manifest_changes})
    return root / snapshot_id


def _publish_manifest(root: Path, manifest: dict, move_pointer: bool = True) -> None:
    """A snapshot's manifest in its folder, and (as a publish does) the same text as the pointer."""
    text = json.dumps(manifest)
    (root / manifest["snapshot_id"] / "manifest.json").write_text(text)
    if move_pointer:
        pointer = root / "manifest.json"
        pointer.write_text(text)
        # A new mtime even on a coarse clock, so the server sees the pointer move.
        stat = pointer.stat()
        os.utime(pointer, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))


def _random_bytes(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[100:2100] = os.urandom(2000)
    path.write_bytes(bytes(data))


DAMAGES = {
    "2,000 random bytes": ("backtest", _random_bytes, "does not match its checksum"),
    "truncated": ("events", lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
                  "does not match its checksum"),
    "empty": ("ici", lambda p: p.write_bytes(b""), "does not match its checksum"),
    "missing": ("spots", lambda p: p.unlink(), "is missing"),
}


def _rewritten(table: str, change):
    """A break that rewrites `table` through `change(arrow_table)`, its manifest entry made to match:
    a whole, checksummed file whose content makes no sense to the API."""
    def rewrite(folder: Path, manifest: dict) -> None:
        path = folder / f"{table}.parquet"
        pq.write_table(change(pq.read_table(path)), path)
        manifest["tables"][table].update(rows=pq.read_metadata(path).num_rows,
                                         sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    return rewrite


def _left_out(table: str):
    def leave_out(folder: Path, manifest: dict) -> None:
        del manifest["tables"][table]
        (folder / f"{table}.parquet").unlink()  # the folder holds what its manifest lists
    return leave_out


def _without_prices(spots: pa.Table) -> pa.Table:
    for column in SPOT_PRICE_COLUMNS:
        spots = spots.set_column(spots.schema.get_field_index(column), column, pa.nulls(len(spots), pa.float64()))
    return spots


SENSELESS = {
    "spots left out of the manifest": (_left_out("spots"), "lacks the table(s) the API reads: spots"),
    "greeks left out of the manifest": (_left_out("greeks"), "lacks the table(s) the API reads: greeks"),
    "spots with 0 rows": (_rewritten("spots", lambda t: t.slice(0, 0)), "has no rows in spots"),
    "models with 0 rows": (_rewritten("models", lambda t: t.slice(0, 0)), "has no rows in models"),
    "spots without prices": (_rewritten("spots", _without_prices), "spots without prices: beta_sync, input_sync"),
}


def _damaged(table: str, harm):
    return lambda folder, manifest: harm(folder / f"{table}.parquet")


# Every way a newer snapshot can be unservable: its bytes, or its sense. (break, what the reason says)
BREAKS = {**{f"damaged: {name}": (_damaged(table, harm), reason) for name, (table, harm, reason) in DAMAGES.items()},
          **{f"senseless: {name}": found for name, found in SENSELESS.items()}}


def _publish_broken(root: Path, snapshot_id: str, broken, move_pointer: bool = True, source: str | None = None) -> None:
    """A copy of snapshot `source` (the current one when None) under `snapshot_id`, broken by
    `broken(folder, manifest)`, and published as a refresh would (its manifest in its folder and,
    unless told not to, as the pointer)."""
    source = source or _pointer(root)["snapshot_id"]
    manifest = json.loads((root / source / "manifest.json").read_text())
    folder = root / snapshot_id
    shutil.copytree(root / source, folder)
    manifest = {**manifest, "snapshot_id": snapshot_id}
    broken(folder, manifest)
    _publish_manifest(root, manifest, move_pointer)


def _app(root: Path):
    return TestClient(create_app(api_settings(warehouse=str(root), stale_after_hours=FOREVER)))


@pytest.fixture(scope="module")
def good_spots(built_warehouse):
    """/v1/spots as the small universe's snapshot answers it, to tell the good snapshot serving."""
    with _app(built_warehouse) as client:
        return client.get("/v1/spots").json()["data"]


def assert_said_degraded(client, good: str, *named: str) -> None:
    """`/` and `/health` say degraded, naming the good snapshot served and each of `named`."""
    for path in ("/", "/health"):
        answer = client.get(path)
        assert answer.status_code == 200, answer.text
        body = answer.json()
        assert body["status"] == "degraded", body
        for text in (f"serving the last good one, {good}", *named):
            assert text in body["status_reason"], (text, body["status_reason"])


def _assert_serves_the_good_one(client, good: str, good_spots: list, *named: str) -> None:
    """`assert_said_degraded`, and the data endpoints answer from the good one."""
    assert_said_degraded(client, good, *named)
    spots = client.get("/v1/spots")
    assert spots.status_code == 200 and spots.json()["data"] == good_spots
    for path in ("/v1/models", "/v1/greeks", "/v1/forwards", "/v1/ici", "/v1/events"):
        assert client.get(path).status_code == 200, path


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_newer_snapshot_is_refused_and_the_last_good_one_serves(warehouse_copy, damage):
    table, harm, reason = DAMAGES[damage]
    good = _pointer(warehouse_copy)["snapshot_id"]
    with _app(warehouse_copy) as client:
        before = client.get(f"/v1/{'backtest' if table == 'backtest' else 'spots'}")
        assert client.get("/").json()["status"] == "ok"
        folder = _publish_copy(warehouse_copy, "20991231T000000000000Z-damaged")
        harm(folder / f"{table}.parquet")
        descriptor = client.get("/").json()
        assert descriptor["status"] == "degraded", descriptor
        assert reason in descriptor["status_reason"] and f"serving the last good one, {good}" in (
            descriptor["status_reason"])
        assert client.get("/health").status_code == 200
        after = client.get(f"/v1/{'backtest' if table == 'backtest' else 'spots'}")
        assert after.status_code == 200 and after.json()["data"] == before.json()["data"]
        for path in ("/v1/events", "/v1/ici", "/v1/spots", "/v1/backtest"):
            assert client.get(path).status_code == 200, path


@pytest.mark.parametrize("damage", DAMAGES)
def test_with_no_good_snapshot_health_is_503_and_says_why(warehouse_copy, damage):
    table, harm, reason = DAMAGES[damage]
    harm(warehouse_copy / _pointer(warehouse_copy)["snapshot_id"] / f"{table}.parquet")
    with _app(warehouse_copy) as client:
        health = client.get("/health")
        assert health.status_code == 503
        assert reason in health.json()["status_reason"] and "no good snapshot" in health.json()["status_reason"]
        spots = client.get("/v1/spots")
        assert spots.status_code == 503, spots.text


@pytest.mark.parametrize("snapshot_id", ["../../../etc", "..", "a/b", ".hidden"])
def test_a_snapshot_id_that_leaves_the_warehouse_is_refused(warehouse_copy, snapshot_id):
    with _app(warehouse_copy) as client:
        good = client.get("/v1/spots").json()["data"]
        pointer = warehouse_copy / "manifest.json"
        pointer.write_text(json.dumps({**_pointer(warehouse_copy), "snapshot_id": snapshot_id}))
        stat = pointer.stat()
        os.utime(pointer, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
        descriptor = client.get("/").json()
        assert descriptor["status"] == "degraded" and "invalid snapshot id" in descriptor["status_reason"]
        assert client.get("/v1/spots").json()["data"] == good


def test_a_manifest_naming_a_missing_snapshot_is_refused(warehouse_copy):
    with _app(warehouse_copy) as client:
        good = client.get("/v1/spots").json()["data"]
        folder = _publish_copy(warehouse_copy, "20991231T000000000000Z-gone")
        shutil.rmtree(folder)
        descriptor = client.get("/").json()
        assert descriptor["status"] == "degraded" and "is missing" in descriptor["status_reason"]
        assert client.get("/v1/spots").json()["data"] == good


def test_a_snapshot_written_before_a_column_was_added_is_refused_and_says_so(warehouse_copy):
    """A whole, checksummed table that lacks a column the server reads (events' `observed_on`, as
    an older version wrote it) is refused like a damaged one, never served into a 500."""
    import hashlib

    import pyarrow.parquet as pq

    good = _pointer(warehouse_copy)["snapshot_id"]
    with _app(warehouse_copy) as client:
        assert client.get("/").json()["status"] == "ok"
        folder = _publish_copy(warehouse_copy, "20991231T000000000000Z-older")
        events = folder / "events.parquet"
        pq.write_table(pq.read_table(events).drop_columns(["observed_on"]), events)
        pointer = _pointer(warehouse_copy)
        pointer["tables"]["events"]["sha256"] = hashlib.sha256(events.read_bytes()).hexdigest()
        (warehouse_copy / "manifest.json").write_text(json.dumps(pointer))
        descriptor = client.get("/").json()
        assert descriptor["status"] == "degraded"
        assert "table events of snapshot 20991231T000000000000Z-older lacks observed_on" in descriptor["status_reason"]
        assert "oracle refresh" in descriptor["status_reason"] and good in descriptor["status_reason"]
        assert client.get("/v1/events").status_code == 200


@pytest.mark.parametrize("senseless", SENSELESS)
def test_a_senseless_newer_snapshot_is_refused_and_the_last_good_one_serves(warehouse_copy, good_spots, senseless):
    """Whole and checksummed, yet the API cannot answer from it: refused like a damaged one."""
    broken, reason = SENSELESS[senseless]
    good = _pointer(warehouse_copy)["snapshot_id"]
    with _app(warehouse_copy) as client:
        assert client.get("/").json()["status"] == "ok"
        _publish_broken(warehouse_copy, "20991231T000000000000Z-senseless", broken)
        _assert_serves_the_good_one(client, good, good_spots, reason, "snapshot 20991231T000000000000Z-senseless")


@pytest.mark.parametrize("broken", BREAKS)
def test_a_start_on_a_broken_newest_snapshot_serves_the_newest_good_one(warehouse_copy, good_spots, broken):
    """A restart while the newest snapshot is damaged or senseless is no outage: the newest good
    snapshot on disk serves, and `/` names both."""
    good = _pointer(warehouse_copy)["snapshot_id"]
    harm, reason = BREAKS[broken]
    _publish_broken(warehouse_copy, "20991231T000000000000Z-broken", harm)
    with _app(warehouse_copy) as client:
        _assert_serves_the_good_one(client, good, good_spots, reason, "20991231T000000000000Z-broken")


def test_a_start_passes_over_every_broken_snapshot_to_the_newest_good_one(warehouse_copy, good_spots):
    good = _pointer(warehouse_copy)["snapshot_id"]
    for snapshot_id, broken in (("20991230T000000000000Z-empty", "senseless: spots with 0 rows"),
                                ("20991231T000000000000Z-damaged", "damaged: truncated")):
        _publish_broken(warehouse_copy, snapshot_id, BREAKS[broken][0], source=good)
    with _app(warehouse_copy) as client:
        _assert_serves_the_good_one(client, good, good_spots, "20991231T000000000000Z-damaged",
                                    "does not match its checksum")


def test_a_refusal_serves_a_newer_good_snapshot_on_disk_than_the_one_serving(warehouse_copy, good_spots):
    """The pointer moved past a good snapshot this server never saw, to a broken one: the newest
    good one on disk serves, not merely the one already serving."""
    with _app(warehouse_copy) as client:
        assert client.get("/").json()["status"] == "ok"
        _publish_broken(warehouse_copy, "20991230T000000000000Z-unseen", lambda folder, manifest: None,
                        move_pointer=False)
        _publish_broken(warehouse_copy, "20991231T000000000000Z-nospots", SENSELESS["spots left out of the manifest"][0])
        _assert_serves_the_good_one(client, "20991230T000000000000Z-unseen", good_spots, "lacks the table(s)")


def test_with_only_broken_snapshots_health_is_503_and_says_why(warehouse_copy):
    first = _pointer(warehouse_copy)["snapshot_id"]
    _publish_broken(warehouse_copy, "20991230T000000000000Z-empty", SENSELESS["spots with 0 rows"][0], source=first)
    _publish_broken(warehouse_copy, "20991231T000000000000Z-damaged", BREAKS["damaged: truncated"][0], source=first)
    BREAKS["damaged: truncated"][0](warehouse_copy / first, {})
    with _app(warehouse_copy) as client:
        health = client.get("/health")
        assert health.status_code == 503
        reason = health.json()["status_reason"]
        assert "no good snapshot to serve" in reason and "20991231T000000000000Z-damaged" in reason
        assert "no older snapshot on disk passes the checks either (2 tried" in reason
        assert client.get("/v1/spots").status_code == 503


def test_a_deleted_pointer_is_said_and_the_last_loaded_snapshot_serves(warehouse_copy, good_spots):
    good = _pointer(warehouse_copy)["snapshot_id"]
    pointer = warehouse_copy / "manifest.json"
    with _app(warehouse_copy) as client:
        assert client.get("/").json()["status"] == "ok"
        text = pointer.read_text()
        pointer.unlink()
        _assert_serves_the_good_one(client, good, good_spots, "the pointer manifest.json cannot be found")
        pointer.write_text(text)
        assert client.get("/").json()["status"] == "ok"


def test_a_start_without_a_pointer_serves_the_newest_good_snapshot_and_says_so(warehouse_copy, good_spots):
    good = _pointer(warehouse_copy)["snapshot_id"]
    (warehouse_copy / "manifest.json").unlink()
    with _app(warehouse_copy) as client:
        _assert_serves_the_good_one(client, good, good_spots, "the pointer manifest.json cannot be found")


def _tables_read_by_name(source: str) -> set[str]:
    """Table names the serving code reads as literals: `.table("x")`, and the helpers that take one."""
    readers = r"(?:\.table|table_records|record_of|_model_rows|_listed|_one|_table|published_table)"
    return set(re.findall(readers + r'\([^()]*?"([a-z_]+)"', source))


def test_every_table_the_handlers_read_is_in_the_one_list_of_what_a_snapshot_must_hold():
    serve = Path(__file__).resolve().parents[2] / "serve"
    read = set().union(*(_tables_read_by_name(path.read_text()) for path in serve.rglob("*.py")))
    assert {"spots", "models", "ici_published"} <= read  # the scan finds them at all
    assert read - TABLES_READ - OPTIONAL_TABLES_READ == set()
    assert NON_EMPTY_TABLES <= TABLES_READ <= set(SCHEMAS) and set(SPOT_PRICE_COLUMNS) <= set(SPOTS.names)
