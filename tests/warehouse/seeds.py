"""Helpers for the tests of the shipped seed files and the scripts that rebuild them."""

import gzip
import hashlib
import importlib.util
import json
import shutil
import sys
from pathlib import Path

from warehouse.seed_files import SEED_DIR

ROOT = Path(__file__).resolve().parents[2]


def load_script(name: str):
    """A script of scripts/ as a module (they are run as files, not imported as a package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # a dataclass in it looks its module up while being defined
    spec.loader.exec_module(module)
    return module


def copy_seed(tmp_path: Path) -> Path:
    """A private copy of warehouse/seed/, for tests that damage it."""
    target = tmp_path / "seed"
    shutil.copytree(SEED_DIR, target)
    return target


def reseal(seed: Path, name: str, meta_name: str, content: bytes, **meta_changes) -> None:
    """Write `content` gzipped as `name` and make its meta record agree (checksum and any
    changes given), so only the content checks can object."""
    data = gzip.compress(content, mtime=0)
    (seed / name).write_bytes(data)
    meta = json.loads((seed / meta_name).read_text())
    meta.update(file_sha256=hashlib.sha256(data).hexdigest(), **meta_changes)
    (seed / meta_name).write_text(json.dumps(meta))
