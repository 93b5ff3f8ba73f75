"""The server's key store: usage in batches, found keys remembered, nothing counted ever dropped."""

import asyncio
import threading
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest

from serve.access.batched import BatchedKeyStore
from serve.access.sqlite_store import SqliteKeyStore
from serve.access.stores import UsageBatch

NOW = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def found(batched: BatchedKeyStore, key: str):
    """`find` awaited: a key not remembered is looked up in a worker thread."""
    return asyncio.run(batched.find(key))


@pytest.fixture
def path(tmp_path):
    return tmp_path / "keys.sqlite3"


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def batched(path, clock):
    store = BatchedKeyStore(SqliteKeyStore(path), flush_seconds=3600, remember_seconds=1.0, clock=clock)
    yield store
    store.close()


def test_usage_is_written_at_flush_and_read_after_it(batched, path):
    _, record = batched.create("Ada", "developer", NOW)
    for endpoint in ["GET /v1/spots", "GET /v1/spots", "POST /v1/price"]:
        batched.record_use(record.key_id, endpoint, NOW)
    batched.record_use(record.key_id, "GET /v1/spots", NOW + timedelta(days=1))
    beside = SqliteKeyStore(path)  # another process's view of the file
    assert beside.usage(record.key_id).total == 0  # nothing written yet
    usage = batched.usage(record.key_id)  # reading flushes first
    assert (usage.total, usage.per_endpoint, usage.per_day) == (
        4, {"GET /v1/spots": 3, "POST /v1/price": 1}, {"2026-11-22": 3, "2026-11-23": 1})
    assert usage.last_used == NOW + timedelta(days=1)
    assert beside.usage(record.key_id) == usage
    beside.close()


def test_list_keys_and_close_flush_too(path, clock):
    store = BatchedKeyStore(SqliteKeyStore(path), flush_seconds=3600, clock=clock)
    _, record = store.create("Ada", "developer", NOW)
    store.record_use(record.key_id, "GET /v1/spots", NOW)
    assert store.list_keys()[0].last_used == NOW
    store.record_use(record.key_id, "GET /v1/spots", NOW + timedelta(seconds=5))
    store.close()
    reopened = SqliteKeyStore(path)
    assert reopened.usage(record.key_id).total == 2 and reopened.usage(record.key_id).last_used == NOW + timedelta(
        seconds=5)
    reopened.close()


def test_the_background_thread_flushes_on_its_own(path):
    store = BatchedKeyStore(SqliteKeyStore(path), flush_seconds=0.05)
    _, record = store.create("Ada", "developer", NOW)
    store.record_use(record.key_id, "GET /v1/spots", NOW)
    beside = SqliteKeyStore(path)
    deadline = time.monotonic() + 10
    while beside.usage(record.key_id).total == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert beside.usage(record.key_id).total == 1
    beside.close()
    store.close()


class FailingOnce:
    """A store whose first batch write fails, as a locked or unreachable database would."""

    def __init__(self, store):
        self.store, self.failures = store, 1

    def record_uses(self, batch):
        if self.failures:
            self.failures -= 1
            raise OSError("database is locked")
        self.store.record_uses(batch)

    def __getattr__(self, name):
        return getattr(self.store, name)


def test_a_failed_write_keeps_its_counts_for_the_next_flush(path, clock):
    inner = SqliteKeyStore(path)
    store = BatchedKeyStore(FailingOnce(inner), flush_seconds=3600, clock=clock)
    _, record = store.create("Ada", "developer", NOW)
    store.record_use(record.key_id, "GET /v1/spots", NOW)
    with pytest.raises(OSError):
        store.flush()
    store.record_use(record.key_id, "GET /v1/spots", NOW + timedelta(seconds=1))
    assert store.usage(record.key_id).total == 2
    store.close()


def test_concurrent_uses_during_flushes_are_all_counted(batched):
    _, record = batched.create("Ada", "developer", NOW)
    start, stop = threading.Barrier(5), threading.Event()

    def use(index):
        start.wait()
        for i in range(500):
            batched.record_use(record.key_id, f"GET /v1/e{index % 2}", NOW + timedelta(microseconds=i))

    def flush():
        start.wait()
        while not stop.is_set():
            batched.flush()

    threads = [threading.Thread(target=use, args=(i,)) for i in range(4)]
    flusher = threading.Thread(target=flush)
    for thread in [*threads, flusher]:
        thread.start()
    for thread in threads:
        thread.join()
    stop.set()
    flusher.join()
    usage = batched.usage(record.key_id)
    assert usage.total == 2000 and usage.per_endpoint == {"GET /v1/e0": 1000, "GET /v1/e1": 1000}


def test_a_found_key_is_remembered_and_a_revocation_here_is_immediate(batched, path, clock):
    key, record = batched.create("Ada", "developer", NOW)
    assert found(batched, key) == record
    beside = SqliteKeyStore(path)
    beside.revoke(record.key_id, NOW)  # e.g. `oracle keys revoke` while the server runs
    assert found(batched, key).revoked is None  # remembered for up to a second
    clock.now += 1.0
    assert found(batched, key).revoked == NOW  # then looked up again
    other, other_record = batched.create("Bob", "developer", NOW)
    assert found(batched, other) == other_record
    assert batched.revoke(other_record.key_id, NOW) is True
    assert found(batched, other).revoked == NOW  # through this store: at once
    beside.close()


class CountingFinds:
    """A key store that counts its lookups, and can hold each one, after it has read, until released."""

    def __init__(self, store):
        self.store, self.finds = store, 0
        self.read, self.release = threading.Event(), threading.Event()
        self.release.set()

    def find(self, key):
        self.finds += 1
        record = self.store.find(key)
        self.read.set()
        self.release.wait(5)
        return record

    def __getattr__(self, name):
        return getattr(self.store, name)


@pytest.fixture
def counted(path, clock):
    inner = CountingFinds(SqliteKeyStore(path))
    store = BatchedKeyStore(inner, flush_seconds=3600, remember_seconds=1.0, clock=clock)
    yield store, inner
    store.close()


def test_requests_that_miss_together_share_one_lookup(counted):
    store, inner = counted
    key, record = store.create("Ada", "developer", NOW)

    async def burst():
        return await asyncio.gather(*[store.find(key) for _ in range(32)])

    assert asyncio.run(burst()) == [record] * 32
    assert inner.finds == 1


def test_a_key_in_use_is_looked_up_again_ahead_of_time_and_no_request_waits(counted, path, clock):
    store, inner = counted
    key, record = store.create("Ada", "developer", NOW)
    assert found(store, key) == record and inner.finds == 1
    beside = SqliteKeyStore(path)
    beside.revoke(record.key_id, NOW)  # elsewhere: seen within the second, never later

    async def half_way_then_settled():
        clock.now += 0.5
        inner.release.clear()  # the lookup ahead is held: the request must not wait for it
        first = await asyncio.wait_for(store.find(key), timeout=1)
        inner.release.set()
        while store._lookups:
            await asyncio.sleep(0.01)
        return first

    assert asyncio.run(half_way_then_settled()).revoked is None  # the remembered record, at once
    assert inner.finds == 2
    clock.now += 0.9  # 1.4 s after the first lookup, 0.9 s after the one ahead of time
    assert found(store, key).revoked == NOW and inner.finds == 2
    beside.close()


def test_a_lookup_in_flight_during_a_revocation_here_is_not_remembered(counted):
    store, inner = counted
    key, record = store.create("Ada", "developer", NOW)

    async def revoked_meanwhile():
        inner.release.clear()
        lookup = asyncio.ensure_future(store.find(key))
        while not inner.read.is_set():  # the lookup has read the row as it was before the revocation
            await asyncio.sleep(0.01)
        store.revoke(record.key_id, NOW)
        inner.release.set()
        return await lookup

    assert asyncio.run(revoked_meanwhile()).revoked is None  # it began before the revocation
    assert found(store, key).revoked == NOW and inner.finds == 2


def test_an_unknown_key_is_never_remembered(batched, path):
    beside = SqliteKeyStore(path)
    key, record = beside.create("Ada", "developer", NOW)  # made by another process ...
    assert found(batched, "ipo_unknown") is None
    assert found(batched, key) == record  # ... and usable here at once
    beside.close()


def test_usage_batches_add_and_merge():
    batch = UsageBatch()
    batch.add("k1", "GET /v1/spots", NOW)
    batch.add("k1", "GET /v1/spots", NOW - timedelta(hours=1))  # older: counted, last_used unmoved
    other = UsageBatch()
    other.add("k1", "GET /v1/spots", NOW + timedelta(days=1))
    other.add("k2", "POST /v1/price", datetime(2026, 11, 22, 23, 59))  # naive means UTC
    batch.merge(other)
    assert batch.counts == {("k1", "2026-11-22", "GET /v1/spots"): 2, ("k1", "2026-11-23", "GET /v1/spots"): 1,
                            ("k2", "2026-11-22", "POST /v1/price"): 1}
    assert batch.last_used == {"k1": NOW + timedelta(days=1), "k2": datetime(2026, 11, 22, 23, 59, tzinfo=UTC)}
    assert not UsageBatch() and batch


def test_uses_gathered_by_a_server_count_as_one_add_each():
    uses = [("k1", "GET /v1/spots", NOW), ("k1", "GET /v1/spots", NOW - timedelta(hours=1)),  # older, later
            ("k1", "GET /v1/spots", NOW + timedelta(days=1)), ("k1", "POST /v1/price", NOW),
            ("k2", "GET /v1/spots", datetime(2026, 11, 22, 23, 59, 59, 999999, tzinfo=UTC))]
    one_by_one, together = UsageBatch(), UsageBatch()
    for use in uses:
        one_by_one.add(*use)
    together.add("k1", "GET /v1/spots", NOW - timedelta(days=2))  # what a batch held before is kept
    together.add_uses(uses)
    assert together.counts == {**one_by_one.counts, ("k1", "2026-11-20", "GET /v1/spots"): 1}
    assert together.counts[("k1", "2026-11-22", "GET /v1/spots")] == 2
    assert together.last_used == one_by_one.last_used == {"k1": NOW + timedelta(days=1),
                                                           "k2": datetime(2026, 11, 22, 23, 59, 59, 999999, tzinfo=UTC)}


def test_a_use_is_counted_on_its_utc_day_whatever_zone_it_is_given_in(batched):
    _, record = batched.create("Ada", "developer", NOW)
    east = timezone(timedelta(hours=5))
    batched.record_use(record.key_id, "GET /v1/spots", datetime(2026, 11, 23, 2, 0, tzinfo=east))  # 11-22 21:00 UTC
    batched.record_use(record.key_id, "GET /v1/spots", datetime(2026, 11, 22, 22, 0))  # naive means UTC
    usage = batched.usage(record.key_id)
    assert usage.per_day == {"2026-11-22": 2}
    assert usage.last_used == datetime(2026, 11, 22, 22, 0, tzinfo=UTC)


def test_sqlite_writes_a_batch_in_one_go_and_drops_unknown_ids(path):
    store = SqliteKeyStore(path)
    _, record = store.create("Ada", "developer", NOW)
    store.record_use(record.key_id, "GET /v1/spots", NOW)
    batch = UsageBatch()
    batch.add(record.key_id, "GET /v1/spots", NOW, requests=41)
    batch.add("000000000000", "GET /v1/spots", NOW, requests=7)
    store.record_uses(batch)
    assert store.usage(record.key_id).per_endpoint == {"GET /v1/spots": 42}
    assert store.usage("000000000000").total == 0
    store.close()
