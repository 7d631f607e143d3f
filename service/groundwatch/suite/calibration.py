"""Judge calibration: the judge's claim verdicts against human labels on the operator's data.

Usage::

    rows, errors = load_labelled("labelled.jsonl")  # {question, contexts, claim, label} per line
    report = calibrate(rows, evaluator)
    print(report.table())                           # confusion matrix, precision/recall, κ

Each labelled claim is given to the judge as the answer of a trace with the labelled passages;
the judge may split it into several claims: any contradicted → ``contradicted``, all supported →
``supported``, otherwise ``not_found``. Agreement is Cohen's κ (chance-corrected), with the
confusion matrix and per-verdict precision and recall so the kind of disagreement is visible.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from groundwatch.contract.record import EvaluationRecord, Verdict
from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.suite.cases import CaseError, iter_jsonl

__all__ = [
    "VERDICTS",
    "CalibrationReport",
    "LabelledClaim",
    "calibrate",
    "cohen_kappa",
    "confusion",
    "load_labelled",
    "record_verdict",
    "report_from",
]

VERDICTS: tuple[str, ...] = get_args(Verdict)


class LabelledClaim(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    question: str = ""
    contexts: list[str | ContextPassage] = Field(default_factory=list)
    claim: str = Field(min_length=1)
    label: Verdict


def load_labelled(path: str | Path) -> tuple[list[LabelledClaim], list[CaseError]]:
    rows: list[LabelledClaim] = []
    errors: list[CaseError] = []
    for number, obj in iter_jsonl(path):
        if isinstance(obj, CaseError):
            errors.append(obj)
            continue
        try:
            rows.append(LabelledClaim.model_validate(obj))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            errors.append(CaseError(number, "schema", f"{where}: {first['msg']}"))
    return rows, errors


def confusion(
    truth: Sequence[str], predicted: Sequence[str], labels: Sequence[str] = VERDICTS
) -> list[list[int]]:
    """``matrix[i][j]``: items labelled ``labels[i]`` that the judge called ``labels[j]``."""
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for t, p in zip(truth, predicted, strict=True):
        matrix[index[t]][index[p]] += 1
    return matrix


def cohen_kappa(matrix: Sequence[Sequence[int]]) -> float | None:
    """(p_o − p_e) / (1 − p_e); None when there is nothing to compare or chance is certain."""
    n = sum(sum(row) for row in matrix)
    if n == 0:
        return None
    observed = sum(matrix[i][i] for i in range(len(matrix))) / n
    rows = [sum(row) / n for row in matrix]
    cols = [sum(matrix[i][j] for i in range(len(matrix))) / n for j in range(len(matrix))]
    expected = sum(r * c for r, c in zip(rows, cols, strict=True))
    if expected >= 1.0:
        return None
    return (observed - expected) / (1.0 - expected)


def record_verdict(record: EvaluationRecord) -> str:
    if record.status != "scored" or not record.claims:
        return "not_found"
    if record.contradicted_claims:
        return "contradicted"
    if all(c.verdict == "supported" for c in record.claims):
        return "supported"
    return "not_found"


@dataclass
class CalibrationReport:
    labels: tuple[str, ...]
    matrix: list[list[int]]
    kappa: float | None
    metric_version: str
    precision: dict[str, float | None] = field(default_factory=dict)
    recall: dict[str, float | None] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return sum(sum(r) for r in self.matrix)

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "metric_version": self.metric_version,
            "labels": list(self.labels),
            "confusion": self.matrix,
            "precision": self.precision,
            "recall": self.recall,
            "cohen_kappa": self.kappa,
        }

    def table(self) -> str:
        def f(v: float | None) -> str:
            return "–" if v is None else f"{v:.3f}"

        width = max(len(lbl) for lbl in self.labels) + 2
        out = [f"judge {self.metric_version} on {self.n} labelled claims", ""]
        out.append(
            "human \\ judge".ljust(width + 6) + "".join(lbl.rjust(width) for lbl in self.labels)
        )
        for label, row in zip(self.labels, self.matrix, strict=True):
            out.append(label.ljust(width + 6) + "".join(str(v).rjust(width) for v in row))
        out.append("")
        out.append("verdict".ljust(width + 6) + "precision".rjust(11) + "recall".rjust(9))
        for label in self.labels:
            out.append(
                label.ljust(width + 6)
                + f(self.precision[label]).rjust(11)
                + f(self.recall[label]).rjust(9)
            )
        out += ["", f"Cohen's kappa: {f(self.kappa)}"]
        return "\n".join(out) + "\n"


def report_from(truth: Sequence[str], predicted: Sequence[str], version: str) -> CalibrationReport:
    matrix = confusion(truth, predicted)
    report = CalibrationReport(VERDICTS, matrix, cohen_kappa(matrix), version)
    for i, label in enumerate(VERDICTS):
        called = sum(matrix[r][i] for r in range(len(VERDICTS)))
        actual = sum(matrix[i])
        report.precision[label] = matrix[i][i] / called if called else None
        report.recall[label] = matrix[i][i] / actual if actual else None
    return report


def calibrate(
    rows: Sequence[LabelledClaim], evaluator: Evaluator, batch_size: int = 16
) -> CalibrationReport:
    traces = [
        RagTrace(
            trace_id=row.id or f"labelled-{i}",
            question=row.question,
            contexts=list(row.contexts),
            answer=row.claim,
        )
        for i, row in enumerate(rows)
    ]
    predicted: list[str] = []
    for start in range(0, len(traces), batch_size):
        predicted += [
            record_verdict(r) for r in evaluator.evaluate_batch(traces[start : start + batch_size])
        ]
    return report_from([r.label for r in rows], predicted, evaluator.metric_version)
