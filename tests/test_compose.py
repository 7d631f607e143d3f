"""deploy/compose/compose.yaml: valid against the Compose specification (the JSON schema vendored
by check-jsonschema, with its licence), every mounted file exists, and the pieces point at each
other (Prometheus loads the shipped rules and scrapes groundwatch's default port; Grafana reads
the shipped dashboard and the Prometheus it is given). No container engine needed."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from groundwatch.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE_DIR = ROOT / "deploy" / "compose"
COMPOSE = COMPOSE_DIR / "compose.yaml"


def _schema() -> dict[str, Any]:
    vendor = resources.files("check_jsonschema").joinpath("builtin_schemas/vendor")
    assert vendor.joinpath("licenses/LICENSE.compose-spec").is_file()
    return dict(json.loads(vendor.joinpath("compose-spec.json").read_text("utf-8")))


def _compose() -> dict[str, Any]:
    return dict(yaml.safe_load(COMPOSE.read_text("utf-8")))


def _mounts(service: dict[str, Any]) -> dict[str, Path]:
    """target -> source path on the host, for every bind mount (long or short syntax)."""
    out: dict[str, Path] = {}
    for volume in service.get("volumes", []):
        if isinstance(volume, str):
            source, target = volume.split(":")[:2]
        else:
            assert volume["type"] == "bind", volume
            source, target = volume["source"], volume["target"]
        out[target] = (COMPOSE_DIR / source).resolve()
    return out


def _validator() -> Any:
    schema = _schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_compose_file_matches_the_compose_specification() -> None:
    _validator().validate(_compose())


@pytest.mark.parametrize(
    ("service", "key", "value"),
    [
        ("grafana", "restrat", "always"),  # a misspelt key
        ("prometheus", "network_mode", ["host"]),  # a wrong type
        ("prometheus", "volumes", [{"type": "bind", "target": 3}]),
    ],
)
def test_the_schema_check_rejects_a_broken_file(service: str, key: str, value: Any) -> None:
    broken = _compose()
    broken["services"][service][key] = value
    assert list(_validator().iter_errors(broken))


def test_every_mounted_file_exists() -> None:
    mounts = {name: _mounts(svc) for name, svc in _compose()["services"].items()}
    assert mounts["prometheus"]
    assert mounts["grafana"]
    for service, by_target in mounts.items():
        for target, source in by_target.items():
            assert source.is_file(), f"{service}: {source} (mounted at {target}) does not exist"
            assert ROOT in source.parents, source


def test_prometheus_loads_the_shipped_rules_and_scrapes_groundwatch() -> None:
    svc = _compose()["services"]["prometheus"]
    mounts = _mounts(svc)
    config_target = next(a.split("=", 1)[1] for a in svc["command"] if "config.file" in a)
    config = yaml.safe_load(mounts[config_target].read_text("utf-8"))
    rule_sources = [mounts[path] for path in config["rule_files"]]
    assert rule_sources == [(ROOT / "dashboards" / "alerts.yml").resolve()]
    targets = config["scrape_configs"][0]["static_configs"][0]["targets"]
    api = Settings().api
    assert targets == [f"{api.host}:{api.port}"]


def test_grafana_is_provisioned_with_the_shipped_dashboard_and_prometheus() -> None:
    services = _compose()["services"]
    mounts = _mounts(services["grafana"])
    providers = yaml.safe_load(
        next(s for t, s in mounts.items() if "provisioning/dashboards" in t).read_text("utf-8")
    )["providers"]
    folder = providers[0]["options"]["path"]
    dashboards = {s for t, s in mounts.items() if t.startswith(folder + "/")}
    shipped = {p.resolve() for p in (ROOT / "dashboards").glob("*.json")}
    assert dashboards == shipped
    datasources = yaml.safe_load(
        next(s for t, s in mounts.items() if "provisioning/datasources" in t).read_text("utf-8")
    )["datasources"]
    listen = next(
        a.split("=", 1)[1] for a in services["prometheus"]["command"] if "listen-address" in a
    )
    assert [d["url"] for d in datasources if d["type"] == "prometheus"] == [f"http://{listen}"]
    home = services["grafana"]["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
    assert home in mounts


@pytest.mark.parametrize("service", ["prometheus", "grafana"])
def test_ports_stay_on_loopback(service: str) -> None:
    svc = _compose()["services"][service]
    assert svc["network_mode"] == "host"
    assert "ports" not in svc
    listen = " ".join(svc.get("command", [])) + json.dumps(svc.get("environment", {}))
    assert "127.0.0.1" in listen
    assert "0.0.0.0" not in listen
