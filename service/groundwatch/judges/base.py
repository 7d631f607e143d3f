"""The judge interface: what the evaluator asks of any backend.

Usage::

    judge = build_judge(settings)      # groundwatch.judges.build_judge
    judge.load()                       # slow (model load); call once at start-up
    results = judge.judge_batch(traces)

``judge_batch`` is called from evaluator worker threads with a batch of traces; it returns one
item per trace, in order: a :class:`TraceJudgement`, or a :class:`JudgeError` for a trace that
could not be judged (the evaluator turns it into an ``unscored`` record with the reason). It
must never return NaN scores. Implementations must be safe to call from several threads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from groundwatch.contract.record import Conflict, Evidence, Verdict
from groundwatch.contract.trace import RagTrace

__all__ = ["ClaimJudgement", "Judge", "JudgeError", "TraceJudgement"]


class JudgeError(Exception):
    """A trace the judge could not score. ``reason`` is a bounded label (an UnscoredReason)."""

    def __init__(self, reason: str, detail: str = "", *, retriable: bool = False):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        self.retriable = retriable


@dataclass(frozen=True)
class ClaimJudgement:
    text: str
    verdict: Verdict
    score: float
    evidence: Evidence | None = None
    reason: str | None = None
    #: For a contradiction, the disagreeing words the reason names, as data.
    conflict: Conflict | None = None


@dataclass(frozen=True)
class TraceJudgement:
    """Everything a judge says about one trace; the evaluator derives the record's scores."""

    claims: list[ClaimJudgement]
    context_relevance: list[float]
    relevance_threshold: float
    answer_relevance: float | None
    refusal: bool
    context_tokens: int
    citation_supported: list[bool] | None = None
    notes: dict[str, str] = field(default_factory=dict)


@runtime_checkable
class Judge(Protocol):
    """A scoring backend (embedded, nli, openai, tei)."""

    @property
    def version(self) -> str:
        """metric_version: backend, model, thresholds and prompt version, e.g.
        ``embedded/all-MiniLM-L6-v2@onnx-int8/rel0.42/r1``. Any change is a new version."""
        ...

    @property
    def backend(self) -> str: ...

    def load(self) -> None:
        """Load models / check endpoints. Idempotent. Raises on an unusable configuration."""
        ...

    def ready(self) -> bool:
        """True once load() has succeeded."""
        ...

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]: ...

    def close(self) -> None: ...


@runtime_checkable
class ClaimsJudge(Protocol):
    """A judge that can give the claim verdicts alone, skipping what only a monitored trace
    needs (context relevance, answer relevance, refusal, context tokens). The offline suite's
    probes (a nugget or reference answer checked against the assistant's answer) use it."""

    def judge_claims(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        """The same claims and verdicts ``judge_batch`` gives; the other fields empty."""
        ...
