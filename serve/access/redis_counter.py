"""The shared counter store: Redis, so several server processes count against one limit.

The client is redis-py's asyncio one: a count is awaited, so the event loop serves other requests
while Redis answers."""

from __future__ import annotations

from serve.access.memory_counter import window_bounds
from serve.access.stores import INSTALL_HINT


def counter_key(bucket: str, window_seconds: int, window_start: int) -> str:
    # The window's length and start come last, so a bucket holding colons (an IPv6 address) stays
    # unambiguous; the length is part of the key, so two limits on one bucket never share a count.
    return f"oracle:rl:{bucket}:{window_seconds}:{window_start}"


class RedisCounterStore:
    def __init__(self, url: str):
        try:
            import redis.asyncio
        except ImportError as err:
            raise ImportError(f"a redis:// counter store needs the redis package: {INSTALL_HINT}") from err
        self._client = redis.asyncio.Redis.from_url(url)  # a pool of connections, on the loop that uses it

    async def hit(self, bucket: str, window_seconds: int, now: float, amount: int = 1) -> tuple[int, float]:
        start, end = window_bounds(window_seconds, now)
        key = counter_key(bucket, window_seconds, start)
        if not amount:  # a look leaves nothing behind
            return int(await self._client.get(key) or 0), float(end)
        # MULTI/EXEC, so a counter is never left without its expiry. The expiry is relative rather
        # than the window's end, so a clock that differs between this host and Redis cannot expire
        # a live window early; the key lives at most one window past its own.
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.incrby(key, amount)
            pipe.expire(key, window_seconds)
            count, _ = await pipe.execute()
        return int(count), float(end)

    async def close(self) -> None:
        await self._client.aclose()
