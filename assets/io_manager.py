"""The Parquet IO manager: each asset's frame becomes a table staged for the run's snapshot.

Tables are staged under the run until the `snapshot` asset publishes them together. The first
one staged records the run as `running` and clears what runs that died left behind
(`warehouse.runs.start_run`). An input
not produced in this run (a partial re-run) is read from the published snapshot.

A table too large to hold whole is returned as `TableParts` and written a part at a time; an
input annotated `TableFile` is not read but handed over, for the asset to read the part it needs.

The definitions use `parquet_io_manager`, which takes the run's `warehouse` resource: a
warehouse set for one run (in the launchpad, or run config) reaches every step's tables, the
snapshot and the failure hook alike. (An IO manager built around a resource object keeps that
object whatever the run's config says.)
"""


from datetime import UTC, datetime

import pandas as pd
import pyarrow as pa
from dagster import (
    InitResourceContext,
    InputContext,
    IOManager,
    MetadataValue,
    OutputContext,
    TableColumn,
    TableSchema,
    io_manager,
)

from assets.resources import WarehouseResource
from warehouse.large_tables import TableFile, TableParts
from warehouse.runs import start_run
from warehouse.schemas import SCHEMAS

_STARTED: set[str] = set()  # the runs this process has recorded as running


PREVIEW_ROWS, PREVIEW_COLUMNS = 5, 12


def preview(frame: pd.DataFrame) -> str:
    """The first rows and columns of a table, as Markdown for the UI."""
    shown = frame.iloc[:PREVIEW_ROWS, :PREVIEW_COLUMNS]
    cells = [[str(v).replace("|", "\\|")[:40] for v in row] for row in shown.itertuples(index=False, name=None)]
    more = f"\n\n{len(frame.columns) - PREVIEW_COLUMNS} more columns" if len(frame.columns) > PREVIEW_COLUMNS else ""
    lines = ["| " + " | ".join(shown.columns) + " |", "|" + "---|" * len(shown.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells]) + more


def column_schema(schema: pa.Schema) -> TableSchema:
    """A table's columns as Dagster shows them: name, Arrow type, and whether it may be null."""
    return TableSchema(columns=[TableColumn(field.name, str(field.type),
                                            description=None if field.nullable else "never null")
                                for field in schema])


class ParquetIOManager(IOManager):
    def __init__(self, warehouse: WarehouseResource):
        self.warehouse = warehouse

    def handle_output(self, context: OutputContext, obj: pd.DataFrame | TableParts) -> None:
        name = context.asset_key.path[-1]
        store = self.warehouse.store()
        if context.run_id not in _STARTED:  # once per run and process: a trace if the run is killed
            _STARTED.add(context.run_id)
            removed = start_run(store, context.run_id, datetime.now(UTC))
            if removed:
                context.log.info(f"removed the staging folders of runs no longer at work: {', '.join(removed)}")
        path, rows = store.write_table(context.run_id, name, obj)
        # Where the table is staged; once published it is in the snapshot the `snapshot` step names.
        metadata = {"dagster/row_count": rows, "dagster/column_schema": column_schema(SCHEMAS[name]),
                    "staged_at": str(path)}
        if isinstance(obj, pd.DataFrame):  # a table written in parts is not held whole to show
            metadata["preview"] = MetadataValue.md(preview(obj))
        context.add_output_metadata(metadata)

    def load_input(self, context: InputContext) -> pd.DataFrame | TableFile:
        name = context.asset_key.path[-1]
        store = self.warehouse.store()
        staged = store.staged_file(context.step_context.run_id, name)
        if context.dagster_type.typing_type is TableFile:
            return staged if staged is not None else store.table_file(name)
        return staged.read() if staged is not None else store.read_table(name)


@io_manager(required_resource_keys={"warehouse"},
            description="Stages each table as Parquet in the run's warehouse (the `warehouse` resource).")
def parquet_io_manager(context: InitResourceContext) -> ParquetIOManager:
    return ParquetIOManager(context.resources.warehouse)
