"""OpenLLMetry (``traceloop-sdk``, ``opentelemetry-instrumentation-llamaindex`` / ``-langchain``).

What these instrumentations emit, by the payloads in ``tests/otel_payloads/`` (0.47 and 0.62):

* Every span carries ``traceloop.span.kind`` (``workflow``, ``task``, ``agent``, ``tool``) and
  ``traceloop.entity.name``; a LlamaIndex span has nothing else to say what it is: the retriever is
  the task named ``VectorIndexRetriever`` (span ``VectorIndexRetriever.task``).
* Task I/O is JSON in ``traceloop.entity.input`` / ``traceloop.entity.output``:

  - LlamaIndex question: ``{"str_or_query_bundle": q}`` or ``{"query_bundle": {"query_str": q}}``
    (a QueryBundle object when the caller passed one);
  - LlamaIndex retrieved nodes: the retriever's output, a JSON array of *JSON strings* of
    NodeWithScore (``{"node": {"id_", "text", "metadata"}, "score"}``);
  - LangChain 0.62: the retriever's output ``{"documents": [{"page_content", "metadata"}]}``;
  - LangChain 0.47: no retriever span; the documents appear only as LangChain-serialized
    ``Document``s (``{"lc": 1, "id": [..., "Document"], "kwargs": {"page_content", "metadata"}}``)
    in the input of the task that consumed them (:func:`input_documents`);
  - answers: a LlamaIndex ``CompletionResponse`` / ``ChatResponse`` (``text`` or
    ``message.content``) on the LLM task, a ``Response`` (``response``) on the query workflow.

Usage::

    if is_openllmetry(span):
        role(span), question(span), documents(span), answer(span)

Every reader returns None (nothing read) rather than raising on odd shapes.
"""

from __future__ import annotations

import re
from typing import Any

from groundwatch.ingest.otlp_decode import SpanRecord
from groundwatch.ingest.semconv import (
    Document,
    SpanRole,
    make_document,
    parse_json,
    query_field,
    text_of,
)

__all__ = ["answer", "documents", "input_documents", "is_openllmetry", "question", "role"]

_KIND = "traceloop.span.kind"
_NAME = "traceloop.entity.name"
_INPUT = ("traceloop.entity.input", "gen_ai.task.input")
_OUTPUT = ("traceloop.entity.output", "gen_ai.task.output")
# A retriever task: VectorIndexRetriever, BM25Retriever, QueryFusionRetriever... (not the
# RetrieverQueryEngine that calls one).
_RETRIEVER = re.compile(r"(retriever|^retrieve)$", re.IGNORECASE)
_SUFFIX = re.compile(r"\.(task|workflow|agent|tool)$")
_MAX_DEPTH = 6


def is_openllmetry(span: SpanRecord) -> bool:
    return _KIND in span.attributes or _NAME in span.attributes


def _json(span: SpanRecord, keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = span.attributes.get(key)
        parsed = parse_json(value)
        if parsed is not None:
            return parsed
    return None


def _entity_name(span: SpanRecord) -> str:
    name = span.attributes.get(_NAME)
    return name if isinstance(name, str) and name else span.name


def role(span: SpanRecord) -> SpanRole | None:
    """``chain`` for workflow/agent spans, ``retrieval`` for retriever tasks (by name, or by a
    non-empty output that reads as documents); None otherwise (LLM spans carry GenAI
    attributes, read by semconv.py)."""
    if not is_openllmetry(span):
        return None
    if "gen_ai.operation.name" in span.attributes or "llm.request.type" in span.attributes:
        return None  # read through the GenAI vocabulary (semconv.py)
    kind = span.attributes.get(_KIND)
    if kind in ("workflow", "agent"):
        return "chain"
    if _RETRIEVER.search(_SUFFIX.sub("", _entity_name(span))):
        return "retrieval"
    if _node_list(_json(span, _OUTPUT)):
        return "retrieval"
    return None


def question(span: SpanRecord) -> str | None:
    """The query in ``traceloop.entity.input`` (LlamaIndex and LangChain shapes)."""
    if not is_openllmetry(span):
        return None
    parsed = _json(span, _INPUT)
    if isinstance(parsed, dict):
        for key in ("str_or_query_bundle", "query_bundle", "query"):
            found = _query_str(parsed.get(key))
            if found:
                return found
        args = parsed.get("args")
        if isinstance(args, list) and args:
            found = _query_str(args[0])
            if found:
                return found
        return query_field(parsed)
    if isinstance(parsed, str) and parsed:
        return parsed
    return None


def _query_str(value: Any) -> str | None:
    """A query string, a QueryBundle (``{"query_str": ...}``) or its JSON."""
    if isinstance(value, str):
        nested = parse_json(value)
        if isinstance(nested, dict):
            return _query_str(nested)
        return value or None
    if isinstance(value, dict):
        found = value.get("query_str")
        return found if isinstance(found, str) and found else None
    return None


def _node_list(parsed: Any) -> list[Any] | None:
    """The item list of a retriever output: a list, or the ``documents``/``nodes`` of a dict."""
    if isinstance(parsed, dict):
        for key in ("documents", "nodes", "source_nodes"):
            value = parsed.get(key)
            if isinstance(value, list):
                return value
        return None
    if isinstance(parsed, list) and all(_as_doc(item) is not None for item in parsed):
        return parsed
    return None


def _as_doc(item: Any) -> Document | None:
    """One retrieved item: a NodeWithScore (maybe as a JSON string), a LangChain Document
    (plain or serialized), or a ``{text|content|page_content, id, score, metadata}`` dict."""
    if isinstance(item, str):
        item = parse_json(item)
    if not isinstance(item, dict):
        return None
    if isinstance(item.get("node"), dict):  # LlamaIndex NodeWithScore
        node = item["node"]
        text = text_of(node.get("text"))
        if not text:
            return None
        return make_document(text, node.get("id_"), item.get("score"), node.get("metadata"))
    if _is_lc_document(item):
        item = item["kwargs"]
    raw = next((item[k] for k in ("page_content", "text", "content") if k in item), None)
    text = text_of(raw)
    if not text:
        return None
    return make_document(text, item.get("id"), item.get("score"), item.get("metadata"))


def _is_lc_document(item: dict[str, Any]) -> bool:
    ident = item.get("id")
    return (
        item.get("lc") == 1
        and isinstance(ident, list)
        and bool(ident)
        and ident[-1] == "Document"
        and isinstance(item.get("kwargs"), dict)
    )


def documents(span: SpanRecord) -> list[Document] | None:
    """The retriever's passages, in order; ``[]`` for an explicit empty result; None when the
    span's output holds no document list at all."""
    if not is_openllmetry(span):
        return None
    items = _node_list(_json(span, _OUTPUT))
    if items is None:
        return None
    return [doc for doc in (_as_doc(item) for item in items) if doc is not None]


def input_documents(span: SpanRecord) -> list[Document]:
    """LangChain-serialized Documents found in a task's input (OpenLLMetry 0.4x LangChain, where
    no retriever span exists): the first list of them, searched depth-first."""
    if not is_openllmetry(span):
        return []
    found = _find_lc_documents(_json(span, _INPUT), 0)
    return [doc for doc in (_as_doc(item) for item in found) if doc is not None]


def _find_lc_documents(value: Any, depth: int) -> list[dict[str, Any]]:
    if depth > _MAX_DEPTH:
        return []
    if isinstance(value, str) and value[:1] in ("[", "{"):
        value = parse_json(value)
    if isinstance(value, list):
        docs = [v for v in value if isinstance(v, dict) and _is_lc_document(v)]
        if docs:
            return docs
        children: list[Any] = value
    elif isinstance(value, dict):
        if _is_lc_document(value):
            return [value]
        children = list(value.values())
    else:
        return []
    for child in children:
        found = _find_lc_documents(child, depth + 1)
        if found:
            return found
    return []


def _completion_text(parsed: Any) -> str | None:
    """The text of a LlamaIndex CompletionResponse / ChatResponse / Response, or of a LangChain
    output (``outputs``), as JSON."""
    if isinstance(parsed, str):
        return parsed or None
    if not isinstance(parsed, dict):
        return None
    message = parsed.get("message")
    if isinstance(message, dict):
        found = text_of(message.get("content", message.get("blocks")))
        if found:
            return found
    for key in ("text", "response", "outputs", "output", "content"):
        value = parsed.get(key)
        if isinstance(value, str) and value.strip() and not value.startswith("<"):
            return value
        if isinstance(value, dict):
            nested = _completion_text(value)
            if nested:
                return nested
    return None


def answer(span: SpanRecord) -> str | None:
    """The answer text in a task's or workflow's ``traceloop.entity.output``."""
    if not is_openllmetry(span):
        return None
    return _completion_text(_json(span, _OUTPUT))
