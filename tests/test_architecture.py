"""The import rules of ARCHITECTURE.md: each room imports only what its row allows."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

FORBIDDEN = {
    "pipelines": {"dagster", "litestar", "msgspec", "warehouse", "serve", "assets", "uvicorn"},
    "warehouse": {"dagster", "litestar", "serve", "assets", "pipelines"},
    "assets": {"litestar", "serve", "msgspec", "uvicorn"},
    "serve": {"dagster", "assets"},
}
# pipelines/ does no file or network I/O.
IO_MODULES = {"pathlib", "shutil", "socket", "urllib", "http", "requests", "httpx", "tempfile", "glob"}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def _modules(room):
    return sorted((ROOT / room).rglob("*.py"))


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_rooms_import_only_what_they_may(room):
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_roots(path) & FORBIDDEN[room]) for path in _modules(room)
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_pipelines_do_no_io():
    offenders = {}
    for path in _modules("pipelines"):
        bad = imported_roots(path) & IO_MODULES
        if "open(" in path.read_text():
            bad.add("open()")
        if bad:
            offenders[str(path.relative_to(ROOT))] = sorted(bad)
    assert offenders == {}


def test_the_rule_catches_a_forbidden_import(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("import dagster\nfrom litestar import Litestar\nfrom . import sibling\n")
    assert imported_roots(module) & FORBIDDEN["pipelines"] == {"dagster", "litestar"}
