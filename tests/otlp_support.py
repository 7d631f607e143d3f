"""A toy RAG assistant instrumented with the real OpenTelemetry SDK, for the OTLP tests.

Usage::

    spans = record_rag_spans(style="openinference")     # finished SDK spans, in memory
    body = protobuf_body(spans)                          # an ExportTraceServiceRequest
    body = json_body(spans)                              # the same as OTLP JSON (hex ids)
    emit_rag_request(tracer, style="genai")              # emit through any TracerProvider
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any, Literal

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Tracer

Style = Literal["openinference", "genai", "legacy"]

QUESTION = "When does the discount apply?"
PASSAGES = [
    ("p1", "The discount applies from renewal.", 0.82),
    ("p2", "Renewals happen yearly in March.", 0.41),
]
ANSWER = "The discount applies from renewal."
RESOURCE = {"service.name": "toy-assistant", "deployment.environment.name": "prod"}


def emit_rag_request(
    tracer: Tracer, style: Style = "openinference", question: str = QUESTION
) -> str:
    """Emit one RAG request (root, retrieval, LLM span) and return its hex trace id."""
    with tracer.start_as_current_span("rag.request") as root:
        if style == "openinference":
            root.set_attribute("openinference.span.kind", "CHAIN")
            root.set_attribute("input.value", question)
        root.set_attribute("app.intent", "billing")
        with tracer.start_as_current_span("retrieve") as span:
            if style == "openinference":
                span.set_attribute("openinference.span.kind", "RETRIEVER")
                span.set_attribute("input.value", question)
                for i, (doc_id, text, score) in enumerate(PASSAGES):
                    span.set_attribute(f"retrieval.documents.{i}.document.id", doc_id)
                    span.set_attribute(f"retrieval.documents.{i}.document.content", text)
                    span.set_attribute(f"retrieval.documents.{i}.document.score", score)
            else:
                span.set_attribute("gen_ai.operation.name", "retrieval")
                span.set_attribute("gen_ai.retrieval.query.text", question)
                docs = [{"id": d, "content": t, "score": s} for d, t, s in PASSAGES]
                span.set_attribute("gen_ai.retrieval.documents", json.dumps(docs))
        with tracer.start_as_current_span("chat gpt-4o") as span:
            if style == "openinference":
                span.set_attribute("openinference.span.kind", "LLM")
                span.set_attribute("llm.model_name", "gpt-4o")
                span.set_attribute("llm.input_messages.0.message.role", "system")
                span.set_attribute("llm.input_messages.0.message.content", "Use the context.")
                span.set_attribute("llm.input_messages.1.message.role", "user")
                span.set_attribute("llm.input_messages.1.message.content", question)
                span.set_attribute("llm.output_messages.0.message.role", "assistant")
                span.set_attribute("llm.output_messages.0.message.content", ANSWER)
            elif style == "genai":
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("gen_ai.request.model", "gpt-4o")
                span.set_attribute(
                    "gen_ai.input.messages",
                    json.dumps(
                        [{"role": "user", "parts": [{"type": "text", "content": question}]}]
                    ),
                )
                span.set_attribute(
                    "gen_ai.output.messages",
                    json.dumps(
                        [{"role": "assistant", "parts": [{"type": "text", "content": ANSWER}]}]
                    ),
                )
            else:  # legacy attributes and events
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("gen_ai.request.model", "gpt-4o")
                span.add_event("gen_ai.user.message", {"content": question})
                span.add_event("gen_ai.choice", {"message": json.dumps({"content": ANSWER})})
        return format(root.get_span_context().trace_id, "032x")


def record_rag_spans(
    style: Style = "openinference", question: str = QUESTION
) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create(RESOURCE))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    emit_rag_request(provider.get_tracer("toy"), style, question)
    provider.shutdown()
    return list(exporter.get_finished_spans())


def protobuf_body(spans: Sequence[ReadableSpan]) -> bytes:
    return bytes(encode_spans(spans).SerializeToString())


def _b64_to_hex(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _b64_to_hex(value)
    elif isinstance(node, list):
        for item in node:
            _b64_to_hex(item)


def json_body(spans: Sequence[ReadableSpan]) -> bytes:
    """OTLP JSON: protobuf JSON mapping with hex ids (what OTLP/JSON exporters send)."""
    obj = json_format.MessageToDict(encode_spans(spans))
    _b64_to_hex(obj)
    return json.dumps(obj).encode()
