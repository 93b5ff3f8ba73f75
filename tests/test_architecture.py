"""The import rules of docs/architecture.md: each folder imports only what its row allows."""

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


# serve/ runs on the stack's public interfaces: the one exception is the protocol class passed
# through uvicorn's documented `http` setting (serve/http_protocol.py), which bounds the head.
ALLOWED_PRIVATE = {("serve/http_protocol.py", "uvicorn.protocols.http.httptools_impl")}


def private_imports(path: Path) -> set[str]:
    """Modules of uvicorn or Litestar that `path` imports from a private part (a name with `_`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
        for name in names:
            parts = name.split(".")
            if parts[0] == "uvicorn" and len(parts) > 2 or parts[0] == "litestar" and \
                    any(part.startswith("_") for part in parts):
                found.add(name)
    return found


def test_serve_imports_nothing_private_of_the_stack_and_never_replaces_the_asgi_handler():
    offenders = {}
    for path in _modules("serve"):
        where = str(path.relative_to(ROOT))
        bad = {name for name in private_imports(path) if (where, name) not in ALLOWED_PRIVATE}
        if "asgi_handler" in path.read_text():
            bad.add("asgi_handler")
        if bad:
            offenders[where] = sorted(bad)
    assert offenders == {}


def test_the_stack_rule_catches_a_private_import_and_a_replaced_handler(tmp_path):
    module = tmp_path / "bad.py"
    module.write_text("from litestar._asgi import ASGIRouter\nimport uvicorn.protocols.http.h11_impl\n"
                      "from litestar import Litestar\nimport uvicorn\n")
    assert private_imports(module) == {"litestar._asgi", "uvicorn.protocols.http.h11_impl"}


def serve_import_graph() -> dict[str, set[str]]:
    """Each serve module and the serve modules it imports (at any depth of the file)."""
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
               for path in _modules("serve")}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                candidates = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                candidates = [alias.name for alias in node.names]
            else:
                continue
            targets |= {candidate for candidate in candidates if candidate in modules and candidate != name}
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import loops of `graph`, each as the path that closes it."""
    found, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                found.append([*path[path.index(target):], target])
            elif target not in state:
                visit(target, [*path, target])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_serve_has_no_import_loop():
    assert cycles(serve_import_graph()) == []


def test_the_loop_rule_finds_a_loop():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]


def test_the_architecture_doc_forbids_what_this_test_forbids():
    rows = {line.split("|")[1].strip(" `/"): line.split("|")[3]
            for line in (ROOT / "docs" / "architecture.md").read_text().splitlines()
            if line.startswith("| `")}
    assert {room: {name.strip(" `") for name in cell.split(",")} for room, cell in rows.items()} == FORBIDDEN
