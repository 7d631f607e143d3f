"""One reading of a span across the conventions: Langfuse, OpenLLMetry, then OpenInference and the
GenAI semantic conventions (``semconv.py``); and which library a trace came from.

The library-specific readers go first because their spans also carry a few generic attributes
(an OpenLLMetry LlamaIndex task is nothing but ``traceloop.*``; a Langfuse observation may carry
``gen_ai.*`` usage); each returns None when the span is not theirs, and the generic reader then
answers as before.

Usage::

    role(span)                # "retrieval" | "llm" | "chain" | None
    question(span)            # the query a root/chain/retrieval span was given
    documents(span)           # list[Document] | None (None: no document field at all)
    answer(span)              # a library's own output field read as an answer
    trace_library(spans)      # one of LIBRARIES, a bounded metric label
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from groundwatch.ingest import langfuse, openllmetry
from groundwatch.ingest.otlp_decode import AttributeValue, SpanRecord
from groundwatch.ingest.semconv import Document, SpanRole, parse_json, query_text, span_role
from groundwatch.ingest.semconv import documents as generic_documents

__all__ = [
    "LIBRARIES",
    "answer",
    "documents",
    "library",
    "model",
    "question",
    "role",
    "trace_library",
]

# The ``source_library`` label values: bounded, whatever the spans say.
LIBRARIES = ("openinference", "openllmetry", "langfuse", "genai", "unknown")

_DOC_KEYS = ("gen_ai.retrieval.documents",)
# OpenLLMetry's instrumentation scopes; the contrib GenAI instrumentations share the prefix.
_OPENLLMETRY_SCOPES = ("opentelemetry.instrumentation.", "traceloop")
_GENAI_SCOPES = ("opentelemetry.instrumentation.openai_v2", "opentelemetry.instrumentation.genai")


def role(span: SpanRecord) -> SpanRole | None:
    return langfuse.role(span) or openllmetry.role(span) or span_role(span)


def question(span: SpanRecord) -> str | None:
    if langfuse.is_langfuse(span):
        return langfuse.question(span)
    return openllmetry.question(span) or query_text(span)


def documents(span: SpanRecord) -> list[Document] | None:
    """The passages of a retrieval span; ``[]`` when it states an empty result; None when it
    has no readable document field (an instrumentation gap, not an empty retrieval)."""
    if langfuse.is_langfuse(span):
        return langfuse.documents(span)
    found = openllmetry.documents(span)
    if found is not None:
        return found
    docs = generic_documents(span)
    if docs:
        return docs
    if any(_is_empty_list(span.attributes.get(k)) for k in _DOC_KEYS):
        return []
    return None


def _is_empty_list(value: AttributeValue) -> bool:
    return bool(parse_json(value) == [])


def answer(span: SpanRecord) -> str | None:
    return langfuse.answer(span) or openllmetry.answer(span)


def model(span: SpanRecord) -> str | None:
    return langfuse.model(span)


def library(span: SpanRecord) -> str | None:
    """The instrumentation that made one span, or None for a span that says nothing."""
    attrs = span.attributes
    if langfuse.is_langfuse(span):
        return "langfuse"
    if "openinference.span.kind" in attrs:
        return "openinference"
    scope = span.scope_name
    if openllmetry.is_openllmetry(span) or "llm.request.type" in attrs:
        return "openllmetry"
    if scope.startswith(_OPENLLMETRY_SCOPES) and not scope.startswith(_GENAI_SCOPES):
        return "openllmetry"
    if any(key.startswith("gen_ai.") for key in attrs) or any(
        e.name.startswith("gen_ai.") for e in span.events
    ):
        return "genai"
    return None


def trace_library(spans: Iterable[SpanRecord]) -> str:
    """The library most of a trace's spans came from (the specific ones win a tie)."""
    counts = Counter(found for found in (library(s) for s in spans) if found)
    if not counts:
        return "unknown"
    return max(LIBRARIES[:-1], key=lambda name: (counts.get(name, 0), -LIBRARIES.index(name)))
