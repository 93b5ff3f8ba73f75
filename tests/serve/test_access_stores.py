"""The key and counter stores: SQLite and in-process for real, PostgreSQL and Redis without a server."""

import asyncio
import multiprocessing
import sys
import threading
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

import cli
from serve.access import postgres_store, redis_counter
from serve.access.factory import counter_store_from, key_store_from
from serve.access.memory_counter import MemoryCounterStore
from serve.access.sqlite_store import SqliteKeyStore
from serve.access.stores import key_hash

NOW = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.slow)])  # a real server
def keys(request, tmp_path):
    """The same tests against the embedded store and a real PostgreSQL server."""
    if request.param == "sqlite":
        store = SqliteKeyStore(tmp_path / "keys.sqlite3")
    else:
        store = postgres_store.PostgresKeyStore(request.getfixturevalue("postgres_url"))
        with store._transaction() as db:  # each test starts from empty tables
            db.execute("TRUNCATE keys, usage")
    yield store
    store.close()


class Awaited:
    """A counter store's coroutines run to their end on one event loop of the test's own (a Redis
    client's connections belong to the loop that opened them)."""

    def __init__(self, store):
        self.store, self.loop = store, asyncio.new_event_loop()

    def hit(self, *args, **kwargs) -> tuple[int, float]:
        return self.loop.run_until_complete(self.store.hit(*args, **kwargs))

    def gather(self, calls) -> list:
        async def together():
            return await asyncio.gather(*calls)

        return self.loop.run_until_complete(together())

    def close(self) -> None:
        self.loop.run_until_complete(self.store.close())
        self.loop.close()


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.slow)])  # a real server
def counter(request):
    """The same tests against the in-process counters and a real Redis server."""
    if request.param == "memory":
        store = Awaited(MemoryCounterStore())
    else:
        store = Awaited(redis_counter.RedisCounterStore(request.getfixturevalue("redis_url")))
        store.loop.run_until_complete(store.store._client.flushdb())
    yield store
    store.close()


def test_create_find_revoke_and_list(keys):
    key, record = keys.create("Ada", "developer", NOW)
    other, _ = keys.create("Bob", "enterprise", NOW + timedelta(seconds=1))
    assert key.startswith("ipo_") and record.key_id == key_hash(key)[:12]
    assert keys.find(key) == record and record.created == NOW
    assert keys.find(key + "x") is None
    assert [r.name for r in keys.list_keys()] == ["Ada", "Bob"]
    assert keys.revoke(record.key_id, NOW + timedelta(hours=1)) is True
    assert keys.revoke(record.key_id, NOW + timedelta(hours=2)) is False  # already revoked
    assert keys.revoke("000000000000", NOW) is False
    assert keys.find(key).revoked == NOW + timedelta(hours=1)  # a revoked key is still recognised
    assert keys.find(other).revoked is None
    with pytest.raises(ValueError, match="tier"):
        keys.create("Eve", "platinum", NOW)


def test_the_database_never_holds_a_clear_key(tmp_path):
    store = SqliteKeyStore(tmp_path / "keys.sqlite3")
    created = [store.create(f"k{i}", "developer", NOW)[0] for i in range(5)]
    for key in created:
        store.record_use(key_hash(key)[:12], "/v1/spots", NOW)
    files = [tmp_path / "keys.sqlite3", tmp_path / "keys.sqlite3-wal"]
    raw = b"".join(path.read_bytes() for path in files if path.exists())
    store.close()
    raw += (tmp_path / "keys.sqlite3").read_bytes()  # after the checkpoint on close too
    assert key_hash(created[0]).encode() in raw  # the hash is there, so the bytes were read
    for key in created:
        assert key.encode() not in raw and key[len("ipo_"):].encode() not in raw


def test_usage_counts_per_endpoint_and_per_day(keys):
    _, record = keys.create("Ada", "developer", NOW)
    for moment, endpoint in [(NOW, "/v1/spots"), (NOW, "/v1/spots"), (NOW, "/v1/price"),
                             (NOW + timedelta(days=1), "/v1/spots")]:
        keys.record_use(record.key_id, endpoint, moment)
    usage = keys.usage(record.key_id)
    assert usage.total == 4
    assert usage.per_endpoint == {"/v1/price": 1, "/v1/spots": 3}
    assert usage.per_day == {"2026-11-22": 3, "2026-11-23": 1}
    assert usage.last_used == NOW + timedelta(days=1)
    keys.record_use(record.key_id, "/v1/spots", NOW)  # a late, older request does not move it back
    assert keys.usage(record.key_id).last_used == NOW + timedelta(days=1)
    keys.record_use("000000000000", "/v1/spots", NOW)  # unknown ids are not counted
    assert keys.usage("000000000000").total == 0


def test_keys_and_usage_survive_reopening(tmp_path):
    store = SqliteKeyStore(tmp_path / "keys.sqlite3")
    key, record = store.create("Ada", "internal", NOW)
    store.record_use(record.key_id, "/v1/spots", NOW)
    store.close()
    reopened = SqliteKeyStore(tmp_path / "keys.sqlite3")
    assert reopened.find(key) == replace(record, last_used=NOW)
    reopened.record_use(record.key_id, "/v1/spots", NOW)
    assert reopened.usage(record.key_id).per_endpoint == {"/v1/spots": 2}
    reopened.close()


def test_concurrent_threads_count_every_use(keys):
    _, record = keys.create("Ada", "developer", NOW)
    start = threading.Barrier(8)

    def worker(index):
        start.wait()
        for i in range(25):
            keys.record_use(record.key_id, f"/v1/e{index % 2}", NOW + timedelta(microseconds=i))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    usage = keys.usage(record.key_id)
    assert usage.total == 200 and usage.per_endpoint == {"/v1/e0": 100, "/v1/e1": 100}


def _record_many(path, key_id, count):
    store = SqliteKeyStore(path)
    for _ in range(count):
        store.record_use(key_id, "/v1/spots", datetime.now(UTC))
    store.close()


@pytest.mark.slow  # two processes
def test_two_processes_on_one_file_count_every_use(tmp_path):
    path = tmp_path / "keys.sqlite3"
    store = SqliteKeyStore(path)
    _, record = store.create("Ada", "developer", NOW)
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_record_many, args=(path, record.key_id, 100)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert store.usage(record.key_id).total == 200
    store.close()


def test_windows_roll_over_at_the_boundary(counter):
    assert counter.hit("ip:1", 3600, 7199.0) == (1, 7200.0)
    assert counter.hit("ip:1", 3600, 7199.999) == (2, 7200.0)
    assert counter.hit("ip:2", 3600, 7199.999) == (1, 7200.0)
    assert counter.hit("ip:1", 60, 7199.0) == (1, 7200.0)  # another window length counts apart
    assert counter.hit("ip:1", 3600, 7200.0) == (1, 10800.0)  # a new window starts at its boundary
    assert counter.hit("ip:1", 60, 7200.0) == (1, 7260.0)  # same start, another length: its own count
    assert counter.hit("ip:1", 3600, 7200.5) == (2, 10800.0)


def test_a_look_counts_nothing(counter):
    assert counter.hit("create:1", 3600, 100.0, amount=0) == (0, 3600.0)
    assert counter.hit("create:1", 3600, 100.0) == (1, 3600.0)
    assert counter.hit("create:1", 3600, 101.0, amount=0) == (1, 3600.0)
    assert counter.hit("create:1", 3600, 102.0) == (2, 3600.0)


def test_memory_counters_drop_ended_windows():
    counter = MemoryCounterStore()
    counter.count("ip:1", 3600, 7199.0)
    counter.count("ip:1", 60, 7199.0)
    counter.count("ip:1", 3600, 7200.0)
    assert len(counter) == 1


def test_counters_count_concurrent_hits(counter):
    # A thousand hits awaited at once: on Redis they travel over several connections together.
    seen = counter.gather(counter.store.hit("k:abc", 3600, 1000.0) for _ in range(1000))
    assert sorted(count for count, _ in seen) == list(range(1, 1001))
    assert counter.hit("k:abc", 3600, 1000.0) == (1001, 3600.0)


def test_memory_counters_count_hits_from_threads():
    counter, start, seen = MemoryCounterStore(), threading.Barrier(10), []

    def worker():
        start.wait()
        seen.extend(counter.count("k:abc", 3600, 1000.0)[0] for _ in range(100))

    threads = [threading.Thread(target=worker) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(seen) == list(range(1, 1001))


def test_factory_picks_the_store_from_the_url(tmp_path):
    store = key_store_from(data=tmp_path / "new" / "data", key_store_url="")
    assert isinstance(store, SqliteKeyStore) and store.path == tmp_path / "new" / "data" / "keys.sqlite3"
    store.close()

    class Settings:
        data = str(tmp_path)
        key_store_url = ""
        counter_store_url = ""

    from_settings = key_store_from(Settings())
    assert from_settings.path == tmp_path / "keys.sqlite3"
    from_settings.close()
    assert isinstance(counter_store_from(Settings()), MemoryCounterStore)
    assert isinstance(counter_store_from(""), MemoryCounterStore)
    positional = key_store_from(str(tmp_path), "")  # how the server's app factory calls it
    assert positional.path == tmp_path / "keys.sqlite3"
    positional.close()
    with pytest.raises(ValueError, match="postgresql://") as error:
        key_store_from(data=tmp_path, key_store_url="mysql://user:secret@host/db")
    assert "secret" not in str(error.value)
    with pytest.raises(ValueError, match="redis://"):
        counter_store_from(counter_store_url="memcached://host")


def test_missing_optional_packages_are_named(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    monkeypatch.setitem(sys.modules, "redis", None)
    monkeypatch.setitem(sys.modules, "redis.asyncio", None)
    with pytest.raises(ImportError, match=r"psycopg.*\[scale\]"):
        key_store_from(data=tmp_path, key_store_url="postgresql://localhost/oracle")
    with pytest.raises(ImportError, match=r"redis.*\[scale\]"):
        counter_store_from(counter_store_url="redis://localhost:6379/0")


class _FakePipeline:
    def __init__(self, server, transaction):
        self.server, self.transaction, self.queued = server, transaction, []

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def incrby(self, key, amount):
        self.queued.append(("incrby", key, amount))

    def expire(self, key, seconds):
        self.queued.append(("expire", key, seconds))

    async def execute(self):
        self.server.calls.append((self.transaction, list(self.queued)))
        results = []
        for command, key, *rest in self.queued:
            if command == "incrby":
                self.server.counts[key] = self.server.counts.get(key, 0) + rest[0]
                results.append(self.server.counts[key])
            else:
                results.append(True)
        return results


class _FakeRedis:
    def __init__(self):
        self.counts, self.calls, self.closed = {}, [], False

    def pipeline(self, transaction):
        return _FakePipeline(self, transaction)

    async def get(self, key):
        self.calls.append((False, [("get", key)]))
        return self.server_count(key)

    def server_count(self, key):
        value = self.counts.get(key)
        return None if value is None else str(value).encode()

    async def aclose(self):
        self.closed = True


def test_redis_counter_keys_and_commands(monkeypatch):
    server = _FakeRedis()
    fake, fake_asyncio = type(sys)("redis"), type(sys)("redis.asyncio")
    fake_asyncio.Redis = type("Redis", (), {"from_url": staticmethod(lambda url: server)})
    fake.asyncio = fake_asyncio
    monkeypatch.setitem(sys.modules, "redis", fake)
    monkeypatch.setitem(sys.modules, "redis.asyncio", fake_asyncio)
    counter = Awaited(counter_store_from(counter_store_url="redis://localhost:6379/0"))
    assert counter.hit("ip:::1", 3600, 7199.5) == (1, 7200.0)
    assert counter.hit("ip:::1", 3600, 7199.9) == (2, 7200.0)
    assert counter.hit("ip:::1", 3600, 7200.0) == (1, 10800.0)
    key = "oracle:rl:ip:::1:3600:3600"
    assert server.calls[0] == (True, [("incrby", key, 1), ("expire", key, 3600)])
    assert counter.hit("ip:::1", 3600, 7200.0, amount=0) == (1, 10800.0)  # a look: GET, nothing written
    assert server.calls[-1] == (False, [("get", "oracle:rl:ip:::1:3600:7200")])
    assert redis_counter.counter_key("k:abc", 60, 7200) == "oracle:rl:k:abc:60:7200"
    counter.close()
    assert server.closed


class _FakeCursor:
    def __init__(self, rows, rowcount):
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self):
        return self.rows


class _FakeConnection:
    """Records statements and answers the few a test needs, keyed on the start of the SQL."""

    def __init__(self, answers):
        self.answers, self.statements, self.transactions = answers, [], 0
        self.closed = self.broken = False

    def transaction(self):
        self.transactions += 1
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, params=()):
        assert sql.count("%s") == len(params)
        self.statements.append((sql, params))
        rows, rowcount = next((answer for start, answer in self.answers.items() if sql.startswith(start)), ([], 1))
        return _FakeCursor(rows, rowcount)

    def close(self):
        self.closed = True


def test_postgres_store_statements(monkeypatch):
    when = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
    connection = _FakeConnection({
        "SELECT day": ([(date(2026, 11, 22), "/v1/spots", 3), (date(2026, 11, 23), "/v1/spots", 1)], 2),
        "SELECT last_used": ([(when,)], 1),
    })
    fake = type(sys)("psycopg")
    fake.connect = lambda dsn, autocommit: connection
    fake.errors = type("errors", (), {"UniqueViolation": type("UniqueViolation", (Exception,), {})})
    monkeypatch.setitem(sys.modules, "psycopg", fake)
    store = key_store_from(data=None, key_store_url="postgresql://oracle@localhost/oracle")
    assert [sql for sql, _ in connection.statements] == [postgres_store.SCHEMA_LOCK, *postgres_store.SCHEMA]

    key, record = store.create("Ada", "developer", NOW)
    store.record_use(record.key_id, "/v1/spots", NOW)
    sent = [params for _, params in connection.statements]
    assert all(key not in params for params in sent)  # only the hash leaves the process
    assert (record.key_id, key_hash(key), "Ada", "developer", NOW) in sent
    assert connection.statements[-1] == (postgres_store.COUNT_USES,
                                         (record.key_id, date(2026, 11, 22), "/v1/spots", 1))
    assert "DO UPDATE SET count = usage.count + excluded.count" in postgres_store.COUNT_USES
    usage = store.usage(record.key_id)
    assert (usage.total, usage.per_day, usage.last_used) == (4, {"2026-11-22": 3, "2026-11-23": 1}, when)
    store.close()
    assert connection.closed


def _run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_creates_lists_and_revokes_keys(tmp_path, capsys):
    data = ["--data", str(tmp_path / "data")]
    code, out, _ = _run(capsys, "keys", "create", "--name", "ops team@acme.io", "--tier", "enterprise", *data)
    assert code == 0
    fields = dict(line.split(":", 1) for line in out.splitlines())
    key, key_id = fields["key"].strip(), fields["key_id"].strip()
    store = key_store_from(data=tmp_path / "data")
    assert store.find(key).key_id == key_id and store.find(key).tier == "enterprise"
    store.close()

    code, out, _ = _run(capsys, "keys", "list", *data)
    assert code == 0 and key_id in out and "ops team@acme.io" in out
    assert key not in out and key_hash(key) not in out

    assert _run(capsys, "keys", "revoke", key_id, *data)[0] == 0
    code, out, _ = _run(capsys, "keys", "list", *data)
    assert not out.splitlines()[1].endswith("-")  # the revoked column is filled
    code, _, err = _run(capsys, "keys", "revoke", "ffffffffffff", *data)
    assert code == 1 and "ffffffffffff" in err


@pytest.mark.parametrize("argv", [
    ["--name", "", "--tier", "developer"],
    ["--name", "x" * 65, "--tier", "developer"],
    ["--name", "drop;table", "--tier", "developer"],
    ["--name", "ok", "--tier", "free"],
])
def test_cli_rejects_bad_names_and_tiers(tmp_path, capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["keys", "create", *argv, "--data", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "not a valid name" in err if argv[1] != "ok" else "invalid choice: 'free'" in err
