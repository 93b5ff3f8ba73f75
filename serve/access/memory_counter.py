"""The in-process counter store: fixed windows in a dict, for a single server process."""

from __future__ import annotations

import math
import threading


def window_bounds(window_seconds: int, now: float) -> tuple[int, int]:
    """The fixed window holding `now`: it starts on a multiple of its length (Unix time)."""
    start = math.floor(now / window_seconds) * window_seconds
    return start, start + window_seconds


class MemoryCounterStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        # The window length is part of the key, so two limits on one bucket never share a count.
        self._counts: dict[tuple[str, int, int], int] = {}
        self._next_sweep = math.inf  # the earliest end among the windows held

    async def hit(self, bucket: str, window_seconds: int, now: float, amount: int = 1) -> tuple[int, float]:
        return self.count(bucket, window_seconds, now, amount)

    def count(self, bucket: str, window_seconds: int, now: float, amount: int = 1) -> tuple[int, float]:
        """`hit`, from any thread: a dict update under a lock never waits on anything else."""
        start, end = window_bounds(window_seconds, now)
        with self._lock:
            if now >= self._next_sweep:
                self._sweep(now)
            slot = (bucket, window_seconds, start)
            count = self._counts.get(slot, 0) + amount
            if amount:  # a look leaves nothing behind
                self._counts[slot] = count
                self._next_sweep = min(self._next_sweep, end)
        return count, float(end)

    def _sweep(self, now: float) -> None:
        """Drop the windows that have ended, at most once per window boundary rather than per hit,
        so memory stays bounded by the clients active in the current window."""
        self._counts = {slot: n for slot, n in self._counts.items() if slot[2] + slot[1] > now}
        self._next_sweep = min((slot[2] + slot[1] for slot in self._counts), default=math.inf)

    def __len__(self) -> int:
        return len(self._counts)

    async def close(self) -> None:
        with self._lock:
            self._counts.clear()
            self._next_sweep = math.inf
