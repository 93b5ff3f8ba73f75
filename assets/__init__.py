"""The Dagster code location: assets that call `pipelines` and write the warehouse."""
