"""Turns a judge's verdicts into evaluation records (design.md, "Metric definitions").

Usage::

    evaluator = Evaluator(judge)
    records = evaluator.evaluate_batch(traces)   # one record per trace, in order; never raises

All score arithmetic lives here so every backend yields records with the same meaning.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from datetime import UTC, datetime

from groundwatch.contract.record import ClaimResult, ContextResult, EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimsJudge, Judge, JudgeError, TraceJudgement
from groundwatch.judges.claims.extract import claim_as_written
from groundwatch.observability.log_guard import trace_texts

__all__ = ["JUDGE_BUGS", "Evaluator", "record_from_judgement", "unscored_record"]

log = logging.getLogger(__name__)

# Programming errors in a judge are bugs: they propagate (the consumer stops without committing
# and restarts) instead of turning every trace into an unscored record. Anything else a judge
# raises (a model runtime or client error) makes the batch unscored.
JUDGE_BUGS: tuple[type[Exception], ...] = (AssertionError, AttributeError, NameError, TypeError)


def _clip01(value: float) -> float:
    if math.isnan(value):
        raise ValueError("NaN score from judge")
    return min(1.0, max(0.0, value))


def _top_retrieval_score(trace: RagTrace) -> float | None:
    scores = [c.score for c in trace.contexts if c.score is not None and math.isfinite(c.score)]
    return max(scores) if scores else None


def unscored_record(
    trace: RagTrace, metric_version: str, reason: str, latency_ms: float = 0.0
) -> EvaluationRecord:
    return EvaluationRecord(
        trace_id=trace.trace_id,
        evaluated_at=datetime.now(UTC),
        metric_version=metric_version,
        status="unscored",
        unscored_reason=reason,
        faithfulness_null_reason=reason,
        retrieval_top_score=_top_retrieval_score(trace),
        citation_warnings=trace.citation_warnings(),
        attributes=dict(trace.attributes),
        latency_ms=max(0.0, latency_ms),
    )


def record_from_judgement(
    trace: RagTrace, judgement: TraceJudgement, metric_version: str, latency_ms: float
) -> EvaluationRecord:
    claims = [
        ClaimResult(
            text=claim_as_written(c.text, trace.question),
            verdict=c.verdict,
            score=_clip01(c.score),
            evidence=c.evidence,
            reason=c.reason,
            conflict=c.conflict if c.verdict == "contradicted" else None,
        )
        for c in judgement.claims
    ]
    supported = sum(1 for c in claims if c.verdict == "supported")
    contradicted = sum(1 for c in claims if c.verdict == "contradicted")
    not_found = sum(1 for c in claims if c.verdict == "not_found")
    faithfulness: float | None = None
    null_reason: str | None = None
    answer = (trace.answer or "").strip()
    if not answer:
        null_reason = "no_answer"
    elif judgement.refusal and not claims:
        null_reason = "refusal"
    elif not claims:
        null_reason = "no_claims"
    elif not trace.contexts:
        # Claims with no passage at all: nothing can support them, so they count against.
        faithfulness = supported / len(claims)
    else:
        faithfulness = supported / len(claims)

    contexts = [
        ContextResult(
            index=i,
            id=trace.contexts[i].id,
            relevance=_clip01(rel),
            relevant=rel >= judgement.relevance_threshold,
        )
        for i, rel in enumerate(judgement.context_relevance)
    ]
    relevant = [c for c in contexts if c.relevant]
    context_precision = len(relevant) / len(contexts) if contexts else None
    first_relevant_rank = relevant[0].index + 1 if relevant else None

    answer_relevance = None
    if answer and not judgement.refusal and judgement.answer_relevance is not None:
        answer_relevance = _clip01(judgement.answer_relevance)

    citation_support = None
    if judgement.citation_supported:
        citation_support = sum(judgement.citation_supported) / len(judgement.citation_supported)

    return EvaluationRecord(
        trace_id=trace.trace_id,
        evaluated_at=datetime.now(UTC),
        metric_version=metric_version,
        status="scored",
        faithfulness=faithfulness,
        faithfulness_null_reason=null_reason,
        claims=claims,
        contradicted_claims=contradicted,
        not_found_claims=not_found,
        context_precision=context_precision,
        contexts=contexts,
        first_relevant_rank=first_relevant_rank,
        context_tokens=judgement.context_tokens,
        retrieval_top_score=_top_retrieval_score(trace),
        answer_relevance=answer_relevance,
        refusal=judgement.refusal,
        false_refusal_suspected=judgement.refusal and bool(relevant),
        answered_without_evidence=bool(answer) and not judgement.refusal and not relevant,
        citation_support=citation_support,
        citation_warnings=trace.citation_warnings(),
        attributes=dict(trace.attributes),
        latency_ms=max(0.0, latency_ms),
    )


class Evaluator:
    """Runs a judge over traces and builds records. Thread-safe if the judge is."""

    def __init__(self, judge: Judge):
        self.judge = judge

    @property
    def metric_version(self) -> str:
        return self.judge.version

    def evaluate(self, trace: RagTrace) -> EvaluationRecord:
        return self.evaluate_batch([trace])[0]

    def evaluate_batch(self, traces: Sequence[RagTrace]) -> list[EvaluationRecord]:
        if not traces:
            return []
        with trace_texts(traces):  # nothing logged meanwhile carries their text
            return self._evaluate_batch(traces)

    def evaluate_claims_batch(self, traces: Sequence[RagTrace]) -> list[EvaluationRecord]:
        """Records with the claims and their verdicts only (as ``evaluate_batch`` gives them);
        no context relevance, answer relevance or refusal. Judges without a claims-only path
        (:class:`~groundwatch.judges.base.ClaimsJudge`) score the whole trace."""
        if not traces:
            return []
        with trace_texts(traces):
            return self._evaluate_batch(traces, claims_only=True)

    def _evaluate_batch(
        self, traces: Sequence[RagTrace], *, claims_only: bool = False
    ) -> list[EvaluationRecord]:
        version = self.judge.version
        start = time.perf_counter()
        judge = self.judge
        run = (
            judge.judge_claims
            if claims_only and isinstance(judge, ClaimsJudge)
            else judge.judge_batch
        )
        try:
            results: list[TraceJudgement | JudgeError] = run(traces)
            if len(results) != len(traces):
                raise JudgeError(
                    "judge_malformed_output", "judge returned a wrong number of results"
                )
        except JudgeError as exc:
            results = [exc] * len(traces)
        except JUDGE_BUGS:
            raise
        except Exception as exc:
            log.exception("judge failed on a batch of %d traces", len(traces))
            results = [JudgeError("judge_error", type(exc).__name__)] * len(traces)
        per_trace_ms = (time.perf_counter() - start) * 1000.0 / len(traces)
        records: list[EvaluationRecord] = []
        for trace, result in zip(traces, results, strict=True):
            if isinstance(result, JudgeError):
                records.append(unscored_record(trace, version, result.reason, per_trace_ms))
                continue
            try:
                records.append(record_from_judgement(trace, result, version, per_trace_ms))
            except (ValueError, IndexError) as exc:
                log.warning("unusable judgement for %s: %s", trace.trace_id, exc)
                records.append(
                    unscored_record(trace, version, "judge_malformed_output", per_trace_ms)
                )
        return records
