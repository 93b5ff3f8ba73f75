"""Storage: Parquet tables with explicit schemas, published as whole snapshots."""
