"""Schemathesis against the served OpenAPI document: every operation fuzzed, no 5xx, every
answer as the document says (status code, content type, body schema)."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from serve.app import create_app
from tests.serve.conftest import api_settings

pytestmark = pytest.mark.slow  # fuzzes every operation

EXAMPLES_PER_OPERATION = 40  # bounded, so the whole suite stays well within CI's time


@pytest.fixture(scope="module")
def api_schema(built_warehouse):
    app = create_app(api_settings(warehouse=str(built_warehouse), stale_after_hours=24 * 365 * 100))
    return schemathesis.openapi.from_asgi("/schema/openapi.json", app)


def test_every_operation_answers_as_documented(api_schema):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 20  # the whole interface, not a stray subset
    failures = {}
    for operation in operations:

        @settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, suppress_health_check=list(HealthCheck),
                  database=None)
        @given(case=operation.as_strategy())
        def fuzz(case):
            # A request can fit the schema and still be refused: a model name nobody uses, a profile
            # longer than the model's context window. Those 4xx are answers, not failures.
            case.call_and_validate(excluded_checks=[positive_data_acceptance])

        try:
            fuzz()
        except (Exception, BaseExceptionGroup) as failure:  # every operation is tried; all failures reported
            failures[operation.label] = f"{type(failure).__name__}: {str(failure)[:1500]}"
    assert not failures, "\n\n".join(f"{label}\n{text}" for label, text in failures.items())
