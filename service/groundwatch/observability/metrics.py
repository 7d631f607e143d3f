"""Process-local Prometheus metrics of the pipeline, registered on an injected registry.

Usage::

    registry = CollectorRegistry()
    metrics = PipelineMetrics(registry)
    metrics.received.labels(source="http").inc()

Windowed values (means, rates, drift per slice) are not here: a custom collector reads them from
the shared window store at scrape time (see windows_collector.py). Labels are bounded: no trace id,
no free text.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from groundwatch.contract.record import EvaluationRecord

__all__ = ["SCORE_BUCKETS", "PipelineMetrics"]

SCORE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


class PipelineMetrics:
    """Counters and histograms every replica exports for itself (sum them across replicas)."""

    def __init__(self, registry: CollectorRegistry):
        self.registry = registry
        self.received = Counter(
            "groundwatch_traces_received",
            "Traces received, sampled or not.",
            ["source"],
            registry=registry,
        )
        self.rejected = Counter(
            "groundwatch_traces_rejected",
            "Inputs rejected before evaluation, by reason.",
            ["source", "reason"],
            registry=registry,
        )
        self.sampled = Counter(
            "groundwatch_traces_sampled",
            "Traces chosen for scoring.",
            ["source"],
            registry=registry,
        )
        self.evaluated = Counter(
            "groundwatch_traces_evaluated",
            "Traces evaluated, by status (scored | unscored).",
            ["status"],
            registry=registry,
        )
        self.unscored = Counter(
            "groundwatch_traces_unscored",
            "Unscored traces by reason.",
            ["reason"],
            registry=registry,
        )
        self.otlp_fallbacks = Counter(
            "groundwatch_otlp_fallbacks",
            "OTLP traces assembled through a fallback path, by kind (answer_earlier_llm_span, "
            "answer_llm_output_value, answer_root_output, answer_root_json, "
            "answer_root_json_ignored, score_from_metadata, id_from_metadata, "
            "question_from_retrieval, question_from_llm).",
            ["kind"],
            registry=registry,
        )
        self.null_scores = Counter(
            "groundwatch_null_scores",
            "Scores left null on a scored trace, by metric and reason.",
            ["metric", "reason"],
            registry=registry,
        )
        self.claims = Counter(
            "groundwatch_claims", "Claims judged, by verdict.", ["verdict"], registry=registry
        )
        self.refusals = Counter(
            "groundwatch_refusals", "Answers detected as refusals.", registry=registry
        )
        self.false_refusals = Counter(
            "groundwatch_false_refusal_suspected",
            "Refusals although a relevant passage was retrieved.",
            registry=registry,
        )
        self.unsupported_answers = Counter(
            "groundwatch_answered_without_evidence",
            "Answers although no retrieved passage was relevant.",
            registry=registry,
        )
        self.citation_warnings = Counter(
            "groundwatch_citation_warnings",
            "Cited passage ids that match no passage of their trace.",
            registry=registry,
        )
        self.scores = Histogram(
            "groundwatch_score",
            "Per-trace scores in [0, 1], by metric.",
            ["metric"],
            buckets=SCORE_BUCKETS,
            registry=registry,
        )
        self.duration = Histogram(
            "groundwatch_evaluation_duration_seconds",
            "Judge time per trace.",
            buckets=DURATION_BUCKETS,
            registry=registry,
        )
        self.retrieval_top_score = Histogram(
            "groundwatch_retrieval_top_score",
            "Top retrieval score of each trace (every trace, sampled or not).",
            buckets=SCORE_BUCKETS,
            registry=registry,
        )
        self.context_passages = Histogram(
            "groundwatch_context_passages",
            "Passages per trace (every trace).",
            buckets=(0, 1, 2, 3, 5, 8, 13, 21, 50, 100),
            registry=registry,
        )
        self.judge_info = Gauge(
            "groundwatch_judge_info",
            "The judge producing scores; a new metric_version means scores changed meaning.",
            ["backend", "metric_version"],
            registry=registry,
        )
        self.queue_depth = Gauge(
            "groundwatch_queue_depth",
            "Traces waiting for the evaluator.",
            ["queue"],
            registry=registry,
        )
        self.store_errors = Counter(
            "groundwatch_store_errors",
            "Failed writes to state stores and sinks (retried).",
            ["store"],
            registry=registry,
        )
        self.duplicates = Counter(
            "groundwatch_duplicate_traces",
            "Re-delivered trace ids ignored by the idempotent window update.",
            registry=registry,
        )
        self.findings = Counter(
            "groundwatch_findings", "Contradicted claims kept as findings.", registry=registry
        )
        # Lets GroundwatchNoTraces tell "just started, no trace yet" from "blind": always present.
        self.started = Gauge(
            "groundwatch_process_start_time_seconds",
            "Unix time at which this groundwatch process started.",
            registry=registry,
        )
        self.started.set(time.time())

    def set_judge(self, backend: str, metric_version: str) -> None:
        self.judge_info.clear()
        self.judge_info.labels(backend=backend, metric_version=metric_version).set(1)

    def observe_record(self, record: EvaluationRecord) -> None:
        self.evaluated.labels(status=record.status).inc()
        if record.citation_warnings:
            self.citation_warnings.inc(len(record.citation_warnings))
        if record.status == "unscored":
            self.unscored.labels(reason=record.unscored_reason or "unknown").inc()
            return
        self.duration.observe(record.latency_ms / 1000.0)
        for claim in record.claims:
            self.claims.labels(verdict=claim.verdict).inc()
        if record.refusal:
            self.refusals.inc()
        if record.false_refusal_suspected:
            self.false_refusals.inc()
        if record.answered_without_evidence:
            self.unsupported_answers.inc()
        for metric in ("faithfulness", "context_precision", "answer_relevance", "citation_support"):
            value = getattr(record, metric)
            if value is not None:
                self.scores.labels(metric=metric).observe(value)
        if record.faithfulness is None and record.faithfulness_null_reason:
            self.null_scores.labels(
                metric="faithfulness", reason=record.faithfulness_null_reason
            ).inc()
        if record.context_precision is None:
            self.null_scores.labels(metric="context_precision", reason="no_contexts").inc()
        if record.answer_relevance is None:
            reason = "refusal" if record.refusal else "no_answer"
            self.null_scores.labels(metric="answer_relevance", reason=reason).inc()
