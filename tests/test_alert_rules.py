"""The shipped alert rules: valid (`promtool check rules`), unit-tested (`promtool test rules`),
every alert covered firing and not firing, every alert documented in the runbook."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "dashboards" / "alerts.yml"
RULE_TESTS = ROOT / "dashboards" / "alerts_test.yml"
RUNBOOK = ROOT / "docs" / "runbook.md"

pytestmark = pytest.mark.prometheus


def _promtool() -> str:
    binary = shutil.which("promtool")
    if binary is None:
        pytest.skip("promtool not installed (apt-get install prometheus)")
    return binary


def _alerts() -> list[dict[str, Any]]:
    doc = yaml.safe_load(RULES.read_text())
    return [r for g in doc["groups"] for r in g["rules"] if "alert" in r]


def test_promtool_check_rules() -> None:
    result = subprocess.run(
        [_promtool(), "check", "rules", str(RULES)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_promtool_unit_tests_pass() -> None:
    result = subprocess.run(
        [_promtool(), "test", "rules", str(RULE_TESTS)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=RULE_TESTS.parent,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_is_tested_firing_and_not_firing() -> None:
    tests = yaml.safe_load(RULE_TESTS.read_text())["tests"]
    firing: set[str] = set()
    silent: set[str] = set()
    for case in tests:
        for check in case.get("alert_rule_test", []):
            (firing if check.get("exp_alerts") else silent).add(check["alertname"])
    names = {a["alert"] for a in _alerts()}
    assert names - firing == set(), "alerts without a firing test"
    assert names - silent == set(), "alerts without a not-firing test"


def test_alerts_have_annotations_severity_and_runbook_section() -> None:
    runbook = RUNBOOK.read_text().lower()
    for alert in _alerts():
        name = alert["alert"]
        annotations = alert.get("annotations", {})
        assert annotations.get("summary"), name
        assert annotations.get("description"), name
        assert alert["labels"]["severity"] in {"warning", "page"}, name
        assert f"## {name.lower()}" in runbook, f"runbook section missing for {name}"
        assert annotations["runbook_url"].endswith("#" + name.lower()), name


def test_shared_window_series_are_never_summed_across_replicas() -> None:
    for alert in _alerts():
        expr = alert["expr"]
        if "groundwatch_window_" in expr or "groundwatch_drift_" in expr:
            assert "without (instance, pod)" in expr, alert["alert"]
            assert "sum" not in expr.split("(")[0], alert["alert"]
