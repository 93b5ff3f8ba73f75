"""The Parquet IO manager and tables too large to hold whole: an asset that returns `TableParts`
is staged a part at a time, and an input annotated `TableFile` is handed over unread, staged in
this run or published before it."""

from datetime import UTC, date, datetime

import pandas as pd
import pytest
from dagster import asset, materialize

from assets.io_manager import ParquetIOManager
from assets.resources import WarehouseResource
from warehouse.large_tables import TableFile, TableParts
from warehouse.snapshot import SnapshotStore


def day(ticker: str, n: int, output: float) -> dict:
    return {"ticker": ticker, "mode": "sync", "date": date(2026, 11, n), "input": 1.0, "output": output,
            "source": "genai-prices", "source_version": "0.2.3", "provenance": "current",
            "observed_on": date(2026, 11, 20)}


PARTS = [pd.DataFrame([day("A", 21, 2.0), day("A", 22, 2.0)]), pd.DataFrame([day("B", 22, 5.0)])]


@asset(name="price_history")
def history_in_parts():
    return TableParts(iter(PARTS))


@asset(name="spots")
def read_as_a_frame(price_history):
    return price_history[["ticker"]]


@asset(name="events")
def read_in_parts(price_history: TableFile):
    assert isinstance(price_history, TableFile)
    return price_history.read(columns=["ticker"], where=[("date", "==", date(2026, 11, 22))])


class TickersOnly(ParquetIOManager):
    def handle_output(self, context, obj):  # only the history is a table here; the readers say what they read
        if context.asset_key.path[-1] == "price_history":
            return super().handle_output(context, obj)
        context.add_output_metadata({"tickers": ",".join(obj["ticker"])})


def _tickers(result, name):
    return result.asset_materializations_for_node(name)[0].metadata["tickers"].value


def _resources(root):
    return {"io_manager": TickersOnly(warehouse=WarehouseResource(root=str(root)))}


@pytest.mark.slow  # materialises through Dagster
def test_parts_are_staged_one_row_group_each_and_read_whole_or_in_parts(tmp_path):
    result = materialize([history_in_parts, read_as_a_frame, read_in_parts], resources=_resources(tmp_path))
    assert result.asset_materializations_for_node("price_history")[0].metadata["dagster/row_count"].value == 3
    staged = SnapshotStore(tmp_path).staged_file(result.run_id, "price_history")
    assert [len(part) for part in staged.row_groups()] == [2, 1]
    assert _tickers(result, "spots") == "A,A,B"
    assert _tickers(result, "events") == "A,B"


@pytest.mark.slow  # materialises through Dagster
def test_an_input_in_parts_not_produced_in_the_run_is_the_published_table(tmp_path):
    store = SnapshotStore(tmp_path)
    store.write_table("earlier-run", "price_history", TableParts(PARTS))
    store.publish("earlier-run", datetime(2026, 11, 22, 6, tzinfo=UTC), ["price_history"])
    result = materialize([history_in_parts.to_source_asset(), read_in_parts], resources=_resources(tmp_path))
    assert _tickers(result, "events") == "A,B"
