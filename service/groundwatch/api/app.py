"""HTTP API: ``create_app(settings)`` builds the FastAPI application (sidecar mode and the
consumer-group deployment's probes and metrics).

Usage::

    app = create_app(Settings())                  # builds the Runtime on start-up
    app = create_app(settings, runtime=runtime)   # tests inject a runtime (e.g. a fake judge)

Endpoints: ``POST /v1/evaluate``, ``POST /v1/rag-traces``, ``POST /v1/traces`` (OTLP),
``GET /v1/findings``, ``GET /`` (findings page), ``GET /metrics``, ``GET /healthz``,
``GET /readyz``, ``/docs``. No input ever yields a 500: every handler validates and every
unexpected error becomes a JSON error with its kind, never a stack trace.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace, TraceDecodeError, validate_trace
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from groundwatch.state.stores import StoreUnavailableError

__all__ = ["BodySizeLimit", "create_app"]

log = logging.getLogger(__name__)


class BodySizeLimit:
    """ASGI middleware: 413 for bodies over ``max_bytes`` (declared or streamed)."""

    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared > self.max_bytes or declared < 0:
                    await _too_large(self.max_bytes)(scope, receive, send)
                    return
        received = 0

        async def limited() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise _BodyTooLargeError
            return message

        try:
            await self.app(scope, limited, send)
        except _BodyTooLargeError:
            await _too_large(self.max_bytes)(scope, receive, send)


class _BodyTooLargeError(Exception):
    pass


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse(
        {"error": "payload_too_large", "detail": f"request body over {limit} bytes"},
        status_code=413,
    )


def _field_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    out = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        out.append(
            {
                "field": ".".join(loc) or "(body)",
                "message": err.get("msg", ""),
                "type": err.get("type", ""),
            }
        )
    return out


def create_app(settings: Settings, runtime: Runtime | None = None) -> FastAPI:
    """Build the API around a runtime (built from ``settings`` when not given: loads the judge)."""
    runtime_ = runtime if runtime is not None else Runtime.build(settings)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        runtime_.start()
        try:
            yield
        finally:
            await run_in_threadpool(runtime_.stop)

    app = FastAPI(
        title="groundwatch",
        version="0.1.0",
        description="Reference-free monitoring of RAG assistants: faithfulness, contradictions, drift.",
        lifespan=lifespan,
    )
    app.add_middleware(BodySizeLimit, max_bytes=settings.api.max_body_bytes)

    def rt() -> Runtime:
        return runtime_

    from groundwatch.api.security import SecurityGuard

    guard = SecurityGuard(settings.api)
    app.state.guard = guard
    write_auth = [Depends(guard.require_write)]
    read_auth = [Depends(guard.require_read)]
    metrics_auth = [Depends(guard.require_metrics)]

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(
            {"error": "invalid_request", "errors": _field_errors(exc)}, status_code=422
        )

    @app.exception_handler(StoreUnavailableError)
    async def _store_down(_: Request, exc: StoreUnavailableError) -> JSONResponse:
        return JSONResponse(
            {"error": "store_unavailable", "detail": "state store unreachable; retry"},
            status_code=503,
            headers={"Retry-After": "5"},
        )

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return JSONResponse(
            {"error": "internal_error", "kind": type(exc).__name__}, status_code=503
        )

    @app.get("/healthz", tags=["ops"])
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"])
    def readyz() -> JSONResponse:
        checks = rt().readiness()
        ready = all(checks.values())
        return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)

    @app.get("/metrics", tags=["ops"], dependencies=metrics_auth)
    def metrics() -> Response:
        return Response(generate_latest(rt().registry), media_type=CONTENT_TYPE_LATEST)

    @app.post(
        "/v1/evaluate",
        tags=["evaluation"],
        dependencies=write_auth,
        responses={413: {"description": "Body or field over the configured limits"}},
    )
    def evaluate(
        trace: RagTrace,
        record: Annotated[
            bool, Query(description="Also count the trace in windows and findings.")
        ] = False,
    ) -> EvaluationRecord:
        """Score one trace synchronously and return its evaluation record."""
        try:
            validate_trace(trace.model_dump(mode="json"), settings.limits)
        except TraceDecodeError as exc:
            return _decode_error_response(exc)  # type: ignore[return-value]
        processor = rt().processor
        if record:
            processor.observe([trace], source="http")
            return processor.evaluate_and_record([trace])[0]
        return processor.evaluate([trace])[0]

    @app.post(
        "/v1/rag-traces",
        tags=["ingest"],
        status_code=202,
        dependencies=write_auth,
        responses={
            413: {"description": "Body or batch too large"},
            503: {"description": "Queue full"},
        },
    )
    def ingest(
        traces: Annotated[
            list[Any],
            Body(
                description="A batch of traces (trace contract v1); each item is validated on its own."
            ),
        ],
    ) -> JSONResponse:
        """Accept a batch of traces into the in-process pipeline (sampled, then scored)."""
        return _ingest(rt(), settings, traces, source="http")

    from groundwatch.api.findings import findings_router, page_router

    # The page and its assets hold no data: public. Its script sends the token the user pastes
    # (kept in sessionStorage) as a bearer header to the JSON routes, which need it.
    app.include_router(
        findings_router(runtime_.findings, runtime_.windows, settings, include_page=False),
        dependencies=read_auth,
    )
    app.include_router(page_router())
    try:
        from groundwatch.api.otlp import otlp_router
    except ImportError:
        log.debug("OTLP ingest not available")
    else:
        app.include_router(otlp_router(runtime_, settings, _ingest_valid), dependencies=write_auth)
    app.state.runtime = runtime_
    return app


def _decode_error_response(exc: TraceDecodeError) -> JSONResponse:
    status = 413 if exc.reason == "oversize" else 422
    errors = exc.errors or [
        {"field": exc.detail.split(":", 1)[0], "message": exc.detail, "type": exc.reason}
    ]
    return JSONResponse({"error": exc.reason, "errors": errors}, status_code=status)


IngestFn = Callable[[Runtime, list[RagTrace], str], dict[str, Any]]


def _ingest_valid(runtime: Runtime, traces: list[RagTrace], source: str) -> dict[str, Any]:
    """Observe valid traces and queue the sampled ones. Raises QueueFullError when full."""
    if runtime.queue.free() < len(traces):
        raise QueueFullError
    sampled = runtime.processor.observe(traces, source=source)
    if not runtime.queue.offer(sampled):
        raise QueueFullError
    return {"sampled": len(sampled)}


class QueueFullError(Exception):
    retriable = True


def _ingest(runtime: Runtime, settings: Settings, items: list[Any], source: str) -> JSONResponse:
    if len(items) > settings.api.max_batch:
        return JSONResponse(
            {"error": "batch_too_large", "detail": f"more than {settings.api.max_batch} traces"},
            status_code=413,
        )
    valid: list[RagTrace] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        trace_id = item.get("trace_id") if isinstance(item, dict) else None
        try:
            trace = validate_trace(item, settings.limits)
        except TraceDecodeError as exc:
            runtime.metrics.rejected.labels(source=source, reason=exc.reason).inc()
            errors.append(
                {
                    "index": index,
                    "trace_id": trace_id if isinstance(trace_id, str) else None,
                    "reason": exc.reason,
                    "detail": exc.detail,
                }
            )
            continue
        if trace.trace_id in seen:
            runtime.metrics.rejected.labels(source=source, reason="duplicate_in_batch").inc()
            errors.append(
                {
                    "index": index,
                    "trace_id": trace.trace_id,
                    "reason": "duplicate_in_batch",
                    "detail": "trace_id appears earlier in this batch",
                }
            )
            continue
        seen.add(trace.trace_id)
        valid.append(trace)
    try:
        outcome = _ingest_valid(runtime, valid, source)
    except QueueFullError:
        return JSONResponse(
            {"error": "queue_full", "detail": "evaluation queue is full; retry later"},
            status_code=503,
            headers={"Retry-After": "2"},
        )
    return JSONResponse(
        {
            "accepted": len(valid),
            "rejected": len(errors),
            "sampled": outcome["sampled"],
            "errors": errors,
        },
        status_code=202,
    )


# Keep the typing of handlers importable for routers defined in other modules.
Handler = Callable[..., Awaitable[Any]]
