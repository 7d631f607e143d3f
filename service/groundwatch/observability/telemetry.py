"""OpenTelemetry out: groundwatch's own pipeline spans and GenAI evaluation-result events.

Usage::

    provider = build_tracer_provider(settings.otel, registry=registry)   # OTLP/HTTP when configured
    tracer = PipelineTracer(provider)
    with tracer.stage("decode", traceparent=headers.get("traceparent")):     # child of producer
        ...
    with tracer.stage("judge", traceparent=tp, link=True):                   # linked, new trace
        ...
    emitter = EvaluationEventEmitter(provider, producers=ProducerContexts(), registry=registry)
    runtime.sinks.append(emitter)          # a ResultSink: one groundwatch.evaluate span a record
    ...
    provider.shutdown()

Telemetry never breaks the pipeline: exporter exceptions become a FAILURE result, and every
failure (export or emit) is counted in ``groundwatch_telemetry_failures_total`` and logged.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    BatchSpanProcessor,
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.trace import Link, NonRecordingSpan, SpanContext, Status, StatusCode, TraceFlags
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
from prometheus_client import CollectorRegistry, Counter

from groundwatch.contract.record import EvaluationRecord
from groundwatch.sections.connections import OtelSettings

__all__ = [
    "EVALUATION_EVENT",
    "CountingSpanExporter",
    "EvaluationEventEmitter",
    "PipelineTracer",
    "ProducerContexts",
    "build_tracer_provider",
    "evaluation_events",
    "span_context_from_traceparent",
]

log = logging.getLogger(__name__)

EVALUATION_EVENT = "gen_ai.evaluation.result"
TRACER_NAME = "groundwatch"
_propagator = TraceContextTextMapPropagator()
_counters: weakref.WeakKeyDictionary[CollectorRegistry, Counter] = weakref.WeakKeyDictionary()
_counters_lock = threading.Lock()


def _failures(registry: CollectorRegistry | None) -> Counter | None:
    """One failure counter per registry, shared by the exporter wrapper and the emitter."""
    if registry is None:
        return None
    with _counters_lock:
        counter = _counters.get(registry)
        if counter is None:
            counter = Counter(
                "groundwatch_telemetry_failures",
                "OpenTelemetry export or emit failures (never raised into the pipeline).",
                ["stage"],
                registry=registry,
            )
            _counters[registry] = counter
        return counter


class CountingSpanExporter(SpanExporter):
    """Wraps an exporter: exceptions become FAILURE, and failures are counted."""

    def __init__(self, inner: SpanExporter, registry: CollectorRegistry | None = None):
        self.inner = inner
        self._failures = _failures(registry)
        self.failures = 0

    def _count(self) -> None:
        self.failures += 1
        if self._failures is not None:
            self._failures.labels(stage="export").inc()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception as exc:
            log.warning("span export failed: %s", exc)
            self._count()
            return SpanExportResult.FAILURE
        if result is not SpanExportResult.SUCCESS:
            log.warning("span export failed (%d spans)", len(spans))
            self._count()
        return result

    def shutdown(self) -> None:
        try:
            self.inner.shutdown()
        except Exception:
            log.warning("span exporter shutdown failed", exc_info=True)

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        try:
            return bool(self.inner.force_flush(timeout_millis))
        except Exception:
            return False


def otlp_traces_url(endpoint: str) -> str:
    """``http://collector:4318`` -> ``http://collector:4318/v1/traces`` (a full URL is kept)."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith("/v1/traces") else endpoint + "/v1/traces"


def build_tracer_provider(
    otel: OtelSettings,
    *,
    exporter: SpanExporter | None = None,
    registry: CollectorRegistry | None = None,
) -> TracerProvider:
    """A TracerProvider for groundwatch's own spans.

    ``exporter`` (tests: an InMemorySpanExporter) is attached synchronously. Otherwise, when
    ``otel.endpoint`` is set, spans go to an OTLP/HTTP exporter through a batch processor; with
    neither, spans are created and dropped (cheap, nothing leaves the process).
    """
    provider = TracerProvider(resource=Resource.create({"service.name": otel.service_name}))
    if exporter is not None:
        provider.add_span_processor(SimpleSpanProcessor(CountingSpanExporter(exporter, registry)))
    elif otel.endpoint:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        otlp = OTLPSpanExporter(endpoint=otlp_traces_url(otel.endpoint), timeout=10)
        provider.add_span_processor(BatchSpanProcessor(CountingSpanExporter(otlp, registry)))
    return provider


def span_context_from_traceparent(traceparent: str | None) -> SpanContext | None:
    """The remote SpanContext of a W3C ``traceparent``, or None when absent or invalid."""
    if not traceparent:
        return None
    ctx = _propagator.extract({"traceparent": traceparent})
    span_context = trace.get_current_span(ctx).get_span_context()
    return span_context if span_context.is_valid else None


class PipelineTracer:
    """Spans for the pipeline stages (decode, sample, judge, record), tied to the producer.

    ``stage(name, traceparent=tp)`` makes the span a child of the producer's span; with
    ``link=True`` it starts a new trace linked to it (for work done later, off the request).
    """

    def __init__(self, provider: trace.TracerProvider):
        self._tracer = provider.get_tracer(TRACER_NAME)

    @contextmanager
    def stage(
        self,
        name: str,
        *,
        traceparent: str | None = None,
        link: bool = False,
        attributes: Mapping[str, str | int | float | bool] | None = None,
    ) -> Iterator[trace.Span]:
        producer = span_context_from_traceparent(traceparent)
        context: Context | None = None
        links: list[Link] = []
        if producer is not None and not link:
            context = trace.set_span_in_context(NonRecordingSpan(producer))
        elif producer is not None:
            context = Context()
            links = [Link(producer)]
        with self._tracer.start_as_current_span(
            f"groundwatch.{name}", context=context, links=links, attributes=dict(attributes or {})
        ) as span:
            yield span


class ProducerContexts:
    """A bounded map trace_id -> the producer's SpanContext, for linking evaluation spans.

    Filled by ingest paths that know the producer (OTLP root span, Kafka ``traceparent``).
    """

    def __init__(self, max_items: int = 10_000):
        self.max_items = max(1, max_items)
        self._items: OrderedDict[str, SpanContext] = OrderedDict()
        self._lock = threading.Lock()

    def note(self, trace_id: str, traceparent: str | None) -> None:
        span_context = span_context_from_traceparent(traceparent)
        if span_context is not None:
            self._put(trace_id, span_context)

    def note_ids(self, trace_id: str, otel_trace_id: str, otel_span_id: str) -> None:
        try:
            span_context = SpanContext(
                trace_id=int(otel_trace_id, 16),
                span_id=int(otel_span_id, 16),
                is_remote=True,
                trace_flags=TraceFlags(TraceFlags.SAMPLED),
            )
        except ValueError:
            return
        if span_context.is_valid:
            self._put(trace_id, span_context)

    def _put(self, trace_id: str, span_context: SpanContext) -> None:
        with self._lock:
            self._items[trace_id] = span_context
            self._items.move_to_end(trace_id)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)

    def pop(self, trace_id: str) -> SpanContext | None:
        with self._lock:
            return self._items.pop(trace_id, None)


def _faithfulness_label(record: EvaluationRecord) -> str:
    if record.contradicted_claims:
        return "contradicted"
    return "faithful" if (record.faithfulness or 0.0) >= 0.5 else "unfaithful"


def evaluation_events(record: EvaluationRecord) -> list[dict[str, str | float]]:
    """The ``gen_ai.evaluation.result`` event attributes of one record (scored metrics only)."""
    events: list[dict[str, str | float]] = []
    if record.status != "scored":
        return events
    if record.faithfulness is not None:
        claims = len(record.claims)
        supported = sum(1 for c in record.claims if c.verdict == "supported")
        reasons = sorted(
            {c.reason for c in record.claims if c.verdict == "contradicted" and c.reason}
        )
        explanation = (
            f"{supported} of {claims} claims supported, {record.contradicted_claims} contradicted"
        )
        if reasons:
            explanation += f" ({', '.join(reasons[:3])})"
        events.append(
            {
                "gen_ai.evaluation.name": "faithfulness",
                "gen_ai.evaluation.score.value": record.faithfulness,
                "gen_ai.evaluation.score.label": _faithfulness_label(record),
                "gen_ai.evaluation.explanation": explanation,
            }
        )
    if record.context_precision is not None:
        relevant = sum(1 for c in record.contexts if c.relevant)
        rank = record.first_relevant_rank
        events.append(
            {
                "gen_ai.evaluation.name": "context_precision",
                "gen_ai.evaluation.score.value": record.context_precision,
                "gen_ai.evaluation.score.label": "relevant" if rank else "irrelevant",
                "gen_ai.evaluation.explanation": (
                    f"{relevant} of {len(record.contexts)} passages relevant"
                    + (f", first at rank {rank}" if rank else "")
                ),
            }
        )
    if record.answer_relevance is not None:
        value = record.answer_relevance
        events.append(
            {
                "gen_ai.evaluation.name": "answer_relevance",
                "gen_ai.evaluation.score.value": value,
                "gen_ai.evaluation.score.label": "relevant" if value >= 0.5 else "irrelevant",
                "gen_ai.evaluation.explanation": "answer addresses the question"
                if value >= 0.5
                else "answer does not address the question",
            }
        )
    return events


class EvaluationEventEmitter:
    """A ResultSink emitting each record as a ``groundwatch.evaluate`` span carrying
    ``gen_ai.evaluation.result`` events, linked to the producer's span when known.

    Usage::

        emitter = EvaluationEventEmitter(provider, producers=contexts, registry=registry)
        emitter.write(records)   # never raises; failures are counted and logged
        emitter.close()          # flushes the provider's processors
    """

    def __init__(
        self,
        provider: TracerProvider,
        *,
        producers: ProducerContexts | None = None,
        registry: CollectorRegistry | None = None,
    ):
        self.provider = provider
        self.producers = producers
        self._tracer = provider.get_tracer(TRACER_NAME)
        self._failures = _failures(registry)
        self.failures = 0

    def write(self, records: Sequence[EvaluationRecord]) -> None:
        for record in records:
            try:
                self._emit(record)
            except Exception as exc:  # telemetry must never fail the pipeline
                self.failures += 1
                if self._failures is not None:
                    self._failures.labels(stage="emit").inc()
                log.warning("evaluation event for %s not emitted: %s", record.trace_id, exc)

    def _emit(self, record: EvaluationRecord) -> None:
        producer = self.producers.pop(record.trace_id) if self.producers else None
        attributes: dict[str, Any] = {
            "groundwatch.trace_id": record.trace_id,
            "groundwatch.metric_version": record.metric_version,
            "groundwatch.status": record.status,
        }
        span = self._tracer.start_span(
            "groundwatch.evaluate",
            context=Context(),  # a trace of its own, linked (not parented) to the producer
            links=[Link(producer, {"groundwatch.link": "producer"})] if producer else [],
            attributes=attributes,
        )
        try:
            if record.status != "scored":
                span.set_attribute("error.type", record.unscored_reason or "unscored")
                span.set_status(Status(StatusCode.ERROR, record.unscored_reason or "unscored"))
            for event in evaluation_events(record):
                span.add_event(EVALUATION_EVENT, attributes=event)
        finally:
            span.end()

    def close(self) -> None:
        try:
            self.provider.force_flush(5_000)
        except Exception:
            log.warning("flushing evaluation events failed", exc_info=True)
