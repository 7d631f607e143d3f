"""Property-based run against the OpenAPI schema: no input yields a 5xx (issue 2)."""

from __future__ import annotations

import os

import hypothesis
import schemathesis
from hypothesis import HealthCheck

from groundwatch.api.app import AppConfig, create_app
from groundwatch.runtime import Runtime
from tests.builders import build_settings
from tests.fakes import FakeJudge

# In-memory state, redaction off (tests/builders.BASE_SETTINGS); the app's sections at their defaults.
_app = create_app(Runtime.build(build_settings(), judge=FakeJudge(), with_kafka=False), AppConfig())
schema = schemathesis.openapi.from_asgi("/openapi.json", _app)

_EXAMPLES = int(os.environ.get("GROUNDWATCH_FUZZ_EXAMPLES", "60"))


@schema.parametrize()
@hypothesis.settings(
    max_examples=_EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_gives_a_server_error(case: schemathesis.Case) -> None:
    response = case.call()
    if case.path == "/readyz" and response.status_code == 503:
        return  # "not ready" is a valid answer of the readiness probe
    assert response.status_code < 500, (
        case.method,
        case.path,
        response.status_code,
        response.text[:300],
    )
