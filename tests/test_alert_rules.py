"""The shipped alert rules: valid (`promtool check rules`), unit-tested (`promtool test rules`),
every alert covered firing and not firing, every alert documented in the runbook."""

from __future__ import annotations

import re
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
ROUTE = ROOT / "helm" / "groundwatch" / "examples" / "alertmanager-route.yaml"

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
        assert alert["labels"]["severity"] in {"ticket", "page"}, name
        assert f"## {name.lower()}" in runbook, f"runbook section missing for {name}"
        assert annotations["runbook_url"].endswith("#" + name.lower()), name


def test_shared_window_series_are_never_summed_across_replicas() -> None:
    for alert in _alerts():
        expr = alert["expr"]
        if "groundwatch_window_" in expr or "groundwatch_drift_" in expr:
            assert "without (instance, pod)" in expr, alert["alert"]
            assert "sum" not in expr.split("(")[0], alert["alert"]


def test_per_slice_alerts_are_capped_and_gap_tolerant() -> None:
    """Per-slice alerts name at most the worst few slices per key, and read window and drift
    series through *_over_time so that a vanished series does not reset `for:`."""
    for alert in _alerts():
        expr = alert["expr"]
        if "groundwatch_drift_" in expr or 'slice_key!="all"' in expr:
            assert "topk by (slice_key" in expr or "bottomk by (slice_key" in expr, alert["alert"]
        if "groundwatch_window_rate" in expr or "groundwatch_drift_" in expr:
            selectors = len(re.findall(r"groundwatch_(?:window|drift)_\w+\{", expr))
            assert expr.count("_over_time(groundwatch_") == selectors, alert["alert"]
        if "groundwatch_drift_" in expr:
            assert "_decision" in expr, f"{alert['alert']}: drift alerts use the decision"


def _amtool() -> str:
    binary = shutil.which("amtool")
    if binary is None:
        pytest.skip("amtool not installed (apt-get install prometheus-alertmanager)")
    return binary


def _route(labels: list[str]) -> str:
    result = subprocess.run(
        [_amtool(), "config", "routes", "test", f"--config.file={ROUTE}", *labels],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout.strip()


def test_alertmanager_route_example_is_valid_and_splits_page_from_ticket() -> None:
    check = subprocess.run(
        [_amtool(), "check-config", str(ROUTE)],
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert check.returncode == 0, check.stdout + check.stderr
    for alert in _alerts():
        severity = alert["labels"]["severity"]
        got = _route([f"alertname={alert['alert']}", f"severity={severity}", "slice_key=tenant"])
        assert got == f"groundwatch-{severity}", alert["alert"]
    assert _route(["alertname=Other", "severity=page"]) == "default"
    route = yaml.safe_load(ROUTE.read_text())
    for sub in route["route"]["routes"]:
        assert sub["group_by"] == ["alertname", "slice_key"]
