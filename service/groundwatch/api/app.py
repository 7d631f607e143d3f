"""HTTP API: ``create_app(runtime, config)`` builds the FastAPI application (sidecar mode and
the consumer-group deployment's probes and metrics) around a built :class:`Runtime`.

Usage::

    config = AppConfig(api=settings.api, limits=settings.limits, windows=settings.windows,
                       otel=settings.otel, judge_workers=settings.judge.workers)
    app = create_app(Runtime.build(settings), config)  # the composition root (the CLI) does this
    app = create_app(runtime, AppConfig(api=ApiSettings(tokens=[token])))  # tests: one section

Endpoints: ``POST /v1/evaluate``, ``POST /v1/rag-traces``, ``POST /v1/traces`` (OTLP),
``GET /v1/findings``, ``GET /`` (findings page), ``GET /metrics``, ``GET /healthz``,
``GET /readyz``, ``/openapi.json`` (``/docs``, ``/redoc`` only with ``api.docs``). No input
ever yields a 500: every handler validates and every unexpected error becomes a JSON error with
its kind, never a stack trace.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Query, Request, Response
from fastapi.responses import JSONResponse
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundwatch.api.errors import (
    ERROR_RESPONSES,
    decode_error_response,
    error_response,
    install_error_handlers,
    status_for_reason,
)
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.text import unencodable_path
from groundwatch.contract.trace import (
    RagTrace,
    TraceDecodeError,
    TraceLimits,
    decode_trace,
    parse_json,
    validate_trace,
)
from groundwatch.runtime import Runtime
from groundwatch.sections.api import ApiSettings
from groundwatch.sections.connections import OtelSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.stores import StoreUnavailableError

__all__ = ["AppConfig", "BodySizeLimit", "create_app", "parse_json_body"]

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
    message = f"(body): request body over {limit} bytes (GROUNDWATCH_API__MAX_BODY_BYTES)"
    return error_response(413, "oversize", message, [_loc_msg(message)])


def _loc_msg(message: str) -> dict[str, str]:
    loc, _, msg = message.partition(": ")
    return {"loc": loc, "msg": msg}


@dataclass(frozen=True)
class AppConfig:
    """What the HTTP app reads of the configuration, section by section: ``api`` (bind, tokens,
    bounds), ``limits`` (every trace received), ``windows`` (the triage routes and the page),
    ``otel`` (the OTLP receiver) and ``judge_workers`` (the judge's slots when the runtime's
    judge carries no deadline guard). The composition root builds it from the settings."""

    api: ApiSettings = field(default_factory=ApiSettings)
    limits: TraceLimits = field(default_factory=TraceLimits)
    windows: WindowSettings = field(default_factory=WindowSettings)
    otel: OtelSettings = field(default_factory=OtelSettings)
    judge_workers: int = 1


def create_app(runtime: Runtime, config: AppConfig) -> FastAPI:
    """Build the API around ``runtime`` (built, its judge loaded), configured by ``config``."""
    runtime_ = runtime
    api = config.api

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
        docs_url=None,  # /docs and /redoc only with GROUNDWATCH_API__DOCS=true, under a CSP
        redoc_url=None,
    )
    app.add_middleware(BodySizeLimit, max_bytes=api.max_body_bytes)
    from groundwatch.api.limits import BodyBudget, InflightLimit

    # Added last = runs first: requests in progress, then body bytes held (issue 36).
    app.add_middleware(BodyBudget, max_bytes=api.max_inflight_bytes)
    app.add_middleware(InflightLimit, max_inflight=api.max_inflight)
    from groundwatch.api.origin import BrowserGuard
    from groundwatch.api.security import SecurityGuard
    from groundwatch.api.tenancy import (
        TenantBinding,
        TenantFindingView,
        current_tenant,
        with_tenant,
        with_tenant_items,
    )
    from groundwatch.api.wire import WireRules

    guard = SecurityGuard(api)
    # Refused before any body is read (issue 45): framing, then Host/Origin/media type; then
    # the tenant of the request's token, for the findings routes' view.
    app.add_middleware(TenantBinding, guard=guard)
    app.add_middleware(
        BrowserGuard,
        allowed_hosts=api.allowed_hosts,
        allowed_origins=api.allowed_origins,
    )
    app.add_middleware(WireRules)
    try:  # outermost: every error of the OTLP route, wherever raised, is a google.rpc.Status
        from groundwatch.api.otlp import OtlpStatusBodies
    except ImportError:
        pass
    else:
        app.add_middleware(OtlpStatusBodies)
    if api.docs:
        from groundwatch.api.docs import docs_router

        app.include_router(docs_router(app.title, app.openapi_url or "/openapi.json"))

    def rt() -> Runtime:
        return runtime_

    app.state.guard = guard
    write_auth = [Depends(guard.require_ingest)]
    read_auth = [Depends(guard.require_read)]
    metrics_auth = [Depends(guard.require_metrics)]

    install_error_handlers(app)

    @app.exception_handler(StoreUnavailableError)
    async def _store_down(_: Request, exc: StoreUnavailableError) -> JSONResponse:
        return error_response(
            503, "store_unavailable", "state store unreachable; retry", headers={"Retry-After": "5"}
        )

    @app.get("/healthz", tags=["ops"])
    def healthz() -> JSONResponse:
        checks = rt().liveness()
        alive = all(checks.values())
        body = {"status": "ok" if alive else "failing", "checks": checks}
        return JSONResponse(body, status_code=200 if alive else 503)

    @app.get("/readyz", tags=["ops"])
    def readyz() -> JSONResponse:
        checks = rt().readiness()
        ready = all(checks.values())
        return JSONResponse({"ready": ready, "checks": checks}, status_code=200 if ready else 503)

    @app.get("/metrics", tags=["ops"], dependencies=metrics_auth)
    def metrics() -> Response:
        return Response(rt().exposition(), media_type=CONTENT_TYPE_LATEST)

    from groundwatch.evaluation.deadline import GuardedJudge

    guarded = runtime_.processor.evaluator.judge
    judge_slots = guarded.slots if isinstance(guarded, GuardedJudge) else config.judge_workers
    evaluate_limit = max(1, int(api.evaluate_max_share * judge_slots))
    evaluating = [0]  # synchronous evaluations in progress (one event loop: no lock)

    @app.post(
        "/v1/evaluate",
        tags=["evaluation"],
        dependencies=write_auth,
        response_model=EvaluationRecord,
        responses=ERROR_RESPONSES,
        openapi_extra=_json_body("#/components/schemas/RagTrace", "One trace (contract v1)."),
    )
    async def evaluate(
        request: Request,
        record: Annotated[
            bool, Query(description="Also count the trace in windows and findings.")
        ] = False,
    ) -> Response:
        """Score one trace synchronously and return its evaluation record."""
        # At most api.evaluate_max_share of the judge's slots (issue 36): synchronous callers
        # cannot starve the pipeline. Checked before the body is read: a 429 costs no parse.
        if evaluating[0] >= evaluate_limit:
            message = (
                f"{evaluating[0]} synchronous evaluations in progress, the most this endpoint "
                "may hold (GROUNDWATCH_API__EVALUATE_MAX_SHARE); retry later"
            )
            return error_response(429, "evaluate_busy", message, headers={"Retry-After": "1"})
        evaluating[0] += 1
        try:
            return await _evaluate(request, record)
        finally:
            evaluating[0] -= 1

    async def _evaluate(request: Request, record: bool) -> Response:
        raw = await request.body()
        try:  # parsed in a worker thread: a large body never stalls the event loop
            trace = await run_in_threadpool(decode_trace, raw, config.limits)
        except TraceDecodeError as exc:
            rt().metrics.rejected.labels(source="http", reason=exc.reason).inc()
            return decode_error_response(exc, hint=_content_type_hint(request, exc))
        trace = with_tenant(trace, current_tenant())  # a tenant-bound token's trace is its
        processor = rt().processor
        cancel = threading.Event()  # set when the client goes away: judging gives up

        def run() -> EvaluationRecord:
            if record:
                processor.observe([trace], source="http")
                return processor.evaluate_and_record([trace], cancel)[0]
            return processor.evaluate([trace], cancel)[0]

        task = asyncio.ensure_future(run_in_threadpool(run))
        while not task.done():
            await asyncio.wait({task}, timeout=0.25)
            if not task.done() and await request.is_disconnected():
                cancel.set()
        result = await task
        return Response(result.model_dump_json(), media_type="application/json")

    @app.post(
        "/v1/rag-traces",
        tags=["ingest"],
        status_code=202,
        dependencies=write_auth,
        responses=ERROR_RESPONSES,
        openapi_extra=_json_body(
            "#/components/schemas/RagTraceBatch", "A batch of traces (trace contract v1)."
        ),
    )
    async def ingest(request: Request) -> JSONResponse:
        """Accept a batch of traces into the in-process pipeline (sampled, then scored).

        Each item is validated on its own, with the same limits as a Kafka message; invalid
        items are listed in ``errors`` and the valid ones are accepted."""
        if rt().queue.free() <= 0:  # before reading the body: a 503 costs no parse
            return _queue_full()
        raw = await request.body()
        try:  # parsed in a worker thread: a large body never stalls the event loop
            items = await run_in_threadpool(parse_json_body, raw)
        except TraceDecodeError as exc:
            return decode_error_response(exc, hint=_content_type_hint(request, exc))
        if not isinstance(items, list):
            return error_response(
                422,
                "schema",
                "(body): expected a JSON array of traces",
                [{"loc": "(body)", "msg": "expected a JSON array of traces"}],
            )
        items = with_tenant_items(items, current_tenant())  # a tenant-bound token's traces
        return await run_in_threadpool(_ingest, rt(), api.max_batch, config.limits, items, "http")

    from groundwatch.api.findings import findings_router, label_router, page_router

    # The page and its assets hold no data: public. Its script sends the token the user pastes
    # (kept in sessionStorage) as a bearer header to the JSON routes, which need it.
    app.include_router(
        findings_router(
            TenantFindingView(runtime_.findings),  # a tenant-bound token sees its tenant's only
            runtime_.windows,
            config.windows,
            include_page=False,
            include_labels=False,
        ),
        dependencies=read_auth,
    )
    # Labelling a finding needs the label scope (an ingest token cannot skew precision).
    # A note is free text kept with the finding: redacted like the finding's own texts.
    redactor = runtime_.processor.redactor
    app.include_router(
        label_router(
            runtime_.findings,
            redact_note=redactor.redact_text if redactor is not None else None,
            judge_version=lambda: runtime_.judge.version,  # a short id is of this judge's
        ),
        dependencies=[Depends(guard.require_label)],
    )
    app.include_router(
        page_router(
            runtime_.findings,
            runtime_.windows,
            config.windows,
            authorize=guard.require_read_all_tenants,
            judge_version=lambda: runtime_.judge.version,
        )
    )
    try:
        from groundwatch.api.otlp import coverage_router, otlp_receiver, otlp_router
    except ImportError:
        log.debug("OTLP ingest not available")
    else:
        receiver = otlp_receiver(runtime_, config.otel, config.limits, _ingest_valid)
        app.include_router(
            otlp_router(receiver, max_body_bytes=api.max_body_bytes), dependencies=write_auth
        )
        app.include_router(coverage_router(receiver), dependencies=read_auth)
    app.state.runtime = runtime_
    _document_trace_bodies(app)
    return app


def _document_trace_bodies(app: FastAPI) -> None:
    """Add RagTrace and RagTraceBatch to the OpenAPI components (the handlers read raw bodies)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from fastapi.openapi.utils import get_openapi

            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            trace = RagTrace.model_json_schema(ref_template="#/components/schemas/{model}")
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components.update(trace.pop("$defs", {}))
            components["RagTrace"] = trace
            components["RagTraceBatch"] = {
                "title": "RagTraceBatch",
                "type": "array",
                "items": {"$ref": "#/components/schemas/RagTrace"},
            }
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _json_body(ref: str, description: str) -> dict[str, Any]:
    # The handlers read the raw body (so every path shares decode_trace's limits and errors);
    # the schema is declared here so /docs still shows the contract.
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": {"schema": {"$ref": ref}}},
        }
    }


def _content_type_hint(request: Request, exc: TraceDecodeError) -> str:
    if exc.reason not in ("not_json", "not_utf8"):
        return ""
    content_type = request.headers.get("content-type", "")
    if "json" in content_type:
        return ""
    shown = content_type or "none"
    return f" (content-type was {shown!r}: send a JSON body with content-type: application/json)"


def parse_json_body(raw: bytes) -> Any:
    """Parse a request body as UTF-8 JSON; failures are TraceDecodeErrors with line and column."""
    return parse_json(raw, "(body)")


IngestFn = Callable[[Runtime, list[RagTrace], str], dict[str, Any]]


_INGEST_LOCK = threading.Lock()


def _ingest_valid(runtime: Runtime, traces: list[RagTrace], source: str) -> dict[str, Any]:
    """Observe valid traces and queue the sampled ones not received before, or received and
    never recorded (lost by a crash: the re-send is scored, issue 45). Raises QueueFullError
    when full. Returns ``sampled`` (queued) and ``duplicates`` (trace_ids received before,
    each within its own trace's tenant: counted once, not scored again)."""
    # Check, observe and offer under one lock: only workers take from the queue, so the offer
    # cannot fail after the check, and a trace marked as received is always queued.
    with _INGEST_LOCK:
        if not runtime.queue.fits(traces):  # room in traces and in characters
            raise QueueFullError
        sampled, known = runtime.processor.observe_new(
            traces, source=source, pending=runtime.queue.holds
        )
        if not runtime.queue.offer(sampled):
            raise QueueFullError
    if known:
        runtime.metrics.rejected.labels(source=source, reason="duplicate").inc(len(known))
    return {"sampled": len(sampled), "duplicates": known}


class QueueFullError(Exception):
    retriable = True


def _ingest(
    runtime: Runtime, max_batch: int, limits: TraceLimits, items: list[Any], source: str
) -> JSONResponse:
    if len(items) > max_batch:
        message = f"(body): more than {max_batch} traces in one batch"
        return error_response(413, "batch_too_large", message, [_loc_msg(message)])
    if runtime.queue.free() <= 0:  # before validating: a full queue costs no validation
        return _queue_full()
    valid: list[RagTrace] = []
    errors: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()  # (tenant, trace_id): tenants may share an id
    for index, item in enumerate(items):
        trace_id = item.get("trace_id") if isinstance(item, dict) else None
        try:
            trace = validate_trace(item, limits)
        except TraceDecodeError as exc:
            runtime.metrics.rejected.labels(source=source, reason=exc.reason).inc()
            errors.append(
                {
                    "index": index,
                    # Echoed only when it can be written back (not a lone surrogate).
                    "trace_id": (
                        trace_id
                        if isinstance(trace_id, str) and unencodable_path(trace_id) is None
                        else None
                    ),
                    "reason": exc.reason,
                    "detail": exc.detail,
                    "status": status_for_reason(exc.reason),
                }
            )
            continue
        key = (trace.attributes.get("tenant", ""), trace.trace_id)
        if key in seen:
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
        seen.add(key)
        valid.append(trace)
    try:
        outcome = _ingest_valid(runtime, valid, source)
    except QueueFullError:
        return _queue_full()
    return JSONResponse(
        {
            "accepted": len(valid),
            "rejected": len(errors),
            "sampled": outcome["sampled"],
            "duplicates": outcome["duplicates"],
            "errors": errors,
        },
        status_code=202,
    )


def _queue_full() -> JSONResponse:
    return error_response(
        503, "queue_full", "evaluation queue is full; retry later", headers={"Retry-After": "2"}
    )


# Keep the typing of handlers importable for routers defined in other modules.
Handler = Callable[..., Awaitable[Any]]
