"""The bundled inputs are observed sources: a package upgrade or an edited seed file is a new data
version, which the UI shows as "upstream changed" on the source assets built from the old one."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from dagster import AssetKey, AssetSelection, DagsterInstance, Definitions, define_asset_job

from assets.definitions import ASSETS, CHECKS, build_resources, defs
from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from assets.upstream import BUNDLED
from tests.conftest import AS_OF
from warehouse.seed_files import LITELLM_PRICES, LITELLM_PRICES_META, PRICE_ARCHIVE, SEED_DIR


def test_each_bundled_input_is_its_version_and_the_hash_of_the_files_it_reads():
    files = PriceSources().bundled_files()
    assert set(files) == set(BUNDLED)
    version, (litellm,) = files["litellm_prices_file"]
    meta = json.loads((SEED_DIR / LITELLM_PRICES_META).read_text())
    # The file is the one its provenance record names, by the hash the record gives.
    assert (litellm, version) == (SEED_DIR / LITELLM_PRICES, meta["source_version"])
    assert hashlib.sha256(litellm.read_bytes()).hexdigest() == meta["file_sha256"]
    assert files["genai_prices_package"][1][0].name == "data.py"
    assert "makers.csv" in {path.name for path in files["curated_tables"][1]}


def test_the_refresh_observes_the_bundled_inputs_before_any_source_is_read():
    job = defs.resolve_job_def("refresh")
    structure = job.graph.dependency_structure
    for source in ("genai_prices", "model_prices", "price_archive", "litellm_prices"):
        assert "bundled_inputs" in {output.node.name for output in structure.all_upstream_outputs_from_node(source)}


class EditedArchive(PriceSources):
    """The sources, with the archive read from a copy the test can edit."""

    archive: str

    def bundled_files(self):
        files = super().bundled_files()
        return {**files, "price_archive_file": (files["price_archive_file"][0], [Path(self.archive)])}


@pytest.mark.slow  # observes every input twice through Dagster
def test_an_edited_seed_file_is_a_new_version_of_that_input_alone(tmp_path):
    copy = tmp_path / PRICE_ARCHIVE
    shutil.copy(SEED_DIR / PRICE_ARCHIVE, copy)
    observe = define_asset_job("observe", selection=AssetSelection.keys(*BUNDLED))
    build = define_asset_job("build", selection=AssetSelection.keys("price_archive"))
    resources = build_resources(WarehouseResource(root=str(tmp_path / "warehouse")), RefreshSettings(as_of=AS_OF),
                                EditedArchive(archive=str(copy)))
    run = Definitions(assets=ASSETS, asset_checks=CHECKS, jobs=[observe, build], resources=resources).resolve_job_def
    instance = DagsterInstance.ephemeral()

    def versions():
        return {name: instance.get_latest_data_version_record(AssetKey(name)).asset_observation.tags["dagster/data_version"]
                for name in BUNDLED}

    assert run("observe").execute_in_process(instance=instance).success
    before = versions()
    assert before["price_archive_file"] == "0.1.0:" + hashlib.sha256(copy.read_bytes()).hexdigest()[:16]
    assert run("build").execute_in_process(instance=instance).success
    built = instance.get_latest_materialization_event(AssetKey("price_archive")).asset_materialization
    assert built.tags["dagster/input_data_version/price_archive_file"] == before["price_archive_file"]

    copy.write_bytes(copy.read_bytes() + b"\n")
    assert run("observe").execute_in_process(instance=instance).success
    after = versions()
    # The archive asset was built from a version that is no longer the latest: upstream changed.
    assert after["price_archive_file"] != built.tags["dagster/input_data_version/price_archive_file"]
    assert {name for name in BUNDLED if after[name] != before[name]} == {"price_archive_file"}
