"""The instance settings `make` and `oracle up` write: one run at a time, crashes retried once,
failed checks never, Dagster's logs at INFO; an operator's own file is left alone."""

import pytest
from dagster import DagsterInstance

from assets.instance import EARLIER_DEFAULT, INSTANCE_YAML, ensure_instance


@pytest.mark.slow  # a real Dagster instance
def test_the_settings_load_into_a_real_instance(tmp_path):
    ensure_instance(tmp_path)
    with DagsterInstance.from_config(str(tmp_path)) as instance:
        assert instance.run_coordinator.get_run_queue_config().max_concurrent_runs == 1
        assert instance.run_retries_enabled and instance.run_retries_max_retries == 1
        assert instance.run_retries_retry_on_asset_or_op_failure is False
        assert instance.get_settings("python_logs")["python_log_level"] == "INFO"


def test_an_operators_file_is_kept_and_the_earlier_default_replaced(tmp_path):
    own = tmp_path / "own"
    own.mkdir()
    (own / "dagster.yaml").write_text("telemetry:\n  enabled: true\n")
    assert ensure_instance(own).read_text() == "telemetry:\n  enabled: true\n"
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "dagster.yaml").write_text(EARLIER_DEFAULT)
    assert ensure_instance(earlier).read_text() == INSTANCE_YAML
