"""Benchmarks of the pricing API."""
