"""Evaluation record v1: one per scored trace (results topic, ``POST /v1/evaluate``, batch CLI).

A metric is never NaN: what cannot be scored is ``None`` and the reason is recorded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RECORD_VERSION",
    "ClaimResult",
    "Conflict",
    "ConflictKind",
    "ContextResult",
    "EvaluationRecord",
    "Evidence",
    "UnscoredReason",
    "Verdict",
]

RECORD_VERSION: Literal["v1"] = "v1"

Verdict = Literal["supported", "contradicted", "not_found"]

UnscoredReason = Literal[
    "judge_error",
    "judge_timeout",
    "judge_malformed_output",
    "judge_unavailable",
    "internal_error",
]

Score = float

ConflictKind = Literal["number", "date", "year", "negation", "modality", "comparative", "entity"]


class Evidence(BaseModel):
    """The passage sentence a claim was judged against."""

    model_config = ConfigDict(extra="forbid")

    context_index: int = Field(ge=0)
    context_id: str | None = None
    text: str


class Conflict(BaseModel):
    """What disagrees between a contradicted claim and its evidence, as the judge found it:
    the words as written on each side (``"23 kg"`` vs ``"32 kg"``, ``"may"`` vs ``"must"``,
    ``None`` vs ``"not"`` for a negation only the evidence states). Data, so that a reader (the
    findings page marks ``evidence`` in the evidence sentence) never parses the reason back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: ConflictKind
    claim: str | None = Field(default=None, description="The disagreeing words of the claim.")
    evidence: str | None = Field(
        default=None, description="The disagreeing words of the evidence sentence."
    )


class ClaimResult(BaseModel):
    """One atomic claim from the answer and its verdict."""

    model_config = ConfigDict(extra="forbid")

    text: str
    verdict: Verdict
    score: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    evidence: Evidence | None = None
    reason: str | None = Field(
        default=None, description="Short machine-made explanation (e.g. which slot disagreed)."
    )
    conflict: Conflict | None = Field(
        default=None,
        description="For a contradicted claim, the disagreeing words (when the judge names them).",
    )


class ContextResult(BaseModel):
    """Relevance of one retrieved passage to the question."""

    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    id: str | None = None
    relevance: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    relevant: bool


class EvaluationRecord(BaseModel):
    """Evaluation record v1 (design.md)."""

    model_config = ConfigDict(extra="forbid", title="EvaluationRecord")

    record_version: Literal["v1"] = RECORD_VERSION
    trace_id: str
    evaluated_at: datetime
    metric_version: str
    status: Literal["scored", "unscored"]
    unscored_reason: str | None = None
    faithfulness: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    faithfulness_null_reason: str | None = None
    claims: list[ClaimResult] = Field(default_factory=list)
    contradicted_claims: int = Field(default=0, ge=0)
    not_found_claims: int = Field(default=0, ge=0)
    context_precision: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    contexts: list[ContextResult] = Field(default_factory=list)
    first_relevant_rank: int | None = Field(default=None, ge=1)
    context_tokens: int = Field(default=0, ge=0)
    retrieval_top_score: float | None = Field(default=None, allow_inf_nan=False)
    answer_relevance: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    refusal: bool = False
    false_refusal_suspected: bool = Field(
        default=False, description="Refusal although a relevant passage was retrieved."
    )
    answered_without_evidence: bool = Field(
        default=False, description="An answer although no passage was relevant."
    )
    citation_support: float | None = Field(default=None, ge=0.0, le=1.0, allow_inf_nan=False)
    citation_warnings: list[str] = Field(
        default_factory=list,
        description="Cited passage ids that match no passage (neither an id nor a 0-based index).",
    )
    attributes: dict[str, str] = Field(default_factory=dict)
    latency_ms: float = Field(default=0.0, ge=0.0, allow_inf_nan=False)
