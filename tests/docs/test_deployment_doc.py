"""docs/deployment.md says what the code does: the executor the runs use and the tables a refresh publishes."""

from pathlib import Path

from assets.definitions import defs
from assets.instance import INSTANCE_YAML
from assets.whole_day import TABLES
from warehouse.index_record import RECORD_TABLES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "deployment.md").read_text(encoding="utf-8")
TEXT = " ".join(DOC.split())


def test_the_doc_names_the_executor_every_run_uses():
    # The code location's executor is what a run launched by the daemon or the UI uses, since
    # the instance's dagster.yaml written by the project sets no executor or run launcher.
    assert defs.resolve_job_def("refresh").executor_def.name == "in_process"
    assert "run_launcher" not in INSTANCE_YAML and "executor" not in INSTANCE_YAML
    assert "`in_process_executor`" in TEXT and "runs no two steps at once" in TEXT
    assert "side by side" not in TEXT


def test_the_doc_gives_the_number_of_tables_a_refresh_publishes():
    count = len(TABLES) + len(RECORD_TABLES)
    assert f"the same {count} tables as on disk" in TEXT
    assert f"the {len(TABLES)} tables a run builds" in TEXT


def test_the_kubernetes_executor_is_given_as_an_untested_code_change():
    assert "`k8s_job_executor`) is a code change, not configuration" in TEXT and "It is not tested here" in TEXT


def test_a_refresh_publishes_that_many_tables(store):
    assert sorted(store.current().tables) == sorted([*TABLES, *RECORD_TABLES])
