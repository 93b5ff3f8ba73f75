"""The Parquet IO manager: each asset's frame becomes a table staged for the run's snapshot.

Tables are staged under the run until the `snapshot` asset publishes them together. Before a run
reads or writes its first table, its staging is stamped with the day it builds and it takes over
what the runs it re-executes staged for that day (`assets.whole_day`). The first table staged by a
run that will publish (its plan holds the snapshot and every table the ones it builds stand on)
records the run as `running` and clears what runs that died left behind
(`warehouse.runs.start_run`); a run that publishes nothing (one table materialised) records
nothing, so the API's report of the last refresh stands. An input not produced in this run (a
partial run) is read from the published snapshot.

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

from assets.resources import RefreshSettings, WarehouseResource
from assets.whole_day import (
    SNAPSHOT,
    TABLES,
    planned_steps,
    planned_tables,
    take_over_earlier,
    upstream_tables,
    why_not_whole,
)
from warehouse.large_tables import TableFile, TableParts
from warehouse.runs import start_run
from warehouse.schemas import SCHEMAS

_PREPARED: set[str] = set()  # the runs whose staging this process has stamped and filled from earlier runs
_STARTED: set[str] = set()  # the runs this process has recorded as running (or found publishing nothing)


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
    def __init__(self, warehouse: WarehouseResource, settings: RefreshSettings | None = None):
        self.warehouse, self.settings = warehouse, settings or RefreshSettings()

    def _prepare(self, step_context) -> None:
        """Once per run and process: the run's staging stamped with its day, and the tables of the
        runs it re-executes taken over."""
        run = step_context.dagster_run
        if run.run_id in _PREPARED:
            return
        _PREPARED.add(run.run_id)
        taken = take_over_earlier(self.warehouse.store(), run, step_context.instance,
                                  self.settings.as_of_date().isoformat())
        if taken:
            step_context.log.info(f"took over {len(taken)} table(s) staged by the run(s) this one re-executes: "
                                  f"{', '.join(taken)}")

    def _publishes(self, step_context) -> bool:
        """Whether this run will publish: its plan holds the snapshot, and the tables it builds or
        took over stand on no table it lacks."""
        plan, run = step_context.execution_plan, step_context.dagster_run
        if SNAPSHOT not in planned_steps(run, plan):
            return False
        built = planned_tables(run, plan) | self.warehouse.store().staged_names(run.run_id)
        upstream = upstream_tables(step_context.job_def.asset_layer.asset_graph, TABLES)
        return why_not_whole(built, upstream, self.settings.as_of_date().isoformat()) is None

    def handle_output(self, context: OutputContext, obj: pd.DataFrame | TableParts) -> None:
        name = context.asset_key.path[-1]
        store = self.warehouse.store()
        self._prepare(context.step_context)
        if context.run_id not in _STARTED:  # once per run and process: a trace if the run is killed
            _STARTED.add(context.run_id)
            if self._publishes(context.step_context):
                removed = start_run(store, context.run_id, datetime.now(UTC))
                if removed:
                    context.log.info(f"removed the staging folders of runs no longer at work: {', '.join(removed)}")
            else:
                context.log.info("this run publishes no snapshot: its tables stay staged, and the record of the "
                                 "last refresh, which the API reports, is left as it is")
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
        self._prepare(context.step_context)
        staged = store.staged_file(context.step_context.run_id, name)
        if context.dagster_type.typing_type is TableFile:
            return staged if staged is not None else store.table_file(name)
        return staged.read() if staged is not None else store.read_table(name)


@io_manager(required_resource_keys={"warehouse", "settings"},
            description="Stages each table as Parquet in the run's warehouse (the `warehouse` resource).")
def parquet_io_manager(context: InitResourceContext) -> ParquetIOManager:
    return ParquetIOManager(context.resources.warehouse, context.resources.settings)
