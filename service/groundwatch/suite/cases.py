"""Loading eval cases (contract v1, ``groundwatch.contract.case``) from JSONL.

Usage::

    cases, errors = load_cases("cases.jsonl")   # bad lines become CaseError(line, ...), never raise
    for err in errors:
        print(err)                              # "line 7: schema: evidence.0: ..."
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from groundwatch.contract.case import CASE_VERSION, EvalCase, EvidenceQuote, EvidenceSpan, Nugget

__all__ = [
    "CASE_VERSION",
    "CaseError",
    "EvalCase",
    "EvidenceQuote",
    "EvidenceSpan",
    "Nugget",
    "iter_jsonl",
    "load_cases",
]


@dataclass(frozen=True)
class CaseError:
    """A line of a JSONL file that is not a valid case; the run goes on without it."""

    line: int
    reason: Literal["not_json", "schema", "duplicate_id"]
    detail: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}: {self.detail}"


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any | CaseError]]:
    """(line number, parsed object or CaseError) for every non-blank line."""
    with open(path, encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                yield number, json.loads(raw)
            except json.JSONDecodeError as exc:
                yield number, CaseError(number, "not_json", exc.msg)


def _format(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err["loc"]) or "case"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


def load_cases(path: str | Path) -> tuple[list[EvalCase], list[CaseError]]:
    """Valid cases in file order, and one error per bad line (not JSON, schema, repeated id)."""
    cases: list[EvalCase] = []
    errors: list[CaseError] = []
    seen: set[str] = set()
    for number, obj in iter_jsonl(path):
        if isinstance(obj, CaseError):
            errors.append(obj)
            continue
        try:
            case = EvalCase.model_validate(obj)
        except ValidationError as exc:
            errors.append(CaseError(number, "schema", _format(exc)))
            continue
        if case.id in seen:
            errors.append(CaseError(number, "duplicate_id", f"id {case.id!r} appears earlier"))
            continue
        seen.add(case.id)
        cases.append(case)
    return cases, errors
