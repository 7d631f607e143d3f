"""Turns the spans of one OpenTelemetry trace into one :class:`~groundwatch.contract.trace.RagTrace`.

Three attribute vocabularies are read (see ``semconv.py`` for the exact keys):

* OpenTelemetry GenAI semantic conventions: ``gen_ai.operation.name`` (``retrieval``, ``chat``,
  ``text_completion``, ``invoke_agent`` ...), ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  (JSON), the legacy ``gen_ai.prompt`` / ``gen_ai.completion`` attributes (also flattened as
  ``gen_ai.prompt.{i}.content``), the events ``gen_ai.user.message`` / ``gen_ai.choice``, and
  ``gen_ai.retrieval.documents`` / ``gen_ai.retrieval.query.text`` on retrieval spans.
* OpenInference: ``openinference.span.kind`` (RETRIEVER, RERANKER, LLM, CHAIN, AGENT),
  ``input.value`` / ``output.value``, ``retrieval.documents.{i}.document.{content,id,score}``,
  ``llm.input_messages.{i}.message.{role,content}``, ``llm.output_messages.{i}.message.content``.
* OpenLLMetry: its GenAI attributes, ``gen_ai.operation.name=vector_db_retrieve`` and the JSON in
  ``traceloop.entity.input`` / ``traceloop.entity.output``.

The answer is the output text of the *latest LLM span that has one* (a streaming LlamaIndex query
ends with an LLM span without output); only when no LLM span has output text is the root span's
``output.value`` used, and a JSON one (``output.mime_type=application/json``) only through its
response/answer field, never as JSON. A document's missing score or id is taken from its metadata
(``score``, ``relevance_score``, ``id``, ``doc_id``). Each such fallback is named in
:attr:`AssembledTrace.fallbacks` (see :data:`FALLBACK_KINDS`); the OTLP receiver counts them in
``groundwatch_otlp_fallbacks_total{kind}`` so operators see which path their spans take.

Spans of one trace may arrive in several export requests. :class:`TraceAssembler` keeps them for a
bounded time and emits the trace as soon as it is *complete* (a retrieval span, an LLM span, and the
LLM span's ancestry reaches a root or CHAIN/agent span that has arrived) or when its window
expires. Memory is bounded: at most ``max_pending`` traces and ``max_spans_per_trace`` spans each;
the oldest trace is evicted (and counted) to make room. :meth:`TraceAssembler.pending_bytes`
estimates the text held (attribute values, names); the OTLP receiver refuses new requests (503)
while it is over ``otel.max_pending_bytes``, so spans put back on backpressure cannot pile up.

Usage::

    assembler = TraceAssembler(window_s=5.0, max_pending=10_000, registry=registry)
    done = assembler.add(spans)            # traces completed by these spans
    done += assembler.expire()             # traces whose window ran out (call periodically)
    for item in done: item.trace           # a RagTrace; item.root: the producer's root span
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Gauge
from pydantic import ValidationError

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.ingest.otlp_decode import SpanRecord
from groundwatch.ingest.semconv import (
    SpanRole,
    answer_from_output,
    documents,
    llm_messages,
    model_name,
    query_text,
    span_role,
)

__all__ = [
    "DEFAULT_ATTRIBUTE_MAP",
    "FALLBACK_KINDS",
    "AddResult",
    "AssembledTrace",
    "Assembly",
    "TraceAssembler",
    "assemble",
    "assemble_trace",
    "span_size",
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

Trigger = Literal["complete", "window", "shutdown"]


@dataclass(frozen=True)
class AssembledTrace:
    """A trace ready for ingest, with the spans it was built from (to requeue on backpressure)."""

    trace: RagTrace
    spans: tuple[SpanRecord, ...]
    trigger: Trigger
    root: SpanRecord | None
    fallbacks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Assembly:
    """What :func:`assemble` made of one trace's spans: the trace (None with a ``reason``), the
    producer's root span, and the fallback paths taken (keys of :data:`FALLBACK_KINDS`)."""

    trace: RagTrace | None
    root: SpanRecord | None
    reason: str = ""
    fallbacks: tuple[str, ...] = ()


@dataclass
class AddResult:
    completed: list[AssembledTrace] = field(default_factory=list)
    rejected_spans: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def reject(self, reason: str, n: int = 1) -> None:
        self.rejected_spans += n
        self.reasons[reason] = self.reasons.get(reason, 0) + n


@dataclass
class _Pending:
    deadline: float
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    size: int = 0  # estimated bytes of its spans (span_size)


_SPAN_OVERHEAD = 256  # ids, times, the record itself


def _value_size(value: object) -> int:
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, list | tuple):
        return sum(_value_size(v) for v in value) + 8 * len(value)
    if isinstance(value, dict):
        return sum(len(str(k)) + _value_size(v) for k, v in value.items())
    return 8


def span_size(span: SpanRecord) -> int:
    """Estimated bytes a decoded span holds: its names and attribute values, plus overhead."""
    size = _SPAN_OVERHEAD + len(span.name) + len(span.scope_name)
    size += sum(len(k) + _value_size(v) for k, v in span.attributes.items())
    for event in span.events:
        size += len(event.name) + sum(len(k) + _value_size(v) for k, v in event.attributes.items())
    return size


def _ancestry_reaches_top(spans: Mapping[str, SpanRecord], start: SpanRecord) -> bool:
    """True when walking parents from ``start`` ends at a root or a CHAIN/agent span."""
    current: SpanRecord | None = start
    for _ in range(len(spans) + 1):
        if current is None:
            return False
        if current.is_root or span_role(current) == "chain":
            return True
        current = spans.get(current.parent_span_id)
    return False


def _roles(spans: Iterable[SpanRecord]) -> dict[SpanRole, list[SpanRecord]]:
    out: dict[SpanRole, list[SpanRecord]] = {"retrieval": [], "llm": [], "chain": []}
    for span in spans:
        role = span_role(span)
        if role is not None:
            out[role].append(span)
    for group in out.values():
        group.sort(key=lambda s: (s.end_unix_nano, s.start_unix_nano))
    return out


def is_complete(spans: Mapping[str, SpanRecord]) -> bool:
    roles = _roles(spans.values())
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
        if not text:
            continue
        if position:
            fallbacks.append("answer_earlier_llm_span")
        if not outputs:
            fallbacks.append("answer_llm_output_value")
        return text
    if top is None:
        return None
    raw = top.attributes.get("output.value")
    if not isinstance(raw, str) or not raw.strip():
        return None
    text = answer_from_output(top)
    is_json = (
        top.attributes.get("output.mime_type") == "application/json" or raw.lstrip()[:1] == "{"
    )
    if is_json:
        fallbacks.append("answer_root_json" if text else "answer_root_json_ignored")
    elif text:
        fallbacks.append("answer_root_output")
    return text


def assemble(
    spans: Iterable[SpanRecord], attribute_map: Mapping[str, str] | None = None
) -> Assembly:
    """Build the RagTrace of one trace's spans, naming the fallbacks taken (module docstring)."""
    span_list = list(spans)
    if not span_list:
        return Assembly(None, None, "not_rag")
    roles = _roles(span_list)
    if not roles["retrieval"] and not roles["llm"]:
        return Assembly(None, None, "not_rag")
    top = _top_span(span_list, roles)
    llm = roles["llm"][-1] if roles["llm"] else None
    inputs, _ = llm_messages(llm) if llm else ([], [])
    fallbacks: list[str] = []

    question, question_source = None, ""
    chain_candidates = ([top] if top is not None else []) + roles["chain"]
    for span in chain_candidates:
        question = query_text(span)
        if question:
            question_source = "chain"
            break
    if not question:
        for span in roles["retrieval"]:
            question = query_text(span)
            if question:
                question_source = "retrieval"
                break
    if not question:
        users = [text for role, text in inputs if role == "user" and text]
        if users:
            question, question_source = users[-1], "llm"
    if not question:
        return Assembly(None, top, "no_question")
    if question_source != "chain":
        fallbacks.append(f"question_from_{question_source}")

    # The passages the model saw are those of the last retrieval/rerank step with documents.
    passages: list[ContextPassage] = []
    for span in reversed(roles["retrieval"]):
        docs = documents(span)
        if docs:
            passages = [
                ContextPassage(text=d.text, id=d.id, score=d.score, rank=i + 1, source=d.source)
                for i, d in enumerate(docs)
            ]
            if any(d.score_from_metadata for d in docs):
                fallbacks.append("score_from_metadata")
            if any(d.id_from_metadata for d in docs):
                fallbacks.append("id_from_metadata")
            break

    answer = _answer(roles, top, fallbacks)

    attributes = _slice_attributes(span_list, top, attribute_map or DEFAULT_ATTRIBUTE_MAP)
    model = next((m for m in (model_name(s) for s in reversed(roles["llm"])) if m), None)
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
        return Assembly(None, top, "invalid", tuple(fallbacks))
    return Assembly(trace, top, "", tuple(fallbacks))


class TraceAssembler:
    """Collects spans per trace id and emits RagTraces (see module docstring). Thread-safe."""

    def __init__(
        self,
        *,
        window_s: float = 5.0,
        max_pending: int = 10_000,
        max_spans_per_trace: int = 512,
        attribute_map: Mapping[str, str] | None = None,
        registry: CollectorRegistry | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.window_s = max(0.0, window_s)
        self.max_pending = max(1, max_pending)
        self.max_spans_per_trace = max(1, max_spans_per_trace)
        self.attribute_map = dict(attribute_map or DEFAULT_ATTRIBUTE_MAP)
        self._clock = clock
        self._lock = threading.Lock()
        self._pending: OrderedDict[str, _Pending] = OrderedDict()
        self._bytes = 0  # sum of _Pending.size
        self._emitted: OrderedDict[str, None] = OrderedDict()
        registry = registry if registry is not None else CollectorRegistry()
        self.spans_received = Counter(
            "groundwatch_otlp_spans_received", "OTLP spans received.", registry=registry
        )
        self.spans_dropped = Counter(
            "groundwatch_otlp_spans_dropped",
            "OTLP spans not used, by reason (late, span_limit).",
            ["reason"],
            registry=registry,
        )
        self.assembled = Counter(
            "groundwatch_otlp_traces_assembled",
            "RagTraces assembled from OTLP spans, by trigger (complete, window, shutdown).",
            ["trigger"],
            registry=registry,
        )
        self.dropped = Counter(
            "groundwatch_otlp_traces_dropped",
            "OTLP traces that did not become a RagTrace, by reason.",
            ["reason"],
            registry=registry,
        )
        self.pending_gauge = Gauge(
            "groundwatch_otlp_pending_traces",
            "OTLP traces waiting for more spans.",
            registry=registry,
        )

    def pending(self) -> int:
        with self._lock:
            return len(self._pending)

    def pending_bytes(self) -> int:
        """Estimated bytes held by pending spans (see :func:`span_size`)."""
        with self._lock:
            return self._bytes

    def _put(self, entry: _Pending, span: SpanRecord, replace: bool) -> None:
        old = entry.spans.get(span.span_id)
        if old is not None and not replace:
            return
        delta = span_size(span) - (span_size(old) if old is not None else 0)
        entry.spans[span.span_id] = span
        entry.size += delta
        self._bytes += delta

    def _pop(self, trace_id: str | None = None) -> tuple[str, _Pending]:
        if trace_id is None:
            trace_id, entry = self._pending.popitem(last=False)
        else:
            entry = self._pending.pop(trace_id)
        self._bytes -= entry.size
        return trace_id, entry

    def add(self, spans: Iterable[SpanRecord]) -> AddResult:
        """Buffer spans; return the traces these spans completed and the spans rejected."""
        result = AddResult()
        now = self._clock()
        touched: list[str] = []
        with self._lock:
            for span in spans:
                self.spans_received.inc()
                if span.trace_id in self._emitted:
                    self.spans_dropped.labels(reason="late").inc()
                    continue
                entry = self._pending.get(span.trace_id)
                if entry is None:
                    self._make_room()
                    entry = _Pending(deadline=now + self.window_s)
                    self._pending[span.trace_id] = entry
                if span.span_id not in entry.spans and len(entry.spans) >= self.max_spans_per_trace:
                    self.spans_dropped.labels(reason="span_limit").inc()
                    result.reject("span_limit")
                    continue
                self._put(entry, span, replace=True)  # a re-sent span replaces itself
                touched.append(span.trace_id)
            for trace_id in dict.fromkeys(touched):
                pending = self._pending.get(trace_id)
                if pending is not None and is_complete(pending.spans):
                    self._finish(trace_id, "complete", result.completed)
            self.pending_gauge.set(len(self._pending))
        return result

    def expire(self, now: float | None = None) -> list[AssembledTrace]:
        """Emit (or drop, counted) every trace whose window has run out."""
        now = self._clock() if now is None else now
        out: list[AssembledTrace] = []
        with self._lock:
            while self._pending:
                trace_id, entry = next(iter(self._pending.items()))
                if entry.deadline > now:
                    break
                self._finish(trace_id, "window", out)
            self.pending_gauge.set(len(self._pending))
        return out

    def drain(self) -> list[AssembledTrace]:
        """Emit everything still pending (at shutdown)."""
        out: list[AssembledTrace] = []
        with self._lock:
            for trace_id in list(self._pending):
                self._finish(trace_id, "shutdown", out)
            self.pending_gauge.set(0)
        return out

    def requeue(self, items: Iterable[AssembledTrace]) -> None:
        """Put traces that could not be ingested (queue full) back; retried after a window."""
        now = self._clock()
        with self._lock:
            for item in items:
                trace_id = item.trace.trace_id
                self._emitted.pop(trace_id, None)
                entry = self._pending.get(trace_id)
                if entry is None:
                    self._make_room()
                    entry = _Pending(deadline=now + self.window_s)
                    self._pending[trace_id] = entry
                for span in item.spans:
                    self._put(entry, span, replace=False)
            self.pending_gauge.set(len(self._pending))

    def _make_room(self) -> None:
        while len(self._pending) >= self.max_pending:
            self._pop()
            self.dropped.labels(reason="evicted").inc()

    def _finish(self, trace_id: str, trigger: Trigger, out: list[AssembledTrace]) -> None:
        _, entry = self._pop(trace_id)
        self._emitted[trace_id] = None
        while len(self._emitted) > self.max_pending:
            self._emitted.popitem(last=False)
        result = assemble(entry.spans.values(), self.attribute_map)
        if result.trace is None:
            self.dropped.labels(reason=result.reason).inc()
            return
        self.assembled.labels(trigger=trigger).inc()
        out.append(
            AssembledTrace(
                result.trace, tuple(entry.spans.values()), trigger, result.root, result.fallbacks
            )
        )
