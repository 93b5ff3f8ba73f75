"""Injected faults: each leaves the last good snapshot serving, byte for byte, with `/` saying
`degraded` and why; the next good run recovers.

Faults: a missing and a corrupt source file, an asset that raises in the middle of the run, a
write error while publishing, and the refresh process killed (SIGKILL) while publishing.
"""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from litestar.testing import TestClient

import warehouse.runs
import warehouse.storage
from assets.publish import without_paths
from cli import main
from serve.app import create_app
from serve.state import SnapshotState
from tests.assets.test_publish_failures import _run
from tests.conftest import AS_OF
from tests.serve.conftest import api_settings
from tests.small_universe import SmallUniverse, kept_rows
from warehouse.runs import last_run
from warehouse.seed_files import PRICE_ARCHIVE, SEED_DIR, read_price_archive
from warehouse.snapshot import SnapshotStore

pytestmark = pytest.mark.slow  # refreshes that fail, and refreshes killed

ROOT = Path(__file__).resolve().parents[2]


class ArchiveFrom(SmallUniverse):
    """The real reader, pointed at a copy of the seed folder that a test has damaged."""

    seed_dir: str

    def price_archive(self):
        archive, meta = read_price_archive(Path(self.seed_dir))
        return kept_rows(archive), meta


class FailingRules(SmallUniverse):
    """Fails in the middle of the run: the registry's rules are read after the three sources."""

    def seed_table(self, name):
        if name == "model_rules":
            raise RuntimeError("model_rules.csv could not be read")
        return super().seed_table(name)


def _damaged_seed(tmp_path, damage) -> str:
    seed = tmp_path / "seed"
    shutil.copytree(SEED_DIR, seed)
    damage(seed / PRICE_ARCHIVE)
    return str(seed)


def _served(root: Path) -> tuple[dict, bytes]:
    """What a fresh server on `root` says at `/`, and its /v1/spots data."""
    with TestClient(create_app(api_settings(warehouse=str(root), stale_after_hours=1e6))) as client:
        spots = client.get("/v1/spots")
        assert spots.status_code == 200
        return client.get("/").json(), json.dumps(spots.json()["data"]).encode()


def _assert_previous_snapshot_serves(root: Path, before: tuple[bytes, bytes], reason: str) -> None:
    manifest, spots = before
    assert (root / "manifest.json").read_bytes() == manifest
    descriptor, served_spots = _served(root)
    assert served_spots == spots
    assert descriptor["status"] == "degraded" and reason in descriptor["status_reason"], descriptor
    assert "/tmp/" not in descriptor["status_reason"] and str(ROOT) not in descriptor["status_reason"]


def test_failure_reasons_name_files_but_not_where_they_are():
    assert without_paths("price_archive failed: [Errno 2] No such file or directory: "
                         "'/srv/oracle/seed/price_archive.csv.gz'") == (
        "price_archive failed: [Errno 2] No such file or directory: 'price_archive.csv.gz'")
    assert without_paths(r"failed: C:\data\keys.sqlite3 locked; 1/2 done") == "failed: keys.sqlite3 locked; 1/2 done"


def _before(root: Path) -> tuple[bytes, bytes]:
    return (root / "manifest.json").read_bytes(), _served(root)[1]


def _recovers(root: Path) -> None:
    """The next good run publishes a new snapshot, records itself ok, and the API says so too."""
    previous = SnapshotStore(root).current().snapshot_id
    assert _run(root).success
    assert SnapshotStore(root).current().snapshot_id != previous
    assert last_run(root).status == "ok"
    descriptor, _ = _served(root)
    assert descriptor["status"] == "ok", descriptor


@pytest.mark.parametrize("damage, reason", [
    (lambda path: path.unlink(), "No such file"),
    (lambda path: path.write_bytes(path.read_bytes()[:5000]), "price_archive failed"),  # cut short
    (lambda path: path.write_bytes(b"\x1f\x8b not really gzip"), "price_archive failed"),
])
def test_a_missing_or_corrupt_source_file(warehouse_copy, tmp_path, damage, reason):
    """The next good run after a failure: `_recovers`."""
    before = _before(warehouse_copy)
    result = _run(warehouse_copy, sources=ArchiveFrom(seed_dir=_damaged_seed(tmp_path, damage)))
    assert not result.success
    _assert_previous_snapshot_serves(warehouse_copy, before, reason)


def _broken_copy(built_warehouse: Path, folder: Path, breaking) -> tuple[Path, tuple[bytes, bytes],
                                                                         warehouse.runs.RunStatus]:
    """A copy of the session's warehouse in `folder`, broken by `breaking(root)` (a run that fails
    or is killed): the copy, what it served before, and the run record the breaking left."""
    root = folder / "warehouse"
    shutil.copytree(built_warehouse, root)
    before = _before(root)
    breaking(root)
    return root, before, last_run(root)


@pytest.fixture(scope="module")
def raised_mid_run(built_warehouse, tmp_path_factory):
    """A copy on which a run failed in the middle (read only): `_broken_copy`."""
    def fail(root: Path) -> None:
        assert not _run(root, sources=FailingRules()).success

    return _broken_copy(built_warehouse, tmp_path_factory.mktemp("raised-mid-run"), fail)


MID_RUN_FAILURE = pytest.mark.xdist_group("raised_mid_run")  # one worker, one failed run for both


@MID_RUN_FAILURE
def test_an_asset_that_raises_mid_run_fails_the_run(raised_mid_run):
    root, before, failed = raised_mid_run
    _assert_previous_snapshot_serves(root, before, "models failed: model_rules.csv could not be read")
    assert failed.status == "failed"
    assert _staged(root) == [failed.run_id]  # what it staged stays until the next run


@MID_RUN_FAILURE
def test_the_run_after_an_asset_raised_recovers_and_what_the_failed_run_staged_is_gone(raised_mid_run, tmp_path):
    root = tmp_path / "warehouse"
    shutil.copytree(raised_mid_run[0], root)
    _recovers(root)
    assert _staged(root) == []


def test_a_write_error_while_publishing(warehouse_copy, monkeypatch):
    before = _before(warehouse_copy)

    def disk_full(source, target):
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(warehouse.storage.os, "rename", disk_full)
    result = _run(warehouse_copy)
    monkeypatch.undo()
    assert not result.success
    # The next run after a publish that did not finish: test_the_run_after_one_killed_while_publishing_….
    _assert_previous_snapshot_serves(warehouse_copy, before, "snapshot failed: [Errno 28] No space left on device")


KILLED_IN_PUBLISH = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {root!r})
    import warehouse.storage
    from assets.refresh import refresh
    from tests.small_universe import FLOORS, SmallUniverse

    real_rename = os.rename
    def rename_then_die(source, target):
        real_rename(source, target)  # the new snapshot folder is in place; the pointer is not
        os.kill(os.getpid(), signal.SIGKILL)
    warehouse.storage.os.rename = rename_then_die
    refresh({warehouse!r}, {as_of!r}, write=lambda line: None, sources=SmallUniverse(), floors=FLOORS)
""")


def _killed(script: str):
    """What breaks a copy by running a refresh script on it that kills itself with SIGKILL."""
    def run(root: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k != "DAGSTER_HOME"}
        done = subprocess.run([sys.executable, "-c", script.format(root=str(ROOT), warehouse=str(root), as_of=AS_OF)],
                              cwd=ROOT, env=env, capture_output=True, timeout=600)
        assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]

    return run


@pytest.fixture(scope="module")
def killed_in_publish(built_warehouse, tmp_path_factory):
    """A copy on which a refresh was killed while publishing (read only): `_broken_copy`."""
    return _broken_copy(built_warehouse, tmp_path_factory.mktemp("killed-in-publish"), _killed(KILLED_IN_PUBLISH))


IN_PUBLISH = pytest.mark.xdist_group("killed_in_publish")  # one worker, one killed warehouse for both


@IN_PUBLISH
def test_a_refresh_killed_while_publishing(killed_in_publish):
    root, before, record = killed_in_publish
    assert record.status == "publishing" and record.pid > 0
    _assert_previous_snapshot_serves(root, before, "was cut short while publishing")
    # A record of another host's run is believed until it is older than a publish can take.
    elsewhere = warehouse.runs.RunStatus("publishing", datetime.now(UTC), "", "r", "another-host", 1)
    assert not elsewhere.interrupted(datetime.now(UTC))
    assert elsewhere.interrupted(datetime.now(UTC) + timedelta(minutes=11))
    state = SnapshotState(root, timedelta(days=1e4))
    assert state.freshness().status == "degraded"


@IN_PUBLISH
def test_the_run_after_one_killed_while_publishing_publishes_and_says_ok(killed_in_publish, tmp_path):
    root = tmp_path / "warehouse"
    shutil.copytree(killed_in_publish[0], root)
    _recovers(root)



KILLED_MID_RUN = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {root!r})
    import warehouse.snapshot
    from assets.refresh import refresh
    from tests.small_universe import FLOORS, SmallUniverse

    real_write = warehouse.snapshot.SnapshotStore.write_table
    def write_then_die(self, run_id, name, frame):
        out = real_write(self, run_id, name, frame)
        if name == "price_observations":  # some tables staged, nothing published
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    warehouse.snapshot.SnapshotStore.write_table = write_then_die
    refresh({warehouse!r}, {as_of!r}, write=lambda line: None, sources=SmallUniverse(), floors=FLOORS)
""")


def _staged(root: Path) -> list[str]:
    staging = root / ".staging"
    return sorted(p.name for p in staging.iterdir()) if staging.exists() else []


@pytest.fixture(scope="module")
def killed_mid_run(built_warehouse, tmp_path_factory):
    """As `killed_in_publish`, for a refresh killed before publishing, with some tables staged."""
    return _broken_copy(built_warehouse, tmp_path_factory.mktemp("killed-mid-run"), _killed(KILLED_MID_RUN))


MID_RUN = pytest.mark.xdist_group("killed_mid_run")


@MID_RUN
def test_a_refresh_killed_before_publishing_leaves_a_trace(killed_mid_run):
    root, before, record = killed_mid_run
    assert record.status == "running" and record.pid > 0
    assert _staged(root) == [record.run_id]  # what it staged is still there
    _assert_previous_snapshot_serves(root, before, "was cut short while running")


@MID_RUN
def test_the_run_after_one_killed_before_publishing_removes_what_it_left(killed_mid_run, tmp_path):
    root = tmp_path / "warehouse"
    shutil.copytree(killed_mid_run[0], root)
    run_id = killed_mid_run[2].run_id
    assert _staged(root) == [run_id]
    assert _run(root).success  # the next run sees the dead run and removes what it left
    assert _staged(root) == []


def test_refresh_clean_removes_leftovers_no_running_refresh_owns_before_it_refreshes(warehouse_copy, capsys,
                                                                                      monkeypatch):
    """The command's cleaning, then its refresh; what a refresh does with a dead run's leftovers is
    the test above, so the refresh here only says what it found when it started."""
    import assets.refresh

    found: list[list[str]] = []

    def refresh(warehouse, as_of, **options):
        found.append(_staged(Path(warehouse)))
        return True

    monkeypatch.setattr(assets.refresh, "refresh", refresh)
    for run in ("old-run-1", "old-run-2"):
        (warehouse_copy / ".staging" / run).mkdir(parents=True)
        (warehouse_copy / ".staging" / run / "spots.parquet").write_bytes(b"x" * 1000)
    assert main(["refresh", "--clean", "--warehouse", str(warehouse_copy), "--as-of", AS_OF]) == 0
    assert "Removed 2 staging folders no running refresh owns: old-run-1, old-run-2" in capsys.readouterr().out
    assert found == [[]] and _staged(warehouse_copy) == []
