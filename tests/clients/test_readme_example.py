"""The client README's example: the same script as `clients/python/examples/quickstart.py`,
`mypy --strict` passes on it, and it runs against a real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
EXAMPLE = CLIENT / "examples" / "quickstart.py"

pytestmark = pytest.mark.slow


def test_the_readme_shows_the_example_file():
    shown = re.findall(r"```python\n(.*?)```", (CLIENT / "README.md").read_text(), re.DOTALL)
    assert EXAMPLE.read_text() in shown


def test_mypy_strict_passes_on_the_example(tmp_path):
    run = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path), str(EXAMPLE)],
                         cwd=CLIENT,
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "MYPYPATH": str(CLIENT)})
    assert run.returncode == 0, run.stdout[-3000:]


def test_the_example_runs_against_a_server(server):
    base, _ = server
    run = subprocess.run([sys.executable, str(EXAMPLE), base], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(CLIENT), os.environ.get("PYTHONPATH", "")])})
    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert lines[0].startswith("SONNET-4: $") and "price cuts since 2025" in run.stdout
    assert lines[-1].startswith("unknown_model - did you mean") and "SONNET-4" in lines[-1]
