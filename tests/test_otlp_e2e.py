"""End to end: an OpenTelemetry-instrumented toy assistant exports to the running service over
OTLP/HTTP (the SDK's real OTLPSpanExporter for protobuf; the same spans as OTLP JSON over HTTP),
and its RAG trace is assembled, scored, recorded and linked by an evaluation event."""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
import uvicorn
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import Verdict
from groundwatch.contract.trace import RagTrace, TraceLimits
from groundwatch.observability.telemetry import (
    EvaluationEventEmitter,
    ProducerContexts,
    build_tracer_provider,
)
from groundwatch.runtime import Runtime
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.connections import OtelSettings
from groundwatch.settings import Settings
from tests.builders import build_settings
from tests.fakes import FakeJudge
from tests.infra import free_port, wait_port
from tests.otlp_support import (
    ANSWER,
    RESOURCE,
    emit_rag_request,
    json_body,
    protobuf_body,
    record_rag_spans,
)

TOKEN = "otlp-e2e-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class Service:
    url: str
    runtime: Runtime
    events: InMemorySpanExporter

    def metric(self, name: str, **labels: str) -> float:
        return self.runtime.registry.get_sample_value(name, labels) or 0.0

    def wait_scored(self, count: int, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.runtime.queue.join(timeout=1.0)
            if self.metric("groundwatch_traces_evaluated_total", status="scored") >= count:
                return
            time.sleep(0.05)
        raise AssertionError(f"fewer than {count} traces scored")


def _contradict_march(claim: str, _: RagTrace) -> Verdict:
    return "contradicted" if "March" in claim else "supported"


@pytest.fixture
def service() -> Iterator[Service]:
    settings = Settings(
        api={"tokens": [TOKEN], "host": "127.0.0.1"},
        otel=OtelSettings(assembly_window_s=0.5),
        state="memory",
    )
    events = InMemorySpanExporter()
    provider = build_tracer_provider(settings.otel, exporter=events)
    emitter = EvaluationEventEmitter(provider, producers=ProducerContexts())
    runtime = Runtime.build(
        settings, judge=FakeJudge(verdict_fn=_contradict_march), sinks=[emitter], with_kafka=False
    )
    runtime.extras["producer_contexts"] = emitter.producers
    port = free_port()
    config = uvicorn.Config(
        create_app(runtime, app_config(settings)), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield Service(f"http://127.0.0.1:{port}", runtime, events)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        provider.shutdown()
    assert not thread.is_alive()


def test_sdk_exporter_protobuf_trace_is_assembled_scored_and_linked(service: Service) -> None:
    # SimpleSpanProcessor exports each span as it ends: three requests for one trace.
    exporter = OTLPSpanExporter(endpoint=f"{service.url}/v1/traces", headers=AUTH, timeout=10)
    provider = TracerProvider(resource=Resource.create(RESOURCE))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    try:
        trace_id = emit_rag_request(provider.get_tracer("toy"), "openinference")
    finally:
        provider.shutdown()
    service.wait_scored(1)
    assert service.metric("groundwatch_traces_received_total", source="otlp") == 1
    assert service.metric("groundwatch_otlp_traces_assembled_total", trigger="complete") == 1
    assert service.metric("groundwatch_otlp_spans_received_total") == 3
    # The evaluation event span links to the toy assistant's root span.
    [evaluate] = [
        s for s in service.events.get_finished_spans() if s.name == "groundwatch.evaluate"
    ]
    assert evaluate.attributes is not None
    assert evaluate.attributes["groundwatch.trace_id"] == trace_id
    assert [format(link.context.trace_id, "032x") for link in evaluate.links] == [trace_id]
    names = {e.attributes["gen_ai.evaluation.name"] for e in evaluate.events}  # type: ignore[index]
    assert names == {"faithfulness", "context_precision", "answer_relevance"}


def test_otlp_json_trace_is_scored_and_its_contradiction_kept(service: Service) -> None:
    spans = record_rag_spans("genai")
    # Contradicted by the fake judge: the answer mentions March.
    body = json_body(spans).replace(ANSWER.encode(), b"The discount applies from March.")
    reply = httpx.post(
        f"{service.url}/v1/traces",
        content=body,
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.json() == {}
    service.wait_scored(1)
    assert service.metric("groundwatch_traces_received_total", source="otlp") == 1
    assert service.metric("groundwatch_claims_total", verdict="contradicted") == 1
    page = service.runtime.findings.page(limit=10)
    assert [f.trace_id for f in page.items] == [format(spans[0].context.trace_id, "032x")]


def test_window_expiry_flusher_scores_a_trace_whose_root_never_arrives(service: Service) -> None:
    spans = [s for s in record_rag_spans("openinference") if s.parent is not None]
    reply = httpx.post(
        f"{service.url}/v1/traces",
        content=gzip.compress(protobuf_body(spans)),
        headers={**AUTH, "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"},
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/x-protobuf"
    assert service.metric("groundwatch_otlp_pending_traces") == 1
    service.wait_scored(1)
    assert service.metric("groundwatch_otlp_traces_assembled_total", trigger="window") == 1


def test_bad_requests_get_otlp_status_replies(service: Service) -> None:
    url = f"{service.url}/v1/traces"
    bad = httpx.post(url, content=b"{nope", headers={**AUTH, "Content-Type": "application/json"})
    assert bad.status_code == 400
    assert bad.json()["code"] == 3
    assert "bad_json" in bad.json()["message"]
    pb = httpx.post(
        url, content=b"\x0a\x05abc", headers={**AUTH, "Content-Type": "application/x-protobuf"}
    )
    assert pb.status_code == 400
    assert pb.content[:2] == b"\x08\x03"  # google.rpc.Status{code: INVALID_ARGUMENT}
    assert (
        httpx.post(url, content=b"x", headers={**AUTH, "Content-Type": "text/plain"}).status_code
        == 415
    )
    assert (
        httpx.post(url, content=b"{}", headers={"Content-Type": "application/json"}).status_code
        == 401
    )
    assert (
        service.metric("groundwatch_traces_rejected_total", source="otlp", reason="bad_json") == 1
    )


def test_oversize_trace_is_reported_as_partial_success(service: Service) -> None:
    long_question = "why? " * 2000  # over the default 8000-char question limit
    spans = record_rag_spans("openinference", question=long_question)
    reply = httpx.post(
        f"{service.url}/v1/traces",
        content=json_body(spans),
        headers={**AUTH, "Content-Type": "application/json"},
    )
    assert reply.status_code == 200
    partial = reply.json()["partialSuccess"]
    assert partial["rejectedSpans"] == "3"
    assert "refused" in partial["errorMessage"]
    assert (
        service.metric("groundwatch_traces_rejected_total", source="otlp", reason="oversize") == 1
    )


def test_full_queue_is_503_with_retry_after_and_spans_are_kept() -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from groundwatch.api.otlp import otlp_receiver, otlp_router

    class QueueFullError(Exception):
        retriable = True

    calls: list[int] = []

    def ingest(_: Runtime, traces: list[object], source: str) -> dict[str, object]:
        calls.append(len(traces))
        if len(calls) == 1:
            raise QueueFullError
        assert source == "otlp"
        return {"sampled": len(traces)}

    runtime = Runtime.build(build_settings(), judge=FakeJudge(), with_kafka=False)
    otel = OtelSettings(assembly_window_s=60)
    receiver = otlp_receiver(runtime, otel, TraceLimits(), ingest)  # type: ignore[arg-type]
    app = FastAPI()
    app.include_router(otlp_router(receiver, max_body_bytes=ApiSettings().max_body_bytes))
    body = protobuf_body(record_rag_spans("openinference"))
    headers = {"Content-Type": "application/x-protobuf"}
    with TestClient(app) as client:
        full = client.post("/v1/traces", content=body, headers=headers)
        assert full.status_code == 503
        assert full.headers["retry-after"] == "2"
        assert full.content[:2] == b"\x08\x0e"  # google.rpc.Status{code: UNAVAILABLE}
        receiver = runtime.extras["otlp_receiver"]
        assert receiver.assembler.pending() == 1  # kept for the exporter's retry
        retried = client.post("/v1/traces", content=body, headers=headers)
        assert retried.status_code == 200
        assert retried.content == b""  # an empty ExportTraceServiceResponse
    assert calls == [1, 1]
    assert receiver.assembler.pending() == 0
