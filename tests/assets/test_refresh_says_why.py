"""`refresh` prints one line per failed step, with the step's own cause; the traces stay in the run's log."""

from pathlib import Path

import pandas as pd

from assets.refresh import refresh
from tests.small_universe import FLOORS, SmallUniverse
from tests.warehouse.seeds import copy_seed
from warehouse.seed_files import read_seed_csv

AS_OF = "2026-11-22"


class DamagedSeeds(SmallUniverse):
    """The small universe, reading its hand-kept tables from another seed folder."""

    seed_dir: str

    def seed_table(self, name: str) -> pd.DataFrame:
        read_seed_csv(name, Path(self.seed_dir))  # the damaged copy fails here, as the shipped file would
        return super().seed_table(name)


def test_a_bad_makers_row_fails_once_naming_makers_csv_and_its_line(tmp_path):
    seed = copy_seed(tmp_path)
    makers = seed / "makers.csv"
    lines = makers.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    lines.insert(header + 1, "^grok,xai,extra\n")
    makers.write_text("".join(lines), encoding="utf-8")

    said: list[str] = []
    assert not refresh(str(tmp_path / "warehouse"), AS_OF, write=said.append,
                       sources=DamagedSeeds(seed_dir=str(seed)), floors=FLOORS)
    failed = [line for line in said if "FAILED" in line]
    assert len(failed) == 1, "\n".join(said)
    assert f"makers.csv, line {header + 2}: 3 fields where the header has 2" in failed[0]
    assert "model_aliases.csv" not in "\n".join(said)
    assert not any("Traceback" in line or "Stack Trace" in line for line in said)
