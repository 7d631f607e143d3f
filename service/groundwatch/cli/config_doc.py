"""The configuration table: every ``GROUNDWATCH_`` variable, its default and meaning, derived from
the Settings model so docs/configuration.md cannot drift (a test compares them); and the
effective values of a running configuration with where each came from.

Usage::

    print(settings_table())                                   # Markdown table of the defaults
    print(effective_table(Settings(), groundwatch_environment()))  # value + source per variable
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic_core import PydanticUndefined

from groundwatch.settings import ENV_PREFIX, Settings

__all__ = ["effective_rows", "effective_table", "settings_rows", "settings_table"]


def _default(field: Any) -> Any:
    if field.default_factory is not None:
        return field.default_factory()
    if field.default is PydanticUndefined:
        return None
    return field.default


def _render(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, SecretStr):
        return "(secret)"
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json"))
    if isinstance(value, list | dict):
        return json.dumps(value) if value else ("[]" if isinstance(value, list) else "{}")
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def settings_rows(
    model: type[BaseModel] = Settings, prefix: str = "GROUNDWATCH_"
) -> Iterator[tuple[str, str, str]]:
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from settings_rows(annotation, f"{prefix}{name.upper()}__")
            continue
        yield (f"{prefix}{name.upper()}", _render(_default(field)), field.description or "")


def settings_table() -> str:
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for var, default, desc in settings_rows():
        lines.append(f"| `{var}` | `{default}` | {desc} |")
    return "\n".join(lines)


def _leaves(model: type[BaseModel], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from _leaves(annotation, (*path, name))
        else:
            yield (*path, name)


def _source(var: str, environment: dict[str, str]) -> str:
    if var in environment:
        return "environment"
    # A parent set as JSON (GROUNDWATCH_API='{"port": 9}') also counts.
    parts = var[len(ENV_PREFIX) :].split("__")
    for i in range(len(parts) - 1, 0, -1):
        parent = ENV_PREFIX + "__".join(parts[:i])
        if parent in environment:
            return f"environment ({parent})"
    return "default"


def effective_rows(
    settings: Settings, environment: dict[str, str]
) -> Iterator[tuple[str, str, str]]:
    """(variable, effective value, source) for every setting; secrets are never shown."""
    for path in _leaves(Settings):
        value: Any = settings
        for part in path:
            value = getattr(value, part)
        var = ENV_PREFIX + "__".join(p.upper() for p in path)
        if isinstance(value, list) and value and all(isinstance(v, SecretStr) for v in value):
            shown = f"({len(value)} secrets)"
        else:
            shown = _render(value)
        yield var, shown, _source(var, environment)


def effective_table(settings: Settings, environment: dict[str, str]) -> str:
    rows = list(effective_rows(settings, environment))
    width_var = max(len(r[0]) for r in rows)
    width_val = min(48, max(len(r[1]) for r in rows))
    lines = [f"{'variable':{width_var}}  {'value':{width_val}}  source"]
    for var, value, source in rows:
        lines.append(f"{var:{width_var}}  {value:{width_val}}  {source}")
    unknown = sorted(set(environment) - {r[0] for r in rows} - _parents(rows))
    for var in unknown:
        lines.append(f"warning: {var} is set but is not a groundwatch setting (ignored)")
    return "\n".join(lines)


def _parents(rows: list[tuple[str, str, str]]) -> set[str]:
    out: set[str] = set()
    for var, _, _ in rows:
        parts = var[len(ENV_PREFIX) :].split("__")
        out.update(ENV_PREFIX + "__".join(parts[:i]) for i in range(1, len(parts)))
    return out
