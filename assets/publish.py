"""Publishing: the snapshot becomes current only after every table and blocking check passed."""

from datetime import UTC, datetime

from dagster import AssetExecutionContext, HookContext, MaterializeResult, asset, failure_hook

from assets.resources import PriceSources, RefreshSettings, WarehouseResource
from warehouse.snapshot import RunStatus, record_run

TABLES = ["genai_prices", "model_prices", "price_archive", "price_observations", "models", "providers",
          "price_history", "spots", "greeks", "forward_curves", "ici", "ici_history", "events", "backtest",
          "backtest_summary", "backtest_families", "accuracy"]


@asset(deps=TABLES, group_name="publish")
def snapshot(context: AssetExecutionContext, warehouse: WarehouseResource, settings: RefreshSettings,
             sources: PriceSources):
    """Publish this run's tables as one snapshot: tables first, the manifest pointer last."""
    extra = {"as_of": settings.as_of_date().isoformat(), "sources": sources.versions()}
    manifest = warehouse.store().publish(context.run_id, datetime.now(UTC), TABLES, extra=extra)
    record_run(warehouse.store().root, RunStatus("ok", manifest.last_update, run_id=context.run_id))
    return MaterializeResult(metadata={
        "snapshot_id": manifest.snapshot_id,
        "path": str(warehouse.store().root / manifest.snapshot_id),
        **{f"rows.{name}": info.rows for name, info in manifest.tables.items()},
    })


@failure_hook(required_resource_keys={"warehouse"})
def record_failure(context: HookContext):
    """A failed step (a source, a table or a blocking check) marks the run failed, with why; the
    published snapshot is untouched, and the API reports itself degraded."""
    detail = f"{context.op.name} failed: {context.op_exception}"[:500]
    record_run(context.resources.warehouse.store().root,
               RunStatus("failed", datetime.now(UTC), detail, context.run_id))
