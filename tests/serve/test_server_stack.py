"""What depends on the server stack, through a real `oracle serve` process (uvicorn): only the
oracle's own rule decides which `X-Forwarded-For` to believe; a request head is bounded in size
and in time."""

import json
import os
import re
import select
import signal
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from serve.http_protocol import HEAD_TIMEOUT_SECONDS, SERVER_OPTIONS
from tests.servers import start_server
from tests.small_universe import TICKERS

# Two real `oracle serve` processes for the module, on one worker: one that believes no forwarded
# address, with short bounds on heads, failed keys and key creations; one behind a trusted proxy.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("server_stack")]

HEAD_TIMEOUT = 4.0  # seconds: the server's bound set short (its default is HEAD_TIMEOUT_SECONDS)


@dataclass(frozen=True)
class Served:
    base: str
    log: Path  # its access log

    def client(self) -> httpx.Client:
        """A client of its own for each test: no connection is kept from one test to the next."""
        return httpx.Client(base_url=self.base, timeout=30)


@contextmanager
def served(warehouse, folder: Path, **settings):
    log = folder / "access.log"
    process, base = start_server(warehouse, folder / "data", access_log=str(log), **settings)
    try:
        yield Served(base, log)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def direct(built_warehouse, tmp_path_factory):
    with served(built_warehouse, tmp_path_factory.mktemp("direct"), head_timeout_seconds=str(HEAD_TIMEOUT),
                failed_auths_per_hour="3", key_creations_per_hour="2") as server:
        yield server


@pytest.fixture(scope="module")
def behind_proxy(built_warehouse, tmp_path_factory):
    with served(built_warehouse, tmp_path_factory.mktemp("proxied"), trusted_proxies="127.0.0.1") as server:
        yield server


def _remaining(server: Served, forged: int) -> list[int]:
    """The free tier left after each of `forged` requests, each claiming another address."""
    with server.client() as client:
        return [int(client.get("/v1/task-types", headers={"X-Forwarded-For": f"203.0.113.{i}"})
                    .headers["ratelimit-remaining"]) for i in range(forged)]


def test_a_forged_forwarded_for_from_loopback_is_not_believed(direct):
    left = _remaining(direct, 4)
    # Every request is the loopback client's, whatever address it claims: one count runs down.
    assert left == [left[0] - i for i in range(4)]


def test_a_trusted_proxys_forwarded_for_is_believed(behind_proxy):
    left = _remaining(behind_proxy, 4)
    assert len(set(left)) == 1  # each forwarded client has a free tier of its own, each asked once


def _read_all(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def test_an_oversize_head_that_arrives_in_one_read_is_a_431(direct):
    with direct.client() as client:
        host, port = client.base_url.host, client.base_url.port
        with socket.create_connection((host, port)) as sock:
            sock.sendall(b"GET /v1/task-types HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n")
            answer = _read_all(sock, 5)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert answer.count(b"HTTP/1.1") == 1  # the request was never answered as well
        assert client.get("/v1/task-types").status_code == 200


def test_a_body_that_arrives_with_its_head_is_not_counted_as_head(direct):
    """A short head and a body filling the 64 KiB a body may take, in one read: 64 KiB and more
    in all, and no 431."""
    body = json.dumps({"model": TICKERS[0], "n_in": 1000, "n_out": 100, "note": "x" * 64_000}).encode()
    assert len(body) < 64 * 1024
    with direct.client() as client:
        host, port = client.base_url.host, client.base_url.port
        with socket.create_connection((host, port)) as sock:
            sock.sendall(b"POST /v1/price HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            answer = _read_all(sock, 5)
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]  # read whole as a request, then refused:
        assert b"unknown field `note`" in answer  # `note` is no field of it


def test_an_oversize_header_is_a_431_before_it_is_read_whole(direct):
    with direct.client() as client:
        host, port = client.base_url.host, client.base_url.port
        with socket.create_connection((host, port)) as sock:
            sock.sendall(b"GET /v1/task-types HTTP/1.1\r\nHost: x\r\nX-Big: ")
            sent, started = 0, time.monotonic()
            try:
                while sent < 8 * 1024 * 1024:  # the server stops reading long before 8 MB
                    sock.sendall(b"a" * 65536)
                    sent += 65536
            except (BrokenPipeError, ConnectionResetError):
                pass
            answer = _read_all(sock, 5)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
        assert b'"code": "headers_too_large"' in answer and time.monotonic() - started < 5
        assert client.get("/v1/task-types").status_code == 200  # the server is fine


def test_a_client_that_trickles_its_headers_or_says_nothing_is_cut_off(direct):
    """... timed from when the server began waiting: on a new connection, from its start; after an
    answer, from that answer's end (one timer serves a connection's whole life). The answer comes
    2 s in, so a timer wrongly kept from the connection's start would cut `later` 2 s early."""
    assert HEAD_TIMEOUT < HEAD_TIMEOUT_SECONDS
    with direct.client() as client:
        host, port = client.base_url.host, client.base_url.port
        sockets = {name: socket.create_connection((host, port)) for name in ("idle", "slow", "later")}
        started = time.monotonic()
        sockets["slow"].sendall(b"GET /v1/task-types HTTP/1.1\r\nHost: x\r\n")
        time.sleep(2)
        sockets["later"].sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sockets["later"].recv(65536).startswith(b"HTTP/1.1 200")
        answered = time.monotonic() - started
        sockets["later"].sendall(b"GET /v1/task-types HTTP/1.1\r\nHost: x\r\n")
        closed = {}
        while len(closed) < 3 and time.monotonic() - started < answered + HEAD_TIMEOUT + 10:
            for name in ("slow", "later"):  # one header a second, never the end
                try:
                    if name not in closed:
                        sockets[name].sendall(b"X-Drip: 1\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    closed[name] = time.monotonic() - started
            open_ones = {sock: name for name, sock in sockets.items() if name not in closed}
            readable, _, _ = select.select(list(open_ones), [], [], 1.0)
            for sock in readable:
                try:
                    gone = sock.recv(1024) == b""
                except ConnectionResetError:
                    gone = True
                if gone:
                    closed[open_ones[sock]] = time.monotonic() - started
        for sock in sockets.values():
            sock.close()
        assert set(closed) == {"idle", "slow", "later"}
        waits = {"idle": closed["idle"], "slow": closed["slow"], "later": closed["later"] - answered}
        assert all(HEAD_TIMEOUT - 1 <= seconds <= HEAD_TIMEOUT + 3 for seconds in waits.values()), \
            waits
        assert client.get("/v1/task-types").status_code == 200


def _log_lines(path: Path, wanted, expected: int, timeout: float = 5) -> list[str]:
    """The access log's lines that `wanted` picks (the module's other tests write to it too), once
    `expected` of them have been written (they are written within 0.25 s)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = [line for line in path.read_text().splitlines() if wanted(line)] if path.exists() else []
        if len(lines) >= expected:
            return lines
        time.sleep(0.05)
    raise AssertionError(f"{expected} access log lines expected, found {len(lines)}")


def test_the_access_log_has_one_line_per_request_with_the_address_the_rule_decided(direct):
    with direct.client() as client:
        forged = client.get("/v1/spots", headers={"X-Forwarded-For": "203.0.113.9", "Accept-Encoding": "gzip"})
        missing = client.get("/v1/spots/NO-SUCH-MODEL")
        odd = client.get("/v1/spots/%22x%0A%22")
        port = int(str(client.base_url).rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as sock:  # a raw quote, as no client library sends
            sock.sendall(b'GET /v1/task-types?q="1" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
            raw_status = _read_all(sock, 10).split(b" ", 2)[1]
    asked = ('"GET /v1/spots HTTP', '"GET /v1/spots/NO-SUCH-MODEL ', '"GET /v1/spots/%22x', '"GET /v1/task-types?q=')
    lines = _log_lines(direct.log, lambda line: any(request in line for request in asked), 4)
    assert len(lines) == 4
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
    sent = int(forged.headers["content-length"])  # compressed, as sent
    assert re.fullmatch(rf'{stamp} 127\.0\.0\.1 "GET /v1/spots HTTP/1\.1" 200 {sent} \d+\.\d\dms', lines[0]), lines[0]
    assert re.fullmatch(rf'{stamp} 127\.0\.0\.1 "GET /v1/spots/NO-SUCH-MODEL HTTP/1\.1" 404 '
                        rf'{len(missing.content)} \d+\.\d\dms', lines[1]), lines[1]
    # What a client sends cannot break a line or forge a field: it stays percent-encoded or escaped.
    assert odd.status_code == 404 and '"GET /v1/spots/%22x%0A%22 HTTP/1.1" 404' in lines[2], lines[2]
    assert f'"GET /v1/task-types?q=\\"1\\" HTTP/1.1" {raw_status.decode()}' in lines[3], lines[3]


def test_the_access_log_names_the_client_behind_a_trusted_proxy(behind_proxy):
    with behind_proxy.client() as client:
        client.get("/v1/task-types", headers={"X-Forwarded-For": "203.0.113.9"})
        client.get("/health", headers={"X-Forwarded-For": "198.51.100.4"})
    lines = _log_lines(behind_proxy.log, lambda line: "203.0.113.9" in line or "198.51.100.4" in line, 2)
    assert [line.split(" ")[1] for line in lines] == ["203.0.113.9", "198.51.100.4"]


def test_uvicorns_own_access_log_is_off():
    # One line per request, written by the app (serve/access_log.py), not two.
    assert SERVER_OPTIONS["access_log"] is False


def test_guessed_keys_are_limited_per_address_through_the_real_server(direct):
    with direct.client() as client:
        guesses = [client.get("/v1/task-types", headers={"X-API-Key": f"ipo_guess{i}"}) for i in range(5)]
        without_key = client.get("/v1/task-types")
    assert [r.status_code for r in guesses] == [401, 401, 401, 429, 429]
    assert guesses[3].json()["code"] == "rate_limited" and int(guesses[3].headers["retry-after"]) > 0
    assert without_key.status_code == 200  # the address's free tier is its own count


def test_only_successful_key_creations_count_through_the_real_server(direct):
    with direct.client() as client:
        refused = [client.post("/v1/keys", json={"name": "x" * 100}).status_code for _ in range(10)]
        refused.append(client.post("/v1/keys", content=b"name=a", headers={"Content-Type": "text/plain"}).status_code)
        made = [client.post("/v1/keys", json={"name": f"ada {i}"}).status_code for i in range(3)]
    assert refused == [400] * 10 + [415]
    assert made == [201, 201, 429]


def _response(sock: socket.socket, buffered: bytearray) -> tuple[bytes, bytes]:
    """One response's head and content from a keep-alive connection (`buffered`: bytes read past
    the previous response)."""
    while b"\r\n\r\n" not in buffered:
        chunk = sock.recv(1 << 20)
        assert chunk, "the server closed the connection"
        buffered += chunk
    head, _, rest = bytes(buffered).partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length: (\d+)", head)
    size = int(length.group(1)) if length else 0
    buffered[:] = rest
    while len(buffered) < size:
        chunk = sock.recv(1 << 20)
        assert chunk, "the server closed the connection"
        buffered += chunk
    content = bytes(buffered[:size])
    del buffered[:size]
    return head, content


def test_an_answer_and_a_304_keep_the_connection_and_pipelined_requests_are_answered_in_order(direct):
    host, port = direct.base.removeprefix("http://").split(":")
    ask = b"GET /v1/forwards/SONNET-4 HTTP/1.1\r\nHost: x\r\n"
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        buffered = bytearray()
        sock.sendall(ask + b"\r\n")
        head, content = _response(sock, buffered)
        assert head.startswith(b"HTTP/1.1 200 "), head
        assert json.loads(content)["data"]["ticker"] == "SONNET-4"
        assert re.search(rb"(?im)^date: ", head) and not re.search(rb"(?im)^server:", head)
        etag = re.search(rb"(?im)^etag: (\S+)", head).group(1)

        # A 304 gives no length (RFC 9110 §8.6) and keeps the connection for the next request;
        # pipelined requests are answered in order.
        sock.sendall(ask + b"If-None-Match: " + etag + b"\r\n\r\n" + ask + b"\r\n")
        not_modified, nothing = _response(sock, buffered)
        again, content_again = _response(sock, buffered)
        assert not_modified.startswith(b"HTTP/1.1 304 ") and nothing == b""
        assert b"content-length" not in not_modified.lower()
        assert again.startswith(b"HTTP/1.1 200 ")
        assert json.loads(content_again)["data"] == json.loads(content)["data"]
        sock.sendall(b"GET /v1/greeks HTTP/1.1\r\nHost: x\r\n\r\n")  # a long answer (80 KB) on the same connection
        spots_head, spots = _response(sock, buffered)
        assert spots_head.startswith(b"HTTP/1.1 200 ") and len(spots) > 64 * 1024
        assert len(json.loads(spots)["data"]) == len(TICKERS)
