"""The HTTP API (Litestar): serves published snapshots and computes the on-demand endpoints."""
