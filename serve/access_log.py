"""The access log: one line per request, written off the request path.

uvicorn's own access log formats and writes every line through `logging` while the request is
being answered (handlers, a lock, a write call): measured, about a third of the throughput of a
cached answer. Here a request only appends a short line to a list; a background thread writes
what has gathered, in one call, every `flush_seconds` (and at shutdown), so the log costs a few
microseconds a request and a line reaches the log within a quarter of a second.

A line, in the common log's order:

    2026-11-25T02:40:01Z 203.0.113.7 "GET /v1/spots?provider=x HTTP/1.1" 200 24315 0.84ms

the time the answer started (UTC, to the second), the client's address (after the trusted-proxy
rule, `serve.access.middleware.client_address`: never an address a client merely claims), the
request line, the status, the body's bytes as sent (compressed when it was), and the time to the
answer's start. A key is never written; a query string is, cut at 200 characters.

`ORACLE_ACCESS_LOG` chooses the sink: `stdout` (the default), `off`, or a file path (appended to).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

CLIENT_SCOPE_KEY = "oracle_client"  # the address access control decided, for this line
FLUSH_SECONDS = 0.25
MAX_QUERY = 200
MAX_PENDING = 100_000  # lines; past this (a sink that cannot keep up) the oldest wait is cut short


class AccessLogWriter:
    """Lines gathered in memory and written by one thread; `close` writes the rest."""

    def __init__(self, sink: TextIO, flush_seconds: float = FLUSH_SECONDS):
        self.sink = sink
        self._lines: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(flush_seconds,), name="access-log", daemon=True)
        self._thread.start()

    def add(self, line: str) -> None:
        self._lines.append(line)  # list.append is atomic: no lock on the request path
        if len(self._lines) > MAX_PENDING:
            self.flush()

    def flush(self) -> None:
        lines, self._lines = self._lines, []  # swap first: appends after this go to the new list
        if lines:
            self.sink.write("\n".join(lines) + "\n")
            self.sink.flush()

    def _run(self, every: float) -> None:
        while not self._stop.wait(every):
            try:
                self.flush()
            except (OSError, ValueError):  # a closed or full sink: the lines are dropped, serving goes on
                pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.flush()
        if self.sink not in (sys.stdout, sys.stderr):
            self.sink.close()


def open_sink(where: str) -> TextIO | None:
    """`stdout`, `stderr`, `off`, or a file path to append to."""
    where = where.strip()
    if where.lower() in ("off", "none", ""):
        return None
    if where.lower() in ("stdout", "-"):
        return sys.stdout
    if where.lower() == "stderr":
        return sys.stderr
    return open(where, "a", buffering=1 << 16, encoding="utf-8")  # noqa: SIM115 - closed by AccessLogWriter


class _Clock:
    """The log's time stamp, formatted once per second rather than once per line."""

    second, text = -1, ""

    def stamp(self, now: float) -> str:
        second = int(now)
        if second != self.second:
            self.second, self.text = second, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(second))
        return self.text


class AccessLog:
    """The line of each HTTP request, added to the writer once its answer is sent. Access control
    (serve/access/middleware.py) times the request and watches its answer for this, in the one
    wrapper of `send` it puts around the routes, so logging adds no layer of its own."""

    def __init__(self, writer: AccessLogWriter):
        self.writer, self.clock = writer, _Clock()

    def add(self, scope, sent: dict) -> None:
        self.writer.add(self.line(scope, sent))

    def line(self, scope, sent: dict) -> str:
        """The line of one request: `sent` holds its status, body bytes and seconds to its start."""
        client = scope.get(CLIENT_SCOPE_KEY) or (scope.get("client") or ("-", 0))[0]
        query = scope.get("query_string", b"")
        path = scope.get("raw_path") or scope["path"].encode()  # as sent: still percent-encoded
        target = (path + (b"?" + query[:MAX_QUERY] if query else b"")).decode("latin-1")
        if not target.isprintable() or '"' in target:  # a line is one line, whatever a client sends
            target = target.encode("unicode_escape").decode("ascii").replace('"', '\\"')
        status = sent["status"] or 500  # no answer started: the server's own error reply follows
        return (f'{self.clock.stamp(time.time())} {client} "{scope["method"]} {target} '
                f'HTTP/{scope.get("http_version", "1.1")}" {status} {sent["bytes"]} {sent["took"] * 1000:.2f}ms')
