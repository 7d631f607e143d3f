"""Reading RAG facts out of span attributes: GenAI semantic conventions, OpenInference, OpenLLMetry.

Usage::

    role = span_role(span)                 # "retrieval" | "llm" | "chain" | None
    docs = documents(span)                 # retrieved passages, in order
    inputs, outputs = llm_messages(span)   # [(role, text)], [answer texts]
    text = answer_from_output(span)        # output.value as an answer (JSON parsed), or None

OpenLLMetry (``traceloop-sdk``, ``opentelemetry-instrumentation-langchain``) is read through its
GenAI attributes plus ``gen_ai.operation.name=vector_db_retrieve`` and the documents and query in
``traceloop.entity.output`` / ``traceloop.entity.input`` (JSON).

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
    "answer_from_output",
    "documents",
    "llm_messages",
    "make_document",
    "model_name",
    "parse_json",
    "query_field",
    "query_text",
    "span_role",
    "text_of",
]

SpanRole = Literal["retrieval", "llm", "chain"]

_OI_KIND = "openinference.span.kind"
_GENAI_OP = "gen_ai.operation.name"
_RETRIEVAL_OPS = frozenset({"retrieval", "retrieve", "vector_db_retrieve"})
_LLM_OPS = frozenset({"chat", "text_completion", "generate_content", "completion"})
_CHAIN_OPS = frozenset({"invoke_agent", "invoke_workflow", "workflow"})
_TL_KIND = "traceloop.span.kind"
_TL_CHAIN_KINDS = frozenset({"workflow", "agent"})
# OpenLLMetry task spans carry their I/O as JSON here (older releases: traceloop.entity.*).
_TL_INPUT = ("traceloop.entity.input", "gen_ai.task.input")
_TL_OUTPUT = ("traceloop.entity.output", "gen_ai.task.output")
# Keys of a JSON output.value that hold the answer text (LlamaIndex: response; chains: answer...).
_ANSWER_KEYS = ("response", "answer", "output", "outputs", "text", "content", "result")
_PLACEHOLDER = re.compile(r"^<[\w .]*object[^>]*>$")  # "<generator object>", not an answer
# Metadata keys that stand in for the dedicated document score/id attributes.
_META_SCORE = ("score", "relevance_score", "similarity_score")
_META_ID = ("id", "doc_id", "document_id")
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
    """A retrieved passage. ``score_from_metadata``/``id_from_metadata``: the value came from the
    document's metadata because the dedicated attribute was missing."""

    text: str
    id: str | None = None
    score: float | None = None
    source: str | None = None
    score_from_metadata: bool = False
    id_from_metadata: bool = False


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
    tl_kind = attrs.get(_TL_KIND)
    if isinstance(tl_kind, str) and tl_kind in _TL_CHAIN_KINDS and op not in _LLM_OPS:
        return "chain"
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


def llm_messages(
    span: SpanRecord, *, output_value: bool = True
) -> tuple[list[tuple[str, str]], list[str]]:
    """The LLM call's input messages [(role, text)] and output texts, from any vocabulary.
    With ``output_value`` (default), a span without output messages falls back to its
    ``output.value`` (see :func:`answer_from_output`)."""
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
    if not outputs and output_value:
        text = answer_from_output(span)
        if text:
            outputs.append(text)
    return inputs, outputs


def _answer_field(parsed: Any) -> str | None:
    """The answer text of a parsed JSON output: a response/answer/... string field, one level of
    nesting at most (``{"outputs": {"answer": ...}}``)."""
    if not isinstance(parsed, dict):
        return None
    for key in _ANSWER_KEYS:
        value = parsed.get(key)
        if isinstance(value, dict):
            value = _answer_field(value) if value is not parsed else None
        if isinstance(value, str) and value.strip() and not _PLACEHOLDER.match(value.strip()):
            return value
    return None


def answer_from_output(span: SpanRecord) -> str | None:
    """A span's ``output.value`` read as an answer. Plain text is the answer; a JSON value
    (``output.mime_type=application/json``, or text that parses as a JSON object) gives its
    response/answer field, or None when it has none (never the JSON itself); placeholders such
    as ``<generator object>`` are None."""
    value = span.attributes.get("output.value")
    if not isinstance(value, str) or not value.strip():
        return None
    stripped = value.strip()
    is_json = span.attributes.get("output.mime_type") == "application/json"
    if is_json or stripped[:1] == "{":
        parsed = _loads(stripped)
        if parsed is not None or is_json:
            return _answer_field(parsed)
    if _PLACEHOLDER.match(stripped):
        return None
    return value


def _json_attr(attrs: Mapping[str, AttributeValue], keys: tuple[str, ...]) -> Any:
    for key in keys:
        parsed = _loads(attrs.get(key))
        if parsed is not None:
            return parsed
    return None


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
        role = span_role(span)
        if role == "chain":
            users = [t for r, t in _messages(attrs.get("gen_ai.input.messages")) if r == "user"]
            if users:
                return users[-1]
        if role is not None:  # OpenLLMetry: {"query": ...} or {"inputs": ...} as JSON
            return _query_field(_json_attr(attrs, _TL_INPUT))
        return None
    if attrs.get("input.mime_type") == "application/json" or value[:1] == "{":
        return _query_field(_loads(value))
    return value


def _query_field(parsed: Any, depth: int = 0) -> str | None:
    if not isinstance(parsed, dict) or depth > 1:
        return None
    for key in ("question", "query", "input", "query_str", "message", "inputs"):
        found = parsed.get(key)
        if isinstance(found, dict):
            found = _query_field(found, depth + 1)
        if isinstance(found, str) and found:
            return found
    return None


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


def _metadata(value: Any) -> dict[str, Any]:
    parsed = _loads(value) if not isinstance(value, dict) else value
    return parsed if isinstance(parsed, dict) else {}


def _source(metadata: Mapping[str, Any]) -> str | None:
    for key in ("source", "url", "file_name"):
        value = metadata.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _doc_id(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        return None
    return str(value)


def _document(text: str, doc_id: Any, score: Any, metadata: Any) -> Document:
    """A Document whose missing id/score are taken from its metadata (and flagged so)."""
    meta = _metadata(metadata)
    found_id, found_score = _doc_id(doc_id), _as_float(score)
    id_from_meta = score_from_meta = False
    if found_id is None:
        found_id = next((i for i in (_doc_id(meta.get(k)) for k in _META_ID) if i), None)
        id_from_meta = found_id is not None
    if found_score is None:
        found_score = next(
            (s for s in (_as_float(meta.get(k)) for k in _META_SCORE) if s is not None), None
        )
        score_from_meta = found_score is not None
    return Document(
        text=text,
        id=found_id,
        score=found_score,
        source=_source(meta),
        score_from_metadata=score_from_meta,
        id_from_metadata=id_from_meta,
    )


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
                docs.append(
                    _document(text, leaf.get("id"), leaf.get("score"), leaf.get("metadata"))
                )
        return docs
    parsed = _loads(attrs.get("gen_ai.retrieval.documents"))
    if not isinstance(parsed, list):
        # OpenLLMetry: {"documents": [{"page_content", "metadata"}], ...} on the task output.
        output = _json_attr(attrs, _TL_OUTPUT)
        parsed = output.get("documents") if isinstance(output, dict) else None
    if isinstance(parsed, list):
        for item in parsed:
            if not isinstance(item, dict):
                continue
            raw = next((item[k] for k in ("content", "text", "page_content") if k in item), None)
            text = _text(raw)
            if not text:
                continue
            docs.append(_document(text, item.get("id"), item.get("score"), item.get("metadata")))
    return docs


def model_name(span: SpanRecord) -> str | None:
    for key in (
        "gen_ai.request.model",
        "gen_ai.response.model",
        "llm.model_name",
        "traceloop.association.properties.ls_model_name",  # OpenLLMetry, LangChain's metadata
    ):
        value = span.attributes.get(key)
        if isinstance(value, str) and value and value != "unknown":  # OpenLLMetry's "unknown"
            return value
    return None


# Shared with the per-library readers (openllmetry.py, langfuse.py, genai.py).
parse_json = _loads
text_of = _text
query_field = _query_field
make_document = _document
