"""Builders shared by the window, drift, collector and end-to-end tests."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from groundwatch.contract.record import ClaimResult, EvaluationRecord, Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.state.stores import IngestObservation


@dataclass
class FakeClock:
    """A settable clock aligned to real time (Redis expiries are absolute, in real time)."""

    t: float

    def __call__(self) -> float:
        return self.t

    @classmethod
    def aligned(cls, step: int = 3600, offset: float = 30.0) -> FakeClock:
        """``offset`` seconds after the middle of a ``step``, never behind real time (Redis
        expires keys by real time; a clock behind it would see fresh buckets vanish)."""
        import time

        real = time.time()
        t = math.floor(real / step) * step + 0.5 * step + offset
        return cls(t if t >= real else t + step)


def obs(
    trace_id: str,
    ts: float,
    slices: dict[str, str] | None = None,
    *,
    sampled: bool = True,
    top: float | None = 0.8,
    chars: int = 1000,
) -> IngestObservation:
    return IngestObservation(
        trace_id=trace_id,
        ts=ts,
        slices=dict(slices or {}),
        sampled=sampled,
        retrieval_top_score=top,
        context_count=3,
        context_chars=chars,
    )


def record(
    trace_id: str,
    *,
    supported: int = 1,
    contradicted: int = 0,
    not_found: int = 0,
    refusal: bool = False,
    status: str = "scored",
    precision: float | None = 0.5,
    relevance: float | None = 0.9,
) -> EvaluationRecord:
    claims = (
        [ClaimResult(text=f"s{i}", verdict="supported", score=0.9) for i in range(supported)]
        + [
            ClaimResult(
                text=f"c{i}",
                verdict="contradicted",
                score=0.95,
                evidence=Evidence(context_index=0, context_id="p0", text=f"e{i}"),
            )
            for i in range(contradicted)
        ]
        + [ClaimResult(text=f"n{i}", verdict="not_found", score=0.2) for i in range(not_found)]
    )
    n = len(claims)
    if status != "scored":
        return EvaluationRecord(
            trace_id=trace_id,
            evaluated_at=datetime.now(UTC),
            metric_version="fake/v1",
            status="unscored",
            unscored_reason="judge_timeout",
        )
    return EvaluationRecord(
        trace_id=trace_id,
        evaluated_at=datetime.now(UTC),
        metric_version="fake/v1",
        status="scored",
        faithfulness=supported / n if n else None,
        claims=claims,
        contradicted_claims=contradicted,
        not_found_claims=not_found,
        context_precision=precision,
        answer_relevance=None if refusal else relevance,
        refusal=refusal,
    )


class FakeJudge:
    """Deterministic judge for end-to-end tests. The answer ``"k/n"`` yields n claims of which
    k are supported and the rest contradicted; anything else is one supported claim."""

    version = "fake/v1"
    backend = "fake"

    def load(self) -> None:
        return None

    def ready(self) -> bool:
        return True

    def close(self) -> None:
        return None

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        out: list[TraceJudgement | JudgeError] = []
        for trace in traces:
            k, _, n = (trace.answer or "1/1").partition("/")
            supported, total = (int(k), int(n)) if n else (1, 1)
            claims = [
                ClaimJudgement(
                    text=f"claim {i}",
                    verdict="supported" if i < supported else "contradicted",
                    score=0.9,
                    evidence=Evidence(context_index=0, text="passage"),
                )
                for i in range(total)
            ]
            out.append(
                TraceJudgement(
                    claims=claims,
                    context_relevance=[0.9 for _ in trace.contexts],
                    relevance_threshold=0.5,
                    answer_relevance=0.9,
                    refusal=False,
                    context_tokens=10,
                )
            )
        return out
