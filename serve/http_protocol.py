"""uvicorn's HTTP protocol (httptools), passed through its documented `http` setting, with two
bounds on a request's head that uvicorn's settings do not give: at most MAX_HEAD_BYTES of request
line and headers (past that, 431 and the connection closed), and at most
`head_timeout_seconds()` from the moment the server waits for a request (a new connection, or
the end of the previous answer) to the end of its headers (a client that trickles a header in,
or connects and says nothing, is cut off). Idle keep-alive connections are uvicorn's own
`timeout_keep_alive`. Nothing else of the protocol is changed; the class is tested against the
uvicorn versions pyproject.toml allows.

The head's size is counted on the bytes received before the parser sees them, up to the blank
line that ends the head where a read holds it: a head trickled in is refused as it grows, and a
long head that arrives in one read before the parser has reported any of it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

MAX_HEAD_BYTES = 64 * 1024
HEAD_TIMEOUT_SECONDS = 10.0  # the default; `ORACLE_HEAD_TIMEOUT_SECONDS` sets another (the tests' shorter one)


@functools.cache  # once per server process: every connection is bounded alike
def head_timeout_seconds() -> float:
    chosen = os.environ.get("ORACLE_HEAD_TIMEOUT_SECONDS", "").strip()
    return float(chosen) if chosen else HEAD_TIMEOUT_SECONDS

_TOO_LARGE = json.dumps({
    "type": "about:blank", "title": "Request Header Fields Too Large", "status": 431,
    "code": "headers_too_large",
    "detail": f"the request line and headers may take at most {MAX_HEAD_BYTES:,} bytes; send fewer or shorter ones",
}).encode()


class BoundedHttpProtocol(HttpToolsProtocol):
    head_bytes: int = 0
    head_complete: bool = False
    head_since: float = 0.0  # when the server began waiting for the head it waits for now
    head_timer: asyncio.TimerHandle | None = None

    def _wait_for_head(self) -> None:
        self.head_bytes, self.head_complete = 0, False
        self.head_since = self.loop.time()
        if self.head_timer is None:
            self.head_timer = self.loop.call_at(self.head_since + head_timeout_seconds(), self._check_head)

    def _check_head(self) -> None:
        """One timer per connection, not one per request (arming and cancelling a timer for each
        request cost the loop about as much as a header): when it fires, the connection is closed
        if the head it waits for is late, else the timer is set again for when it could be."""
        self.head_timer = None
        if self.transport.is_closing():
            return
        now = self.loop.time()
        due = self.head_since + head_timeout_seconds()
        if not self.head_complete and now >= due:
            self.transport.close()
            return
        self.head_timer = self.loop.call_at(now + head_timeout_seconds() if self.head_complete else due,
                                            self._check_head)

    def _cancel_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._wait_for_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.head_complete:
            end = data.find(b"\r\n\r\n")  # a body or the next request may follow in the same read
            self.head_bytes += len(data) if end < 0 else end + 4
            if self.head_bytes > MAX_HEAD_BYTES:
                self._refuse_head()
                return
        super().data_received(data)

    def _refuse_head(self) -> None:
        self._cancel_head_timer()
        self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                             b"content-type: application/problem+json\r\n"
                             b"content-length: " + str(len(_TOO_LARGE)).encode() + b"\r\n"
                             b"connection: close\r\n\r\n" + _TOO_LARGE)
        self.transport.close()

    def on_headers_complete(self) -> None:
        self.head_complete = True
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._wait_for_head()  # the next request on this connection


# How `oracle serve` runs uvicorn. Its own proxy-header handling is off: it would believe
# `X-Forwarded-For` from loopback before the oracle's rule (`ORACLE_TRUSTED_PROXIES`,
# serve/access/middleware.py) ever ran. Its access log is off too: the app writes its own, off
# the request path and with the address that rule decided (serve/access_log.py). On shutdown, an
# answer still being sent after GRACEFUL_SHUTDOWN_SECONDS is cut: an event stream never ends by
# itself, and its client reconnects with Last-Event-ID (serve/event_stream.py). No `Server` header:
# it tells a client nothing it needs, tells a scanner which server to try, and is one more header
# uvicorn checks on every answer.
GRACEFUL_SHUTDOWN_SECONDS = 5
SERVER_OPTIONS = {"log_level": "info", "proxy_headers": False, "access_log": False, "http": BoundedHttpProtocol,
                  "timeout_graceful_shutdown": GRACEFUL_SHUTDOWN_SECONDS, "server_header": False}
