"""The one path simulator of the fitted price process (`pipelines.dynamics`), vectorised.

Paths are drawn on a grid of horizons in months; each step draws the number of discrete
changes (Poisson), their summed size (normal given the count) and the mean-preserving
diffusion. Paths are generated in chunks so memory stays bounded whatever the path count.
The same seed gives the same paths.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pipelines.dynamics import Process

CHUNK_PATHS = 50_000


def simulate_ratios(process: Process, horizons: Sequence[float], paths: int, seed: int,
                    chunk: int = CHUNK_PATHS) -> np.ndarray:
    """β_t / β_0 on each path at each horizon (months, increasing), shape (paths, len(horizons))."""
    grid = np.asarray(horizons, dtype=float)
    if paths <= 0 or chunk <= 0 or grid.size == 0 or np.any(np.diff(grid) <= 0) or grid[0] <= 0:
        raise ValueError("paths and chunk must be positive, and horizons positive and increasing")
    steps = np.diff(grid, prepend=0.0)
    rng = np.random.default_rng(seed)
    out = np.empty((paths, grid.size))
    for start in range(0, paths, chunk):
        size = min(chunk, paths - start)
        counts = rng.poisson(process.jump_rate * steps, size=(size, grid.size))
        jumps = counts * process.jump_mean + np.sqrt(counts) * process.jump_std * rng.standard_normal((size, grid.size))
        diffusion = -0.5 * process.sigma**2 * steps + process.sigma * np.sqrt(steps) * rng.standard_normal(
            (size, grid.size))
        out[start:start + size] = np.exp(np.cumsum(jumps + diffusion, axis=1))
    return out
