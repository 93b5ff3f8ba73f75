"""No docstring or comment quotes a timing: timings go stale with the machine and the code, so
they live in docs/benchmarks.md, made by the benchmarks, and the code says why, not how fast."""

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("pipelines", "assets", "warehouse", "serve", "clients/python/oracle_client")
TIMING = re.compile(r"\d[\d,.]*\s?(ms|µs|us)\b|\d[\d,.]* s\b|\d[\d,.]* seconds?\b")
# Durations that are settings or examples, not measurements.
ALLOWED = ("0.84ms",  # an access-log line shown as the format's example
           "every 15 s",  # the event stream's keep-alive interval, a setting
           "30 seconds")  # Dagster's default sensor interval, a setting


def _prose(path: Path) -> list[str]:
    """The comments and string literals of a module (its docstrings among them)."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return [token.string for token in tokens if token.type in (tokenize.COMMENT, tokenize.STRING)]


def test_no_comment_or_docstring_quotes_a_timing():
    found = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for text in _prose(path):
                cleaned = text
                for allowed in ALLOWED:
                    cleaned = cleaned.replace(allowed, "")
                found += [f"{path.relative_to(ROOT)}: {match.group(0)!r}" for match in TIMING.finditer(cleaned)]
    assert found == []
