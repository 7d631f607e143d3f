"""Eval case contract v1: one labelled question of the offline evaluation suite.

Usage::

    case = EvalCase.model_validate(obj)         # pydantic ValidationError names the field
    groundwatch schema --out schemas            # writes schemas/eval-case.v1.schema.json

Gold evidence names a *document* and a quote or a character span in it, never a chunk id: chunk
ids change with every chunking experiment, documents and their text do not. Loading a JSONL
file of cases (with line numbers for bad ones) is ``groundwatch.suite.cases.load_cases``.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "CASE_VERSION",
    "CaseOrigin",
    "ClaimLabel",
    "ContradictedClaim",
    "EvalCase",
    "EvidenceQuote",
    "EvidenceSpan",
    "Nugget",
]

CASE_VERSION: Literal["v1"] = "v1"

NonEmpty = Annotated[str, Field(min_length=1)]


class EvidenceQuote(BaseModel):
    """A passage of a document, given by its words (matched whitespace/punctuation-insensitively)."""

    model_config = ConfigDict(extra="forbid")

    doc_id: NonEmpty
    quote: NonEmpty


class EvidenceSpan(BaseModel):
    """A passage of a document, given by character offsets ``[start, end)`` into its text."""

    model_config = ConfigDict(extra="forbid")

    doc_id: NonEmpty
    start: int = Field(ge=0)
    end: int = Field(ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> EvidenceSpan:
        if self.end <= self.start:
            raise ValueError("end must be greater than start")
        return self


class Nugget(BaseModel):
    """One fact a good answer contains; ``vital`` ones are required, the others nice to have."""

    model_config = ConfigDict(extra="forbid")

    text: NonEmpty
    vital: bool = True


class ClaimLabel(BaseModel):
    """An engineer's triage of a finding on the page (``POST /v1/findings/{id}/label``):
    the judge was *right* (the claim is contradicted), *wrong* (``corrected_verdict`` says what
    it should have been, when known) or the engineer is *unsure*."""

    model_config = ConfigDict(extra="forbid")

    label: Literal["right", "wrong", "unsure"]
    corrected_verdict: Literal["supported", "not_found"] | None = None
    note: str | None = None
    labelled_at: float | None = Field(default=None, description="Unix seconds.")


class ContradictedClaim(BaseModel):
    """A claim production found contradicted, with the passage sentence that contradicts it,
    and its triage label when one was given."""

    model_config = ConfigDict(extra="forbid")

    claim: str
    evidence: str | None = None
    context_id: str | None = None
    claim_index: int | None = None
    label: ClaimLabel | None = None


class CaseOrigin(BaseModel):
    """Where a draft case came from (``groundwatch findings export``): review before use."""

    model_config = ConfigDict(extra="forbid")

    trace_id: str
    answer: str | None = None
    contradicted: list[ContradictedClaim] = Field(default_factory=list)
    metric_version: str | None = None


class EvalCase(BaseModel):
    """Eval case contract v1 (README, "Offline evaluation suite")."""

    model_config = ConfigDict(extra="forbid", title="EvalCase")

    case_version: Literal["v1"] = CASE_VERSION
    id: Annotated[str, Field(min_length=1, max_length=256)]
    question: NonEmpty
    answerable: bool = True
    reference_answer: str | None = None
    evidence: list[EvidenceQuote | EvidenceSpan] = Field(
        default_factory=list, description="Gold evidence: document id plus a quote or a span."
    )
    relevance: dict[str, int] = Field(
        default_factory=dict,
        description="Graded relevance per document id (0 = not, 1 = partly, 2+ = highly), where known.",
    )
    nuggets: list[Nugget] = Field(default_factory=list)
    slice: dict[str, str] = Field(
        default_factory=dict, description="Slice attributes, e.g. intent, source, tenant."
    )
    filters: dict[str, str] = Field(
        default_factory=dict, description="Metadata filters the assistant should apply."
    )
    needs_review: bool = Field(
        default=False,
        description="A draft (e.g. exported from findings): suite run skips it unless asked.",
    )
    origin: CaseOrigin | None = None

    @model_validator(mode="after")
    def _consistent(self) -> EvalCase:
        if not self.answerable and (self.evidence or self.nuggets):
            raise ValueError("an unanswerable case has no evidence and no nuggets")
        if any(grade < 0 for grade in self.relevance.values()):
            raise ValueError("relevance grades are >= 0")
        return self

    def slices(self) -> dict[str, str]:
        """Slice tags including ``answerable`` (always present, so it can be compared)."""
        return {**self.slice, "answerable": "yes" if self.answerable else "no"}
