"""Servers for the tests: `oracle serve` as a real process, and real PostgreSQL and Redis servers on
loopback for the shared-store tests, started from the Debian packages' binaries (`.ci/run`
installs them). Where PostgreSQL or Redis cannot be started, the tests that need it are skipped,
saying why.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _postgres_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


def _as_postgres(argv: list[str]) -> list[str]:
    """initdb and postgres refuse to run as root: run them as the package's `postgres` user."""
    if os.geteuid() != 0:
        return argv
    runuser = shutil.which("runuser")
    if runuser is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as its own user")
    return [runuser, "-u", "postgres", "--", *argv]


def start_postgres(folder: Path) -> tuple[str, callable]:
    """A throwaway cluster in `folder`: (URL, stop)."""
    initdb, pg_ctl = _postgres_bin("initdb"), _postgres_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql); the shared key store is untested")
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    init = subprocess.run(_as_postgres([initdb, "-D", str(data), "-U", "oracle", "--auth=trust", "-E", "UTF8"]),
                          capture_output=True, text=True)
    if init.returncode != 0:
        pytest.skip(f"initdb failed: {init.stderr.strip()[-300:]}")
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    start = subprocess.run(_as_postgres([pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"),
                                         "-w", "-t", "60", "start"]), capture_output=True, text=True)
    if start.returncode != 0:
        pytest.skip(f"PostgreSQL did not start: {start.stderr.strip()[-300:]}")

    def stop() -> None:
        subprocess.run(_as_postgres([pg_ctl, "-D", str(data), "-m", "immediate", "stop"]), capture_output=True)

    return f"postgresql://oracle@127.0.0.1:{port}/postgres", stop


def start_redis(folder: Path) -> tuple[str, callable]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("Redis is not installed (apt-get install redis-server); the shared counter store is untested")
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                "no", "--dir", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.1)
    else:
        process.kill()
        pytest.skip("Redis did not start within 30 s")

    def stop() -> None:
        process.terminate()
        process.wait(timeout=10)

    return f"redis://127.0.0.1:{port}/0", stop


def start_server(warehouse: Path, data: Path, *options: str, **settings: str) -> tuple[subprocess.Popen, str]:
    """`oracle serve` on a free port: (process, base URL); `options` are added to the command,
    `settings` are ORACLE_* values."""
    port = free_port()
    env = {**os.environ, "ORACLE_STALE_AFTER_HOURS": str(24 * 365 * 100), "ORACLE_DATA": str(data),
           "ORACLE_FREE_REQUESTS_PER_HOUR": str(10**9), "ORACLE_KEY_CREATIONS_PER_HOUR": str(10**9),
           **{f"ORACLE_{name.upper()}": value for name, value in settings.items()}}
    process = subprocess.Popen(
        [Path(sys.executable).parent / "oracle", "serve", "--port", str(port), "--warehouse", str(warehouse),
         *options],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            time.sleep(0.2)
    process.kill()
    pytest.fail("oracle serve did not come up within 60 s")
