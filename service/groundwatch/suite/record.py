"""The eval record: one per case of a suite run (``groundwatch suite run`` writes them as JSONL).

Every metric sits in ``metrics`` under a stable name (``recall@3``, ``vital_nugget_recall``,
``false_answer`` ...) so ``compare`` treats them alike; a metric that does not apply to a case
(no gold evidence, an unanswerable question, no reference answer) is ``None``, never NaN.
Rates are stored per case as 0.0/1.0 so their mean is the rate.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DIAGNOSES",
    "Diagnosis",
    "EvalRecord",
    "EvidenceMatch",
    "NuggetResult",
    "NuggetVerdict",
]

NuggetVerdict = Literal["YES", "PARTIAL", "NO"]

Diagnosis = Literal[
    "working",  # gold context retrieved, answer correct
    "generation_problem",  # gold context retrieved, answer wrong
    "retrieval_problem",  # gold context missing, answer wrong
    "lucky",  # gold context missing, answer correct (general knowledge, or a lucky guess)
    "abstained",  # answerable, declined, and no gold evidence labelled to place it in the 2×2
    "correct_refusal",  # unanswerable, declined
    "false_answer",  # unanswerable, answered anyway
    "unknown",  # no reference and no nuggets to decide correctness, or unscored
]

DIAGNOSES: tuple[Diagnosis, ...] = (
    "working",
    "generation_problem",
    "retrieval_problem",
    "lucky",
    "abstained",
    "correct_refusal",
    "false_answer",
    "unknown",
)


class EvidenceMatch(BaseModel):
    """Gold evidence item ``evidence_index`` found in the passage at ``rank`` (1-based)."""

    model_config = ConfigDict(extra="forbid")

    evidence_index: int = Field(ge=0)
    rank: int = Field(ge=1)
    kind: Literal["quote", "span", "fuzzy"]


class NuggetResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str
    vital: bool
    verdict: NuggetVerdict


class EvalRecord(BaseModel):
    """One case of one run: what was asked, retrieved and answered, and every metric."""

    model_config = ConfigDict(extra="forbid", title="EvalRecord")

    record_version: Literal["v1"] = "v1"
    case_id: str
    question: str
    slices: dict[str, str] = Field(default_factory=dict)
    answerable: bool = True
    config: dict[str, Any] = Field(default_factory=dict)
    status: Literal["scored", "unscored", "missing_trace"] = "scored"
    unscored_reason: str | None = None
    metric_version: str | None = None
    relevant: list[str] = Field(default_factory=list, description="Gold document ids.")
    retrieved: list[str] = Field(
        default_factory=list, description="Retrieved passages (id, else doc_id, else rank)."
    )
    answer: str | None = None
    evidence_matches: list[EvidenceMatch] = Field(default_factory=list)
    nuggets: list[NuggetResult] = Field(default_factory=list)
    metrics: dict[str, float | None] = Field(default_factory=dict)
    diagnosis: Diagnosis = "unknown"
    passed: bool | None = Field(
        default=None,
        description="Correct answer (answerable) or refusal (unanswerable); None when undecided.",
    )
