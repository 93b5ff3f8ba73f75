"""docs/settings.md lists every `ORACLE_*` setting the code reads, with the server's own defaults."""

import re
from dataclasses import fields
from pathlib import Path

from serve.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
TABLE = (ROOT / "docs" / "settings.md").read_text()
NAME = re.compile(r"ORACLE_[A-Z0-9_]+")


def names_in_code() -> set[str]:
    files = [ROOT / "cli.py", ROOT / "tests" / "servers.py", ROOT / "tests" / "conftest.py"]
    for folder in ("assets", "serve", "warehouse", "pipelines"):
        files += sorted((ROOT / folder).rglob("*.py"))
    found = {name for path in files for name in NAME.findall(path.read_text())}
    found |= {f"ORACLE_{field.name.upper()}" for field in fields(Settings)}  # read as ORACLE_<FIELD>
    return {name for name in found if not name.endswith("_")}  # a prefix, as ORACLE_SOURCE_URL_


def rows() -> dict[str, list[str]]:
    out = {}
    for line in TABLE.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells and re.fullmatch(r"`[A-Z_0-9]+`", cells[0]):
            out[cells[0].strip("`")] = cells
    return out


def test_every_setting_the_code_reads_is_in_the_table():
    missing = sorted(names_in_code() - set(rows()))
    assert not missing, f"add to docs/settings.md: {', '.join(missing)}"


def test_each_server_default_in_the_table_is_the_codes_own():
    table = rows()
    for field in fields(Settings):
        shown = table[f"ORACLE_{field.name.upper()}"][-1]
        assert shown == ("empty" if field.default == "" else f"`{field.default}`"), field.name
