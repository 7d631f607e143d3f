"""The Helm chart: strict lint, renders (default, sidecar, autoscaling, network policy) validated
with kubernetes-validate --strict (CRDs structurally) and yamllint, files byte-identical to the
repository's alert rules and dashboards, values mapped 1:1 to Settings, and a broken template
that fails."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import helm_python
import kubernetes_validate
import pytest
import yaml
from yamllint import linter
from yamllint.config import YamlLintConfig

from groundwatch.settings import Settings
from tests.modules import load_script

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "helm" / "groundwatch"
K8S_VERSION = "1.30.0"
YAMLLINT = YamlLintConfig(
    "extends: default\n"
    "rules:\n"
    "  line-length: disable\n"
    "  document-start: disable\n"
    "  comments: {min-spaces-from-content: 1}\n"
    "  indentation: {spaces: consistent, indent-sequences: whatever}\n"
)
REDIS = {"secrets": {"redis": {"url": "redis://redis:6379/0"}}}
VARIANTS: dict[str, dict[str, Any]] = {
    "default": {},
    "sidecar": yaml.safe_load((CHART / "values-sidecar.yaml").read_text()),
    "hpa": {
        "autoscaling": {"enabled": True, "kind": "hpa"},
        "config": {"kafka": {"bootstrap_servers": "kafka:9092"}},
        **REDIS,
    },
    "keda": {
        "autoscaling": {"enabled": True, "kind": "keda", "keda": {"authenticationRef": "kafka"}},
        "config": {"kafka": {"bootstrap_servers": "kafka:9092"}},
        **REDIS,
    },
    "full": {
        "replicaCount": 3,
        "networkPolicy": {
            "enabled": True,
            "ingressFrom": [{"namespaceSelector": {"matchLabels": {"name": "monitoring"}}}],
            "egress": [{"to": [{"ipBlock": {"cidr": "10.0.0.0/8"}}]}],
        },
        "podDisruptionBudget": {"enabled": True, "minAvailable": 2},
        "config": {
            "api": {"port": 9000},
            "sampling": {"rate": 0.25, "overrides": {"tenant=acme": 0.5}},
            "limits": {"max_bytes": 2_000_000},
            "otel": {"endpoint": "http://otel-collector:4318"},
        },
        "secrets": {
            "api": {"tokens": ["a" * 24, "b" * 24], "metrics_token": "m" * 24},
            "redis": {"url": "redis://:pw@redis:6379/0"},
            "judge": {"openai_api_key": "sk-test"},
        },
        "extraEnv": [{"name": "TZ", "value": "UTC"}],
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
    },
    "existing-secret": {
        "replicaCount": 2,
        "secrets": {"existingSecret": "gw-creds"},
        "serviceMonitor": {"useMetricsToken": True},
    },
}


def render(values: dict[str, Any], chart: Path = CHART) -> dict[str, str]:
    rendered = helm_python.Chart.load(str(chart)).render(values, name="gw", namespace="obs")
    return {Path(k).name: v for k, v in rendered.items() if v.strip() and k.endswith(".yaml")}


def manifests(rendered: dict[str, str]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for text in rendered.values():
        docs.extend(d for d in yaml.safe_load_all(text) if d)
    return docs


def by_kind(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    [doc] = [d for d in docs if d["kind"] == kind and name in (None, d["metadata"]["name"])]
    return doc


def _check_crd(doc: dict[str, Any]) -> None:
    """Structural checks for kinds kubernetes-validate has no schema for."""
    kind, spec = doc["kind"], doc["spec"]
    assert doc["metadata"]["name"]
    if kind == "ServiceMonitor":
        assert doc["apiVersion"] == "monitoring.coreos.com/v1"
        assert spec["selector"]["matchLabels"]
        for endpoint in spec["endpoints"]:
            assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout", "authorization"}
            assert endpoint["port"] == "http"
            assert endpoint["path"] == "/metrics"
    elif kind == "PrometheusRule":
        assert doc["apiVersion"] == "monitoring.coreos.com/v1"
        assert set(spec) == {"groups"}
        for group in spec["groups"]:
            assert isinstance(group["name"], str)
            for rule in group["rules"]:
                assert ("alert" in rule) != ("record" in rule)
                assert isinstance(rule["expr"], str)
                assert set(rule) <= {
                    "alert",
                    "record",
                    "expr",
                    "for",
                    "labels",
                    "annotations",
                    "keep_firing_for",
                }
    elif kind == "ScaledObject":
        assert doc["apiVersion"] == "keda.sh/v1alpha1"
        assert spec["scaleTargetRef"]["name"] == doc["metadata"]["name"]
        assert spec["minReplicaCount"] <= spec["maxReplicaCount"]
        [trigger] = spec["triggers"]
        assert trigger["type"] == "kafka"
        meta = trigger["metadata"]
        assert {"bootstrapServers", "consumerGroup", "topic", "lagThreshold"} <= set(meta)
        assert all(isinstance(v, str) for v in meta.values())
    else:
        raise AssertionError(f"no structural check for {kind}")


CRD_KINDS = {"ServiceMonitor", "PrometheusRule", "ScaledObject"}


def validate_all(rendered: dict[str, str]) -> list[dict[str, Any]]:
    for name, text in rendered.items():
        problems = list(linter.run(text, YAMLLINT))
        assert not [p for p in problems if p.level == "error"], (name, problems)
    docs = manifests(rendered)
    for doc in docs:
        if doc["kind"] in CRD_KINDS:
            _check_crd(doc)
        else:
            kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    return docs


def test_chart_lints_strictly() -> None:
    report = helm_python.lint(str(CHART), strict=True)
    assert report["errors"] == []
    assert [m for m in report["messages"] if m["severity"] >= 2] == []


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_variants_render_valid_manifests(variant: str) -> None:
    values = VARIANTS[variant]
    report = helm_python.lint(str(CHART), values, strict=True)
    assert report["errors"] == [], report
    docs = validate_all(render(values))
    kinds = sorted(d["kind"] for d in docs)
    if variant == "sidecar":
        assert set(kinds) == {"ConfigMap", "PrometheusRule", "Secret"}
        return
    deployment = by_kind(docs, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    [container] = pod["containers"]
    assert container["args"] == ["serve"]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert pod["securityContext"]["runAsNonRoot"] is True
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    assert container["resources"]["requests"]
    assert "PodDisruptionBudget" in kinds
    assert "ServiceMonitor" in kinds
    if variant in ("hpa", "keda"):
        assert "replicas" not in deployment["spec"]
        kind = "HorizontalPodAutoscaler" if variant == "hpa" else "ScaledObject"
        assert kind in kinds
    if variant == "hpa":
        metric = by_kind(docs, "HorizontalPodAutoscaler")["spec"]["metrics"][0]["external"]
        assert metric["metric"]["name"] == "groundwatch_consumer_lag"
    if variant == "full":
        assert deployment["spec"]["replicas"] == 3
        assert "NetworkPolicy" in kinds
        assert container["ports"][0]["containerPort"] == 9000
        endpoint = by_kind(docs, "ServiceMonitor")["spec"]["endpoints"][0]
        assert endpoint["authorization"]["credentials"]["key"] == "GROUNDWATCH_API__METRICS_TOKEN"
    if variant == "existing-secret":
        assert "Secret" not in kinds
        assert container["envFrom"][1]["secretRef"]["name"] == "gw-creds"


def test_values_map_one_to_one_onto_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    docs = manifests(render(VARIANTS["full"]))
    env = dict(by_kind(docs, "ConfigMap", "gw-groundwatch")["data"])
    secret = by_kind(docs, "Secret")["data"]
    env.update({k: base64.b64decode(v).decode() for k, v in secret.items()})
    assert all(k.startswith("GROUNDWATCH_") for k in env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.api.host == "0.0.0.0"
    assert settings.api.port == 9000
    assert [t.get_secret_value() for t in settings.api.tokens] == ["a" * 24, "b" * 24]
    assert settings.api.metrics_token is not None
    assert settings.sampling.rate == 0.25
    assert settings.sampling.overrides == {"tenant=acme": 0.5}
    assert settings.limits.max_bytes == 2_000_000
    assert settings.redis.url is not None
    assert settings.otel.endpoint == "http://otel-collector:4318"
    assert settings.windows.slice_keys == ["intent", "tenant", "model", "prompt_version"]


def _undescribed(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _undescribed(v) for k, v in node.items() if k != "description"}
    return node


def test_schema_lists_exactly_the_settings_fields_secrets_apart() -> None:
    sync = load_script(ROOT / "helm" / "sync_chart_files.py", "sync_chart")
    config, secrets = sync.settings_schema()
    schema = json.loads((CHART / "values.schema.json").read_text())
    hint = "run: .venv/bin/python helm/sync_chart_files.py"
    # Names and types must match; a reworded description is not worth a failure.
    assert _undescribed(schema["properties"]["config"]["properties"]) == _undescribed(config), hint
    listed = dict(schema["properties"]["secrets"]["properties"])
    listed.pop("existingSecret")
    assert _undescribed(listed) == _undescribed(secrets), hint
    secret_fields = {f"{k}.{sub}" for k, v in secrets.items() for sub in v["properties"]}
    assert {"api.tokens", "api.metrics_token", "redis.url", "kafka.sasl_password"} <= secret_fields
    plain = set(config["api"]["properties"]) | set(config["redis"]["properties"])
    assert not {"tokens", "url"} & plain


def test_generated_token_is_used_when_none_is_given() -> None:
    docs = manifests(render({}))
    token = base64.b64decode(by_kind(docs, "Secret")["data"]["GROUNDWATCH_API__TOKENS"]).decode()
    assert len(token) == 40
    assert token.isalnum()


def test_bad_values_are_refused() -> None:
    with pytest.raises(helm_python.HelmError, match="topicc"):
        render({"config": {"kafka": {"topicc": "x"}}})
    with pytest.raises(helm_python.HelmError, match="shared state"):
        render({"replicaCount": 2})
    with pytest.raises(helm_python.HelmError, match="tokens"):
        render({"config": {"api": {"tokens": ["secret-in-configmap"]}}})


def test_chart_files_are_byte_identical_to_the_repository() -> None:
    repo_rules = ROOT / "dashboards" / "alerts.yml"
    chart_rules = CHART / "files" / "alerts.yml"
    hint = "run: python helm/sync_chart_files.py"
    assert repo_rules.exists() == chart_rules.exists(), hint
    if repo_rules.exists():
        assert chart_rules.read_bytes() == repo_rules.read_bytes(), hint
        rule = by_kind(manifests(render({})), "PrometheusRule")
        assert rule["spec"] == yaml.safe_load(repo_rules.read_text())
    repo_dash = {p.name: p.read_bytes() for p in (ROOT / "dashboards").glob("*.json")}
    chart_dash = {p.name: p.read_bytes() for p in (CHART / "dashboards").glob("*.json")}
    assert chart_dash == repo_dash, hint


def _chart_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "groundwatch"
    shutil.copytree(CHART, copy)
    return copy


def test_dashboards_and_rules_render_from_chart_files(tmp_path: Path) -> None:
    chart = _chart_copy(tmp_path)
    for old in (chart / "dashboards").glob("*.json"):
        old.unlink()
    (chart / "files" / "alerts.yml").unlink()
    empty = render({}, chart)  # zero files: no ConfigMap, no PrometheusRule
    assert "dashboards-configmap.yaml" not in empty
    assert "prometheusrule.yaml" not in empty
    dashboards = {
        "overview.json": json.dumps({"title": "Overview", "panels": []}, indent=2) + "\n",
        "drift.json": '{"title": "Drift", "uid": "gw-drift"}',
    }
    for name, text in dashboards.items():
        (chart / "dashboards" / name).write_text(text)
    rules = 'groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up == 0\n        annotations:\n          summary: "{{ $labels.job }} down"\n'
    (chart / "files" / "alerts.yml").write_text(rules)
    docs = validate_all(render({}, chart))
    config_maps = [
        d
        for d in docs
        if d["kind"] == "ConfigMap" and d["metadata"]["name"].endswith("-dashboards")
    ]
    [dash] = config_maps
    assert dash["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert dash["data"] == dashboards  # byte for byte, trailing newline included
    rule = by_kind(docs, "PrometheusRule")
    assert (
        rule["spec"]["groups"][0]["rules"][0]["annotations"]["summary"] == "{{ $labels.job }} down"
    )
    # Turned off: nothing rendered.
    off = manifests(
        render({"dashboards": {"enabled": False}, "prometheusRule": {"enabled": False}}, chart)
    )
    assert not [
        d
        for d in off
        if d["kind"] == "PrometheusRule" or d["metadata"]["name"].endswith("-dashboards")
    ]


def test_a_broken_template_fails(tmp_path: Path) -> None:
    chart = _chart_copy(tmp_path)
    (chart / "templates" / "broken.yaml").write_text("kind: ConfigMap\n{{ if .Values.x }\n")
    report = helm_python.lint(str(chart), strict=True)
    assert report["errors"] or [m for m in report["messages"] if m["severity"] >= 3]
    with pytest.raises(helm_python.HelmError):
        render({}, chart)


def test_a_template_rendering_an_invalid_manifest_fails_validation(tmp_path: Path) -> None:
    chart = _chart_copy(tmp_path)
    deployment = chart / "templates" / "deployment.yaml"
    text = deployment.read_text().replace("replicas: {{ .Values.replicaCount }}", "replicas: two")
    deployment.write_text(text)
    with pytest.raises(kubernetes_validate.ValidationError):
        validate_all(render({}, chart))


def test_readme_documents_every_variable() -> None:
    schema = json.loads((CHART / "values.schema.json").read_text())
    readme = (CHART / "README.md").read_text()
    for kind in ("config", "secrets"):
        for name, prop in schema["properties"][kind]["properties"].items():
            if name == "existingSecret":
                continue
            for sub in prop.get("properties", {}):
                variable = f"GROUNDWATCH_{name.upper()}__{sub.upper()}"
                assert f"| `{kind}.{name}.{sub}` | `{variable}` |" in readme, variable
            if "properties" not in prop:
                assert f"`GROUNDWATCH_{name.upper()}`" in readme


def test_dockerfile_runs_as_non_root_with_healthcheck_and_ships_only_what_it_copies() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    lines = [line.strip() for line in dockerfile.splitlines()]
    assert "FROM python:3.11-slim AS build" in lines
    assert "USER 10001:10001" in lines
    assert "EXPOSE 8080" in lines
    assert any(line.startswith("HEALTHCHECK") for line in lines)
    assert 'ENTRYPOINT ["groundwatch"]' in lines
    assert 'CMD ["serve"]' in lines
    allowed = {
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    for line in lines:
        if line.startswith("COPY") and "--from=" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/").lstrip("./") in allowed, source
