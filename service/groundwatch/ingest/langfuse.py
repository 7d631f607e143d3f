"""Langfuse SDK 3 and later (instrumentation scope ``langfuse-sdk``), by the payloads of SDK 3.15
and 5.2 in ``tests/otel_payloads/``.

The SDK exports OTLP/HTTP protobuf to ``<host>/api/public/otel/v1/traces`` (the receiver accepts
that path as well as ``/v1/traces``). Each observation is a span with:

* ``langfuse.observation.type``: ``span`` (an ``@observe`` function, the root included),
  ``retriever``, ``generation``; also ``agent``, ``chain``, ``tool``, ``embedding``, ...;
* ``langfuse.observation.input`` / ``.output``: JSON. A decorated function's input is
  ``{"args": [...], "kwargs": {...}}``; a generation's output is whatever it returned, typically
  ``{"role": "assistant", "content": ...}`` or a string; a retriever's output is its result, a list
  of strings or of ``{text|content|page_content, id, score, metadata}`` objects;
* ``langfuse.observation.model.name`` on generations.

Usage::

    if is_langfuse(span):
        role(span), question(span), documents(span), answer(span), model(span)
"""

from __future__ import annotations

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

__all__ = ["answer", "documents", "is_langfuse", "model", "question", "role"]

SCOPE = "langfuse-sdk"
_TYPE = "langfuse.observation.type"
_INPUT = "langfuse.observation.input"
_OUTPUT = "langfuse.observation.output"
_ROLES: dict[str, SpanRole] = {
    "retriever": "retrieval",
    "generation": "llm",
    "span": "chain",
    "chain": "chain",
    "agent": "chain",
}


def is_langfuse(span: SpanRecord) -> bool:
    return span.scope_name == SCOPE or _TYPE in span.attributes


def _value(span: SpanRecord, key: str) -> Any:
    """A JSON attribute parsed; a plain string as it is."""
    raw = span.attributes.get(key)
    parsed = parse_json(raw)
    if parsed is not None:
        return parsed
    return raw if isinstance(raw, str) and raw else None


def role(span: SpanRecord) -> SpanRole | None:
    if not is_langfuse(span):
        return None
    kind = span.attributes.get(_TYPE)
    return _ROLES.get(kind) if isinstance(kind, str) else None


def question(span: SpanRecord) -> str | None:
    """A root/span/retriever input: the first string argument, a question-like keyword, or the
    last user message of a message list."""
    if not is_langfuse(span):
        return None
    return _question(_value(span, _INPUT))


def _question(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):
        users = [text_of(m.get("content")) for m in value if isinstance(m, dict)]
        users = [u for u, m in zip(users, value, strict=False) if u and m.get("role") == "user"]
        return users[-1] if users else None
    if not isinstance(value, dict):
        return None
    args, kwargs = value.get("args"), value.get("kwargs")
    if isinstance(kwargs, dict):
        found = query_field(kwargs)
        if found:
            return found
    if isinstance(args, list):
        for arg in args:
            if isinstance(arg, str) and arg:
                return arg
        return None
    return query_field(value)


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, dict):
        for key in ("documents", "results", "nodes", "contexts"):
            if isinstance(value.get(key), list):
                items: list[Any] = value[key]
                return items
        return None
    return value if isinstance(value, list) else None


def _document(item: Any) -> Document | None:
    if isinstance(item, str):
        return Document(text=item) if item else None
    if not isinstance(item, dict):
        return None
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict):  # a serialized Document
        item = item["kwargs"]
    raw = next((item[k] for k in ("page_content", "text", "content") if k in item), None)
    text = text_of(raw)
    if not text:
        return None
    doc_id = item.get("id", item.get("doc_id"))
    return make_document(text, doc_id, item.get("score"), item.get("metadata"))


def documents(span: SpanRecord) -> list[Document] | None:
    """A retriever observation's output as passages; ``[]`` for an empty list; None when the
    span is not a Langfuse retriever or its output is not a list of documents."""
    if role(span) != "retrieval":
        return None
    items = _items(_value(span, _OUTPUT))
    if items is None:
        return None
    return [doc for doc in (_document(item) for item in items) if doc is not None]


def answer(span: SpanRecord) -> str | None:
    """A generation's (or the root's) output text: a string, an assistant message, or an
    OpenAI-style response's first choice."""
    if not is_langfuse(span):
        return None
    return _answer(_value(span, _OUTPUT))


def _answer(value: Any) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):  # a message list: the last assistant message
        texts = [
            text_of(m.get("content"))
            for m in value
            if isinstance(m, dict) and m.get("role") in ("assistant", None)
        ]
        texts = [t for t in texts if t]
        return texts[-1] if texts else None
    if not isinstance(value, dict):
        return None
    choices = value.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        return _answer(choices[0].get("message"))
    for key in ("content", "text", "answer", "response", "output"):
        found = text_of(value.get(key)) if key in value else None
        if found:
            return found
    return None


def model(span: SpanRecord) -> str | None:
    value = span.attributes.get("langfuse.observation.model.name")
    return value if isinstance(value, str) and value else None
