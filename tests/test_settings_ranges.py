"""Every numeric setting has a sane range (issue 45, item 10): start-up refuses a value outside
it with one line naming the variable and exit code 2, never a traceback. Before, ``inf`` requests
per second, ``-1`` findings kept, a negative export window and a sampling rate of 7 started.
The Helm chart's values schema carries the same bounds. And ``groundwatch evaluate -o
/dev/full`` says in one line that it cannot write, exit 2, instead of a traceback.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import annotated_types as at
import pytest
from pydantic import BaseModel, ValidationError

from groundwatch.settings import Settings
from tests.builders import build_trace

ROOT = Path(__file__).resolve().parents[1]

Path_ = tuple[str, ...]


def _cli(env: dict[str, str], *args: str, stdout: Any = subprocess.PIPE) -> tuple[int, str]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("GROUNDWATCH_")}
    clean.update(env)
    result = subprocess.run(
        [sys.executable, "-m", "groundwatch.cli", *args],
        env=clean,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,  # a refused start-up exits at once; a started server would run on
        check=False,
    )
    return result.returncode, result.stderr


@pytest.mark.parametrize(
    ("variable", "value", "command"),
    [
        ("GROUNDWATCH_WINDOWS__TOP_N", "100000000", "config"),
        ("GROUNDWATCH_API__RATE_LIMIT_PER_S", "inf", "serve"),
        ("GROUNDWATCH_FINDINGS__MAX_ITEMS", "-1", "serve"),
        ("GROUNDWATCH_WINDOWS__EXPORT_WINDOWS_S", '{"5m": -300}', "config"),
        ("GROUNDWATCH_SAMPLING__OVERRIDES", '{"tenant=acme": 7}', "config"),
        ("GROUNDWATCH_JUDGE__TEI_SUPPORT_THRESHOLD", "nan", "config"),
        ("GROUNDWATCH_API__KEEP_ALIVE_S", "1e9", "config"),
        ("GROUNDWATCH_LIMITS__MAX_BYTES", "1000000000000", "config"),
        ("GROUNDWATCH_JUDGE__OPENAI_PRICE_PER_1K_INPUT", "-3", "config"),
    ],
)
def test_start_up_refuses_a_value_out_of_range(variable: str, value: str, command: str) -> None:
    code, stderr = _cli({variable: value}, command, stdout=subprocess.DEVNULL)
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if variable in line]
    assert len(lines) == 1, stderr
    assert len(lines[0]) < 200, lines[0]


def _bounds(metadata: list[Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for item in metadata:
        for c in getattr(item, "metadata", [item]):
            for kind, attr in (("ge", at.Ge), ("gt", at.Gt), ("le", at.Le), ("lt", at.Lt)):
                if isinstance(c, attr):
                    out[kind] = float(getattr(c, kind))
    return out


def _numeric(annotation: Any) -> type | None:
    for arg in typing.get_args(annotation) or (annotation,):
        if arg in (int, float):
            return typing.cast(type, arg)
    return None


def numeric_settings(
    model: type[BaseModel] = Settings, path: Path_ = ()
) -> Iterator[tuple[Path_, type, dict[str, float]]]:
    """(path, int or float, bounds) of every numeric setting; a dict of numbers as path + "*"."""
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from numeric_settings(annotation, (*path, name))
            continue
        kind = _numeric(annotation)
        if kind is not None and annotation is not bool:
            yield (*path, name), kind, _bounds(field.metadata)
        if typing.get_origin(annotation) is dict:
            value = typing.get_args(annotation)[1]
            inner = typing.get_args(value)
            kind = _numeric(inner[0] if inner else value)
            if kind is not None:
                yield (*path, name, "*"), kind, _bounds(list(inner[1:]))


SETTINGS = list(numeric_settings())


def test_the_walk_finds_the_settings_it_should() -> None:
    paths = {p for p, _, _ in SETTINGS}
    for expected in [
        ("api", "rate_limit_per_s"),
        ("findings", "max_items"),
        ("windows", "export_windows_s", "*"),
        ("sampling", "overrides", "*"),
        ("limits", "max_bytes"),
    ]:
        assert expected in paths
    assert len(SETTINGS) > 80


@pytest.mark.parametrize(
    ("path", "kind", "bounds"), SETTINGS, ids=[".".join(p) for p, _, _ in SETTINGS]
)
def test_every_numeric_setting_has_a_range_that_is_enforced(
    path: Path_, kind: type, bounds: dict[str, float]
) -> None:
    assert ("ge" in bounds) != ("gt" in bounds), f"{path}: no lower bound"
    assert ("le" in bounds) != ("lt" in bounds), f"{path}: no upper bound"
    upper = bounds.get("le", bounds.get("lt", 0.0))
    lower = bounds.get("ge", bounds.get("gt", 0.0))
    for bad in (upper * 10 + 1, lower - 1, math.inf, -math.inf, math.nan):
        value: Any = int(bad) if kind is int and math.isfinite(bad) else bad
        data: Any = {"*": value} if path[-1] == "*" else value
        for key in reversed(path[:-1] if path[-1] == "*" else path):
            data = {key: data}
        with pytest.raises(ValidationError):
            Settings.model_validate(data)


def test_the_helm_values_schema_carries_the_same_bounds() -> None:
    schema = json.loads((ROOT / "helm" / "groundwatch" / "values.schema.json").read_text())
    config = schema["properties"]["config"]["properties"]
    names = {"ge": "minimum", "gt": "exclusiveMinimum", "le": "maximum", "lt": "exclusiveMaximum"}
    for path, _, bounds in SETTINGS:
        node = config[path[0]]
        for key in path[1:]:
            node = node["additionalProperties"] if key == "*" else node["properties"][key]
        for kind, value in bounds.items():
            assert node[names[kind]] == value, (path, kind)


@pytest.mark.parametrize("target", ["-o /dev/full", "> /dev/full"])
def test_evaluate_to_a_full_device_is_one_line_and_exit_2(tmp_path: Path, target: str) -> None:
    source = tmp_path / "traces.jsonl"
    source.write_text(json.dumps(build_trace("t-full")) + "\n", encoding="utf-8")
    args = ["evaluate", str(source), "--no-progress", "--errors", str(tmp_path / "e.jsonl")]
    if target.startswith("-o"):
        code, stderr = _cli({}, *args, "-o", "/dev/full")
    else:
        with open("/dev/full", "w") as full:
            code, stderr = _cli({}, *args, stdout=full)
    assert code == 2, (code, stderr)
    assert "Traceback" not in stderr, stderr
    where = "/dev/full" if target.startswith("-o") else "stdout"
    lines = [line for line in stderr.splitlines() if "cannot write" in line]
    assert lines == [f"groundwatch evaluate: cannot write {where}: No space left on device"]
