"""Publishing: the snapshot becomes current only after every table and blocking check passed."""

from datetime import UTC, datetime

from dagster import AssetExecutionContext, MaterializeResult, asset

from assets.resources import PriceSources, RefreshSettings, WarehouseResource

TABLES = ["genai_prices", "model_prices", "price_archive", "price_observations", "models", "providers",
          "price_history", "spots", "greeks", "forward_curves", "ici", "ici_history", "events", "backtest",
          "backtest_summary", "backtest_families", "accuracy"]


@asset(deps=TABLES, group_name="publish")
def snapshot(context: AssetExecutionContext, warehouse: WarehouseResource, settings: RefreshSettings,
             sources: PriceSources):
    """Publish this run's tables as one snapshot: tables first, the manifest pointer last."""
    extra = {"as_of": settings.as_of_date().isoformat(), "sources": sources.versions()}
    manifest = warehouse.store().publish(context.run_id, datetime.now(UTC), TABLES, extra=extra)
    return MaterializeResult(metadata={
        "snapshot_id": manifest.snapshot_id,
        "path": str(warehouse.store().root / manifest.snapshot_id),
        **{f"rows.{name}": info.rows for name, info in manifest.tables.items()},
    })
