"""Dashboard annotations fire on the events they name, checked with `promtool test rules`, and
the overview's layout puts health first and the deploy dimension next (issue 20)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "dashboards" / "groundwatch-overview.json"
PROMTOOL = shutil.which("promtool")


def _dashboard() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def _annotation(name: str) -> str:
    for ann in _dashboard()["annotations"]["list"]:
        if ann["name"].startswith(name):
            return str(ann["expr"])
    raise AssertionError(f"no annotation {name}")


def _promtool_test(tmp: Path, expr: str, series: list[dict[str, str]], checks: list[Any]) -> str:
    """Run ``expr`` as a recording rule over ``series``; return promtool's output ('' = pass)."""
    assert PROMTOOL is not None
    (tmp / "rules.yml").write_text(
        yaml.safe_dump({"groups": [{"name": "a", "rules": [{"record": "ann", "expr": expr}]}]})
    )
    test = {
        "rule_files": ["rules.yml"],
        "evaluation_interval": "1m",
        "tests": [{"interval": "1m", "input_series": series, "promql_expr_test": checks}],
    }
    (tmp / "test.yml").write_text(yaml.safe_dump(test))
    proc = subprocess.run(
        [PROMTOOL, "test", "rules", "test.yml"],
        cwd=tmp,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    return "" if proc.returncode == 0 else proc.stdout + proc.stderr


def _at(t: str, samples: list[tuple[str, float]]) -> dict[str, Any]:
    return {
        "expr": "ann",
        "eval_time": t,
        "exp_samples": [{"labels": f"ann{labels}", "value": v} for labels, v in samples],
    }


JUDGE = 'groundwatch_judge_info{{job="gw",instance="{i}",backend="embedded",metric_version="{v}"}}'


@pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")
def test_judge_version_annotation_fires_on_a_switch_not_on_a_new_replica(tmp_path: Path) -> None:
    series = [
        # replica a runs v1 and switches to v2 at 20m; replica b (v1) joins at 10m
        {"series": JUDGE.format(i="a", v="v1"), "values": "1x19 stale"},
        {"series": JUDGE.format(i="a", v="v2"), "values": "_x20 1x20"},
        {"series": JUDGE.format(i="b", v="v1"), "values": "_x10 1x9 stale"},
    ]
    checks = [
        _at("12m", []),  # a replica added with the same version: nothing
        _at("21m", [('{metric_version="v2"}', 1)]),  # the switch
        _at("30m", []),  # once, not forever
    ]
    assert _promtool_test(tmp_path, _annotation("Judge version"), series, checks) == ""
    # The old form fires on the replica joining (and not on the switch): the test can fail.
    old = "changes(count by (metric_version) (groundwatch_judge_info)[10m:1m]) > 0"
    assert _promtool_test(tmp_path, old, series, checks) != ""


TRAFFIC = (
    'groundwatch_window_traces{{job="gw",instance="a",window="5m",kind="received",'
    'slice_key="{k}",slice_value="{v}"}}'
)


@pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")
def test_deploy_annotation_marks_a_new_prompt_version(tmp_path: Path) -> None:
    series = [
        {"series": TRAFFIC.format(k="prompt_version", v="v7"), "values": "40x15 0x15"},
        {"series": TRAFFIC.format(k="prompt_version", v="v8"), "values": "0x15 40x15"},
        {"series": TRAFFIC.format(k="tenant", v="acme"), "values": "0x15 40x15"},
    ]
    checks = [
        _at("14m", []),
        _at("16m", [('{slice_key="prompt_version",slice_value="v8"}', 40)]),  # its traffic
        _at("28m", []),
    ]
    assert _promtool_test(tmp_path, _annotation("Deploys"), series, checks) == ""


def test_alerts_annotation_shows_pending_and_firing() -> None:
    expr = _annotation("Alerts")
    assert "alertstate" not in expr  # both states
    ann = next(a for a in _dashboard()["annotations"]["list"] if a["name"] == "Alerts")
    assert "{{alertstate}}" in ann["titleFormat"]


def test_layout_health_row_first_then_deploy_dimension() -> None:
    panels = _dashboard()["panels"]
    rows = [p["title"] for p in panels if p["type"] == "row"]
    assert rows[0] == "Health"
    assert rows[1].startswith("By deploy")
    deploy_row = next(p for p in panels if p["type"] == "row" and p["title"] == rows[1])
    below = deploy_row["gridPos"]["y"]
    health = [p for p in panels if p["type"] == "stat"]
    assert len(health) >= 6
    # Every stat sits in the health row, above the deploy row (it may wrap onto two lines).
    assert all(1 <= p["gridPos"]["y"] < below for p in health)
    assert all(p["fieldConfig"]["defaults"].get("thresholds") for p in health)
    deploy = [p for p in panels if p["gridPos"]["y"] == below + 1 and p["type"] != "row"]
    exprs = " ".join(t["expr"] for p in deploy for t in p["targets"])
    assert 'slice_key="prompt_version"' in exprs
    assert 'slice_key="model"' in exprs
    window = next(v for v in _dashboard()["templating"]["list"] if v["name"] == "window")
    assert window["current"]["value"] == "5m"


def test_counters_that_start_absent_read_zero_and_slices_are_capped() -> None:
    for panel in _dashboard()["panels"]:
        for target in panel.get("targets", []):
            expr = target["expr"]
            for counter in ("rejected_total", "unscored_total", "store_errors_total"):
                if counter in expr:
                    assert expr.endswith("or vector(0)"), panel["title"]
            if (
                "slice_value=~" in expr
                and "by (slice_value)" in expr
                and "drift_decision" not in expr
            ):
                assert "topk(" in expr or "bottomk(" in expr, panel["title"]
        assert "groundwatch_drift_psi" not in json.dumps(panel), "PSI has no axis of its own"
