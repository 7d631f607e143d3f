"""groundwatch's own spans: parented or linked to the producer's traceparent; evaluation results
as GenAI ``gen_ai.evaluation.result`` events; exporter failures counted, never raised."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode
from prometheus_client import CollectorRegistry

from groundwatch.contract.record import ClaimResult, ContextResult, EvaluationRecord
from groundwatch.observability.telemetry import (
    EVALUATION_EVENT,
    EvaluationEventEmitter,
    PipelineTracer,
    ProducerContexts,
    build_tracer_provider,
    otlp_traces_url,
    span_context_from_traceparent,
)
from groundwatch.sections.connections import OtelSettings
from groundwatch.state.stores import ResultSink

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


def record(**overrides: object) -> EvaluationRecord:
    values: dict[str, object] = {
        "trace_id": "t-1",
        "evaluated_at": datetime.now(UTC),
        "metric_version": "fake/1",
        "status": "scored",
        "faithfulness": 0.5,
        "claims": [
            ClaimResult(text="a", verdict="supported", score=0.9),
            ClaimResult(text="b", verdict="contradicted", score=0.9, reason="number mismatch"),
        ],
        "contradicted_claims": 1,
        "context_precision": 0.5,
        "contexts": [
            ContextResult(index=0, relevance=0.9, relevant=True),
            ContextResult(index=1, relevance=0.1, relevant=False),
        ],
        "first_relevant_rank": 1,
        "answer_relevance": 0.8,
    }
    values.update(overrides)
    return EvaluationRecord.model_validate(values)


def test_stage_spans_are_children_of_the_producer_traceparent() -> None:
    exporter = InMemorySpanExporter()
    tracer = PipelineTracer(build_tracer_provider(OtelSettings(), exporter=exporter))
    with (
        tracer.stage("decode", traceparent=TRACEPARENT, attributes={"source": "kafka"}),
        tracer.stage("sample"),
    ):
        pass
    sample, decode = exporter.get_finished_spans()
    assert decode.name == "groundwatch.decode"
    assert format(decode.context.trace_id, "032x") == TRACE_ID
    assert decode.parent is not None
    assert format(decode.parent.span_id, "016x") == PARENT_ID
    assert decode.attributes == {"source": "kafka"}
    assert sample.parent is not None
    assert sample.parent.span_id == decode.context.span_id
    assert decode.resource.attributes["service.name"] == "groundwatch"


def test_linked_stage_starts_a_new_trace_linked_to_the_producer() -> None:
    exporter = InMemorySpanExporter()
    tracer = PipelineTracer(build_tracer_provider(OtelSettings(), exporter=exporter))
    with tracer.stage("judge", traceparent=TRACEPARENT, link=True):
        pass
    [judge] = exporter.get_finished_spans()
    assert format(judge.context.trace_id, "032x") != TRACE_ID
    assert judge.parent is None
    assert [format(link.context.span_id, "016x") for link in judge.links] == [PARENT_ID]


@pytest.mark.parametrize("bad", [None, "", "garbage", "00-" + "0" * 32 + "-" + "0" * 16 + "-01"])
def test_missing_or_invalid_traceparent_gives_a_root_span(bad: str | None) -> None:
    assert span_context_from_traceparent(bad) is None
    exporter = InMemorySpanExporter()
    tracer = PipelineTracer(build_tracer_provider(OtelSettings(), exporter=exporter))
    with tracer.stage("record", traceparent=bad):
        pass
    assert exporter.get_finished_spans()[0].parent is None


def test_evaluation_events_carry_genai_attributes_and_link_the_producer() -> None:
    exporter, registry = InMemorySpanExporter(), CollectorRegistry()
    provider = build_tracer_provider(OtelSettings(), exporter=exporter, registry=registry)
    producers = ProducerContexts(max_items=10)
    producers.note("t-1", TRACEPARENT)
    emitter = EvaluationEventEmitter(provider, producers=producers, registry=registry)
    assert isinstance(emitter, ResultSink)
    emitter.write([record()])
    emitter.close()
    [span] = exporter.get_finished_spans()
    assert span.name == "groundwatch.evaluate"
    assert span.attributes is not None
    assert span.attributes["groundwatch.trace_id"] == "t-1"
    assert [format(link.context.trace_id, "032x") for link in span.links] == [TRACE_ID]
    events = {
        str(attrs["gen_ai.evaluation.name"]): dict(attrs)
        for attrs in (e.attributes or {} for e in span.events)
    }
    assert {e.name for e in span.events} == {EVALUATION_EVENT}
    assert events["faithfulness"] == {
        "gen_ai.evaluation.name": "faithfulness",
        "gen_ai.evaluation.score.value": 0.5,
        "gen_ai.evaluation.score.label": "contradicted",
        "gen_ai.evaluation.explanation": "1 of 2 claims supported, 1 contradicted (number mismatch)",
    }
    assert events["context_precision"]["gen_ai.evaluation.score.label"] == "relevant"
    assert events["answer_relevance"]["gen_ai.evaluation.score.value"] == 0.8
    assert producers.pop("t-1") is None  # consumed: memory stays bounded


def test_unscored_records_mark_the_span_as_error_without_events() -> None:
    exporter = InMemorySpanExporter()
    emitter = EvaluationEventEmitter(build_tracer_provider(OtelSettings(), exporter=exporter))
    emitter.write(
        [
            record(
                status="unscored",
                unscored_reason="judge_timeout",
                faithfulness=None,
                claims=[],
                contradicted_claims=0,
                context_precision=None,
                contexts=[],
                first_relevant_rank=None,
                answer_relevance=None,
            )
        ]
    )
    [span] = exporter.get_finished_spans()
    assert span.events == ()
    assert span.status.status_code is StatusCode.ERROR
    assert span.attributes is not None
    assert span.attributes["error.type"] == "judge_timeout"
    assert span.links == ()


class BrokenExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        raise ConnectionError("collector down")


def test_exporter_failures_are_counted_never_raised() -> None:
    registry = CollectorRegistry()
    provider = build_tracer_provider(OtelSettings(), exporter=BrokenExporter(), registry=registry)
    emitter = EvaluationEventEmitter(provider, registry=registry)
    emitter.write([record(), record(trace_id="t-2")])
    emitter.close()
    assert (
        registry.get_sample_value("groundwatch_telemetry_failures_total", {"stage": "export"}) == 2
    )


def test_emit_failures_are_counted_never_raised() -> None:
    registry = CollectorRegistry()
    provider = build_tracer_provider(OtelSettings(), exporter=InMemorySpanExporter())
    emitter = EvaluationEventEmitter(provider, registry=registry)
    emitter._tracer = None  # type: ignore[assignment]  # any internal failure
    emitter.write([record()])
    assert emitter.failures == 1
    assert registry.get_sample_value("groundwatch_telemetry_failures_total", {"stage": "emit"}) == 1


def test_otlp_endpoint_builds_an_http_exporter_and_url() -> None:
    assert otlp_traces_url("http://c:4318") == "http://c:4318/v1/traces"
    assert otlp_traces_url("http://c:4318/v1/traces/") == "http://c:4318/v1/traces"
    provider = build_tracer_provider(OtelSettings(endpoint="http://127.0.0.1:9"))
    try:
        processors = provider._active_span_processor._span_processors
        assert len(processors) == 1
    finally:
        provider.shutdown()
    assert build_tracer_provider(OtelSettings())._active_span_processor._span_processors == ()


def test_otlp_decode_is_traced_under_the_request_traceparent() -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from groundwatch.api.otlp import OtlpReceiver, otlp_router
    from groundwatch.contract.trace import TraceLimits
    from groundwatch.runtime import Runtime
    from groundwatch.sections.api import ApiSettings
    from groundwatch.settings import Settings
    from tests.fakes import FakeJudge
    from tests.otlp_support import protobuf_body, record_rag_spans

    exporter = InMemorySpanExporter()
    settings = Settings()
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    tracer = PipelineTracer(build_tracer_provider(settings.otel, exporter=exporter))
    runtime.extras["pipeline_tracer"] = tracer
    app = FastAPI()
    receiver = OtlpReceiver(
        runtime, settings.otel, TraceLimits(), lambda rt, traces, source: {"sampled": 0}
    )
    app.include_router(otlp_router(receiver, max_body_bytes=ApiSettings().max_body_bytes))
    with TestClient(app) as client:
        reply = client.post(
            "/v1/traces",
            content=protobuf_body(record_rag_spans()),
            headers={"Content-Type": "application/x-protobuf", "traceparent": TRACEPARENT},
        )
    assert reply.status_code == 200
    [decode] = exporter.get_finished_spans()
    assert decode.name == "groundwatch.decode"
    assert decode.parent is not None
    assert format(decode.parent.span_id, "016x") == PARENT_ID
