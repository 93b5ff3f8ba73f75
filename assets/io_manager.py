"""The Parquet IO manager: each asset's frame becomes a table staged for the run's snapshot.

Tables are staged under the run until the `snapshot` asset publishes them together. An input
not produced in this run (a partial re-run) is read from the published snapshot.
"""


import pandas as pd
from dagster import ConfigurableIOManager, InputContext, OutputContext, ResourceDependency

from assets.resources import WarehouseResource


class ParquetIOManager(ConfigurableIOManager):
    warehouse: ResourceDependency[WarehouseResource]

    def handle_output(self, context: OutputContext, obj: pd.DataFrame) -> None:
        name = context.asset_key.path[-1]
        path, rows = self.warehouse.store().write_table(context.run_id, name, obj)
        context.add_output_metadata({"rows": rows, "path": str(path)})

    def load_input(self, context: InputContext) -> pd.DataFrame:
        name = context.asset_key.path[-1]
        store = self.warehouse.store()
        staged = store.read_staged(context.step_context.run_id, name)
        return staged if staged is not None else store.read_table(name)
