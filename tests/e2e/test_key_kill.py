"""`oracle serve` killed (SIGKILL) while clients create keys and use them: the key database stays
consistent, every key whose creation was answered survives, and a restarted server accepts it.

Usage counts are written once a second (serve/access/batched.py), so a kill may lose the last
second of them: the counts after the kill are at most the requests made, never more.
"""

import os
import signal
import sqlite3
import threading
import time

import httpx
import pytest

from serve.access.factory import KEYS_FILE
from serve.access.sqlite_store import SqliteKeyStore
from tests.servers import start_server

pytestmark = pytest.mark.slow  # kills a real `oracle serve` process


def test_a_server_killed_during_key_creation_and_use_leaves_the_database_consistent(built_warehouse, tmp_path):
    data = tmp_path / "data"
    process, base = start_server(built_warehouse, data)
    created: dict[str, int] = {}  # key -> requests answered with it
    lock, stop = threading.Lock(), threading.Event()

    def client(index: int) -> None:
        with httpx.Client(base_url=base, timeout=5) as http:
            while not stop.is_set():
                try:
                    made = http.post("/v1/keys", json={"name": f"load {index}"})
                    if made.status_code != 201:
                        continue
                    key = made.json()["data"]["key"]
                    with lock:
                        created[key] = 0
                    for _ in range(5):
                        if http.get("/v1/spots/O3", headers={"X-API-Key": key}).status_code == 200:
                            with lock:
                                created[key] += 1
                except httpx.TransportError:
                    return  # the server is gone

    threads = [threading.Thread(target=client, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(2.5)  # long enough for more than one usage flush
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    assert len(created) >= 5, "the load made too few keys to test anything"

    database = data / KEYS_FILE
    with sqlite3.connect(database) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        orphans = db.execute("SELECT count(*) FROM usage WHERE key_id NOT IN (SELECT key_id FROM keys)").fetchone()
        assert orphans == (0,)
        assert db.execute("SELECT count(*) FROM usage WHERE count <= 0").fetchone() == (0,)
    store = SqliteKeyStore(database)
    for key, answered in created.items():
        record = store.find(key)
        assert record is not None and record.revoked is None  # every answered creation was committed
        # At most the requests answered, plus the one a client may have had in flight at the kill
        # (counted when it arrived, its answer never sent).
        assert store.usage(record.key_id).total <= answered + 1
    counted = sum(store.usage(store.find(key).key_id).total for key in created)
    store.close()
    assert counted > 0  # the flushes before the kill were written

    process, base = start_server(built_warehouse, data)
    try:
        key = next(iter(created))
        usage = httpx.get(f"{base}/v1/keys/usage", headers={"X-API-Key": key}, timeout=10)
        assert usage.status_code == 200, usage.text
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
