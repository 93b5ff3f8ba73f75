"""What depends on the server stack, through a real `oracle serve` process (uvicorn): only the
oracle's own rule decides which `X-Forwarded-For` to believe; a request head is bounded in size
and in time."""

import os
import signal
import socket
import time
from contextlib import contextmanager

import httpx

from serve.http_protocol import HEAD_TIMEOUT_SECONDS
from tests.servers import start_server

FREE = 3  # requests per hour on the free tier, for these servers


@contextmanager
def served(warehouse, data, **settings):
    process, base = start_server(warehouse, data, free_requests_per_hour=str(FREE), **settings)
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            yield client
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _codes(client, forged: int) -> list[int]:
    return [client.get("/v1/task-types", headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
            for i in range(forged)]


def test_a_forged_forwarded_for_from_loopback_is_not_believed(built_warehouse, tmp_path):
    with served(built_warehouse, tmp_path / "data") as client:
        codes = _codes(client, FREE + 3)
    # Every request is the loopback client's, whatever address it claims: the free tier runs out.
    assert codes == [200] * FREE + [429] * 3


def test_a_trusted_proxys_forwarded_for_is_believed(built_warehouse, tmp_path):
    with served(built_warehouse, tmp_path / "data", trusted_proxies="127.0.0.1") as client:
        codes = _codes(client, FREE + 3)
    assert codes == [200] * (FREE + 3)  # each forwarded client has a free tier of its own


def _read_all(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def test_an_oversize_header_is_a_431_before_it_is_read_whole(built_warehouse, tmp_path):
    with served(built_warehouse, tmp_path / "data") as client:
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


def test_a_client_that_trickles_its_headers_or_says_nothing_is_cut_off(built_warehouse, tmp_path):
    with served(built_warehouse, tmp_path / "data") as client:
        host, port = client.base_url.host, client.base_url.port
        with socket.create_connection((host, port)) as idle, socket.create_connection((host, port)) as slow:
            started = time.monotonic()
            slow.sendall(b"GET /v1/task-types HTTP/1.1\r\nHost: x\r\n")
            closed = {}
            while len(closed) < 2 and time.monotonic() - started < HEAD_TIMEOUT_SECONDS + 10:
                for name, sock in (("idle", idle), ("slow", slow)):
                    if name in closed:
                        continue
                    try:
                        if name == "slow":
                            sock.sendall(b"X-Drip: 1\r\n")  # one header a second, never the end
                        sock.settimeout(1.0)
                        if sock.recv(1024) == b"":
                            closed[name] = time.monotonic() - started
                    except TimeoutError:
                        pass
                    except (BrokenPipeError, ConnectionResetError):
                        closed[name] = time.monotonic() - started
        assert set(closed) == {"idle", "slow"}
        assert all(HEAD_TIMEOUT_SECONDS - 1 <= seconds <= HEAD_TIMEOUT_SECONDS + 4 for seconds in closed.values())
        assert client.get("/v1/task-types").status_code == 200
