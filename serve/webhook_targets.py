"""Where a webhook may post, and the posting itself: a key holder must not make the server call
inside its own network.

A URL is http(s), printable ASCII, with a port from 1 to 65535; every address its host resolves
to, and any IPv4 address one of them carries (mapped, compatible, NAT64, 6to4, Teredo), must be
public unless the operator allows private targets (`ORACLE_WEBHOOK_ALLOW_PRIVATE=1`); link-local
(cloud metadata), unspecified and multicast addresses never are. At registration and again at
every try the host is resolved once and the connection made to an address just checked, the name
kept as Host and TLS server name, so a name that resolves elsewhere later gains nothing.
Redirects are never followed, and only the answer's status line is read. Each try ends within
its timeout, on a thread pool of its own (`Courier`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import socket
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
PRINTABLE_ASCII = re.compile(r"[!-~]+")
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# RFC 8215's prefix is for one network's own translator, so never public; the IPv4 address is read
# where a /96 prefix puts it, so that an allowed private target still cannot carry a metadata address.
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")
TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT's IPv4-translated addresses
LOW_32_BITS = 0xFFFFFFFF
NOT_PUBLIC = "a private, loopback, link-local or reserved address; a webhook must reach a public address"
NEVER = ("a link-local, unspecified or multicast address (cloud metadata services answer on link-local "
         "ones), which no webhook may reach")


class TargetRefused(ValueError):
    """A URL the server will not post to, and why."""


@dataclass(frozen=True)
class Target:
    """A webhook URL taken apart: the host to resolve, and what the request says."""

    secure: bool
    host: str
    port: int
    host_header: str  # the name (and port) as written, sent as Host
    path: str  # path and query, the request target


def parse_target(url: str) -> Target:
    if not PRINTABLE_ASCII.fullmatch(url):
        raise TargetRefused("the URL holds a space, a control character or a non-ASCII character: percent-encode "
                            "them (a space as %20) and write an international host name in its xn-- form")
    try:
        parts = urlsplit(url)
    except ValueError:
        raise TargetRefused("the URL cannot be read; write it as http(s)://host[:port]/path, with an IPv6 "
                            "address in brackets") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TargetRefused("the URL must be http:// or https:// with a host")
    if "@" in parts.netloc:
        raise TargetRefused("the URL holds credentials (user@host), which are never sent; leave them out, as "
                            "the signature authenticates each post")
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return Target(parts.scheme == "https", parts.hostname, _port(parts), parts.netloc, path)


def _port(parts) -> int:
    try:
        port = parts.port
    except ValueError:  # beyond 65535, negative or not a number
        port = -1
    if port is None:
        return 443 if parts.scheme == "https" else 80
    if not 1 <= port <= 65535:
        raise TargetRefused("the port must be a number from 1 to 65535, or left out for 80 (http) or 443 (https)")
    return port


def resolve(host: str, port: int) -> list[IPAddress]:
    with contextlib.suppress(ValueError):
        return [ipaddress.ip_address(host)]
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise TargetRefused(f"the host {host} does not resolve") from None
    return list(dict.fromkeys(ipaddress.ip_address(info[4][0]) for info in found))


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries: a translator, a tunnel or the host's own stack
    may deliver a packet sent to it there."""
    if ip.version == 4:
        return []
    found = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if int(ip) >> 32 == 0 or any(ip in network for network in (NAT64, LOCAL_NAT64, TRANSLATED)):
        found.append(ipaddress.IPv4Address(int(ip) & LOW_32_BITS))  # ::a.b.c.d and the /96 prefixes
    return [address for address in found if address is not None]


def _never(ip: IPAddress) -> bool:
    return ip.is_link_local or ip.is_unspecified or ip.is_multicast


def _not_public(ip: IPAddress) -> bool:
    return not ip.is_global or ip in LOCAL_NAT64


def check_target(url: str, allow_private: bool) -> tuple[Target, list[IPAddress]]:
    """The URL taken apart, and every address its host resolves to now, each allowed; else
    TargetRefused, saying why (the graver reason first)."""
    target = parse_target(url)
    addresses = resolve(target.host, target.port)
    carried = [(address, ip) for address in addresses for ip in (address, *embedded_ipv4(address))]
    for refused, why in [(_never, NEVER), *([] if allow_private else [(_not_public, NOT_PUBLIC)])]:
        for address, ip in carried:
            if refused(ip):
                inside = f" (which carries {ip})" if ip != address else ""
                raise TargetRefused(f"{target.host} resolves to {address}{inside}, {why}")
    return target, addresses


STATUS_LINE = re.compile(rb"HTTP/1\.[01] ([1-5]\d\d)\b")
STATUS_LINE_MOST_BYTES = 1024


@dataclass(frozen=True)
class Answer:
    """What one try came to: the receiver's status (None: none) and, for a failure, why."""

    status: int | None
    detail: str | None = None

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left


def _request(target: Target, body: bytes, headers: dict[str, str]) -> bytes:
    lines = [f"POST {target.path} HTTP/1.1", f"Host: {target.host_header}", f"Content-Length: {len(body)}",
             "Connection: close", *(f"{name}: {value}" for name, value in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii") + body


def _status(sock: socket.socket, deadline: float) -> Answer:
    """The receiver's status, from the first line of its answer; the rest is not read."""
    head = b""
    while b"\n" not in head and len(head) < STATUS_LINE_MOST_BYTES:
        sock.settimeout(_left(deadline))
        chunk = sock.recv(STATUS_LINE_MOST_BYTES)
        if not chunk:
            break
        head += chunk
    found = STATUS_LINE.match(head)
    if found is None:
        return Answer(None, "the receiver closed the connection without an HTTP answer")
    status = int(found.group(1))
    if 300 <= status < 400:
        return Answer(status, "redirects are not followed: register the address the receiver redirects to")
    return Answer(status)


class Courier:
    """Posts to checked addresses on threads of its own, each try bounded in time."""

    def __init__(self, workers: int, timeout: float, allow_private: bool, tls: ssl.SSLContext | None = None):
        self.timeout, self.allow_private = timeout, allow_private
        self.tls = tls or ssl.create_default_context()  # the system's trusted authorities, the name checked
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="webhook")
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self.post_now, url, body, headers)

    def close(self) -> None:
        """Ends the tries under way (their sockets shut), so no thread outlives the server by long."""
        with self._lock:
            self._closed = True
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def post_now(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        deadline = time.monotonic() + self.timeout
        try:
            target, addresses = check_target(url, self.allow_private)  # again: a name may resolve elsewhere now
        except TargetRefused as refused:
            return Answer(None, f"refused: {refused}")
        sock = None
        try:
            sock = self._held(self._connect(addresses, target.port, deadline))
            if target.secure:
                sock.settimeout(_left(deadline))
                sock = self._held(self.tls.wrap_socket(sock, server_hostname=target.host), instead_of=sock)
            sock.settimeout(_left(deadline))
            sock.sendall(_request(target, body, headers))
            return _status(sock, deadline)
        except TimeoutError:
            return Answer(None, f"no answer within {self.timeout:g} s")
        except (OSError, ValueError) as error:  # refused, reset, TLS failures
            return Answer(None, f"could not post: {error}")
        finally:
            if sock is not None:
                with self._lock:
                    self._open.discard(sock)
                sock.close()

    @staticmethod
    def _connect(addresses: list[IPAddress], port: int, deadline: float) -> socket.socket:
        """A connection to the first checked address that takes one: never to the name, which
        could resolve to another address now."""
        failure: OSError = ConnectionError("no address")
        for address in addresses:
            try:
                return socket.create_connection((str(address), port), timeout=_left(deadline))
            except TimeoutError:
                raise
            except OSError as error:
                failure = error
        raise failure

    def _held(self, sock: socket.socket, instead_of: socket.socket | None = None) -> socket.socket:
        with self._lock:
            self._open.discard(instead_of)
            if self._closed:
                sock.close()
                raise ConnectionAbortedError("the server is stopping")
            self._open.add(sock)
        return sock


