"""Outgoing webhooks through a real `oracle serve`: a snapshot published with a new price cut is
posted to a registered local receiver with a valid HMAC signature; a receiver that fails gets
every try, then the delivery is logged as failed. Targets inside the network are refused unless
the operator allows them (the tests allow them: their receivers are on loopback)."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from tests.e2e.conftest import stop_server
from tests.e2e.test_event_stream import _publish_with_a_cut
from tests.servers import start_server

pytestmark = pytest.mark.slow


class Receiver:
    """A local HTTP server that records each POST and answers `status`."""

    def __init__(self, status: int):
        self.posts: list[tuple[dict, bytes]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.posts.append((dict(self.headers), body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.posts) < count and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(self.posts) >= count, f"{len(self.posts)} posts, {count} expected"


@pytest.fixture
def served(warehouse_copy, tmp_path):
    process, base = start_server(warehouse_copy, tmp_path / "data", webhook_allow_private="1",
                                 webhook_retry_seconds="0.2", webhook_attempts="3")
    key = httpx.post(f"{base}/v1/keys", json={"name": "alerts"}).json()["api_key"]
    yield warehouse_copy, base, {"X-API-Key": key}
    stop_server(process)


def test_a_published_cut_is_posted_signed_and_a_failing_receiver_gets_every_try(served):
    root, base, key = served
    good, bad = Receiver(200), Receiver(500)
    made = httpx.post(f"{base}/v1/webhooks", json={"url": good.url, "ticker": "o3", "kind": "price_cut"}, headers=key)
    assert made.status_code == 201, made.text
    secret = made.json()["data"]["secret"]
    assert made.json()["data"]["ticker"] == "O3" and secret.startswith("whsec_")
    assert httpx.post(f"{base}/v1/webhooks", json={"url": bad.url}, headers=key).status_code == 201
    quiet = Receiver(200)  # another model's events only: hears nothing of O3's cut
    assert httpx.post(f"{base}/v1/webhooks", json={"url": quiet.url, "ticker": "GPT-4O"}, headers=key).status_code == 201
    _publish_with_a_cut(root)
    good.wait_for(1)
    headers, body = good.posts[0]
    assert headers["X-Oracle-Signature"] == "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    payload = json.loads(body)
    assert [(e["ticker"], e["kind"], e["before"], e["after"]) for e in payload["events"]] == [
        ("O3", "price_cut", 8.0, 4.0)]
    bad.wait_for(3)
    time.sleep(1.0)
    assert len(bad.posts) == 3 and quiet.posts == []
    log = httpx.get(f"{base}/v1/webhooks", headers=key).json()["data"]
    assert len(log["webhooks"]) == 3 and all("secret" not in hook for hook in log["webhooks"])
    by_hook = {}
    for row in sorted(log["deliveries"], key=lambda row: row["attempt"]):
        by_hook.setdefault(row["webhook_id"], []).append((row["attempt"], row["status"], row["outcome"]))
    assert sorted(by_hook.values()) == [[(1, 200, "delivered")],
                                        [(1, 500, "retrying"), (2, 500, "retrying"), (3, 500, "failed")]]
    hook_id = log["webhooks"][0]["id"]
    assert httpx.delete(f"{base}/v1/webhooks/{hook_id}", headers=key).status_code == 200
    assert httpx.delete(f"{base}/v1/webhooks/{hook_id}", headers=key).status_code == 404


def test_webhook_refusals(built_warehouse, tmp_path):
    process, base = start_server(built_warehouse, tmp_path / "data")  # private targets not allowed
    try:
        key = {"X-API-Key": httpx.post(f"{base}/v1/keys", json={"name": "x"}).json()["api_key"]}
        inside = httpx.post(f"{base}/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}, headers=key)
        assert inside.status_code == 400 and "a webhook must reach a public address" in inside.json()["detail"]
        assert httpx.post(f"{base}/v1/webhooks", json={"url": "ftp://example.com/x"}, headers=key).status_code == 400
        assert httpx.post(f"{base}/v1/webhooks", json={"url": "http://x.invalid/h", "kind": "cut"},
                          headers=key).status_code == 400
        assert httpx.post(f"{base}/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}).status_code == 401
        assert httpx.get(f"{base}/v1/webhooks").status_code == 401
    finally:
        stop_server(process)
