"""`GET /v1/events/stream` through a real `oracle serve`: a snapshot published with a new price cut
reaches a subscriber as a server-sent event; a filter keeps other models' events out; a client
that reconnects with Last-Event-ID gets what it missed, or a reset when its snapshot is gone."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import shutil
import threading
from pathlib import Path

import httpx
import pandas as pd
import pytest

from tests.e2e.conftest import stop_server
from tests.servers import start_server

pytestmark = pytest.mark.slow
NEW_ID = "20991231T000000000000Z-newcut00"


def _publish_with_a_cut(root: Path) -> dict:
    """A new snapshot: the current one with O3's output price cut from $8 to $4 on its date, and
    the pointer moved to it, as a refresh publishes (tables first, then the pointer)."""
    pointer = json.loads((root / "manifest.json").read_text())
    folder = root / NEW_ID
    shutil.copytree(root / pointer["snapshot_id"], folder)
    events = pd.read_parquet(folder / "events.parquet")
    cut = events[(events["ticker"] == "O3") & (events["kind"] == "price_cut") & (events["field"] == "output")].iloc[[-1]]
    day = pd.Timestamp(pointer["extra"]["as_of"]).date()
    cut = cut.assign(event_id=f"O3:sync:output:{day.isoformat()}", effective_date=day, observed_on=day, before=8.0,
                     after=4.0, pct_change=-0.5)
    pd.concat([events, cut], ignore_index=True).to_parquet(folder / "events.parquet", index=False)
    data = (folder / "events.parquet").read_bytes()
    tables = {**pointer["tables"], "events": {**pointer["tables"]["events"], "rows": len(events) + 1,
                                              "sha256": hashlib.sha256(data).hexdigest()}}
    manifest = {**pointer, "snapshot_id": NEW_ID, "tables": tables}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (root / "manifest.json").write_text(json.dumps(manifest))
    stat = (root / "manifest.json").stat()
    os.utime(root / "manifest.json", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    return {"old": pointer["snapshot_id"], "event_id": f"O3:sync:output:{day.isoformat()}"}


def _subscribe(base: str, params: dict, headers: dict | None = None) -> queue.Queue:
    """Each SSE message the stream sends, parsed, on a queue (read in a thread of its own)."""
    messages: queue.Queue = queue.Queue()

    def read():
        try:
            _read_into(messages)
        except httpx.TransportError:  # the server stopped at the test's end and cut the stream
            pass

    def _read_into(messages):
        with httpx.stream("GET", f"{base}/v1/events/stream", params=params, headers=headers or {},
                          timeout=httpx.Timeout(5, read=60)) as response:
            messages.put({"status": response.status_code, "type": response.headers["content-type"]})
            message: dict = {}
            for line in response.iter_lines():
                if not line:
                    if message:
                        messages.put(message)
                    message = {}
                elif not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    message[name] = value

    threading.Thread(target=read, daemon=True).start()
    return messages


def _next_event(messages: queue.Queue, timeout: float) -> dict:
    while True:
        message = messages.get(timeout=timeout)
        if "event" in message:
            return message


@pytest.fixture
def server(warehouse_copy, tmp_path):
    process, base = start_server(warehouse_copy, tmp_path / "data")
    yield warehouse_copy, base
    stop_server(process)


def test_a_published_cut_reaches_subscribers_and_resumes(server):
    root, base = server
    cuts = _subscribe(base, {"ticker": "o3", "kind": "price_cut"})
    others = _subscribe(base, {"ticker": "GPT-4O"})
    assert cuts.get(timeout=10) == {"status": 200, "type": "text/event-stream; charset=utf-8"}
    assert others.get(timeout=10)["status"] == 200
    assert cuts.get(timeout=5) == {"retry": "5000"}
    documented = httpx.get(f"{base}/schema/openapi.json").json()["paths"]["/v1/events/stream"]["get"]
    assert list(documented["responses"]["200"]["content"]) == ["text/event-stream"]
    published = _publish_with_a_cut(root)
    message = _next_event(cuts, timeout=30)
    assert message["event"] == "price_event" and message["id"] == f"{NEW_ID}:{published['event_id']}"
    event = json.loads(message["data"])
    assert (event["ticker"], event["before"], event["after"], event["pct_change"]) == ("O3", 8.0, 4.0, -0.5)
    assert (event["event_type"], event["pct_change_display"]) == ("price-cut", "-50.0%")
    with pytest.raises(queue.Empty):
        _next_event(others, timeout=3)  # GPT-4O's subscriber hears nothing of O3
    resumed = _subscribe(base, {}, {"Last-Event-ID": f"{published['old']}:whatever"})
    resumed.get(timeout=10)
    assert _next_event(resumed, timeout=10)["id"] == message["id"]
    lost = _subscribe(base, {}, {"Last-Event-ID": "20000101T000000000000Z-gone0000:x"})
    lost.get(timeout=10)
    assert _next_event(lost, timeout=10)["event"] == "reset"


def test_bad_stream_filters_are_400s(server):
    _, base = server
    assert httpx.get(f"{base}/v1/events/stream", params={"kind": "cut"}).status_code == 400
    assert httpx.get(f"{base}/v1/events/stream", params={"ticker": "NO-SUCH"}).status_code == 404
    assert httpx.get(f"{base}/v1/events/stream", params={"tickr": "O3"}).status_code == 400
