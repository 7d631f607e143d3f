"""Reading the RAG facts (question, passages, answer) out of one OpenTelemetry trace's spans.

Four attribute vocabularies are read (``conventions.py`` dispatches; the keys are in
``semconv.py``, ``openllmetry.py``, ``langfuse.py`` and ``genai.py``):

* OpenTelemetry GenAI semantic conventions: ``gen_ai.operation.name`` (``retrieval``, ``chat``,
  ``text_completion``, ``invoke_agent`` ...), ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  (JSON), the legacy ``gen_ai.prompt`` / ``gen_ai.completion`` attributes (also flattened as
  ``gen_ai.prompt.{i}.content``), the events (or log records) ``gen_ai.user.message`` /
  ``gen_ai.choice``, and ``gen_ai.retrieval.documents`` / ``gen_ai.retrieval.query.text`` on
  retrieval spans; documents with ids and scores only are paired with the system message.
* OpenInference: ``openinference.span.kind`` (RETRIEVER, RERANKER, LLM, CHAIN, AGENT),
  ``input.value`` / ``output.value``, ``retrieval.documents.{i}.document.{content,id,score}``,
  ``llm.input_messages.{i}.message.{role,content}``, ``llm.output_messages.{i}.message.content``.
* OpenLLMetry: ``traceloop.span.kind`` / ``traceloop.entity.name`` and the JSON in
  ``traceloop.entity.input`` / ``traceloop.entity.output`` (LlamaIndex and LangChain shapes).
* Langfuse: ``langfuse.observation.type`` and ``langfuse.observation.input`` / ``.output``.

The question is the root (or CHAIN) span's input, unless that merely wraps the retrieval query in
a templated text; else the retrieval query; else the LLM's last user message. The answer is the
output text of the *latest LLM span that has one* (a streaming LlamaIndex query ends with an LLM
span without output); only when no LLM span has output text is the root span's output used, and a
JSON one (``output.mime_type=application/json``) only through its response/answer field, never as
JSON. A document's missing score or id is taken from its metadata (``score``,
``relevance_score``, ``id``, ``doc_id``). Each such fallback is named in
:attr:`Assembly.fallbacks` (see :data:`FALLBACK_KINDS`); the OTLP receiver counts them in
``groundwatch_otlp_fallbacks_total{kind}`` so operators see which path their spans take. What
could not be read at all is named in :attr:`Assembly.missing`, with the library that made the
trace (:attr:`Assembly.library`).

Usage::

    result = assemble(spans)                 # an Assembly
    result.trace, result.reason, result.missing, result.library, result.fallbacks
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from pydantic import ValidationError

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.ingest import conventions, genai, openllmetry
from groundwatch.ingest.otlp_decode import SpanRecord
from groundwatch.ingest.semconv import (
    Document,
    SpanRole,
    answer_from_output,
    llm_messages,
    model_name,
)

__all__ = [
    "DEFAULT_ATTRIBUTE_MAP",
    "FALLBACK_KINDS",
    "Assembly",
    "assemble",
    "assemble_trace",
    "is_complete",
    "span_roles",
]

# Fallback paths of assembly, the ``kind`` label of groundwatch_otlp_fallbacks_total.
FALLBACK_KINDS: dict[str, str] = {
    "answer_earlier_llm_span": "the latest LLM span had no output text; an earlier one's was used",
    "answer_llm_output_value": "the answer came from an LLM span's output.value, not its messages",
    "answer_root_output": "no LLM span had output text; the root span's plain output.value was used",
    "answer_root_json": "no LLM span had output text; the root's JSON output.value gave the answer",
    "answer_root_json_ignored": "the root's JSON output.value had no answer field: no answer",
    "score_from_metadata": "document scores were read from document metadata",
    "id_from_metadata": "document ids were read from document metadata",
    "question_from_retrieval": "no root/chain span had the question; the retrieval query was used",
    "question_from_llm": "the question is the LLM call's last user message",
    "question_retrieval_over_prompt": "the root's input held the retrieval query inside a longer "
    "(templated) text: the retrieval query was used",
    "passages_from_system_message": "the retrieval documents had ids and scores only: passages were "
    "cut from the LLM call's system message (source gen_ai.system_message)",
    "passages_from_task_input": "no retrieval span had documents: LangChain-serialized documents in "
    "a later task's input were used (OpenLLMetry 0.4x)",
    "answer_library_output": "the answer came from the library's own output field "
    "(traceloop.entity.output, langfuse.observation.output)",
}

# Resource/span attribute -> slice attribute. Only low-cardinality keys belong here.
DEFAULT_ATTRIBUTE_MAP: dict[str, str] = {
    "deployment.environment.name": "environment",
    "deployment.environment": "environment",
    "service.name": "service",
    "service.version": "service_version",
    "tenant.id": "tenant",
    "app.tenant": "tenant",
    "app.intent": "intent",
    "app.prompt_version": "prompt_version",
}


@dataclass(frozen=True)
class Assembly:
    """What :func:`assemble` made of one trace's spans: the trace (None with a ``reason``), the
    producer's root span, the fallback paths taken (keys of :data:`FALLBACK_KINDS`), the
    instrumentation library (``conventions.LIBRARIES``) and the parts that could not be read
    (``question``, ``passages``: no retrieval span, or none with a readable document field, as
    opposed to a retrieval that stated an empty result; ``answer``)."""

    trace: RagTrace | None
    root: SpanRecord | None
    reason: str = ""
    fallbacks: tuple[str, ...] = ()
    library: str = "unknown"
    missing: tuple[str, ...] = ()


def _ancestry_reaches_top(spans: Mapping[str, SpanRecord], start: SpanRecord) -> bool:
    """True when walking parents from ``start`` ends at a root or a CHAIN/agent span."""
    current: SpanRecord | None = start
    for _ in range(len(spans) + 1):
        if current is None:
            return False
        if current.is_root or conventions.role(current) == "chain":
            return True
        current = spans.get(current.parent_span_id)
    return False


_ALL_PARTS: tuple[str, ...] = ("question", "passages", "answer")


def span_roles(spans: Iterable[SpanRecord]) -> dict[SpanRole, list[SpanRecord]]:
    out: dict[SpanRole, list[SpanRecord]] = {"retrieval": [], "llm": [], "chain": []}
    for span in spans:
        role = conventions.role(span)
        if role is not None:
            out[role].append(span)
    for group in out.values():
        group.sort(key=lambda s: (s.end_unix_nano, s.start_unix_nano))
    return out


def is_complete(spans: Mapping[str, SpanRecord]) -> bool:
    roles = span_roles(spans.values())
    if not roles["retrieval"] or not roles["llm"]:
        return False
    return _ancestry_reaches_top(spans, roles["llm"][-1])


def _top_span(
    spans: Iterable[SpanRecord], roles: dict[SpanRole, list[SpanRecord]]
) -> SpanRecord | None:
    ordered = sorted(spans, key=lambda s: s.start_unix_nano)
    for span in ordered:
        if span.is_root:
            return span
    chains = sorted(roles["chain"], key=lambda s: s.start_unix_nano)
    return chains[0] if chains else None


def _slice_attributes(
    spans: list[SpanRecord], top: SpanRecord | None, attribute_map: Mapping[str, str]
) -> dict[str, str]:
    out: dict[str, str] = {}
    # Root span first, then other spans, then the resource: the most specific source wins.
    sources = ([top.attributes] if top else []) + [s.attributes for s in spans]
    sources += [s.resource for s in spans]
    for source_key, slice_key in attribute_map.items():
        if slice_key in out:
            continue
        for attrs in sources:
            value = attrs.get(source_key)
            if isinstance(value, str | int | float | bool) and not isinstance(value, bytes):
                text = str(value).lower() if isinstance(value, bool) else str(value)
                if text:
                    out[slice_key] = text
                    break
    return out


def assemble_trace(
    spans: Iterable[SpanRecord], attribute_map: Mapping[str, str] | None = None
) -> tuple[RagTrace | None, SpanRecord | None, str]:
    """Build the RagTrace of one trace's spans: ``(trace, root span, reason)``.

    ``trace`` is None when the spans hold no question (reason ``no_question``), no GenAI span at
    all (``not_rag``) or something the contract refuses (``invalid``). See :func:`assemble` for
    the fallbacks taken as well.
    """
    result = assemble(spans, attribute_map)
    return result.trace, result.root, result.reason


def _answer(
    roles: dict[SpanRole, list[SpanRecord]], top: SpanRecord | None, fallbacks: list[str]
) -> str | None:
    """The latest LLM output text; else the root span's output (JSON only through a field)."""
    llms = roles["llm"]
    for position, llm in enumerate(reversed(llms)):
        _, outputs = llm_messages(llm, output_value=False)
        text = outputs[-1] if outputs else answer_from_output(llm)
        library_text = None if text else conventions.answer(llm)
        if not text and not library_text:
            continue
        if position:
            fallbacks.append("answer_earlier_llm_span")
        if library_text:
            fallbacks.append("answer_library_output")
            return library_text
        if not outputs:
            fallbacks.append("answer_llm_output_value")
        return text
    if top is None:
        return None
    raw = top.attributes.get("output.value")
    if not isinstance(raw, str) or not raw.strip():
        text = conventions.answer(top)
        if text:
            fallbacks.append("answer_root_output")
        return text
    text = answer_from_output(top)
    is_json = (
        top.attributes.get("output.mime_type") == "application/json" or raw.lstrip()[:1] == "{"
    )
    if is_json:
        fallbacks.append("answer_root_json" if text else "answer_root_json_ignored")
    elif text:
        fallbacks.append("answer_root_output")
    return text


def _question(
    roles: dict[SpanRole, list[SpanRecord]],
    top: SpanRecord | None,
    inputs: list[tuple[str, str]],
    fallbacks: list[str],
) -> tuple[str | None, str]:
    """The question and where it came from: the root/chain input, else the retrieval query, else
    the LLM's last user message. A root input that merely wraps the retrieval query in a longer
    (templated) text loses to the retrieval query."""
    retrieval_query = next(
        (q for q in (conventions.question(s) for s in roles["retrieval"]) if q), None
    )
    for span in ([top] if top is not None else []) + roles["chain"]:
        question = conventions.question(span)
        if not question:
            continue
        if retrieval_query and retrieval_query != question and retrieval_query in question:
            fallbacks.append("question_retrieval_over_prompt")
            return retrieval_query, "retrieval"
        return question, "chain"
    if retrieval_query:
        return retrieval_query, "retrieval"
    users = [text for role, text in inputs if role == "user" and text]
    if users:
        return users[-1], "llm"
    return None, ""


def _passages(
    span_list: list[SpanRecord], roles: dict[SpanRole, list[SpanRecord]], fallbacks: list[str]
) -> tuple[list[Document], bool]:
    """The passages the model saw and whether they were read at all: those of the last
    retrieval/rerank step with documents; else the system message cut by the text-less
    documents' ids; else documents in a task's input (OpenLLMetry 0.4x). ``([], True)`` for a
    retrieval that stated an empty result; ``([], False)`` when nothing could be read."""
    stated_empty = False
    for span in reversed(roles["retrieval"]):
        docs = conventions.documents(span)
        if docs:
            return docs, True
        stated_empty = stated_empty or docs == []
    for span in reversed(roles["retrieval"]):
        ids = genai.textless_documents(span)
        if not ids:
            continue
        for llm in reversed(roles["llm"]):
            docs = genai.system_message_passages(llm, ids)
            if docs:
                fallbacks.append("passages_from_system_message")
                return docs, True
    for span in sorted(span_list, key=lambda s: (s.end_unix_nano, s.start_unix_nano)):
        docs = openllmetry.input_documents(span)
        if docs:
            fallbacks.append("passages_from_task_input")
            return docs, True
    return [], stated_empty


def assemble(
    spans: Iterable[SpanRecord], attribute_map: Mapping[str, str] | None = None
) -> Assembly:
    """Build the RagTrace of one trace's spans, naming the fallbacks taken (module docstring)."""
    span_list = list(spans)
    if not span_list:
        return Assembly(None, None, "not_rag")
    library = conventions.trace_library(span_list)
    roles = span_roles(span_list)
    if not roles["retrieval"] and not roles["llm"]:
        return Assembly(None, None, "not_rag", library=library, missing=_ALL_PARTS)
    top = _top_span(span_list, roles)
    llm = roles["llm"][-1] if roles["llm"] else None
    inputs, _ = llm_messages(llm) if llm else ([], [])
    fallbacks: list[str] = []

    question, question_source = _question(roles, top, inputs, fallbacks)
    if not question:
        return Assembly(None, top, "no_question", library=library, missing=("question",))
    if question_source != "chain" and "question_retrieval_over_prompt" not in fallbacks:
        fallbacks.append(f"question_from_{question_source}")

    docs, passages_read = _passages(span_list, roles, fallbacks)
    passages = [
        ContextPassage(text=d.text, id=d.id, score=d.score, rank=i + 1, source=d.source)
        for i, d in enumerate(docs)
    ]
    if any(d.score_from_metadata for d in docs):
        fallbacks.append("score_from_metadata")
    if any(d.id_from_metadata for d in docs):
        fallbacks.append("id_from_metadata")

    answer = _answer(roles, top, fallbacks)
    missing = tuple(
        part for part, read in (("passages", passages_read), ("answer", bool(answer))) if not read
    )

    attributes = _slice_attributes(span_list, top, attribute_map or DEFAULT_ATTRIBUTE_MAP)
    model = next(
        (m for m in (model_name(s) or conventions.model(s) for s in reversed(roles["llm"])) if m),
        None,
    )
    if model and "model" not in attributes:
        attributes["model"] = model
    attributes["question_source"] = question_source
    start = (
        min(s.start_unix_nano for s in span_list if s.start_unix_nano)
        if any(s.start_unix_nano for s in span_list)
        else None
    )
    try:
        trace = RagTrace(
            trace_id=span_list[0].trace_id,
            timestamp=datetime.fromtimestamp(start / 1e9, tz=UTC) if start else None,
            question=question,
            contexts=passages,
            answer=answer,
            attributes=attributes,
        )
    except ValidationError:
        return Assembly(None, top, "invalid", tuple(fallbacks), library, missing)
    return Assembly(trace, top, "", tuple(fallbacks), library, missing)
