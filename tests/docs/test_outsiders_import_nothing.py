"""The outsiders' implementations in this folder import nothing of the project's: each may use
only the standard library and what the methodology itself names (numpy's generator)."""

import ast
from pathlib import Path

import pytest

HERE = Path(__file__).parent
ALLOWED = {
    "test_index_vectors.py": {"__future__", "hashlib", "importlib", "json", "datetime", "pathlib", "pytest"},
    "test_swap_and_monte_carlo_vectors.py": {"__future__", "json", "math", "datetime", "pathlib", "numpy", "pytest"},
    "test_bootstrap_vectors.py": {"__future__", "json", "pathlib", "numpy", "pytest"},
}


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_this_implementation_imports_nothing_from_the_project(name):
    tree = ast.parse((HERE / name).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                 and node.module}
    assert imported <= ALLOWED[name]
