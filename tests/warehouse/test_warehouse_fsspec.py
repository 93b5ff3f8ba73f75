"""The warehouse named by an fsspec URL: the whole pipeline writes into fsspec's in-memory
filesystem (standing in for an object store), and the API serves from it what it serves from a
local folder. The store's own rules are tested on every backend in test_warehouse_snapshot.py."""

import uuid
from datetime import UTC, datetime, timedelta

import pandas as pd
import pyarrow as pa
import pytest
from litestar.testing import TestClient

import serve.state
from assets.refresh import refresh
from serve.app import create_app
from serve.servable import Servable
from serve.state import REMOTE_POLL_SECONDS, SnapshotState
from tests.assets.test_publish_failures import MissingArchive, _run
from tests.conftest import AS_OF
from tests.serve.conftest import api_settings
from tests.small_universe import FLOORS, SmallUniverse
from warehouse.runs import last_run
from warehouse.snapshot import SnapshotStore
from warehouse.storage import Storage

# Refreshes into an in-memory filesystem, once: one worker runs the module.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("memory_filesystem")]

# The small universe, as the session's `built_warehouse` on a local folder.
FOREVER = 24 * 365 * 100  # hours: the snapshot is dated, and must stay `ok` whenever tests run


@pytest.fixture(scope="module")
def memory_warehouse():
    url = f"memory://oracle-{uuid.uuid4().hex}/snapshots"
    lines = []
    assert refresh(url, AS_OF, write=lines.append, sources=SmallUniverse(), floors=FLOORS), "\n".join(lines)
    assert lines[0] == f"Refreshing the warehouse at {url}"
    yield url
    storage = Storage(url)
    storage.remove(storage.root)


def _served(warehouse: str, *paths: str) -> list[dict]:
    settings = api_settings(warehouse=warehouse, stale_after_hours=FOREVER)
    with TestClient(create_app(settings)) as client:
        answers = [client.get(path) for path in paths]
    assert all(answer.status_code == 200 for answer in answers), [answer.text for answer in answers]
    return [answer.json() for answer in answers]


def test_a_refresh_publishes_every_table_into_the_in_memory_filesystem(memory_warehouse, store):
    remote = SnapshotStore(memory_warehouse)
    manifest, local = remote.current(), store.current()
    assert sorted(manifest.tables) == sorted(local.tables)
    assert {"processes", "change_laws", "forward_curves", "backtest_reliability", "accuracy"} <= set(manifest.tables)
    assert remote.snapshots() == [manifest.snapshot_id]
    # The index's record names the build that published each level: when and which snapshot.
    per_build = ["published_at", "revised_at", "snapshot_id"]
    for name in manifest.tables:
        assert manifest.tables[name].rows == local.tables[name].rows, name
        remote_table, local_table = (t.drop(columns=per_build, errors="ignore") for t in (
            remote.read_table(name), store.read_table(name)))
        pd.testing.assert_frame_equal(remote_table, local_table, obj=name)
    assert set(remote.read_table("ici_published")["snapshot_id"]) == {manifest.snapshot_id}
    assert last_run(remote.storage).status == "ok"
    assert not Storage(memory_warehouse).entries(remote.storage.join(".staging"))  # published, then cleared


def test_the_api_serves_the_same_answers_from_the_in_memory_filesystem(memory_warehouse, built_warehouse):
    paths = ["/", "/v1/spots/SONNET-4", "/v1/forwards/O3", "/v1/forwards/GEMINI-3.6-FLASH", "/v1/ici",
             "/v1/history/GPT-4O", "/v1/backtest", "/v1/accuracy",
             "/v1/monte-carlo/LLAMA-3.2-1B?taskCategory=chat&horizonMonths=3&paths=2000&seed=1"]
    from_memory = _served(memory_warehouse, *paths)
    from_disk = _served(str(built_warehouse), *paths)
    assert from_memory[0]["status"] == "ok", from_memory[0]
    for path, remote, local in zip(paths[1:], from_memory[1:], from_disk[1:], strict=True):
        assert remote["data"] == local["data"], path


def test_a_failed_run_on_object_storage_leaves_the_last_snapshot_serving(memory_warehouse):
    before = SnapshotStore(memory_warehouse).current()
    assert not _run(memory_warehouse, sources=MissingArchive()).success
    assert SnapshotStore(memory_warehouse).current() == before
    assert last_run(memory_warehouse).status == "failed"
    descriptor, spots = _served(memory_warehouse, "/", "/v1/spots/SONNET-4")
    assert descriptor["status"] == "degraded" and "price_archive failed" in descriptor["status_reason"]
    assert spots["data"]["ticker"] == "SONNET-4"


NOTES = {"notes": pa.schema([pa.field("note", pa.string(), nullable=False)])}


def test_the_server_looks_at_an_object_store_pointer_on_an_interval(monkeypatch):
    url = f"memory://oracle-{uuid.uuid4().hex}"
    writer = SnapshotStore(url, schemas=NOTES)
    moment = datetime(2026, 11, 22, 6, tzinfo=UTC)

    def publish(run_id: str, note: str):
        writer.write_table(run_id, "notes", pd.DataFrame({"note": [note]}))
        return writer.publish(run_id, moment + timedelta(hours=len(note)), ["notes"])

    first = publish("run-one", "a")
    clock = [1000.0]
    monkeypatch.setattr(serve.state.time, "monotonic", lambda: clock[0])
    state = SnapshotState(url, timedelta(hours=FOREVER), servable=Servable())
    assert state.current().snapshot_id == first.snapshot_id

    second = publish("run-two", "bb")
    clock[0] += REMOTE_POLL_SECONDS / 2  # within the interval the pointer is not read again
    assert state.current().snapshot_id == first.snapshot_id
    clock[0] += REMOTE_POLL_SECONDS
    assert state.current().snapshot_id == second.snapshot_id
    assert state.current().table("notes")["note"].tolist() == ["bb"]
    Storage(url).remove(Storage(url).root)
