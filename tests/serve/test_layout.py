"""`serve/api` holds the endpoint modules, one per group; what they share lives outside it
(`serve/records.py`, `serve/params.py`, `serve/forward_curves.py`, …), so no endpoint module
imports another and each can be read on its own; what a handler needs from the app it is
given as a parameter."""

import ast
from pathlib import Path

API = Path(__file__).resolve().parents[2] / "serve" / "api"


def _imported(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_endpoint_module_imports_another():
    modules = sorted(API.glob("*.py"))
    assert len(modules) >= 8
    sideways = {path.name: sorted(name for name in _imported(path) if name.startswith("serve.api"))
                for path in modules}
    assert {name: found for name, found in sideways.items() if found} == {}


def test_handlers_are_given_the_settings_and_the_snapshot():
    """By dependency injection (`serve.deps.DEPENDENCIES`): no endpoint module reaches into the
    request or the app's state for them."""
    reaching = {path.name: [name for name in ("settings_of", "snapshot_of", "state_of", "app.state.settings",
                                              "app.state.snapshots") if name in path.read_text()]
                for path in sorted(API.glob("*.py"))}
    assert {name: found for name, found in reaching.items() if found} == {}
