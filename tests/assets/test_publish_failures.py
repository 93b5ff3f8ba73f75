"""A source that fails or a check that fails stops the run before publishing; the last good
snapshot stays in place, byte for byte. The good run after a failure: tests/e2e/test_faults.py."""

import pytest

from assets.definitions import ASSETS, CHECKS, build_resources
from assets.resources import RefreshSettings, WarehouseResource
from tests.conftest import AS_OF
from tests.small_universe import FLOORS, TICKERS, SmallUniverse
from warehouse.runs import last_run
from warehouse.snapshot import SnapshotStore

pytestmark = pytest.mark.slow  # runs the whole refresh job


class MissingArchive(SmallUniverse):
    def price_archive(self):
        raise FileNotFoundError("warehouse/seed/price_archive.csv.gz")


def _run(root, settings=None, sources=None):
    """The refresh job on the small universe (or `sources`) into `root`."""
    resources = build_resources(WarehouseResource(root=str(root)), settings or RefreshSettings(as_of=AS_OF, **FLOORS),
                                sources or SmallUniverse())
    return defs_with(resources).resolve_job_def("refresh").execute_in_process(raise_on_error=False)


def defs_with(resources):
    from dagster import Definitions

    from assets.definitions import refresh_job
    return Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[refresh_job], resources=resources)


def _fingerprint(root):
    return (root / "manifest.json").read_bytes()


def test_a_source_that_fails_to_load_stops_the_run_before_publishing(warehouse_copy):
    before = _fingerprint(warehouse_copy)
    result = _run(warehouse_copy, sources=MissingArchive())
    assert not result.success
    assert "snapshot" not in {e.asset_key.path[-1] for e in result.get_asset_materialization_events()}
    assert _fingerprint(warehouse_copy) == before
    assert len(SnapshotStore(warehouse_copy).read_table("models")) == len(TICKERS)
    status = last_run(warehouse_copy)
    assert status.status == "failed" and "price_archive failed" in status.detail


def test_a_failing_blocking_check_stops_the_run_before_publishing(warehouse_copy):
    before = _fingerprint(warehouse_copy)
    result = _run(warehouse_copy, settings=RefreshSettings(as_of=AS_OF, min_tickers=100_000))
    assert not result.success
    failed = [e for e in result.get_asset_check_evaluations() if not e.passed]
    assert [e.check_name for e in failed] == ["coverage_floor"]
    assert _fingerprint(warehouse_copy) == before
    assert last_run(warehouse_copy).status == "failed"
