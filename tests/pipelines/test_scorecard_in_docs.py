"""The scorecard the methodology quotes is the full data's, as built: its headlines and tables,
printed from the snapshot's own tables by `scripts/scorecard_tables.py`, stand in §9 word for word."""

from pathlib import Path

import pytest

from scripts.scorecard_tables import line_table, scorecard
from tests.conftest import AS_OF

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(full_store):
    """The whole bundled data's snapshot: the methodology quotes every model's scores."""
    return full_store


def test_the_methodology_quotes_the_full_datas_scorecard(store):
    methodology = (ROOT / "docs" / "methodology.md").read_text()
    assert f"### Measured on the bundled data (snapshot {AS_OF})" in methodology
    quoted = scorecard(store.read_table("accuracy"), store.read_table("backtest_reliability"))
    assert quoted in methodology, "regenerate §9 with scripts/scorecard_tables.py on a snapshot as of " + AS_OF


def test_the_methodology_quotes_the_full_datas_line_scorecard(store):
    methodology = (ROOT / "docs" / "methodology.md").read_text()
    assert f"line forwards' scorecard (snapshot {AS_OF})" in methodology
    quoted = line_table(store.read_table("accuracy"))
    assert quoted.count("\n") == 4, "a row per tenor"
    assert quoted in methodology, "regenerate §9's line table with scripts/scorecard_tables.py as of " + AS_OF


def test_the_methodology_names_the_cases_left_out_by_kind(store):
    accuracy = store.read_table("accuracy")
    accuracy = accuracy[accuracy["scope"] != "line"]  # line forwards have no revisions to leave out
    kinds = [c for c in accuracy.columns if c.startswith("excluded_")]
    assert kinds == ["excluded_switch", "excluded_hosts_changed", "excluded_restated", "excluded_slip"]
    assert (accuracy[kinds].sum(axis=1) == accuracy["revisions_excluded"]).all()
    assert (accuracy["excluded_hosts_changed"] > 0).all()
