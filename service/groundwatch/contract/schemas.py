"""JSON Schemas of the contracts, generated from the models and committed in ``schemas/``.

Usage::

    groundwatch schema --out schemas          # write
    groundwatch schema --out schemas --check  # exit 1 when a committed file is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from groundwatch.contract.case import EvalCase
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace

__all__ = ["SCHEMA_FILES", "render_schemas", "write_schemas"]

SCHEMA_FILES = {
    "rag-trace.v1.schema.json": RagTrace,
    "evaluation-record.v1.schema.json": EvaluationRecord,
    "eval-case.v1.schema.json": EvalCase,
}


def _schema(model: Any, name: str) -> dict[str, Any]:
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://groundwatch.dev/schemas/{name}",
        **schema,
    }


def render_schemas() -> dict[str, str]:
    return {
        name: json.dumps(_schema(model, name), indent=2, sort_keys=True) + "\n"
        for name, model in SCHEMA_FILES.items()
    }


def write_schemas(out: str, check: bool = False) -> int:
    directory = Path(out)
    stale = []
    for name, text in render_schemas().items():
        path = directory / name
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(str(path))
            continue
        directory.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    if stale:
        print("stale schema files (run `groundwatch schema`): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0
