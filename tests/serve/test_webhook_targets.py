"""Where a webhook may post, without a server process: the URL's form, every address its host
resolves to (and any IPv4 address an IPv6 one carries), the connection made to the checked address
under the name, no redirect followed, a try bounded in time, and the run of failures that pauses a
webhook. Receivers are local servers on 127.0.0.1, allowed as private targets here."""

from __future__ import annotations

import socket
import ssl
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from serve import webhook_targets
from serve.webhook_targets import NEVER, NOT_PUBLIC, Courier, TargetRefused, check_target
from serve.webhooks import WebhookStore

REFUSED_AS_NOT_PUBLIC = [
    "http://127.0.0.1/", "http://10.0.0.1/", "http://[::1]/", "http://[fc00::1]/",
    "http://2130706433/", "http://127.1/",  # loopback written as one number, and shortened
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[::ffff:127.0.0.1]/",  # IPv4-mapped
    "http://[::ffff:0:7f00:1]/",  # IPv4-translated
    "http://[64:ff9b::7f00:1]/",  # NAT64
    "http://[64:ff9b:1::808:808]/",  # the local-use NAT64 prefix, whatever it carries
    "http://[2002:7f00:1::]/",  # 6to4
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo, its client 127.0.0.1
]
REFUSED_EVEN_WHEN_PRIVATE_IS_ALLOWED = [
    "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://0.0.0.0/", "http://[::]/",
    "http://224.0.0.1/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/", "http://[::ffff:169.254.169.254]/",
]
PUBLIC = ["http://8.8.8.8/", "https://[2606:4700:4700::1111]/", "http://[64:ff9b::808:808]/",
          "http://[2002:808:808::]/"]
MALFORMED = {
    "http://1.1.1.1:0/": "port must be a number from 1 to 65535",
    "http://1.1.1.1:99999/": "port must be a number from 1 to 65535",
    "http://1.1.1.1:http/": "port must be a number from 1 to 65535",
    "http://1.1.1.1/a b": "percent-encode",
    "http://1.1.1.1/a\r\nX-Injected: 1": "percent-encode",
    "http://1.1.1.1/\t": "percent-encode",
    "http://exämple.com/": "xn-- form",
    "http://[::1/": "cannot be read",
    "ftp://example.com/": "http:// or https://",
    "http:///path": "http:// or https://",
    "http://user:pass@1.1.1.1/": "credentials",
}


@pytest.mark.parametrize("url", REFUSED_AS_NOT_PUBLIC)
def test_an_address_inside_the_network_is_refused_in_any_form(url):
    with pytest.raises(TargetRefused, match=NOT_PUBLIC):
        check_target(url, allow_private=False)
    check_target(url, allow_private=True)


@pytest.mark.parametrize("url", REFUSED_EVEN_WHEN_PRIVATE_IS_ALLOWED)
def test_link_local_unspecified_and_multicast_are_refused_even_when_private_targets_are_allowed(url):
    for allow_private in (False, True):
        with pytest.raises(TargetRefused, match="no webhook may reach"):
            check_target(url, allow_private)


@pytest.mark.parametrize("url", PUBLIC)
def test_a_public_address_is_accepted_in_any_form(url):
    check_target(url, allow_private=False)


@pytest.mark.parametrize(("url", "said"), MALFORMED.items())
def test_a_malformed_url_is_refused_saying_how_to_mend_it(url, said):
    with pytest.raises(TargetRefused, match=said):
        check_target(url, allow_private=True)


def _resolving(monkeypatch, names: dict[str, list[str]], later: dict[str, list[str]] | None = None) -> list[str]:
    """Each of `names` resolves to its addresses, then, asked again, to those `later` gives it; the
    names asked for are listed."""
    real, asked = socket.getaddrinfo, []

    def getaddrinfo(name, port, *args, **kwargs):
        if name not in names:
            return real(name, port, *args, **kwargs)
        addresses = (later or {}).get(name, names[name]) if name in asked else names[name]
        asked.append(name)
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
                for a in addresses]

    monkeypatch.setattr(webhook_targets.socket, "getaddrinfo", getaddrinfo)
    return asked


def test_every_address_a_name_resolves_to_is_checked(monkeypatch):
    _resolving(monkeypatch, {"hooks.example": ["8.8.8.8", "64:ff9b::a9fe:a9fe"]})
    with pytest.raises(TargetRefused, match=r"hooks.example resolves to 64:ff9b::a9fe:a9fe \(which carries "
                                            r"169.254.169.254\), " + NEVER[:20]):
        check_target("https://hooks.example/x", allow_private=False)


class Receiver:
    """A local server answering each POST with `status` (and a Location), recording what it got;
    over TLS with `tls`."""

    def __init__(self, status: int = 200, location: str = "", tls: ssl.SSLContext | None = None):
        self.requests: list[tuple[str, dict]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the standard library's name
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((self.path, dict(self.headers)))
                self.send_response(status)
                if location:
                    self.send_header("Location", location)
                self.end_headers()

            do_GET = do_POST  # noqa: N815 - a followed redirect would arrive as a GET

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if tls is not None:
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def courier():
    courier = Courier(workers=2, timeout=0.5, allow_private=True)
    yield courier
    courier.close()


def test_a_post_goes_to_the_checked_address_under_the_name(monkeypatch, courier):
    receiver = Receiver(204)
    # Asked again, the name would answer an address nothing listens on: the post must not ask.
    asked = _resolving(monkeypatch, {"hooks.example": ["127.0.0.1"]}, later={"hooks.example": ["127.0.0.2"]})
    try:
        answer = courier.post_now(f"http://hooks.example:{receiver.port}/in?a=1", b"{}", {"X-Oracle-Event": "e"})
    finally:
        receiver.close()
    assert answer.ok and answer.status == 204 and asked == ["hooks.example"]
    [(path, headers)] = receiver.requests
    assert path == "/in?a=1" and headers["Host"] == f"hooks.example:{receiver.port}"


def _certificate(folder, name: str) -> tuple[str, str]:
    """A self-signed certificate for `name` and its key (files)."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", f"/CN={name}",
                    "-addext", f"subjectAltName=DNS:{name}", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True)
    return str(cert), str(key)


@pytest.mark.slow  # a TLS receiver with a certificate made for it
def test_over_tls_the_name_is_the_server_name_and_the_certificate_must_be_for_it(monkeypatch, tmp_path):
    cert, key = _certificate(tmp_path, "hooks.example")
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    names = []
    server_side.sni_callback = lambda _socket, name, _context: names.append(name)
    receiver = Receiver(200, tls=server_side)
    _resolving(monkeypatch, {"hooks.example": ["127.0.0.1"], "other.example": ["127.0.0.1"]})
    courier = Courier(workers=1, timeout=2, allow_private=True, tls=ssl.create_default_context(cafile=cert))
    try:
        good = courier.post_now(f"https://hooks.example:{receiver.port}/hook", b"{}", {})
        wrong = courier.post_now(f"https://other.example:{receiver.port}/hook", b"{}", {})  # not the certificate's
    finally:
        courier.close()
        receiver.close()
    assert good.ok and receiver.requests[0][1]["Host"] == f"hooks.example:{receiver.port}"
    assert names[0] == "hooks.example"
    assert wrong.status is None and "certificate" in wrong.detail and len(receiver.requests) == 1


def test_a_name_that_now_resolves_inside_is_refused_at_delivery(monkeypatch):
    _resolving(monkeypatch, {"hooks.example": ["127.0.0.1"]})  # public at registration, private now
    courier = Courier(workers=1, timeout=0.5, allow_private=False)
    try:
        answer = courier.post_now("http://hooks.example/", b"{}", {})
    finally:
        courier.close()
    assert answer.status is None and answer.detail.startswith("refused: ") and NOT_PUBLIC in answer.detail


def test_a_redirect_is_not_followed_and_fails_the_try(courier):
    inside = Receiver(200)
    redirector = Receiver(302, location=inside.url)
    try:
        answer = courier.post_now(redirector.url, b"{}", {})
    finally:
        redirector.close()
        inside.close()
    assert not answer.ok and answer.status == 302 and "redirects are not followed" in answer.detail
    assert len(redirector.requests) == 1 and inside.requests == []


@pytest.mark.slow  # waits out a timeout
def test_a_receiver_that_never_answers_holds_a_try_no_longer_than_the_timeout(courier):
    with socket.create_server(("127.0.0.1", 0)) as tarpit:  # accepts (the backlog) and never answers
        started = time.monotonic()
        answer = courier.post_now(f"http://127.0.0.1:{tarpit.getsockname()[1]}/", b"{}", {})
    assert answer.status is None and answer.detail == "no answer within 0.5 s"
    assert time.monotonic() - started < 1.5


def test_a_run_of_failed_deliveries_pauses_a_webhook_and_a_success_ends_the_run(tmp_path):
    store = WebhookStore(str(tmp_path))
    hook = store.add("key", "http://127.0.0.1:9/", None, None, None, most=2)
    store.record(hook.id, False, "the receiver answered 500", pause_after=2)
    store.record(hook.id, True, "", pause_after=2)
    store.record(hook.id, False, "the receiver answered 500", pause_after=2)
    assert store.is_active(hook.id) and [h.id for h in store.active()] == [hook.id]
    store.record(hook.id, False, "no answer within 10 s", pause_after=2)
    [paused] = store.of_key("key")
    assert paused.paused is not None and not store.is_active(hook.id) and store.active() == []
    assert paused.paused_reason.startswith("the last 2 deliveries failed (last try: no answer within 10 s)")
    store.close()


def test_a_key_registers_no_more_webhooks_than_the_cap(tmp_path):
    store = WebhookStore(str(tmp_path))
    assert [store.add("key", "http://127.0.0.1:9/", None, None, None, most=2) is not None for _ in range(3)] == [
        True, True, False]
    assert store.add("another key", "http://127.0.0.1:9/", None, None, None, most=2) is not None
    store.close()
