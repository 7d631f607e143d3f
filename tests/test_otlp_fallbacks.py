"""Assembly fallbacks, each named: the answer of the latest LLM span with output text, a JSON root
output read through its answer field or ignored, document scores/ids from metadata, and the
``groundwatch_otlp_fallbacks_total{kind}`` counter the OTLP receiver keeps of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from groundwatch.ingest.otlp_assembly import FALLBACK_KINDS, assemble
from groundwatch.ingest.otlp_decode import AttributeValue, SpanRecord

TRACE = "0af7651916cd43dd8448eb211c80319c"
RETRIEVAL: dict[str, AttributeValue] = {
    "openinference.span.kind": "RETRIEVER",
    "retrieval.documents.0.document.content": "The refund window is 30 days.",
}


def _span(name: str, span_id: str, parent: str = "", end: int = 10, **attrs: Any) -> SpanRecord:
    return SpanRecord(TRACE, span_id, parent, name, 1, 1, end, attributes=attrs)


def _root(**attrs: Any) -> SpanRecord:
    base = {"openinference.span.kind": "CHAIN", "input.value": "How long is the refund window?"}
    return _span("query", "0000000000000001", end=100, **{**base, **attrs})


def _llm(span_id: str, end: int, **attrs: Any) -> SpanRecord:
    return _span(
        "llm", span_id, "0000000000000001", end, **{"openinference.span.kind": "LLM"}, **attrs
    )


def _retriever(**attrs: Any) -> SpanRecord:
    return _span("retrieve", "0000000000000002", "0000000000000001", 5, **{**RETRIEVAL, **attrs})


def test_streaming_answer_comes_from_the_latest_llm_span_with_output() -> None:
    spans = [
        _root(
            **{
                "output.value": json.dumps({"response_gen": "<generator object>"}),
                "output.mime_type": "application/json",
            }
        ),
        _retriever(),
        _llm("0000000000000003", 20, **{"output.value": "The refund window is 90 days."}),
        _llm("0000000000000004", 30),  # ends last, no output (LlamaIndex *.stream)
    ]
    result = assemble(spans)
    assert result.trace is not None
    assert result.trace.answer == "The refund window is 90 days."
    assert result.fallbacks == ("answer_earlier_llm_span", "answer_llm_output_value")


def test_llm_output_messages_win_over_output_value() -> None:
    spans = [
        _root(),
        _retriever(),
        _llm(
            "0000000000000003",
            20,
            **{
                "llm.output_messages.0.message.content": "From messages.",
                "output.value": json.dumps({"generations": []}),
            },
        ),
    ]
    result = assemble(spans)
    assert result.trace is not None
    assert result.trace.answer == "From messages."
    assert result.fallbacks == ()


@pytest.mark.parametrize(
    ("output", "mime", "answer", "kind"),
    [
        (
            {"response": "It is 30 days.", "source_nodes": []},
            "application/json",
            "It is 30 days.",
            "answer_root_json",
        ),
        ({"outputs": {"answer": "Nested."}}, None, "Nested.", "answer_root_json"),
        (
            {"response_gen": "<generator object>"},
            "application/json",
            None,
            "answer_root_json_ignored",
        ),
        (
            {"response": "<generator object at 0x7f>"},
            "application/json",
            None,
            "answer_root_json_ignored",
        ),
        ("Plain text answer.", None, "Plain text answer.", "answer_root_output"),
    ],
)
def test_root_output_without_llm_output(
    output: Any, mime: str | None, answer: str | None, kind: str
) -> None:
    attrs: dict[str, Any] = {
        "output.value": output if isinstance(output, str) else json.dumps(output)
    }
    if mime:
        attrs["output.mime_type"] = mime
    spans = [_root(**attrs), _retriever(), _llm("0000000000000003", 20)]
    result = assemble(spans)
    assert result.trace is not None
    assert result.trace.answer == answer
    assert result.fallbacks == (kind,)


def test_document_score_and_id_from_metadata_only_when_attributes_are_missing() -> None:
    spans = [
        _root(),
        _retriever(
            **{
                "retrieval.documents.0.document.metadata": json.dumps(
                    {"relevance_score": 0.42, "doc_id": "kb-7", "source": "kb/refunds.md"}
                ),
                "retrieval.documents.1.document.content": "Shipping takes 5 days.",
                "retrieval.documents.1.document.id": "own-id",
                "retrieval.documents.1.document.score": 0.1,
                "retrieval.documents.1.document.metadata": json.dumps({"score": 0.9, "id": "x"}),
            }
        ),
        _llm("0000000000000003", 20, **{"llm.output_messages.0.message.content": "30 days."}),
    ]
    result = assemble(spans)
    assert result.trace is not None
    got = [(c.id, c.score, c.source) for c in result.trace.contexts]
    assert got == [("kb-7", 0.42, "kb/refunds.md"), ("own-id", 0.1, None)]
    assert result.fallbacks == ("score_from_metadata", "id_from_metadata")


def test_openllmetry_retrieval_task_output_and_query() -> None:
    documents = [
        {"page_content": "The refund window is 30 days.", "metadata": {"score": 0.5}},
        {"page_content": "Shipping takes 5 days.", "metadata": {"score": 0.1}},
    ]
    spans = [
        _span(
            "RunnableSequence.workflow",
            "0000000000000001",
            end=100,
            **{
                "traceloop.span.kind": "workflow",
                "gen_ai.operation.name": "invoke_agent",
                "traceloop.entity.input": json.dumps({"inputs": "How long is the window?"}),
            },
        ),
        _span(
            "vector_db_retrieve Ret",
            "0000000000000002",
            "0000000000000001",
            **{
                "gen_ai.operation.name": "vector_db_retrieve",
                "traceloop.entity.input": json.dumps({"query": "How long is the window?"}),
                "traceloop.entity.output": json.dumps({"documents": documents, "count": 2}),
            },
        ),
        _span(
            "FakeChatModel.chat",
            "0000000000000003",
            "0000000000000001",
            20,
            **{
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": "unknown",
                "traceloop.association.properties.ls_model_name": "fake-chat-1",
                "gen_ai.output.messages": json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "90 days."}]}]
                ),
            },
        ),
    ]
    result = assemble(spans)
    assert result.trace is not None
    assert result.trace.question == "How long is the window?"
    assert [(c.text, c.score) for c in result.trace.contexts] == [
        ("The refund window is 30 days.", 0.5),
        ("Shipping takes 5 days.", 0.1),
    ]
    assert result.trace.answer == "90 days."
    assert result.trace.attributes["model"] == "fake-chat-1"
    assert result.fallbacks == ("score_from_metadata",)


def test_every_fallback_kind_is_documented() -> None:
    doc = (Path(__file__).parents[1] / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert "groundwatch_otlp_fallbacks_total" in doc
    assert [kind for kind in FALLBACK_KINDS if f"`{kind}`" not in doc] == []
