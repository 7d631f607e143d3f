"""Rules the suite enforces on itself (issue 16): CI=true fails on a missing tool, and the
shared builders produce what the contract accepts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.settings import Settings

_TESTS = """
import pytest

def test_tool():
    pytest.skip("promtool not installed (apt-get install prometheus)")

@pytest.mark.skipif(True, reason="chromium not installed")
def test_marker():
    pass

def test_optional_extra():
    pytest.importorskip("no_such_module_gw")
"""


@pytest.mark.parametrize(("ci", "failed", "skipped"), [("true", 2, 1), ("", 0, 3)])
def test_ci_turns_missing_tool_skips_into_failures(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: str, failed: int, skipped: int
) -> None:
    monkeypatch.setenv("CI", ci)
    pytester.makepyfile(_TESTS)
    result = pytester.runpytest("-p", "tests.plugins")
    outcomes = result.parseoutcomes()
    # a skip in the call phase reports as failed, a skipif marker (setup phase) as an error
    assert outcomes.get("failed", 0) + outcomes.get("errors", 0) == failed
    assert outcomes.get("skipped", 0) == skipped
    if ci:
        result.stdout.fnmatch_lines(["*CI=true and a required tool is missing*"])


def test_module_level_tool_skip_fails_in_ci(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(
        'import pytest\npytest.skip("amtool not installed", allow_module_level=True)\n'
        "def test_x():\n    pass\n"
    )
    result = pytester.runpytest("-p", "tests.plugins")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*CI=true and a required tool is missing*"])


def test_shared_factories(
    settings_factory: Callable[..., Settings],
    trace_factory: Callable[..., dict[str, Any]],
    rag_trace_factory: Callable[..., RagTrace],
) -> None:
    settings = settings_factory(windows={"min_samples": 7}, api={"tokens": ["x" * 24]})
    assert settings.state == "memory"
    assert settings.redaction.mode == "off"
    assert settings.windows.min_samples == 7
    assert settings.windows.bucket_s == Settings().windows.bucket_s  # merged, not replaced
    body = trace_factory("a-1", answer="Yes.")
    assert body["trace_id"] == "a-1"
    assert body["answer"] == "Yes."
    trace = rag_trace_factory("a-2")
    assert trace.trace_id == "a-2"
    assert trace.contexts[0].id == "p1"
