"""Outgoing webhooks through a real `oracle serve`: a snapshot published with a new price cut is
posted to registered local receivers with a valid HMAC signature; a receiver that fails gets every
try, then the delivery is logged as failed and the webhook paused; a redirect is never followed; a
key whose receivers never answer delays neither another key's delivery nor a request. Targets
inside the network, and malformed URLs, are refused. Receivers are on 127.0.0.1 only: the delivery
server allows private targets, so it is the not-following that keeps the redirect's target dark."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import httpx
import pytest

from tests.e2e.conftest import stop_server
from tests.e2e.test_event_stream import _publish_with_a_cut
from tests.servers import start_server

pytestmark = pytest.mark.slow

MOST_PER_KEY = 4
# A try to a receiver that never answers waits this long: long beside the 5 s a bystander's
# delivery may take, so a tarpit holding the threads the bystander needs would show.
TIMEOUT_SECONDS = 10


class Receiver:
    """A local HTTP server that records each request (a followed redirect arrives as a GET) and
    answers `status`, with `location` if given."""

    def __init__(self, status: int, location: str = ""):
        self.posts: list[tuple[dict, bytes]] = []
        self.arrived: list[float] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.posts.append((dict(self.headers), body))
                receiver.arrived.append(time.monotonic())
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.end_headers()

            do_GET = do_POST  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait_for(self, count: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while len(self.posts) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.posts) >= count, f"{len(self.posts)} posts, {count} expected"


class Tarpit:
    """A local server that accepts each connection, reads what comes, and never answers."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.connections: list[socket.socket] = []
        self.open = self.most_open = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            with self._lock:
                self.connections.append(connection)
                self.open += 1
                self.most_open = max(self.most_open, self.open)
            threading.Thread(target=self._hold, args=(connection,), daemon=True).start()

    def _hold(self, connection: socket.socket) -> None:
        try:
            while connection.recv(65536):
                pass
        except OSError:
            pass
        with self._lock:
            self.open -= 1

    def close(self) -> None:
        self.listener.close()
        for connection in self.connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _key(base: str, name: str) -> dict[str, str]:
    return {"X-API-Key": httpx.post(f"{base}/v1/keys", json={"name": name}).json()["api_key"]}


def _register(base: str, key: dict, url: str, **filters) -> httpx.Response:
    return httpx.post(f"{base}/v1/webhooks", json={"url": url, **filters}, headers=key)


@pytest.fixture(scope="module")
def delivered(built_warehouse, tmp_path_factory):
    """One server allowing local receivers, with three keys' webhooks registered, then one snapshot
    published: `alerts` (a receiver of O3's cuts, a failing one, one of another model's events, a
    redirector), `tarpit` (as many webhooks as a key may have, to a receiver that never answers),
    `bystander` (one receiver)."""
    folder = tmp_path_factory.mktemp("webhooks")
    root = folder / "warehouse"
    shutil.copytree(built_warehouse, root)
    process, base = start_server(
        root, folder / "data", webhook_allow_private="1", webhook_retry_seconds="0.2", webhook_attempts="3",
        webhook_timeout_seconds=str(TIMEOUT_SECONDS), webhook_workers="4", webhook_concurrent_per_key="2",
        webhook_max_per_key=str(MOST_PER_KEY), webhook_pause_after_failures="1")
    alerts, tarpit_key, bystander_key = _key(base, "alerts"), _key(base, "tarpit"), _key(base, "bystander")
    inside = Receiver(200)
    scene = SimpleNamespace(base=base, alerts=alerts, tarpit_key=tarpit_key, bystander_key=bystander_key,
                            good=Receiver(200), bad=Receiver(500), quiet=Receiver(200), inside=inside,
                            redirector=Receiver(302, location=inside.url), tarpit=Tarpit(), bystander=Receiver(200))
    made = _register(base, alerts, scene.good.url, ticker="o3", kind="price_cut")
    assert made.status_code == 201, made.text
    scene.good_hook = made.json()["data"]
    for receiver in (scene.bad, scene.redirector):
        assert _register(base, alerts, receiver.url).status_code == 201
    assert _register(base, alerts, scene.quiet.url, ticker="GPT-4O").status_code == 201  # hears nothing of O3
    scene.tarpit_hooks = [_register(base, tarpit_key, scene.tarpit.url).json()["data"]["id"]
                          for _ in range(MOST_PER_KEY)]
    scene.over_the_cap = _register(base, tarpit_key, scene.tarpit.url)
    assert _register(base, bystander_key, scene.bystander.url).status_code == 201
    scene.published = time.monotonic()
    _publish_with_a_cut(root)
    yield scene
    scene.tarpit.close()
    stop_server(process)


def test_a_key_whose_receivers_never_answer_delays_neither_another_keys_delivery_nor_a_delete(delivered):
    scene = delivered
    assert scene.over_the_cap.status_code == 409, scene.over_the_cap.text
    assert scene.over_the_cap.json()["code"] == "too_many_webhooks"
    assert f"already has {MOST_PER_KEY} webhooks" in scene.over_the_cap.json()["detail"]
    scene.bystander.wait_for(1, timeout=10)
    assert scene.bystander.arrived[0] - scene.published < 5
    # The tarpit is holding tries while the webhook is removed: its first tries may start a moment
    # after the bystander's delivery (the pool takes the keys' deliveries in its own order).
    deadline = time.monotonic() + TIMEOUT_SECONDS / 2
    while scene.tarpit.open < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert scene.tarpit.open >= 1
    asked = time.monotonic()
    removed = httpx.delete(f"{scene.base}/v1/webhooks/{scene.tarpit_hooks[0]}", headers=scene.tarpit_key)
    assert removed.status_code == 200 and time.monotonic() - asked < 2
    assert httpx.delete(f"{scene.base}/v1/webhooks/{scene.tarpit_hooks[0]}",
                        headers=scene.tarpit_key).status_code == 404
    assert scene.tarpit.most_open <= 2  # the key's share of the delivery threads


def test_a_published_cut_is_posted_signed_and_a_failing_receiver_gets_every_try_then_is_paused(delivered):
    scene = delivered
    scene.good.wait_for(1)
    headers, body = scene.good.posts[0]
    secret = scene.good_hook["secret"]
    assert scene.good_hook["ticker"] == "O3" and secret.startswith("whsec_")
    assert headers["X-Oracle-Signature"] == "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    assert [(e["ticker"], e["kind"], e["before"], e["after"]) for e in json.loads(body)["events"]] == [
        ("O3", "price_cut", 8.0, 4.0)]
    scene.bad.wait_for(3)
    time.sleep(1.0)
    assert len(scene.bad.posts) == 3 and scene.quiet.posts == []
    log = httpx.get(f"{scene.base}/v1/webhooks", headers=scene.alerts).json()["data"]
    assert len(log["webhooks"]) == 4 and all("secret" not in hook for hook in log["webhooks"])
    by_url = {hook["url"]: hook for hook in log["webhooks"]}
    tries = {}
    for row in sorted(log["deliveries"], key=lambda row: row["attempt"]):
        tries.setdefault(row["webhook_id"], []).append((row["attempt"], row["status"], row["outcome"]))
    assert tries[by_url[scene.good.url]["id"]] == [(1, 200, "delivered")]
    assert tries[by_url[scene.bad.url]["id"]] == [(1, 500, "retrying"), (2, 500, "retrying"), (3, 500, "failed")]
    paused = by_url[scene.bad.url]
    assert paused["paused"] and paused["paused_at"]
    assert paused["paused_reason"].startswith("the last delivery failed (last try: the receiver answered 500)")
    assert not by_url[scene.good.url]["paused"] and by_url[scene.good.url]["paused_reason"] is None


def test_a_redirect_is_not_followed_and_is_a_failed_delivery(delivered):
    scene = delivered
    scene.redirector.wait_for(3)
    time.sleep(0.5)
    assert len(scene.redirector.posts) == 3 and scene.inside.posts == []
    log = httpx.get(f"{scene.base}/v1/webhooks", headers=scene.alerts).json()["data"]
    [hook] = [hook["id"] for hook in log["webhooks"] if hook["url"] == scene.redirector.url]
    rows = sorted((row for row in log["deliveries"] if row["webhook_id"] == hook), key=lambda row: row["attempt"])
    assert [(row["status"], row["outcome"]) for row in rows] == [(302, "retrying"), (302, "retrying"), (302, "failed")]
    assert all("redirects are not followed" in row["detail"] for row in rows)


REFUSED = {
    "http://127.0.0.1:9/hook": "a webhook must reach a public address",
    "http://[::127.0.0.1]:9/hook": "a webhook must reach a public address",
    "http://[64:ff9b::7f00:1]:9/hook": "a webhook must reach a public address",
    "http://[2002:7f00:1::]:9/hook": "a webhook must reach a public address",
    "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/": "no webhook may reach",
    "http://1.1.1.1:0/hook": "the port must be a number from 1 to 65535",
    "http://1.1.1.1:99999/hook": "the port must be a number from 1 to 65535",
    "http://1.1.1.1/a hook": "percent-encode",
    "http://1.1.1.1/hook\r\nX-Injected: 1": "percent-encode",
    "ftp://example.com/x": "http:// or https://",
}


def test_webhook_refusals(built_warehouse, tmp_path):
    process, base = start_server(built_warehouse, tmp_path / "data")  # private targets not allowed
    try:
        key = _key(base, "x")
        for url, said in REFUSED.items():
            refused = httpx.post(f"{base}/v1/webhooks", json={"url": url}, headers=key)
            assert refused.status_code == 400, (url, refused.text)
            assert refused.json()["errors"][0]["field"] == "url" and said in refused.json()["detail"], url
        assert httpx.post(f"{base}/v1/webhooks", json={"url": "http://x.invalid/h", "kind": "cut"},
                          headers=key).status_code == 400
        assert httpx.post(f"{base}/v1/webhooks", json={"url": "http://127.0.0.1:9/hook"}).status_code == 401
        assert httpx.get(f"{base}/v1/webhooks").status_code == 401
        assert httpx.get(f"{base}/v1/webhooks", headers=key).json()["data"]["webhooks"] == []
    finally:
        stop_server(process)
