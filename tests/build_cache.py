"""The session snapshots kept between test runs, by what they are built from.

A snapshot of the small universe or of the whole bundled data depends only on the code and data
that build it, the installed packages, the interpreter and the refresh's settings. Its folder is
named after a digest of all of them (`inputs_key`), so a second run of an unchanged checkout
reads the snapshot the first one built, and any edit to an input is a new name and a new build.

A kept snapshot is used again only while every table still matches its manifest's checksum (a
test that wrote into it would otherwise spoil every run after it) and for at most `MAX_AGE_HOURS`:
tests read its age against the clock, as the server's staleness bound does. A fresh clone keeps
nothing and builds both, as CI does.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from warehouse.snapshot import SnapshotDamaged, SnapshotStore

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / ".cache" / "test-snapshots"
# What a build reads: the code a refresh runs (pipelines, assets, warehouse and its seed data), the
# session's own build functions and universe, and the project's declared dependencies.
INPUTS = ["pipelines", "assets", "warehouse", "tests/conftest.py", "tests/small_universe.py",
          "tests/fixtures/small_universe.json", "pyproject.toml"]
MAX_AGE_HOURS = 12


def inputs_key() -> str:
    digest = hashlib.sha256()
    for name in INPUTS:
        path = ROOT / name
        files = sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts) \
            if path.is_dir() else [path]
        for file in files:
            digest.update(str(file.relative_to(ROOT)).encode() + b"\0" + file.read_bytes() + b"\0")
    packages = sorted(f"{d.metadata['Name']}=={d.version}" for d in importlib.metadata.distributions())
    digest.update("\n".join([sys.version, *packages]).encode())
    settings = sorted(f"{k}={v}" for k, v in os.environ.items()  # the refresh's settings, not the tests' own
                      if k.startswith("ORACLE_") and not k.startswith("ORACLE_TEST_"))
    digest.update("\n".join(settings).encode())
    return digest.hexdigest()[:20]


def _sound(root: Path) -> bool:
    try:
        store = SnapshotStore(root)
        manifest = store.current()
        if manifest is None or time.time() - (root / "manifest.json").stat().st_mtime > MAX_AGE_HOURS * 3600:
            return False
        store.read_verified(manifest)
        return True
    except (SnapshotDamaged, OSError, ValueError):
        return False


def kept_build(name: str, build: Callable[[Path], None]) -> Path:
    """The snapshot folder `name` for today's inputs: the one kept, if sound, else built now (into
    a folder of its own, renamed when whole) and the older ones of that name removed. Call it
    holding the session's lock for `name`."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    root = FOLDER / f"{name}-{inputs_key()}"
    if root.exists() and _sound(root):
        return root
    shutil.rmtree(root, ignore_errors=True)
    building = FOLDER / f".{root.name}.{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    build(building)
    building.rename(root)
    for old in FOLDER.glob(f"{name}-*"):
        if old != root:
            shutil.rmtree(old, ignore_errors=True)
    return root
