"""HTTP handlers, one module per group of endpoints."""
