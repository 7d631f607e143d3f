"""OpenTelemetry GenAI semantic conventions: what ``semconv.py`` does not read on its own.

* **Retrieval documents without text.** The specification's ``gen_ai.retrieval.documents`` carry
  ``id`` and ``score`` only (content is opt-in). The passage text then exists only in the system
  message the application built for the model (``gen_ai.input.messages``, role ``system``, or a
  ``gen_ai.system.message`` event / log record). :func:`system_message_passages` cuts that message
  into as many passages as there were documents: blank-line separated blocks, else lines, the
  last N of them (the instruction comes first); when it cannot, the whole message is one passage.
  Passages made so are marked with ``source="gen_ai.system_message"``.
* **Content as log records.** ``opentelemetry-instrumentation-openai-v2`` up to 2.3 (and later ones
  with ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=event_only``) put message content in log
  records (``gen_ai.system.message``, ``gen_ai.user.message``, ``gen_ai.choice``) exported to
  ``/v1/logs``, with the trace and span id of the chat span. :func:`as_span_event` turns one into
  the span event ``semconv.llm_messages`` already reads; the assembler joins them by span id.

Usage::

    docs = textless_documents(retrieval_span)           # [(id, score)], or [] when none
    passages = system_message_passages(llm_span, docs)  # [Document] cut from the system message
    event = as_span_event(log_record)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from groundwatch.ingest.otlp_decode import LogEventRecord, SpanEventRecord, SpanRecord
from groundwatch.ingest.semconv import (
    Document,
    llm_messages,
    make_document,
    parse_json,
    text_of,
)

__all__ = ["SYSTEM_SOURCE", "as_span_event", "system_message_passages", "textless_documents"]

SYSTEM_SOURCE = "gen_ai.system_message"
_BLANK_LINE = re.compile(r"\n\s*\n")


def textless_documents(span: SpanRecord) -> list[tuple[Any, Any]]:
    """``[(id, score)]`` of a retrieval span's ``gen_ai.retrieval.documents`` when none of them
    has text; ``[]`` when any has text, or there are none."""
    parsed = parse_json(span.attributes.get("gen_ai.retrieval.documents"))
    if not isinstance(parsed, list) or not parsed:
        return []
    out: list[tuple[Any, Any]] = []
    for item in parsed:
        if not isinstance(item, dict):
            return []
        if any(text_of(item.get(k)) for k in ("content", "text", "page_content")):
            return []
        out.append((item.get("id"), item.get("score")))
    return out


def _system_text(span: SpanRecord) -> str | None:
    inputs, _ = llm_messages(span, output_value=False)
    texts = [text for role, text in inputs if role == "system"]
    for event in span.events:
        if event.name == "gen_ai.system.message":
            found = text_of(event.attributes.get("content"))
            if found:
                texts.append(found)
    return texts[-1] if texts else None


def system_message_passages(span: SpanRecord, docs: Sequence[tuple[Any, Any]]) -> list[Document]:
    """The passages of the LLM span's system message, paired in order with the retrieval
    documents' ids and scores (module docstring); [] when the span has no system message."""
    text = _system_text(span)
    if not text or not docs:
        return []
    want = len(docs)
    for pieces in (_BLANK_LINE.split(text), text.splitlines()):
        blocks = [p.strip() for p in pieces if p.strip()]
        if len(blocks) >= want:
            return [
                _marked(block, doc_id, score)
                for block, (doc_id, score) in zip(blocks[-want:], docs, strict=True)
            ]
    return [_marked(text.strip(), None, None)]


def _marked(text: str, doc_id: Any, score: Any) -> Document:
    doc = make_document(text, doc_id, score, None)
    return Document(text=doc.text, id=doc.id, score=doc.score, source=SYSTEM_SOURCE)


def as_span_event(record: LogEventRecord) -> SpanEventRecord:
    """A GenAI log record as the span event of the same name: its body's fields (a map) or
    ``content`` (a string) as attributes, beside the record's own attributes."""
    attributes = dict(record.attributes)
    body = record.body
    if isinstance(body, dict):
        attributes.update(body)
    elif isinstance(body, str) and body:
        attributes.setdefault("content", body)
    return SpanEventRecord(record.event_name, record.time_unix_nano, attributes)
