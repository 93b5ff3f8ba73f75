"""The Dagster code location: the graph's shape, the IO manager, failing runs, the live sources."""
