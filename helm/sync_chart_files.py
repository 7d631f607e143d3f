"""Keep the Helm chart in step with the repository: copy the alert rules and dashboards into the
chart (Helm packages no symlinks, and ``.Files.Get`` reads only files inside the chart), and
regenerate the ``config`` / ``secrets`` part of values.schema.json from the Settings model (every
Helm value is one GROUNDWATCH_ variable). tests/test_helm.py fails when any of them is stale.

Usage::

    .venv/bin/python helm/sync_chart_files.py          # from the repository root
"""

from __future__ import annotations

import json
import shutil
import types
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHART = ROOT / "helm" / "groundwatch"


def sync() -> list[str]:
    changed: list[str] = []
    rules = ROOT / "dashboards" / "alerts.yml"
    chart_rules = CHART / "files" / "alerts.yml"
    if rules.exists():
        if not chart_rules.exists() or chart_rules.read_bytes() != rules.read_bytes():
            shutil.copyfile(rules, chart_rules)
            changed.append(str(chart_rules.relative_to(ROOT)))
    elif chart_rules.exists():
        chart_rules.unlink()
        changed.append(str(chart_rules.relative_to(ROOT)))
    wanted = {p.name: p for p in (ROOT / "dashboards").glob("*.json")}
    for stale in (CHART / "dashboards").glob("*.json"):
        if stale.name not in wanted:
            stale.unlink()
            changed.append(str(stale.relative_to(ROOT)))
    for name, source in sorted(wanted.items()):
        target = CHART / "dashboards" / name
        if not target.exists() or target.read_bytes() != source.read_bytes():
            shutil.copyfile(source, target)
            changed.append(str(target.relative_to(ROOT)))
    return changed


def _is_secret(annotation: Any) -> bool:
    from pydantic import SecretStr

    if annotation is SecretStr:
        return True
    return any(_is_secret(a) for a in typing.get_args(annotation))


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    """JSON Schema bounds of a field's constraints (ge/gt/le/lt), so that `helm lint` and
    `helm install` refuse what start-up would refuse."""
    import annotated_types as at

    out: dict[str, Any] = {}
    for item in metadata:
        for constraint in getattr(item, "metadata", [item]):  # a FieldInfo holds its own
            if isinstance(constraint, at.Ge):
                out["minimum"] = constraint.ge
            elif isinstance(constraint, at.Gt):
                out["exclusiveMinimum"] = constraint.gt
            elif isinstance(constraint, at.Le):
                out["maximum"] = constraint.le
            elif isinstance(constraint, at.Lt):
                out["exclusiveMaximum"] = constraint.lt
    return out


def _json_type(annotation: Any) -> dict[str, Any]:
    from pydantic import SecretStr

    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return {**_json_type(args[0]), **_bounds(list(args[1:]))}
    if origin in (typing.Union, types.UnionType):
        subs = [_json_type(a) for a in args if a is not type(None)]
        out: dict[str, Any] = subs[0] if len(subs) == 1 else {"anyOf": subs}
        if type(None) in args:
            if isinstance(out.get("type"), str):
                out = {**out, "type": [out["type"], "null"]}
            elif "enum" in out:
                out = {**out, "enum": [*out["enum"], None]}
            else:
                out = {"anyOf": [out, {"type": "null"}]}
        return out
    if origin is typing.Literal:
        return {"enum": list(args)}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string", SecretStr: "string"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if origin is list:
        return {"type": "array", "items": _json_type(args[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": _json_type(args[1])}
    raise TypeError(f"no JSON schema type for {annotation!r}")


def settings_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """(config, secrets) value schemas: one property per Settings field, secrets apart."""
    from groundwatch.settings import Settings
    from pydantic import BaseModel

    config: dict[str, Any] = {}
    secrets: dict[str, Any] = {}
    for name, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            plain: dict[str, Any] = {}
            secret: dict[str, Any] = {}
            for sub, subfield in annotation.model_fields.items():
                prop = {
                    "description": subfield.description or "",
                    **_json_type(subfield.annotation),
                    **_bounds(subfield.metadata),
                }
                if _is_secret(subfield.annotation):
                    if prop.get("type") != "array":
                        prop["type"] = ["string", "null"]
                    secret[sub] = prop
                else:
                    plain[sub] = prop
            for target, props in ((config, plain), (secrets, secret)):
                if props:
                    target[name] = {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": props,
                    }
        else:
            prop = {"description": field.description or "", **_json_type(annotation)}
            (secrets if _is_secret(annotation) else config)[name] = prop
    return config, secrets


def sync_schema() -> bool:
    path = CHART / "values.schema.json"
    schema = json.loads(path.read_text())
    config, secrets = settings_schema()
    schema["properties"]["config"]["properties"] = config
    existing = schema["properties"]["secrets"]["properties"]["existingSecret"]
    schema["properties"]["secrets"]["properties"] = {"existingSecret": existing, **secrets}
    text = json.dumps(schema, indent=2) + "\n"
    if path.read_text() == text:
        return False
    path.write_text(text)
    return True


_TABLE_HEADER = "| Helm value | variable | default | meaning |"


def _default_text(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | dict):
        return f"`{json.dumps(value)}`"
    return f"`{value}`"


def settings_table() -> str:
    """The README table: Helm value -> GROUNDWATCH_ variable, default, meaning."""
    from groundwatch.settings import Settings

    config, secrets = settings_schema()
    defaults = Settings().model_dump(mode="json")
    rows = [_TABLE_HEADER, "|---|---|---|---|"]
    for kind, props in (("config", config), ("secrets", secrets)):
        for name, prop in props.items():
            if "properties" not in prop:
                variable, default = f"GROUNDWATCH_{name.upper()}", defaults[name]
                rows.append(
                    f"| `{kind}.{name}` | `{variable}` | {_default_text(default)} "
                    f"| {prop['description']} |"
                )
                continue
            for sub, subprop in prop["properties"].items():
                variable = f"GROUNDWATCH_{name.upper()}__{sub.upper()}"
                default = _default_text(defaults[name][sub]) if kind == "config" else "(unset)"
                rows.append(
                    f"| `{kind}.{name}.{sub}` | `{variable}` | {default} "
                    f"| {subprop['description']} |"
                )
    return "\n".join(rows) + "\n"


def sync_readme() -> bool:
    """Replace the table that ends the chart README with the current one."""
    path = CHART / "README.md"
    text = path.read_text()
    head = text[: text.index(_TABLE_HEADER)]
    new = head + settings_table()
    if new == text:
        return False
    path.write_text(new)
    return True


if __name__ == "__main__":
    for changed in sync():
        print(f"updated {changed}")
    if sync_schema():
        print("updated helm/groundwatch/values.schema.json")
    if sync_readme():
        print("updated helm/groundwatch/README.md")
