"""Unit tests of the per-library readers' rules that the captured payloads do not pin down alone:
the retrieval query beats a templated root input, a system message that cannot be cut by the
documents is one marked passage, an explicit empty retrieval is not an instrumentation gap, log
records for a finished trace are late, the source library of a trace, and an OpenInference trace
whose documents were taken out is held back as half read."""

from __future__ import annotations

import json
from dataclasses import replace

from prometheus_client import CollectorRegistry

from groundwatch.ingest.conventions import trace_library
from groundwatch.ingest.genai import SYSTEM_SOURCE
from groundwatch.ingest.otlp_assembly import TraceAssembler
from groundwatch.ingest.otlp_decode import (
    LogEventRecord,
    SpanRecord,
    decode_otlp_logs_request,
    decode_otlp_request,
)
from groundwatch.ingest.rag_reading import assemble
from tests.otlp_support import QUESTION, protobuf_body, record_rag_spans

TRACE = "ab" * 16


def _span(span_id: str, parent: str = "", name: str = "s", **attrs: object) -> SpanRecord:
    return SpanRecord(
        trace_id=TRACE,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=1,
        start_unix_nano=int(span_id, 16),
        end_unix_nano=int(span_id, 16) + 10,
        attributes=dict(attrs),  # type: ignore[arg-type]
    )


def _chat(span_id: str, system: str, user: str, answer: str) -> SpanRecord:
    messages = [
        {"role": "system", "parts": [{"type": "text", "content": system}]},
        {"role": "user", "parts": [{"type": "text", "content": user}]},
    ]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
    return _span(
        span_id,
        "0000000000000001",
        "chat",
        **{
            "gen_ai.operation.name": "chat",
            "gen_ai.input.messages": json.dumps(messages),
            "gen_ai.output.messages": json.dumps(output),
        },
    )


def test_retrieval_query_beats_a_templated_root_input() -> None:
    template = f"Context information is below.\n---\nQuery: {QUESTION}\nAnswer: "
    spans = [
        _span(
            "0000000000000001",
            name="workflow",
            **{
                "traceloop.span.kind": "workflow",
                "traceloop.entity.input": json.dumps({"str_or_query_bundle": template}),
            },
        ),
        _span(
            "0000000000000002",
            "0000000000000001",
            "VectorIndexRetriever.task",
            **{
                "traceloop.span.kind": "task",
                "traceloop.entity.input": json.dumps({"query_bundle": {"query_str": QUESTION}}),
                "traceloop.entity.output": json.dumps(
                    [json.dumps({"node": {"id_": "n1", "text": "Passage."}, "score": 0.5})]
                ),
            },
        ),
        _chat("0000000000000003", "Use the context.", template, "An answer."),
    ]
    result = assemble(spans)
    assert result.trace is not None
    assert result.trace.question == QUESTION
    assert "question_retrieval_over_prompt" in result.fallbacks
    assert [(c.id, c.score, c.text) for c in result.trace.contexts] == [("n1", 0.5, "Passage.")]
    assert (result.library, result.missing) == ("openllmetry", ())


def test_text_less_documents_and_a_system_message_that_cannot_be_cut() -> None:
    docs = [{"id": "a", "score": 0.9}, {"id": "b", "score": 0.4}, {"id": "c", "score": 0.1}]
    spans = [
        _span("0000000000000001", name="rag"),
        _span(
            "0000000000000002",
            "0000000000000001",
            "retrieval",
            **{
                "gen_ai.operation.name": "retrieval",
                "gen_ai.retrieval.query.text": QUESTION,
                "gen_ai.retrieval.documents": json.dumps(docs),
            },
        ),
        _chat("0000000000000003", "Only one block of context.", QUESTION, "An answer."),
    ]
    result = assemble(spans)
    assert result.trace is not None
    # Three documents, one block: the whole message is one passage, marked, without an id.
    assert [(c.text, c.id, c.source) for c in result.trace.contexts] == [
        ("Only one block of context.", None, SYSTEM_SOURCE)
    ]
    assert "passages_from_system_message" in result.fallbacks
    assert result.missing == ()


def test_an_explicit_empty_retrieval_is_not_an_instrumentation_gap() -> None:
    retrieval = {
        "gen_ai.operation.name": "retrieval",
        "gen_ai.retrieval.query.text": QUESTION,
    }
    root = _span("0000000000000001", name="rag")
    chat = _chat("0000000000000003", "No context.", QUESTION, "An answer.")
    empty = _span(
        "0000000000000002",
        "0000000000000001",
        "retrieval",
        **retrieval,
        **{"gen_ai.retrieval.documents": "[]"},
    )
    absent = _span("0000000000000002", "0000000000000001", "retrieval", **retrieval)
    assert assemble([root, empty, chat]).missing == ()
    assert assemble([root, absent, chat]).missing == ("passages",)
    assert assemble([root, chat]).missing == ("passages",)  # no retrieval span at all


def test_log_records_of_a_finished_trace_are_late_and_non_events_ignored() -> None:
    registry = CollectorRegistry()
    assembler = TraceAssembler(window_s=5.0, registry=registry)
    spans = decode_otlp_request(protobuf_body(record_rag_spans("genai")), "application/x-protobuf")
    assert len(assembler.add(spans).completed) == 1
    chat = next(s for s in spans if s.name.startswith("chat"))
    late = LogEventRecord(chat.trace_id, chat.span_id, "gen_ai.choice", 1, {"message": {}})
    assert assembler.add_logs([late]).completed == []
    assert registry.get_sample_value("groundwatch_otlp_log_records_total", {"outcome": "late"}) == 1
    # Log records held for a pending trace are bounded like its spans.
    other = CollectorRegistry()
    bounded = TraceAssembler(window_s=5.0, max_spans_per_trace=2, registry=other)
    records = [replace(late, trace_id="cd" * 16, time_unix_nano=i) for i in range(3)]
    assert bounded.add_logs(records).log_records == 2
    assert (
        other.get_sample_value("groundwatch_otlp_log_records_total", {"outcome": "span_limit"}) == 1
    )
    # A log record without an event name or a span id cannot be joined: not kept.
    body = {
        "resourceLogs": [
            {
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "body": {"stringValue": "plain log line"},
                                "traceId": TRACE,
                                "spanId": "01" * 8,
                            },
                            {
                                "eventName": "gen_ai.choice",
                                "body": {"stringValue": "x"},
                                "traceId": TRACE,
                            },
                        ]
                    }
                ]
            }
        ]
    }
    assert decode_otlp_logs_request(json.dumps(body).encode(), "application/json") == []


def test_source_library_of_a_trace() -> None:
    def spans(style: str) -> list[SpanRecord]:
        body = protobuf_body(record_rag_spans(style))  # type: ignore[arg-type]
        return decode_otlp_request(body, "application/x-protobuf")

    assert trace_library(spans("openinference")) == "openinference"
    assert trace_library(spans("genai")) == "genai"
    langfuse = [replace(s, scope_name="langfuse-sdk") for s in spans("genai")]
    assert trace_library(langfuse) == "langfuse"
    assert trace_library([_span("0000000000000001", **{"http.method": "GET"})]) == "unknown"


def test_openinference_trace_without_documents_is_held_back_as_half_read() -> None:
    registry = CollectorRegistry()
    assembler = TraceAssembler(window_s=5.0, registry=registry)
    spans = [
        replace(
            s,
            attributes={
                k: v for k, v in s.attributes.items() if not k.startswith("retrieval.documents")
            },
        )
        for s in decode_otlp_request(
            protobuf_body(record_rag_spans("openinference")), "application/x-protobuf"
        )
    ]
    [done] = assembler.add(spans).completed  # finished with the root: the request is over
    assert (done.library, done.missing) == ("openinference", ("passages",))
    assert (
        registry.get_sample_value(
            "groundwatch_otlp_traces_missing_total",
            {"source_library": "openinference", "missing": "passages"},
        )
        == 1
    )
    assert assembler.coverage.view()["libraries"]["openinference"]["half_read"] == 1
