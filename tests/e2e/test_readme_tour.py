"""The README's tour runs as written: each of its commands against a served snapshot (the small
universe, which holds every model the tour names) answers 200 with the API's envelope."""

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
pytestmark = pytest.mark.slow


def tour_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    tour = text.split("## A five-minute tour", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```sh\n(.*?)```", tour, flags=re.S)
    return [line for line in block.splitlines() if line.startswith("curl ")]


def test_the_readme_is_short_and_gives_two_commands():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    two = text.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```sh\n(.*?)```", two, flags=re.S)
    assert [line.split()[:2] for line in block.strip().splitlines()] == [["make", "run"], ["make", "test"]]


def _run(command: str, base: str) -> tuple[int, str]:
    words = shlex.split(command.replace("localhost:8000", base.removeprefix("http://")))
    if shutil.which("curl"):
        done = subprocess.run([*words, "-w", "\n%{http_code}"], capture_output=True, text=True, timeout=60,
                              check=True)
        body, status = done.stdout.rsplit("\n", 1)
        return int(status), body
    method = words[words.index("-X") + 1] if "-X" in words else "GET"
    url = next(w for w in words if w.startswith(base.removeprefix("http://")))
    body = words[words.index("-d") + 1] if "-d" in words else None
    answer = httpx.request(method, f"http://{url}", content=body, timeout=60,
                           headers={"content-type": "application/json"} if body else None)
    return answer.status_code, answer.text


def test_every_tour_command_answers_as_written(dashboard_base):
    commands = tour_commands()
    assert len(commands) >= 8
    for command in commands:
        status, body = _run(command, dashboard_base)
        assert status == 200, (command, body[:500])
        answer = json.loads(body)
        assert "data" in answer or answer.get("status") in ("ok", "degraded"), command
