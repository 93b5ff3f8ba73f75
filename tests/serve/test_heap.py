"""A server process takes what it holds for its life out of the garbage collector's walks once it
has started (serve/heap.py); an app made in a process doing other work (a test's) does not."""

import json
import subprocess
import sys

import pytest

from serve.app import create_app, server_app
from serve.settings import Settings
from tests.servers import ROOT

pytestmark = pytest.mark.slow  # a process of its own

STARTED = """
import gc, json, sys
from litestar.testing import TestClient
from serve.app import server_app
from serve.settings import Settings
app = server_app(Settings(warehouse=sys.argv[1], data=sys.argv[2]))
with TestClient(app) as client:
    assert client.get("/v1/spots").status_code == 200
    print("counts", json.dumps({"frozen": gc.get_freeze_count(), "tracked": len(gc.get_objects())}))
"""


def test_a_server_process_freezes_what_it_holds_once_started(built_warehouse, tmp_path):
    out = subprocess.run([sys.executable, "-c", STARTED, str(built_warehouse), str(tmp_path / "data")],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    counts = json.loads(next(line for line in out.splitlines() if line.startswith("counts "))[7:])
    # The modules, the framework and the snapshot (about 140,000 objects) are frozen; a full
    # collection walks only what was made since, a small fraction.
    assert counts["frozen"] > 50_000
    assert counts["tracked"] < counts["frozen"] / 5


def test_only_a_server_process_adds_the_step(built_warehouse, tmp_path):
    settings = Settings(warehouse=str(built_warehouse), data=str(tmp_path / "data"))
    plain, served = create_app(settings), server_app(settings)
    assert len(served.on_startup) == len(plain.on_startup) + 1
