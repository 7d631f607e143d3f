"""Assembling RagTraces from OpenInference and GenAI spans, across requests, with bounded memory."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from prometheus_client import CollectorRegistry

from groundwatch.ingest.otlp_assembly import TraceAssembler, assemble_trace
from groundwatch.ingest.otlp_decode import SpanEventRecord, SpanRecord, decode_otlp_request
from tests.otlp_support import (
    ANSWER,
    PASSAGES,
    QUESTION,
    Style,
    protobuf_body,
    record_rag_spans,
)


def decoded(style: Style, question: str = QUESTION) -> list[SpanRecord]:
    return decode_otlp_request(
        protobuf_body(record_rag_spans(style, question)), "application/x-protobuf"
    )


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def metric(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize("style", ["openinference", "genai", "legacy"])
def test_each_vocabulary_gives_question_passages_and_answer(style: Style) -> None:
    spans = decoded(style)
    trace, root, reason = assemble_trace(spans)
    assert reason == ""
    assert trace is not None
    assert root is not None
    assert root.name == "rag.request"
    assert trace.trace_id == spans[0].trace_id
    assert trace.question == QUESTION
    got = [(c.id, c.text, round(c.score or 0.0, 6), c.rank) for c in trace.contexts]
    assert got == [(d, t, s, i + 1) for i, (d, t, s) in enumerate(PASSAGES)]
    assert trace.answer == ANSWER
    assert trace.attributes["model"] == "gpt-4o"
    assert trace.attributes["environment"] == "prod"
    assert trace.attributes["service"] == "toy-assistant"
    assert trace.attributes["intent"] == "billing"
    assert trace.timestamp is not None


def test_configurable_attribute_map_and_question_source() -> None:
    trace, _, _ = assemble_trace(decoded("genai"), {"service.name": "tenant"})
    assert trace is not None
    assert trace.attributes == {
        "tenant": "toy-assistant",
        "model": "gpt-4o",
        "question_source": "retrieval",
    }
    trace, _, _ = assemble_trace(decoded("openinference"), {})
    assert trace is not None
    assert trace.attributes["question_source"] == "chain"


def _span(name: str, span_id: str, parent: str = "", **attrs: object) -> SpanRecord:
    return SpanRecord(
        trace_id="ab" * 16,
        span_id=span_id,
        parent_span_id=parent,
        name=name,
        kind=1,
        start_unix_nano=int(span_id, 16),
        end_unix_nano=int(span_id, 16) + 1,
        attributes=dict(attrs),  # type: ignore[arg-type]
    )


def test_reranker_output_json_inputs_and_last_llm_span_win() -> None:
    spans = [
        _span(
            "root",
            "0000000000000001",
            **{
                "openinference.span.kind": "CHAIN",
                "input.value": json.dumps({"question": "Q?"}),
                "input.mime_type": "application/json",
            },
        ),
        _span(
            "retr",
            "0000000000000002",
            "0000000000000001",
            **{
                "openinference.span.kind": "RETRIEVER",
                "retrieval.documents.0.document.content": "raw 1",
                "retrieval.documents.1.document.content": "raw 2",
            },
        ),
        _span(
            "rerank",
            "0000000000000003",
            "0000000000000001",
            **{
                "openinference.span.kind": "RERANKER",
                "reranker.input_documents.0.document.content": "raw 1",
                "reranker.output_documents.0.document.content": "raw 2",
                "reranker.output_documents.0.document.score": "0.7",
                "reranker.output_documents.0.document.metadata": json.dumps({"source": "kb.pdf"}),
            },
        ),
        _span(
            "rewrite",
            "0000000000000004",
            "0000000000000001",
            **{"gen_ai.operation.name": "chat", "gen_ai.completion.0.content": "rewritten"},
        ),
        _span(
            "answer",
            "0000000000000005",
            "0000000000000001",
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.prompt": "stuffed prompt",
                "gen_ai.completion": "final answer",
                "gen_ai.response.model": "m2",
            },
        ),
    ]
    trace, _, _ = assemble_trace(spans)
    assert trace is not None
    assert trace.question == "Q?"
    assert [(c.text, c.score, c.source) for c in trace.contexts] == [("raw 2", 0.7, "kb.pdf")]
    assert trace.answer == "final answer"
    assert trace.attributes["model"] == "m2"


def test_llm_only_trace_takes_the_question_from_the_user_message() -> None:
    spans = [
        _span("llm", "0000000000000001", **{"gen_ai.operation.name": "chat"}),
    ]
    spans[0] = replace(
        spans[0],
        events=(
            SpanEventRecord("gen_ai.user.message", 1, {"content": "hello?"}),
            SpanEventRecord("gen_ai.choice", 2, {"message": {"content": "hi"}}),
        ),
    )
    trace, _, _ = assemble_trace(spans)
    assert trace is not None
    assert (trace.question, trace.contexts, trace.answer) == ("hello?", [], "hi")


@pytest.mark.parametrize(
    ("spans", "reason"),
    [
        ([_span("http", "0000000000000001", **{"http.method": "GET"})], "not_rag"),
        ([_span("llm", "0000000000000001", **{"gen_ai.operation.name": "chat"})], "no_question"),
        (
            [
                _span(
                    "llm",
                    "0000000000000001",
                    **{"gen_ai.operation.name": "chat", "gen_ai.input.messages": "{not json"},
                )
            ],
            "no_question",
        ),
    ],
)
def test_unusable_traces_say_why(spans: list[SpanRecord], reason: str) -> None:
    assert assemble_trace(spans)[0] is None
    assert assemble_trace(spans)[2] == reason


def test_spans_split_across_requests_complete_when_the_root_arrives() -> None:
    registry, clock = CollectorRegistry(), Clock()
    assembler = TraceAssembler(window_s=5.0, max_pending=10, registry=registry, clock=clock)
    spans = decoded("openinference")
    root = next(s for s in spans if s.is_root)
    children = [s for s in spans if not s.is_root]
    assert assembler.add(children[:1]).completed == []
    assert assembler.add(children[1:]).completed == []  # LLM's parent (root) not here yet
    assert assembler.pending() == 1
    done = assembler.add([root]).completed
    assert [d.trigger for d in done] == ["complete"]
    assert done[0].trace.answer == ANSWER
    assert len(done[0].spans) == 3
    assert assembler.pending() == 0
    # A late duplicate of an emitted trace is ignored, not assembled twice.
    assert assembler.add([root]).completed == []
    clock.now += 60
    assert assembler.expire() == []
    assert metric(registry, "groundwatch_otlp_spans_dropped_total", reason="late") == 1
    assert metric(registry, "groundwatch_otlp_traces_assembled_total", trigger="complete") == 1
    assert metric(registry, "groundwatch_otlp_spans_received_total") == 4


def test_window_expiry_emits_partial_traces_and_drops_unusable_ones() -> None:
    registry, clock = CollectorRegistry(), Clock()
    assembler = TraceAssembler(window_s=5.0, max_pending=10, registry=registry, clock=clock)
    llm_only = [s for s in decoded("genai") if s.name.startswith("chat")]
    assembler.add(llm_only)
    assembler.add([replace(_span("http", "0000000000000001"), trace_id="cd" * 16)])
    clock.now += 4.9
    assert assembler.expire() == []
    clock.now += 0.2
    done = assembler.expire()
    assert [(d.trigger, d.trace.question, d.trace.contexts) for d in done] == [
        ("window", QUESTION, [])
    ]
    assert assembler.pending() == 0
    assert metric(registry, "groundwatch_otlp_traces_dropped_total", reason="not_rag") == 1
    assert metric(registry, "groundwatch_otlp_pending_traces") == 0


def test_memory_is_bounded_oldest_evicted_and_counted() -> None:
    registry, clock = CollectorRegistry(), Clock()
    assembler = TraceAssembler(
        window_s=5.0, max_pending=3, max_spans_per_trace=2, registry=registry, clock=clock
    )
    for i in range(5):
        assembler.add([replace(_span("http", "0000000000000001"), trace_id=f"{i:032x}")])
    assert assembler.pending() == 3
    assert metric(registry, "groundwatch_otlp_traces_dropped_total", reason="evicted") == 2
    many = [replace(_span("x", f"{i + 1:016x}"), trace_id="ee" * 16) for i in range(4)]
    result = assembler.add(many)
    assert result.rejected_spans == 2
    assert result.reasons == {"span_limit": 2}
    assert assembler.pending() == 3


def test_requeued_traces_are_retried_and_drain_empties_everything() -> None:
    clock = Clock()
    assembler = TraceAssembler(window_s=5.0, max_pending=10, clock=clock)
    done = assembler.add(decoded("openinference")).completed
    assembler.requeue(done)
    assert assembler.pending() == 1
    clock.now += 5.0
    again = assembler.expire()
    assert [d.trace.trace_id for d in again] == [done[0].trace.trace_id]
    assembler.add(decoded("genai")[:1])
    assert len(assembler.drain()) <= 1
    assert assembler.pending() == 0
