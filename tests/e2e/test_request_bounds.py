"""Through one real `oracle serve`: a refused request is logged as the 4xx it is and carries the
rate-limit headers, a body trickled in is cut off, two keys in one request are a 400, and the
largest seed a Monte Carlo run takes is taken."""

import json
import os
import re
import signal
import socket
import time

import httpx
import pytest

from tests.servers import start_server

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("request_bounds")]  # one server for the module

BODY_SECONDS = 1.5
BUDGET_MIB = 4  # the server's kept answers, at most


@pytest.fixture(scope="module")
def server(built_warehouse, tmp_path_factory):
    folder = tmp_path_factory.mktemp("bounds")
    log = folder / "access.log"
    process, base = start_server(built_warehouse, folder / "data", access_log=str(log),
                                 body_timeout_seconds=str(BODY_SECONDS), kept_answer_bytes=str(BUDGET_MIB << 20))
    try:
        yield base, log, process.pid
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def _raw(base: str, request: bytes, timeout: float = 10) -> bytes:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
            if b"\r\n\r\n" in b"".join(chunks):
                head, _, rest = b"".join(chunks).partition(b"\r\n\r\n")
                length = re.search(rb"(?im)^content-length: (\d+)", head)
                if length and len(rest) >= int(length.group(1)):
                    break
    return b"".join(chunks)


def _lines(log) -> list[str]:
    return [line for line in log.read_text().splitlines() if '"GET /health ' not in line]


def _next_line(log, before: int, timeout: float = 5) -> str:
    """The first access log line after the first `before` (the log is written every quarter second)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = _lines(log)
        if len(lines) > before:
            return lines[before]
        time.sleep(0.05)
    raise AssertionError("no new access log line")


@pytest.mark.parametrize(("method", "path", "body", "headers", "status"), [
    ("POST", "/v1/price", b'{"model": "O3", "n_in": "10", "n_out": 1}', {}, 400),
    ("POST", "/v1/price", b"x" * 70_000, {}, 413),
    ("POST", "/v1/compare", b"n_in=10", {"Content-Type": "application/x-www-form-urlencoded"}, 415),
    ("GET", "/v1/spots?colour=blue", None, {}, 400),
    ("GET", "/v1/no-such-thing", None, {}, 404),
])
def test_a_refusal_is_logged_as_what_it_is_and_carries_the_rate_limit_headers(server, method, path, body,
                                                                                headers, status):
    base, log, _ = server
    time.sleep(0.3)  # the lines of earlier requests are written
    before = len(_lines(log))
    answer = httpx.request(method, f"{base}{path}", content=body, headers=headers, timeout=10)
    assert answer.status_code == status, answer.text
    assert answer.headers["ratelimit-limit"] and answer.headers["x-ratelimit-remaining"]
    line = _next_line(log, before)
    assert f'"{method} {path} HTTP/1.1" {status} {len(answer.content)} ' in line, line


def test_a_body_trickled_in_is_cut_off(server):
    base, _, _ = server
    host, port = base.removeprefix("http://").split(":")
    started = time.monotonic()
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"POST /v1/price HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100\r\n\r\n{")
        answer = b""
        try:
            for _ in range(20):  # a byte a quarter second: the whole body would take 25 s
                time.sleep(0.25)
                sock.sendall(b" ")
                if not answer:
                    sock.settimeout(0.01)
                    try:
                        answer = sock.recv(65536)
                    except TimeoutError:
                        pass
                    sock.settimeout(10)
                if answer:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = answer or sock.recv(65536)
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "body_timeout"
    assert time.monotonic() - started < BODY_SECONDS + 3


def test_two_keys_in_one_request_are_a_400(server):
    base, _, _ = server
    answer = _raw(base, b"GET /v1/spots/O3 HTTP/1.1\r\nHost: x\r\nX-API-Key: ipo_a\r\nX-API-Key: ipo_b\r\n"
                        b"Connection: close\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:200]
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["code"] == "duplicate_key"
    both = _raw(base, b"GET /v1/spots/O3 HTTP/1.1\r\nHost: x\r\nX-API-Key: ipo_a\r\nAuthorization: Bearer ipo_a\r\n"
                      b"Connection: close\r\n\r\n")
    assert both.startswith(b"HTTP/1.1 401 ")  # one of each is one key in each header: the key is checked


def test_the_largest_seed_is_taken_and_one_past_it_is_a_400(server):
    base, _, _ = server
    ask = f"{base}/v1/monte-carlo/SONNET-4?taskCategory=chat&horizonMonths=3&paths=100&seed="
    assert httpx.get(ask + str(2**63 - 1), timeout=30).status_code == 200
    past = httpx.get(ask + str(2**63), timeout=30)
    assert past.status_code == 400 and past.json()["errors"][0]["field"] == "seed"


@pytest.mark.parametrize("path", ["/health", "/v1/task-types", "/v1/spots?limit=5", "/v1/forwards/SONNET-4", "/dashboard"])
def test_head_is_answered_wherever_get_is_with_the_same_head_and_no_body(server, path):
    base, _, _ = server
    got = httpx.get(f"{base}{path}", headers={"Accept-Encoding": "identity"}, timeout=30)  # as the HEAD asks
    request = f"HEAD {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    head = _raw(base, request).partition(b"\r\n\r\n")
    assert head[0].startswith(b"HTTP/1.1 200 ") and head[2] == b"", head[0]
    length = re.search(rb"(?im)^content-length: (\d+)", head[0])
    assert length and int(length.group(1)) == int(got.headers["content-length"])
    if path.startswith("/v1"):
        assert re.search(rb"(?im)^ratelimit-remaining: \d+", head[0])  # counted like a GET


def _rss_mib(pid: int) -> float:
    status = open(f"/proc/{pid}/status").read()
    return int(re.search(r"VmRSS:\s+(\d+) kB", status).group(1)) / 1024


def test_distinct_pages_leave_the_servers_memory_within_its_answer_budget(server):
    """Each distinct page is kept, until the shelf's budget: 400 pages of a long table, each
    hundreds of kilobytes, leave the server about as large as the budget allows, not as large as
    the pages sent (measured with pages of 576 KB: 2.5 MiB more with a 4 MiB budget, 124 MiB more
    with 512 MiB)."""
    base, _, pid = server
    with httpx.Client(base_url=base, timeout=30) as client:
        page = "/v1/backtest?limit=500&offset={}"
        sizes = [len(client.get(page.format(i)).content) for i in range(5)]
        before = _rss_mib(pid)
        for offset in range(5, 400):
            assert client.get(page.format(offset)).status_code == 200
        grown = _rss_mib(pid) - before
    assert 400 * min(sizes) / 2**20 > 3 * (BUDGET_MIB * 4 + 16)  # what an unbounded server would keep
    assert grown < BUDGET_MIB * 4 + 16, f"{grown:.0f} MiB more after 400 distinct pages"
