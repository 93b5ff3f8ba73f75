"""A malformed row of a hand-kept seed table fails at its own file, naming the line and the problem."""

import pytest

from tests.warehouse.seeds import copy_seed
from warehouse.seed_files import curated_tables, read_seed_csv


def _insert_first_row(seed, name: str, row: str) -> int:
    """Put `row` just under the header of `name`; returns the file line it lands on."""
    path = seed / name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if not line.lstrip().startswith("#"))
    lines.insert(header + 1, row + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return header + 2


def test_every_shipped_table_passes_its_checks():
    for path in curated_tables():
        assert len(read_seed_csv(path.name)) > 0


def test_a_makers_row_with_a_field_too_many_names_makers_csv_and_its_line(tmp_path):
    # pandas alone reads this row silently, as an index that shifts every column of the table
    seed = copy_seed(tmp_path)
    line = _insert_first_row(seed, "makers.csv", "^grok,xai,extra")
    with pytest.raises(ValueError, match=rf"makers\.csv, line {line}: 3 fields where the header has 2"):
        read_seed_csv("makers", seed)


@pytest.mark.parametrize(("name", "row", "problem"), [
    ("makers.csv", "^grok", "1 field where the header has 2"),
    ("makers.csv", "^grok,", "maker is empty"),
    ("makers.csv", "[grok,xai", "pattern '[grok' is not a regular expression"),
    ("peak_days.csv", "deepseek,deepseek-chat,mon-fri,2026-13-45,page", "since '2026-13-45' is not a day"),
    ("rejected_statements.csv", "genai-prices,openai,gpt-4,input,cheap,typo", "value 'cheap' is not a finite number"),
    ("model_aliases.csv", 'xai,grok-x,"",why', "model_id is empty"),
])
def test_a_bad_row_is_named_with_what_is_wrong(tmp_path, name, row, problem):
    seed = copy_seed(tmp_path)
    line = _insert_first_row(seed, name, row)
    with pytest.raises(ValueError) as raised:
        read_seed_csv(name, seed)
    assert f"{name}, line {line}: " in str(raised.value)
    assert problem in str(raised.value)


def test_a_header_without_a_needed_column_is_named(tmp_path):
    seed = copy_seed(tmp_path)
    path = seed / "makers.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("pattern,maker", "pattern,make"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"makers\.csv, line 4: the header lacks the columns \['maker'\]"):
        read_seed_csv("makers", seed)
