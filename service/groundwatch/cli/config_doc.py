"""The configuration table: every ``GROUNDWATCH_`` variable, its default and meaning, derived from
the Settings model so the README cannot drift (a test compares them).

Usage::

    print(settings_table())     # Markdown table
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic_core import PydanticUndefined

from groundwatch.settings import Settings

__all__ = ["settings_rows", "settings_table"]


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
