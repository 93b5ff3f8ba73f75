"""A run's console writes one line per event, and a failure's own cause instead of its traces."""

import re

from dagster import DagsterInstance, In, Nothing, job, op

from assets.definitions import defs
from assets.run_console import one_line_console

STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - dagster - (INFO|WARNING|ERROR) - ")


@op
def parse_day():
    raise ValueError("month must be in 1..12")


@op(ins={"day": In(Nothing)})
def price_day():
    pass


@job(logger_defs={"console": one_line_console})
def failing():
    price_day(day=parse_day())


def test_a_failed_step_is_one_line_with_its_cause_and_no_trace(capsys):
    instance = DagsterInstance.ephemeral()
    result = failing.execute_in_process(raise_on_error=False, instance=instance,
                                        run_config={"loggers": {"console": {"config": {"log_level": "INFO"}}}})
    assert not result.success
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(STAMP.match(line) for line in lines), lines
    [step] = [line for line in lines if "STEP_FAILURE" in line]
    assert step.endswith('Execution of step "parse_day" failed. ValueError: month must be in 1..12')
    [run] = [line for line in lines if "RUN_FAILURE" in line]
    assert "Steps failed: ['parse_day']" in run
    assert not any("Stack Trace" in line or 'File "' in line for line in lines)
    assert not any("Not executing" in line for line in lines)  # price_day's skip: in the event log only
    kept = [entry.user_message for entry in instance.all_logs(result.run_id) if entry.step_key == "price_day"]
    assert any(message.endswith("Not executing.") for message in kept)


def test_every_job_of_the_code_location_writes_through_it():
    for name in ("refresh", "__ASSET_JOB"):
        assert defs.resolve_job_def(name).loggers["console"] is one_line_console
