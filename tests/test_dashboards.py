"""Grafana dashboards: they parse, ids are unique, every query is valid PromQL (promtool), and
every metric a panel names is exported by the running service (issue 6)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from fastapi.testclient import TestClient
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import Dashboard

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.judges.embedding import CachedEmbedder
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from scripts.make_dashboards import overview
from tests.fakes import FakeJudge, make_trace
from tests.infra import KafkaBroker

ROOT = Path(__file__).resolve().parents[1]
DASHBOARDS = sorted((ROOT / "dashboards").glob("*.json"))
PROMTOOL = shutil.which("promtool")
METRIC = re.compile(r"\bgroundwatch_[a-z0-9_]+\b")
VARS = {"$window": "1h", "$slice_key": "all", "$slice_value": ".*", "${datasource}": "prom"}


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _queries(dashboard: dict[str, Any]) -> list[str]:
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    exprs += [a["expr"] for a in dashboard.get("annotations", {}).get("list", []) if "expr" in a]
    for var in dashboard.get("templating", {}).get("list", []):
        query = var.get("query")
        if isinstance(query, dict):
            inner = re.match(r"label_values\((.*),\s*\w+\)$", query["query"])
            if inner:
                exprs.append(inner.group(1))
    return exprs


def _substitute(expr: str) -> str:
    for var, value in VARS.items():
        expr = expr.replace(var, value)
    return expr


def promql_errors(exprs: list[str], tmp: Path) -> list[str]:
    """Validate each expression with promtool (as a recording rule); return the failures."""
    assert PROMTOOL is not None
    failures = []
    for i, expr in enumerate(exprs):
        rules = {
            "groups": [
                {
                    "name": "check",
                    "rules": [{"record": f"check:expr{i}", "expr": _substitute(expr)}],
                }
            ]
        }
        path = tmp / f"expr{i}.yml"
        path.write_text(yaml.safe_dump(rules), encoding="utf-8")
        proc = subprocess.run(
            [PROMTOOL, "check", "rules", str(path)], capture_output=True, text=True, check=False
        )
        if proc.returncode != 0:
            failures.append(f"{expr}: {proc.stdout.strip()} {proc.stderr.strip()}")
    return failures


def test_committed_dashboard_is_fresh() -> None:
    committed = _load(ROOT / "dashboards" / "groundwatch-overview.json")
    assert committed == json.loads(json.dumps(overview())), "run scripts/make_dashboards.py"


def _differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Paths where two JSON values differ (lists compared item by item)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b))
        return [d for k in keys for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [re.sub(r"\[\d+\]", "[]", path)]


#: The only fields the dashboards carry beyond Grafana's typed schema (scripts/make_dashboards.py
#: PromAnnotation, LabelValues): a Prometheus annotation's title, text and step, a variable's
#: definition.
BEYOND_SCHEMA = {
    ".annotations.list[].titleFormat",
    ".annotations.list[].textFormat",
    ".annotations.list[].step",
    ".templating.list[].definition",
}


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.name)
def test_dashboard_is_grafanas_typed_model(path: Path) -> None:
    """Built with grafana-foundation-sdk: read into its typed model and written back, the JSON
    is the same but for the fields the schema has no place for; the schema version is the SDK's."""
    data = _load(path)
    written_back = json.loads(json.dumps(Dashboard.from_json(data), cls=JSONEncoder))
    assert set(_differences(data, written_back)) <= BEYOND_SCHEMA
    assert data["schemaVersion"] == Dashboard().schema_version


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.name)
def test_dashboard_parses_and_ids_are_unique(path: Path) -> None:
    data = _load(path)
    parsed = Dashboard.from_json(data)
    assert parsed.title == data["title"]
    assert parsed.panels is not None
    assert len(parsed.panels) == len(data["panels"])
    ids = [p["id"] for p in data["panels"]]
    assert len(ids) == len(set(ids)), "duplicate panel ids"
    for panel in data["panels"]:
        ref_ids = [t["refId"] for t in panel.get("targets", [])]
        assert len(ref_ids) == len(set(ref_ids)), f"duplicate refIds in {panel['title']}"
        pos = panel["gridPos"]
        assert pos["x"] + pos["w"] <= 24
    names = [v["name"] for v in data["templating"]["list"]]
    assert len(names) == len(set(names))
    used = {m for expr in _queries(data) for m in re.findall(r"\$\{?(\w+)", expr)}
    assert used <= set(names), f"undefined template variables: {used - set(names)}"


@pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")
@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.name)
def test_every_query_is_valid_promql(path: Path, tmp_path: Path) -> None:
    assert promql_errors(_queries(_load(path)), tmp_path) == []


@pytest.mark.skipif(PROMTOOL is None, reason="promtool not installed")
def test_a_broken_query_is_caught(tmp_path: Path) -> None:
    broken = ["sum(rate(groundwatch_claims_total[5m])", "groundwatch_window_mean{window=}"]
    assert len(promql_errors(broken, tmp_path)) == 2


class _ZeroEmbedder:
    name = "zero"

    def embed(self, texts: Sequence[str]) -> Any:
        return np.zeros((len(texts), 384), dtype=np.float32)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(t.split()) for t in texts]


@pytest.fixture(scope="module")
def exported_metrics(kafka_broker: KafkaBroker) -> set[str]:
    """Metric families the running service exports (HTTP + Kafka consumer), after traffic."""
    topic = "dash-" + re.sub(r"\W", "", str(id(kafka_broker)))[-6:]
    kafka_broker.create_topic(topic, partitions=1)
    settings = Settings.model_validate(
        {
            "state": "memory",
            "windows": {"min_samples": 1},
            "kafka": {
                "bootstrap_servers": kafka_broker.bootstrap,
                "topic": topic,
                "results_topic": None,
                "group_id": topic,
                "session_timeout_ms": 6000,
                "heartbeat_interval_ms": 1000,
            },
        }
    )
    judge = FakeJudge(verdict_fn=lambda c, t: "contradicted")
    judge.embedder = CachedEmbedder(_ZeroEmbedder(), 10)  # type: ignore[attr-defined]
    judge.embedder.embed(["warm", "warm"])  # type: ignore[attr-defined]
    runtime = Runtime.build(settings, judge=judge)
    with TestClient(create_app(runtime, app_config(settings))) as client:
        client.post("/v1/rag-traces", json=[make_trace(f"d{i}") for i in range(5)])
        runtime.queue.join(10)
        text = client.get("/metrics").text
    return {line.split()[2] for line in text.splitlines() if line.startswith("# TYPE")}


def _exported(name: str, families: set[str]) -> bool:
    candidates = {name}
    for suffix in ("_total", "_bucket", "_sum", "_count", "_info"):
        if name.endswith(suffix):
            candidates.add(name[: -len(suffix)])
    return bool(candidates & families) or any(f + "_total" == name for f in families)


@pytest.mark.parametrize("path", DASHBOARDS, ids=lambda p: p.name)
def test_every_metric_a_panel_names_is_exported(path: Path, exported_metrics: set[str]) -> None:
    named = {m for expr in _queries(_load(path)) for m in METRIC.findall(expr)}
    missing = sorted(m for m in named if not _exported(m, exported_metrics))
    assert missing == [], f"panels name metrics the service does not export: {missing}"


def test_an_unknown_metric_is_caught(exported_metrics: set[str]) -> None:
    assert not _exported("groundwatch_faithfullness_mean", exported_metrics)
