"""Suite-wide pytest plugin (loaded by tests/conftest.py through ``pytest_plugins``): the shared
factory fixtures and the ``CI=true`` rule that a missing tool fails the run.

Usage::

    def test_x(windows_factory, redis_factory, trace_factory):
        windows = windows_factory(min_samples=5)            # only the section the test needs
        redis = redis_factory(url, "prefix", dedup_ttl_s=60)
        body = [trace_factory("t-1"), trace_factory("t-2", answer="...")]

    CI=true pytest            # "promtool not installed" and the like: failed, not skipped
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from typing import Any

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.sections.connections import RedisSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.settings import Settings
from tests.builders import build_rag_trace, build_redis, build_settings, build_trace, build_windows

# Every skip for a missing tool (promtool, prometheus, chromium, redis-server, ...) says
# "<tool> not installed"; with CI=true such a skip is a failure, because CI installs them on
# purpose and a skipped alert-rule test would leave the run green.
TOOL_MISSING = "not installed"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def _reason(longrepr: Any) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)


def _fail_missing_tool(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not (report.skipped and in_ci()) or hasattr(report, "wasxfail"):
        return
    reason = _reason(report.longrepr)
    if TOOL_MISSING in reason:
        report.outcome = "failed"
        report.longrepr = f"CI=true and a required tool is missing: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[Any]:
    outcome = yield
    _fail_missing_tool(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[Any]:
    outcome = yield
    _fail_missing_tool(outcome.get_result())


@pytest.fixture
def settings_factory() -> Callable[..., Settings]:
    """:func:`tests.builders.build_settings`: the whole Settings, for the composition root
    (``Runtime.build``, the CLI): in-memory state, redaction off, overrides merged."""
    return build_settings


@pytest.fixture
def windows_factory() -> Callable[..., WindowSettings]:
    """:func:`tests.builders.build_windows`: the ``windows`` section, overrides merged."""
    return build_windows


@pytest.fixture
def redis_factory() -> Callable[..., RedisSettings]:
    """:func:`tests.builders.build_redis`: the ``redis`` section (url, key prefix, overrides)."""
    return build_redis


@pytest.fixture
def trace_factory() -> Callable[..., dict[str, Any]]:
    """:func:`tests.builders.build_trace`: a valid trace as a JSON-ready dict."""
    return build_trace


@pytest.fixture
def rag_trace_factory() -> Callable[..., RagTrace]:
    """:func:`tests.builders.build_rag_trace`: a valid :class:`RagTrace`."""
    return build_rag_trace
