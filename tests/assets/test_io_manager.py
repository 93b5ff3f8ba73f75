"""The Parquet IO manager on its own: an asset's frame is staged with its schema and row count,
and an input that this run did not produce is read from the published snapshot."""

from datetime import UTC, date, datetime

import pandas as pd
import pytest
from dagster import asset, materialize

from assets.io_manager import ParquetIOManager
from assets.resources import WarehouseResource
from warehouse.snapshot import SnapshotStore

ROW = {"ticker": "SONNET-4", "provider": "anthropic", "provider_model_id": "claude-sonnet-4-20250514",
       "is_origin": True, "mode": "sync", "effective_date": date(2026, 11, 22), "input": 3.0, "output": 15.0,
       "cache_read": 0.3, "cache_write": 3.75, "reasoning": None, "tiers": None, "source": "genai-prices",
       "source_version": "0.2.3", "source_url": None, "provenance": "current"}


@asset(name="providers")
def providers_table():
    return pd.DataFrame([ROW])


@asset(name="providers_count")
def count_providers(providers):
    return len(providers)


def _resources(root):
    warehouse = WarehouseResource(root=str(root))
    return {"io_manager": ParquetIOManager(warehouse=warehouse)}


@pytest.mark.slow  # materialises through Dagster
def test_an_asset_is_staged_with_its_row_count_and_path(tmp_path):
    result = materialize([providers_table], resources=_resources(tmp_path))
    metadata = result.asset_materializations_for_node("providers")[0].metadata
    assert metadata["dagster/row_count"].value == 1
    assert metadata["preview"].value.splitlines()[0] == "| " + " | ".join(list(ROW)[:12]) + " |"
    staged = SnapshotStore(tmp_path).read_staged(result.run_id, "providers")
    assert staged.iloc[0]["ticker"] == "SONNET-4" and staged.iloc[0]["output"] == 15.0
    assert metadata["staged_at"].value.endswith(f"{result.run_id}/providers.parquet")


@pytest.mark.slow  # materialises through Dagster
def test_an_input_not_produced_in_the_run_comes_from_the_published_snapshot(tmp_path):
    store = SnapshotStore(tmp_path)
    store.write_table("earlier-run", "providers", pd.DataFrame([ROW, {**ROW, "provider": "aws", "is_origin": False}]))
    store.publish("earlier-run", datetime(2026, 11, 22, 6, tzinfo=UTC), ["providers"])

    class CountOnly(ParquetIOManager):
        def handle_output(self, context, obj):  # the count is not a table; only inputs are under test
            context.add_output_metadata({"count": obj})

    result = materialize([providers_table.to_source_asset(), count_providers],
                         resources={"io_manager": CountOnly(warehouse=WarehouseResource(root=str(tmp_path)))})
    assert result.asset_materializations_for_node("providers_count")[0].metadata["count"].value == 2
