"""Reading RAG facts out of span attributes: the GenAI semantic conventions and OpenInference.

Usage::

    role = span_role(span)                 # "retrieval" | "llm" | "chain" | None
    docs = documents(span)                 # retrieved passages, in order
    inputs, outputs = llm_messages(span)   # [(role, text)], [answer texts]

Every reader tolerates missing, mistyped or malformed attributes: it returns less, never raises.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from groundwatch.ingest.otlp_decode import AttributeValue, SpanRecord

__all__ = [
    "Document",
    "SpanRole",
    "documents",
    "llm_messages",
    "model_name",
    "query_text",
    "span_role",
]

SpanRole = Literal["retrieval", "llm", "chain"]

_OI_KIND = "openinference.span.kind"
_GENAI_OP = "gen_ai.operation.name"
_RETRIEVAL_OPS = frozenset({"retrieval", "retrieve"})
_LLM_OPS = frozenset({"chat", "text_completion", "generate_content", "completion"})
_CHAIN_OPS = frozenset({"invoke_agent", "invoke_workflow", "workflow"})
_LLM_HINTS = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.prompt",
    "gen_ai.completion",
    "gen_ai.prompt.0.content",
    "gen_ai.completion.0.content",
    "llm.input_messages.0.message.content",
    "llm.output_messages.0.message.content",
)
_OI_DOC = re.compile(
    r"^(retrieval\.documents|reranker\.output_documents|reranker\.input_documents)"
    r"\.(\d+)\.document\.(\w+)$"
)
_OI_MSG = re.compile(r"^llm\.(input|output)_messages\.(\d+)\.message\.(role|content)$")
_LEGACY_MSG = re.compile(r"^gen_ai\.(prompt|completion)\.(\d+)\.(role|content)$")


@dataclass(frozen=True)
class Document:
    text: str
    id: str | None = None
    score: float | None = None
    source: str | None = None


def span_role(span: SpanRecord) -> SpanRole | None:
    """What a span is in a RAG request, or None for anything else (HTTP, DB, tool...)."""
    attrs = span.attributes
    kind = attrs.get(_OI_KIND)
    if isinstance(kind, str):
        kind = kind.upper()
        if kind in ("RETRIEVER", "RERANKER"):
            return "retrieval"
        if kind == "LLM":
            return "llm"
        if kind in ("CHAIN", "AGENT"):
            return "chain"
    op = attrs.get(_GENAI_OP)
    if isinstance(op, str):
        if op in _RETRIEVAL_OPS:
            return "retrieval"
        if op in _LLM_OPS:
            return "llm"
        if op in _CHAIN_OPS:
            return "chain"
    if "gen_ai.retrieval.documents" in attrs or any(_OI_DOC.match(k) for k in attrs):
        return "retrieval"
    if any(key in attrs for key in _LLM_HINTS):
        return "llm"
    if any(e.name in ("gen_ai.choice", "gen_ai.content.completion") for e in span.events):
        return "llm"
    return None


def _loads(value: AttributeValue) -> Any:
    """Structured values as they are; JSON strings parsed; anything else None."""
    if isinstance(value, list | dict):
        return value
    if isinstance(value, str) and value[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, RecursionError):
            return None
    return None


def _text(value: Any, depth: int = 0) -> str | None:
    """The text of a message, a part list, or a plain string."""
    if depth > 8:
        return None
    if isinstance(value, str):
        return value or None
    if isinstance(value, list):
        texts = [_text(v, depth + 1) for v in value]
        joined = "\n".join(t for t in texts if t)
        return joined or None
    if isinstance(value, dict):
        if value.get("type") not in (None, "text"):
            return None  # tool calls, images, ... carry no answer text
        for key in ("content", "text", "parts", "message"):
            if key in value:
                found = _text(value[key], depth + 1)
                if found:
                    return found
    return None


def _messages(value: AttributeValue) -> list[tuple[str, str]]:
    """[(role, text)] from a GenAI messages attribute (JSON string or structured)."""
    parsed = _loads(value)
    if isinstance(parsed, dict):
        parsed = [parsed]
    if not isinstance(parsed, list):
        return []
    out: list[tuple[str, str]] = []
    for item in parsed:
        if isinstance(item, dict):
            role = item.get("role")
            text = _text(item.get("parts", item.get("content", item.get("message"))))
            if text:
                out.append((role if isinstance(role, str) else "", text))
        elif isinstance(item, str) and item:
            out.append(("", item))
    return out


def _indexed(
    attrs: Mapping[str, AttributeValue], pattern: re.Pattern[str]
) -> dict[tuple[str, int], dict[str, AttributeValue]]:
    found: dict[tuple[str, int], dict[str, AttributeValue]] = {}
    for key, value in attrs.items():
        match = pattern.match(key)
        if match:
            group, index, leaf = match.groups()
            found.setdefault((group, int(index)), {})[leaf] = value
    return found


def llm_messages(span: SpanRecord) -> tuple[list[tuple[str, str]], list[str]]:
    """The LLM call's input messages [(role, text)] and output texts, from any vocabulary."""
    attrs = span.attributes
    inputs: list[tuple[str, str]] = []
    outputs: list[str] = []
    # GenAI (current): structured messages on the span or on the operation-details event.
    inputs += _messages(attrs.get("gen_ai.input.messages"))
    outputs += [text for _, text in _messages(attrs.get("gen_ai.output.messages"))]
    # OpenInference and legacy GenAI flattened messages.
    for pattern in (_OI_MSG, _LEGACY_MSG):
        for (group, _), leaf in sorted(_indexed(attrs, pattern).items()):
            text, role = leaf.get("content"), leaf.get("role")
            if not isinstance(text, str) or not text:
                continue
            if group in ("input", "prompt"):
                inputs.append((role if isinstance(role, str) else "user", text))
            else:
                outputs.append(text)
    # Legacy GenAI single attributes: a plain prompt/completion string or a JSON message list.
    for key, sink_is_input in (("gen_ai.prompt", True), ("gen_ai.completion", False)):
        value = attrs.get(key)
        msgs = _messages(value) or ([("user", value)] if isinstance(value, str) and value else [])
        if sink_is_input:
            inputs += [(role or "user", text) for role, text in msgs]
        else:
            outputs += [text for _, text in msgs]
    for event in span.events:
        ev = event.attributes
        if event.name in ("gen_ai.user.message", "gen_ai.content.prompt"):
            text = _event_text(ev, ("content", "gen_ai.prompt", "message", "body"))
            if text:
                inputs.append(("user", text))
        elif event.name in ("gen_ai.choice", "gen_ai.content.completion"):
            text = _event_text(ev, ("message", "content", "gen_ai.completion", "body"))
            if text:
                outputs.append(text)
        elif event.name == "gen_ai.client.inference.operation.details":
            inputs += _messages(ev.get("gen_ai.input.messages"))
            outputs += [text for _, text in _messages(ev.get("gen_ai.output.messages"))]
    if not outputs:
        value = attrs.get("output.value")
        if isinstance(value, str) and value:
            outputs.append(value)
    return inputs, outputs


def _event_text(attrs: Mapping[str, AttributeValue], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = attrs.get(key)
        parsed = _loads(value)
        text = _text(parsed if parsed is not None else value)
        if text:
            return text
    return None


def query_text(span: SpanRecord) -> str | None:
    """The query a retrieval or chain span was given (``input.value`` or GenAI query text)."""
    attrs = span.attributes
    value = attrs.get("gen_ai.retrieval.query.text")
    if isinstance(value, str) and value:
        return value
    value = attrs.get("input.value")
    if not isinstance(value, str) or not value:
        if span_role(span) == "chain":
            users = [t for r, t in _messages(attrs.get("gen_ai.input.messages")) if r == "user"]
            return users[-1] if users else None
        return None
    if attrs.get("input.mime_type") == "application/json" or value[:1] == "{":
        parsed = _loads(value)
        if isinstance(parsed, dict):
            for key in ("question", "query", "input", "query_str"):
                found = parsed.get(key)
                if isinstance(found, str) and found:
                    return found
            return None
    return value


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _source(metadata: Any) -> str | None:
    parsed = _loads(metadata) if not isinstance(metadata, dict) else metadata
    if isinstance(parsed, dict):
        for key in ("source", "url", "file_name"):
            value = parsed.get(key)
            if isinstance(value, str) and value:
                return value
    return None


def documents(span: SpanRecord) -> list[Document]:
    """Retrieved passages of a retrieval/rerank span, in rank order. Text-less ones are skipped."""
    attrs = span.attributes
    docs: list[Document] = []
    flat = _indexed(attrs, _OI_DOC)
    if flat:
        # A reranker lists inputs and outputs; what the model saw is the output.
        groups = {key[0] for key in flat}
        wanted = (
            "reranker.output_documents"
            if "reranker.output_documents" in groups
            else "retrieval.documents"
        )
        for (group, _), leaf in sorted(flat.items(), key=lambda kv: kv[0][1]):
            if group != wanted:
                continue
            text = leaf.get("content")
            if isinstance(text, str) and text:
                doc_id = leaf.get("id")
                docs.append(
                    Document(
                        text=text,
                        id=str(doc_id) if isinstance(doc_id, str | int) and doc_id != "" else None,
                        score=_as_float(leaf.get("score")),
                        source=_source(leaf.get("metadata")),
                    )
                )
        return docs
    parsed = _loads(attrs.get("gen_ai.retrieval.documents"))
    if isinstance(parsed, list):
        for item in parsed:
            if not isinstance(item, dict):
                continue
            text = _text({k: item[k] for k in ("content", "text") if k in item})
            if not text:
                continue
            doc_id = item.get("id")
            docs.append(
                Document(
                    text=text,
                    id=str(doc_id) if isinstance(doc_id, str | int) and doc_id != "" else None,
                    score=_as_float(item.get("score")),
                    source=_source(item.get("metadata")),
                )
            )
    return docs


def model_name(span: SpanRecord) -> str | None:
    for key in ("gen_ai.request.model", "gen_ai.response.model", "llm.model_name"):
        value = span.attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None
