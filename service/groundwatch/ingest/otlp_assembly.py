"""Collects the spans (and GenAI log records) of OpenTelemetry traces and turns each finished trace
into one :class:`~groundwatch.contract.trace.RagTrace` (the reading itself: ``rag_reading.py``).

Spans of one trace may arrive in several export requests, and GenAI content may arrive apart, as
log records (``/v1/logs``) carrying the trace and span id of their chat span.
:class:`TraceAssembler` keeps both for a bounded time and finishes a trace:

* ``complete``: as soon as it is *structurally complete* (a retrieval span, an LLM span, and the
  LLM span's ancestry reaches a root or CHAIN/agent span that has arrived) and its question,
  passages and answer could all be read; or once its root span and an LLM span have arrived (the
  root ends last: the request is over) even though something could not be read, unless the
  missing answer may still come as log records (an LLM span without any content);
* ``window``: when its window expires; ``shutdown``: at :meth:`TraceAssembler.drain`.

Every finished trace is recorded in :class:`~groundwatch.ingest.coverage.IngestCoverage` by the
library that made it and what could not be read (``AssembledTrace.missing``), and a dropped one
(no question, not RAG) is counted in ``groundwatch_otlp_traces_dropped_total{reason}`` and, when
the request being handled finished it, reported back as rejected spans.

Memory is bounded: at most ``max_pending`` traces and ``max_spans_per_trace`` spans each; the
oldest trace is evicted (and counted) to make room. :meth:`TraceAssembler.pending_bytes`
estimates the text held (attribute values, names); the OTLP receiver refuses new requests (503)
while it is over ``otel.max_pending_bytes``, so spans put back on backpressure cannot pile up.

Usage::

    assembler = TraceAssembler(window_s=5.0, max_pending=10_000, registry=registry)
    done = assembler.add(spans).completed          # traces finished by these spans
    done += assembler.add_logs(records).completed  # ... or by these GenAI log records
    done += assembler.expire()                     # traces whose window ran out (periodically)
    for item in done: item.trace, item.missing     # a RagTrace; item.root: the producer's root
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from prometheus_client import CollectorRegistry, Counter, Gauge

from groundwatch.contract.trace import RagTrace
from groundwatch.ingest import genai
from groundwatch.ingest.coverage import IngestCoverage
from groundwatch.ingest.otlp_decode import LogEventRecord, SpanEventRecord, SpanRecord
from groundwatch.ingest.rag_reading import (
    DEFAULT_ATTRIBUTE_MAP,
    FALLBACK_KINDS,
    Assembly,
    assemble,
    assemble_trace,
    is_complete,
    span_roles,
)
from groundwatch.ingest.semconv import llm_messages

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

Trigger = Literal["complete", "window", "shutdown"]


@dataclass(frozen=True)
class AssembledTrace:
    """A trace ready for ingest, with the spans it was built from (to requeue on backpressure)."""

    trace: RagTrace
    spans: tuple[SpanRecord, ...]
    trigger: Trigger
    root: SpanRecord | None
    fallbacks: tuple[str, ...] = ()
    library: str = "unknown"
    missing: tuple[str, ...] = ()  # parts not read: "passages", "answer" (see Assembly)


@dataclass
class AddResult:
    completed: list[AssembledTrace] = field(default_factory=list)
    rejected_spans: int = 0
    reasons: dict[str, int] = field(default_factory=dict)
    log_records: int = 0  # log records joined to a pending trace (add_logs)

    def reject(self, reason: str, n: int = 1) -> None:
        self.rejected_spans += n
        self.reasons[reason] = self.reasons.get(reason, 0) + n


@dataclass
class _Pending:
    deadline: float
    spans: dict[str, SpanRecord] = field(default_factory=dict)
    size: int = 0  # estimated bytes of its spans (span_size) and log events
    events: dict[str, list[SpanEventRecord]] = field(default_factory=dict)  # by span id (logs)
    requeued: bool = False  # already recorded in the coverage once

    def merged(self) -> list[SpanRecord]:
        """The spans with the log records joined to them as span events."""
        if not self.events:
            return list(self.spans.values())
        return [
            dataclasses.replace(span, events=span.events + tuple(self.events[span.span_id]))
            if span.span_id in self.events
            else span
            for span in self.spans.values()
        ]


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
        coverage: IngestCoverage | None = None,
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
        self.coverage = coverage if coverage is not None else IngestCoverage(registry)
        self.log_records = Counter(
            "groundwatch_otlp_log_records",
            "GenAI log records received on /v1/logs, by outcome (joined: held with their trace; "
            "late: their trace was already finished; span_limit: over max_spans_per_trace).",
            ["outcome"],
            registry=registry,
        )
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
            self._finish_ready(touched, result)
        return result

    def add_logs(self, records: Iterable[LogEventRecord]) -> AddResult:
        """Hold GenAI log records with their trace, to be joined to their span (by span id) as
        span events; return the traces they finished."""
        result = AddResult()
        now = self._clock()
        touched: list[str] = []
        with self._lock:
            for record in records:
                if record.trace_id in self._emitted:
                    self.log_records.labels(outcome="late").inc()
                    continue
                entry = self._pending.get(record.trace_id)
                if entry is None:
                    self._make_room()
                    entry = _Pending(deadline=now + self.window_s)
                    self._pending[record.trace_id] = entry
                if sum(len(e) for e in entry.events.values()) >= self.max_spans_per_trace:
                    self.log_records.labels(outcome="span_limit").inc()
                    continue
                event = genai.as_span_event(record)
                entry.events.setdefault(record.span_id, []).append(event)
                size = len(event.name) + sum(
                    len(k) + _value_size(v) for k, v in event.attributes.items()
                )
                entry.size += size
                self._bytes += size
                self.log_records.labels(outcome="joined").inc()
                result.log_records += 1
                touched.append(record.trace_id)
            self._finish_ready(touched, result)
        return result

    def _finish_ready(self, touched: list[str], result: AddResult) -> None:
        for trace_id in dict.fromkeys(touched):
            pending = self._pending.get(trace_id)
            if pending is None:
                continue
            assembly = self._ready(pending)
            if assembly is not None:
                self._finish(trace_id, "complete", result.completed, result, assembly)
        self.pending_gauge.set(len(self._pending))

    def _ready(self, entry: _Pending) -> Assembly | None:
        """The trace's assembly when it can be finished now (module docstring), else None."""
        has_root = any(span.is_root for span in entry.spans.values())
        if not has_root and not is_complete(entry.spans):
            return None
        spans = entry.merged()
        assembly = assemble(spans, self.attribute_map)
        if assembly.trace is not None and not assembly.missing:
            return assembly
        if not has_root or not span_roles(spans)["llm"]:
            return None  # no LLM call yet: another process may still export it
        if "answer" in assembly.missing and _content_free_llm(spans):
            return None  # its content may still come as log records: wait for the window
        return assembly

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
                entry.requeued = True
                for span in item.spans:
                    self._put(entry, span, replace=False)
            self.pending_gauge.set(len(self._pending))

    def _make_room(self) -> None:
        while len(self._pending) >= self.max_pending:
            self._pop()
            self.dropped.labels(reason="evicted").inc()

    def _finish(
        self,
        trace_id: str,
        trigger: Trigger,
        out: list[AssembledTrace],
        request: AddResult | None = None,
        assembly: Assembly | None = None,
    ) -> None:
        """Assemble (unless done) and emit or drop one trace; record it in the coverage; a RAG
        trace dropped while handling a request is reported in ``request`` as rejected spans."""
        _, entry = self._pop(trace_id)
        self._emitted[trace_id] = None
        while len(self._emitted) > self.max_pending:
            self._emitted.popitem(last=False)
        spans = entry.merged()
        result = assembly if assembly is not None else assemble(spans, self.attribute_map)
        is_rag = result.reason != "not_rag" or result.library != "unknown"
        if not entry.requeued and is_rag:
            self.coverage.record(result.library, missing=result.missing, dropped=not result.trace)
        if result.trace is None:
            self.dropped.labels(reason=result.reason).inc()
            if request is not None and result.reason != "not_rag":
                request.reject(f"{result.reason} ({result.library} trace)", len(spans))
            return
        self.assembled.labels(trigger=trigger).inc()
        out.append(
            AssembledTrace(
                result.trace,
                tuple(entry.spans.values()),
                trigger,
                result.root,
                result.fallbacks,
                result.library,
                result.missing,
            )
        )


def _content_free_llm(spans: Iterable[SpanRecord]) -> bool:
    """True when an LLM span carries no message content at all (content sent as log records,
    or not captured)."""
    for span in span_roles(spans)["llm"]:
        inputs, outputs = llm_messages(span, output_value=False)
        if not inputs and not outputs:
            return True
    return False
