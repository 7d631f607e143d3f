"""OTLP/HTTP trace receiver: ``POST /v1/traces`` (protobuf or JSON), assembled into RagTraces.

The same handler answers Langfuse's default export path ``POST /api/public/otel/v1/traces``;
``POST /v1/logs`` takes GenAI content sent as log records (joined to their spans by trace and span
id); ``GET /v1/ingest/coverage`` (:func:`coverage_router`) shows, per instrumentation library, the
share of traces read completely.

Usage (app.py does this; the router's lifespan starts and stops the flusher)::

    receiver = otlp_receiver(runtime, otel, limits, ingest_fn)  # sections otel, limits
    app.include_router(otlp_router(receiver, max_body_bytes=api.max_body_bytes),
                       dependencies=write_auth)
    app.include_router(coverage_router(receiver), dependencies=read_auth)

    receiver = runtime.extras["otlp_receiver"]   # the same one; also used by Runtime.stop
    receiver.start(); ...; receiver.stop()        # idempotent

Responses follow the OTLP/HTTP specification: 200 with an ``ExportTraceServiceResponse`` in the
request's encoding (``partial_success.rejected_spans`` when some spans were refused), 400 with a
``google.rpc.Status`` for an undecodable body, 415 for another media type, 503 with
``Retry-After`` when the evaluation queue is full (the exporter retries; buffered spans are kept).

A trace is never half read in silence: one without a question is dropped, one whose passages
could not be read (no retrieval span, or none with a readable document field) is held back from
scoring (it would read as "answered without evidence"), and both are answered with
``partial_success`` (their spans rejected, an ``error_message`` naming the library and what was
missing); one without an answer is scored, with a warning in ``error_message``. All are counted in
``groundwatch_otlp_traces_read_total{source_library, completeness}`` and
``groundwatch_otlp_traces_missing_total{source_library, missing}``.
"""

from __future__ import annotations

import json
import logging
import threading
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, FastAPI, Request, Response
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, validate_trace
from groundwatch.ingest.otlp_assembly import AssembledTrace, TraceAssembler
from groundwatch.ingest.otlp_decode import (
    OtlpDecodeError,
    decode_otlp_logs_request,
    decode_otlp_request,
    media_kind,
)
from groundwatch.sections.connections import OtelSettings

if TYPE_CHECKING:
    from groundwatch.runtime import Runtime

__all__ = [
    "OTLP_PATHS",
    "OtlpBackpressureError",
    "OtlpReceiver",
    "OtlpStatusBodies",
    "coverage_router",
    "otlp_receiver",
    "otlp_router",
]

log = logging.getLogger(__name__)

IngestFn = Callable[["Runtime", list[RagTrace], str], dict[str, Any]]

_STATUS_INVALID_ARGUMENT = 3
_STATUS_UNAVAILABLE = 14


class OtlpBackpressureError(Exception):
    """The evaluation queue refused assembled traces; they were put back to be retried."""

    retriable = True


@dataclass
class ReceiveOutcome:
    spans: int
    rejected_spans: int
    error_message: str


@dataclass
class _Handover:
    """What :meth:`OtlpReceiver._ingest` did with a batch: spans refused, and why (messages)."""

    refused_spans: int = 0
    messages: list[str] | None = None

    def note(self, message: str, spans: int = 0) -> None:
        self.refused_spans += spans
        self.messages = [*(self.messages or []), message]


class OtlpReceiver:
    """Decodes requests, assembles traces and feeds them to ``ingest_fn``; flushes expired
    windows from a background thread between ``start()`` and ``stop()``. The ``otel`` section
    bounds the assembly (window, traces and bytes held); every trace is validated under
    ``limits``."""

    def __init__(
        self,
        runtime: Runtime,
        otel: OtelSettings,
        limits: TraceLimits,
        ingest_fn: IngestFn,
        *,
        assembler: TraceAssembler | None = None,
        flush_interval_s: float | None = None,
    ):
        self.runtime = runtime
        self.otel = otel
        self.limits = limits
        self.ingest_fn = ingest_fn
        attribute_map: dict[str, str] | None = getattr(otel, "attribute_map", None)
        self.assembler = assembler or TraceAssembler(
            window_s=otel.assembly_window_s,
            max_pending=otel.max_pending_traces,
            attribute_map=attribute_map or None,
            registry=runtime.registry,
        )
        window = self.assembler.window_s
        self.flush_interval_s = flush_interval_s or min(1.0, max(0.05, window / 4))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> None:
        with self._lock:
            if self._thread is not None:
                return
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="gw-otlp-flush", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the flusher and hand every pending trace that can be scored to the pipeline."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        thread.join(timeout=10)
        items = self.assembler.drain()
        if items:
            try:
                self._ingest(items)
            except OtlpBackpressureError:
                log.warning("queue full at shutdown: %d OTLP traces not scored", len(items))

    def _run(self) -> None:
        while not self._stop.wait(self.flush_interval_s):
            try:
                self.flush_expired()
            except OtlpBackpressureError:
                pass  # requeued; retried on a later tick
            except Exception:  # the flusher must outlive a bad trace or a store hiccup
                log.exception("OTLP flush failed")

    def flush_expired(self) -> int:
        """Ingest traces whose assembly window ran out; returns how many were handed over."""
        items = self.assembler.expire()
        if not items:
            return 0
        self._ingest(items)
        return len(items)

    # -- request path ----------------------------------------------------------------------
    def receive(
        self, body: bytes, content_type: str, traceparent: str | None = None
    ) -> ReceiveOutcome:
        """Decode one request and ingest what it completes. Raises OtlpDecodeError (400) or
        OtlpBackpressureError (503; also, before decoding, while the spans held for assembly
        are over ``otel.max_pending_bytes``). With a ``PipelineTracer`` in ``runtime.extras
        ["pipeline_tracer"]``, decoding is traced as a child of the request's ``traceparent``."""
        held = self.assembler.pending_bytes()
        if held > self.otel.max_pending_bytes:
            raise OtlpBackpressureError(
                f"{held} bytes of spans held for assembly (GROUNDWATCH_OTEL__MAX_PENDING_BYTES)"
            )
        tracer = self.runtime.extras.get("pipeline_tracer")
        if tracer is None:
            spans = decode_otlp_request(body, content_type)
        else:
            with tracer.stage("decode", traceparent=traceparent, attributes={"source": "otlp"}):
                spans = decode_otlp_request(body, content_type)
        result = self.assembler.add(spans)
        rejected = result.rejected_spans
        messages = [f"{n} spans: {reason}" for reason, n in sorted(result.reasons.items())]
        if result.completed:
            handover = self._ingest(result.completed)
            rejected += handover.refused_spans
            messages += handover.messages or []
        return ReceiveOutcome(len(spans), rejected, "; ".join(messages))

    def receive_logs(self, body: bytes, content_type: str) -> ReceiveOutcome:
        """Decode one ``/v1/logs`` request; GenAI log records are held with their trace and
        joined to their spans. ``spans`` counts the log records kept; nothing is rejected here
        (messages about the traces they finished are warnings)."""
        held = self.assembler.pending_bytes()
        if held > self.otel.max_pending_bytes:
            raise OtlpBackpressureError(f"{held} bytes of spans held for assembly")
        records = decode_otlp_logs_request(body, content_type)
        result = self.assembler.add_logs(records)
        messages: list[str] = []
        if result.completed:
            handover = self._ingest(result.completed)
            messages += handover.messages or []
        return ReceiveOutcome(len(records), 0, "; ".join(messages))

    def _ingest(self, items: list[AssembledTrace]) -> _Handover:
        """Validate and hand traces to ingest_fn; hold back those whose passages could not be
        read. Returns the spans refused and a message for each trace not read in full."""
        limits = self.limits
        valid: list[AssembledTrace] = []
        handover = _Handover()
        for item in items:
            if "passages" in item.missing:
                handover.note(
                    f"{len(item.spans)} spans: no passages readable in this {item.library} trace "
                    "(instrumentation gap); not scored",
                    len(item.spans),
                )
                continue
            try:
                validate_trace(item.trace.model_dump(mode="json"), limits)
            except TraceDecodeError as exc:
                self.runtime.metrics.rejected.labels(source="otlp", reason=exc.reason).inc()
                handover.note(
                    f"{len(item.spans)} spans: trace refused by the contract", len(item.spans)
                )
                continue
            if item.missing:
                handover.note(
                    f"trace read without {' or '.join(item.missing)} from this {item.library} "
                    "trace; scored as read"
                )
            valid.append(item)
        if not valid:
            return handover
        # Noted before the hand-over: a fast worker may emit the evaluation event right away.
        self._note_producers(valid)
        try:
            self.ingest_fn(self.runtime, [item.trace for item in valid], "otlp")
        except Exception as exc:
            if getattr(exc, "retriable", False):
                self.assembler.requeue(valid)
                raise OtlpBackpressureError(str(exc) or type(exc).__name__) from exc
            raise
        # Counted once handed over (a requeued trace is assembled again and counted then).
        for item in valid:
            for kind in item.fallbacks:
                self.runtime.metrics.otlp_fallbacks.labels(kind=kind).inc()
        return handover

    def _note_producers(self, items: list[AssembledTrace]) -> None:
        """Let the evaluation-event emitter link its spans to the producer's root span."""
        producers = self.runtime.extras.get("producer_contexts")
        if producers is None:
            return
        for item in items:
            span = item.root
            if span is not None:
                producers.note_ids(item.trace.trace_id, span.trace_id, span.span_id)


def _decompress(body: bytes, encoding: str, limit: int) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding not in ("gzip", "deflate"):
        raise OtlpDecodeError("bad_protobuf", f"unsupported content encoding {encoding!r}")
    wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise OtlpDecodeError("bad_protobuf", f"bad {encoding} body: {exc}") from None
    if len(out) > limit:
        raise _TooLargeError
    # A stream that ends early, or bytes after its end (a second gzip member included), is not
    # one well-formed body: refused rather than half read.
    if not inflater.eof:
        raise OtlpDecodeError("bad_protobuf", f"truncated {encoding} body")
    if inflater.unused_data:
        extra = len(inflater.unused_data)
        raise OtlpDecodeError("bad_protobuf", f"{extra} bytes after the end of the {encoding} body")
    return out


class _TooLargeError(Exception):
    pass


def _status_body(kind: str, code: int, message: str) -> bytes:
    """A google.rpc.Status in the request's encoding (code = field 1, message = field 2)."""
    if kind == "json":
        return json.dumps({"code": code, "message": message}).encode()
    text = message.encode("utf-8")
    return bytes([0x08, code]) + bytes([0x12]) + _varint(len(text)) + text


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


# HTTP status -> google.rpc.Code for errors raised outside the route (auth, limits, stores).
_GRPC_CODES = {
    400: 3,  # INVALID_ARGUMENT
    401: 16,  # UNAUTHENTICATED
    403: 7,  # PERMISSION_DENIED
    404: 5,  # NOT_FOUND
    405: 12,  # UNIMPLEMENTED
    408: 4,  # DEADLINE_EXCEEDED
    413: 3,  # INVALID_ARGUMENT, as the route's own 413
    415: 3,
    422: 3,
    429: 8,  # RESOURCE_EXHAUSTED
    503: 14,  # UNAVAILABLE
}
# Langfuse's SDK exports to <host>/api/public/otel/v1/traces; the handler is the same.
LANGFUSE_TRACES_PATH = "/api/public/otel/v1/traces"
OTLP_PATHS = frozenset({"/v1/traces", LANGFUSE_TRACES_PATH, "/v1/logs"})


class OtlpStatusBodies:
    """ASGI middleware: on ``POST /v1/traces`` (and the other :data:`OTLP_PATHS`), an error answered outside the route (401 from
    the token check, 413/503 from the body and request limits, 429, a store outage) carries a
    ``google.rpc.Status`` in the request's encoding, as the OTLP specification requires, not the
    API's ErrorBody. Headers such as ``Retry-After`` are kept. Other routes are untouched."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") not in OTLP_PATHS:
            await self.app(scope, receive, send)
            return
        content_type = ""
        for name, value in scope.get("headers", []):
            if name == b"content-type":
                content_type = value.decode("latin-1")
        try:
            kind = media_kind(content_type)
        except OtlpDecodeError:
            kind = "json"
        start: Message | None = None
        chunks: list[bytes] = []

        async def rewrite(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start" and message["status"] >= 400:
                start = message  # held until the body tells whether it is an ErrorBody
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            await _send_status(send, start, b"".join(chunks), kind)

        await self.app(scope, receive, rewrite)


async def _send_status(send: Send, start: Message, body: bytes, kind: str) -> None:
    status = int(start["status"])
    headers = [(k, v) for k, v in start.get("headers", []) if k.lower() not in _REPLACED]
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and "error" in parsed and "code" not in parsed:
        message = str(parsed.get("message") or parsed["error"])[:500]
        body = _status_body(kind, _GRPC_CODES.get(status, 13), message)  # 13: INTERNAL
        headers.append((b"content-type", _media(kind).encode()))
    else:  # already a google.rpc.Status (the route's own errors): as it was
        headers += [(k, v) for k, v in start.get("headers", []) if k.lower() == b"content-type"]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_REPLACED = frozenset({b"content-type", b"content-length"})


def _media(kind: str) -> str:
    return "application/json" if kind == "json" else "application/x-protobuf"


def _success(kind: str, outcome: ReceiveOutcome, *, logs: bool = False) -> Response:
    """An ``Export{Trace,Logs}ServiceResponse``, with ``partial_success`` when anything was
    rejected or not read in full (``error_message`` alone is a warning, as the spec allows)."""
    from google.protobuf import json_format
    from google.protobuf.message import Message as ProtoMessage
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    message: ProtoMessage
    if logs:
        message = ExportLogsServiceResponse()
        if outcome.rejected_spans or outcome.error_message:
            message.partial_success.rejected_log_records = outcome.rejected_spans
            message.partial_success.error_message = outcome.error_message[:2000]
    else:
        message = ExportTraceServiceResponse()
        if outcome.rejected_spans or outcome.error_message:
            message.partial_success.rejected_spans = outcome.rejected_spans
            message.partial_success.error_message = outcome.error_message[:2000]
    if kind == "json":
        content = json.dumps(json_format.MessageToDict(message)).encode()
    else:
        content = message.SerializeToString()
    return Response(content, status_code=200, media_type=_media(kind))


_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"description": "Undecodable body (google.rpc.Status)"},
    413: {"description": "Body too large"},
    415: {"description": "Unsupported media type"},
    503: {"description": "Evaluation queue full; retry after Retry-After"},
}


def otlp_receiver(
    runtime: Runtime, otel: OtelSettings, limits: TraceLimits, ingest_fn: IngestFn
) -> OtlpReceiver:
    """The runtime's receiver, built on first use and kept in ``runtime.extras
    ["otlp_receiver"]`` (``Runtime.stop`` hands its traces to the queue)."""
    receiver: OtlpReceiver | None = runtime.extras.get("otlp_receiver")
    if receiver is None:
        receiver = OtlpReceiver(runtime, otel, limits, ingest_fn)
        runtime.extras["otlp_receiver"] = receiver
    return receiver


def otlp_router(receiver: OtlpReceiver, *, max_body_bytes: int) -> APIRouter:
    """``POST /v1/traces``, ``/api/public/otel/v1/traces`` (Langfuse) and ``/v1/logs`` into
    ``receiver``, bodies up to ``max_body_bytes`` (``api.max_body_bytes``); the router's
    lifespan starts and stops the receiver's flusher."""
    limit = max_body_bytes

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        receiver.start()
        try:
            yield
        finally:
            await run_in_threadpool(receiver.stop)

    router = APIRouter(lifespan=lifespan)

    async def export(request: Request, *, logs: bool) -> Response:
        content_type = request.headers.get("content-type", "")
        try:
            kind = media_kind(content_type)
        except OtlpDecodeError as exc:
            return Response(
                _status_body("json", _STATUS_INVALID_ARGUMENT, exc.detail),
                status_code=415,
                media_type="application/json",
            )
        raw = await request.body()
        try:
            body = _decompress(raw, request.headers.get("content-encoding", ""), limit)
            if logs:
                outcome = await run_in_threadpool(receiver.receive_logs, body, content_type)
            else:
                outcome = await run_in_threadpool(
                    receiver.receive, body, content_type, request.headers.get("traceparent")
                )
        except _TooLargeError:
            message = f"decompressed body over {limit} bytes"
            return Response(
                _status_body(kind, _STATUS_INVALID_ARGUMENT, message),
                status_code=413,
                media_type=_media(kind),
            )
        except OtlpDecodeError as exc:
            receiver.runtime.metrics.rejected.labels(source="otlp", reason=exc.reason).inc()
            return Response(
                _status_body(kind, _STATUS_INVALID_ARGUMENT, str(exc)[:500]),
                status_code=400,
                media_type=_media(kind),
            )
        except OtlpBackpressureError:
            message = "evaluation queue or span buffer full; retry later"
            return Response(
                _status_body(kind, _STATUS_UNAVAILABLE, message),
                status_code=503,
                media_type=_media(kind),
                headers={"Retry-After": "2"},
            )
        return _success(kind, outcome, logs=logs)

    @router.post(
        "/v1/traces",
        tags=["ingest"],
        summary="OTLP/HTTP traces (application/x-protobuf or application/json)",
        responses=_RESPONSES,
    )
    async def export_traces(request: Request) -> Response:
        """Receive spans; RAG traces are assembled from retrieval and LLM spans, then scored."""
        return await export(request, logs=False)

    @router.post(
        LANGFUSE_TRACES_PATH,
        tags=["ingest"],
        summary="OTLP/HTTP traces at the Langfuse SDK's default export path",
        responses=_RESPONSES,
    )
    async def export_langfuse_traces(request: Request) -> Response:
        """The same as ``POST /v1/traces``, where the Langfuse SDK sends its spans."""
        return await export(request, logs=False)

    @router.post(
        "/v1/logs",
        tags=["ingest"],
        summary="OTLP/HTTP logs: GenAI content sent as log records",
        responses=_RESPONSES,
    )
    async def export_logs(request: Request) -> Response:
        """Receive GenAI log records (``gen_ai.user.message``, ``gen_ai.choice``, ...); each is
        joined to its span by trace and span id. Other log records are ignored."""
        return await export(request, logs=True)

    return router


def coverage_router(receiver: OtlpReceiver) -> APIRouter:
    """``GET /v1/ingest/coverage``: per instrumentation library, the OTLP traces seen by
    ``receiver`` and the share read completely (``IngestCoverage.view``)."""
    router = APIRouter()

    @router.get("/v1/ingest/coverage", tags=["ingest"], summary="OTLP read coverage by library")
    def coverage() -> dict[str, Any]:
        """Which instrumentation libraries were seen and what share of their traces were read
        with question, passages and answer; what was missing how often."""
        return receiver.assembler.coverage.view()

    return router
