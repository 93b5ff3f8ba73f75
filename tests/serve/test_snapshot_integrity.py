"""A damaged snapshot is never served: every table is checked against the manifest before the
server switches to it. With a good snapshot serving, a newer damaged one is refused and `/` says
why; with no good snapshot, `/health` is 503."""

import json
import os
import shutil
from pathlib import Path

import pytest
from litestar.testing import TestClient

from serve.app import create_app
from tests.serve.conftest import api_settings

FOREVER = 24 * 365 * 100  # hours: the snapshot is dated; keep it fresh whenever the tests run


def _pointer(root: Path) -> dict:
    return json.loads((root / "manifest.json").read_text())


def _publish_copy(root: Path, snapshot_id: str, **manifest_changes) -> Path:
    """A second snapshot: the current one's folder under a new id, and the pointer moved to it."""
    manifest = _pointer(root)
    shutil.copytree(root / manifest["snapshot_id"], root / snapshot_id)
    pointer = root / "manifest.json"
    pointer.write_text(json.dumps({**manifest, "snapshot_id": snapshot_id, **manifest_changes}))
    # A new mtime even on a coarse clock, so the server sees the pointer move.
    stat = pointer.stat()
    os.utime(pointer, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    return root / snapshot_id


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


def _app(root: Path):
    return TestClient(create_app(api_settings(warehouse=str(root), stale_after_hours=FOREVER)))


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
