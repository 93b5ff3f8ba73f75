"""A real `oracle serve` started while the newest snapshot is damaged serves the older good one
and says `degraded`, naming both; a newer snapshot that is whole but senseless (spots left out of
its manifest, or published with no rows) is never switched to while it runs.

One server for the module: it starts on a warehouse whose pointer names a damaged snapshot, and
each test that publishes another broken one points back at the damaged one when it ends, so the
tests hold in any order."""

import json
import os
import shutil
import signal
import time
from pathlib import Path

import httpx
import pandas as pd
import pytest

from serve.settings import Settings
from tests.serve.test_snapshot_integrity import DAMAGES, SENSELESS, _pointer, _publish_broken, assert_said_degraded
from tests.servers import start_server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("snapshot_fallback")]  # one worker, one server

DAMAGED = "20991230T000000000000Z-damaged"


def _good_prices(root: Path, snapshot_id: str) -> dict[str, float]:
    spots = pd.read_parquet(root / snapshot_id / "spots.parquet")
    return dict(zip(spots["ticker"], spots["beta_sync"], strict=True))


@pytest.fixture(scope="module")
def server(built_warehouse, tmp_path_factory):
    """(client, warehouse, good snapshot id, its sync output prices) of a server started on a
    warehouse whose newest snapshot is damaged."""
    root = tmp_path_factory.mktemp("fallback") / "warehouse"
    shutil.copytree(built_warehouse, root)
    good = _pointer(root)["snapshot_id"]
    table, harm, _ = DAMAGES["2,000 random bytes"]
    _publish_broken(root, DAMAGED, lambda folder, manifest: harm(folder / f"{table}.parquet"))
    process, base = start_server(root, tmp_path_factory.mktemp("fallback-data"))
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            yield client, root, good, _good_prices(root, good)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _assert_serves(client: httpx.Client, good: str, prices: dict[str, float], *named: str) -> None:
    assert_said_degraded(client, good, *named)
    spots = client.get("/v1/spots")
    assert spots.status_code == 200, spots.text
    assert {row["ticker"]: row["beta_sync"] for row in spots.json()["data"]} == pytest.approx(prices)


def _point_at(root: Path, snapshot_id: str) -> None:
    """The pointer moved to a snapshot already on disk, replaced whole as a publish replaces it,
    and left for longer than the server waits between looks at it: its next request looks."""
    staged = root / "manifest.json.next"
    staged.write_text((root / snapshot_id / "manifest.json").read_text())
    os.replace(staged, root / "manifest.json")
    time.sleep(Settings().snapshot_poll_seconds + 0.1)


def test_a_restart_on_a_damaged_newest_snapshot_serves_the_older_good_one(server):
    client, root, good, prices = server
    assert _pointer(root)["snapshot_id"] == DAMAGED
    _assert_serves(client, good, prices, f"table backtest of snapshot {DAMAGED} does not match its checksum")


SENSELESS_IDS = {"spots left out of the manifest": "20991231T000000000000Z-nospots",
                 "spots with 0 rows": "20991231T000000000000Z-0spots"}


@pytest.mark.parametrize("senseless", SENSELESS_IDS)
def test_a_senseless_newer_snapshot_is_not_switched_to(server, senseless):
    client, root, good, prices = server
    broken, reason = SENSELESS[senseless]
    snapshot_id = SENSELESS_IDS[senseless]
    _publish_broken(root, snapshot_id, broken, move_pointer=False, source=good)  # a whole copy of the good one
    try:
        _point_at(root, snapshot_id)
        assert json.loads((root / "manifest.json").read_text())["snapshot_id"] == snapshot_id
        _assert_serves(client, good, prices, reason, f"snapshot {snapshot_id}")
    finally:
        _point_at(root, DAMAGED)
