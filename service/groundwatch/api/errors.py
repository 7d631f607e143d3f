"""The one error shape of the HTTP API: every 4xx and 5xx body is an :class:`ErrorBody`.

Usage::

    return error_response(413, "oversize", "question: longer than 8000 chars",
                          [{"loc": "question", "msg": "longer than 8000 chars"}])
    install_error_handlers(app)   # HTTPException, validation errors, anything unexpected

``error`` is a stable machine code (``not_json``, ``not_utf8``, ``schema``, ``oversize``,
``batch_too_large``, ``unauthorized``, ``forbidden``, ``rate_limited``, ``not_found``,
``queue_full``, ``store_unavailable``, ``internal_error``, ...); ``message`` is for people;
``errors`` lists the offending fields (``loc`` is a dotted path, ``(body)`` for the whole body).
The OTLP route answers in ``google.rpc.Status`` as the OTLP specification requires.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from groundwatch.contract.trace import TraceDecodeError

__all__ = [
    "ERROR_RESPONSES",
    "ErrorBody",
    "FieldError",
    "decode_error_response",
    "error_response",
    "install_error_handlers",
    "status_for_reason",
]

log = logging.getLogger(__name__)


class FieldError(BaseModel):
    loc: str = Field(description="Dotted path of the offending field; (body) for the whole body.")
    msg: str


class ErrorBody(BaseModel):
    """Body of every 4xx/5xx response (except OTLP, which uses google.rpc.Status)."""

    error: str = Field(description="Stable machine-readable code, e.g. not_json, oversize.")
    message: str = Field(description="What went wrong and what to do, for people.")
    errors: list[FieldError] = Field(default_factory=list)


_STATUS_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    503: "unavailable",
}

_REASON_STATUS = {
    "oversize": 413,
    "not_utf8": 400,
    "not_json": 400,
    "schema": 422,
    "unprocessable": 422,
}

# For route decorators: ``responses=ERROR_RESPONSES`` documents the shape in OpenAPI.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    "4XX": {"model": ErrorBody, "description": "Client error (see `error` for the code)."},
    "5XX": {"model": ErrorBody, "description": "Server or dependency error; retry if 503."},
}


def status_for_reason(reason: str) -> int:
    """HTTP status for a contract rejection reason: the same on every path."""
    return _REASON_STATUS.get(reason, 422)


def error_response(
    status: int,
    code: str,
    message: str,
    errors: list[dict[str, str]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body = {"error": code, "message": message, "errors": errors or []}
    return JSONResponse(body, status_code=status, headers=dict(headers or {}))


def _loc_and_msg(detail: str) -> dict[str, str]:
    loc, sep, msg = detail.partition(": ")
    return {"loc": loc, "msg": msg} if sep else {"loc": "(body)", "msg": detail}


def decode_error_response(exc: TraceDecodeError, *, hint: str = "") -> JSONResponse:
    """A contract rejection as an API error (413 oversize, 400 not JSON/UTF-8, 422 schema)."""
    if exc.errors:
        errors = [{"loc": str(e["field"]), "msg": str(e["message"])} for e in exc.errors]
    else:
        errors = [_loc_and_msg(exc.detail)]
    return error_response(status_for_reason(exc.reason), exc.reason, exc.detail + hint, errors)


def _validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    out = []
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ()) if p != "body"]
        out.append({"loc": ".".join(loc) or "(body)", "msg": str(err.get("msg", ""))})
    return out


def install_error_handlers(app: FastAPI) -> None:
    """Route FastAPI's own errors (404, 405, 422, HTTPException, unexpected) into ErrorBody."""

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _STATUS_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code.replace("_", " ")
        return error_response(exc.status_code, code, message, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _validation_errors(exc)
        summary = "; ".join(f"{e['loc']}: {e['msg']}" for e in errors[:3])
        return error_response(422, "invalid_request", summary or "invalid request", errors)

    @app.exception_handler(ClientDisconnect)
    async def _gone(_: Request, exc: ClientDisconnect) -> JSONResponse:
        # The client left (or a read timeout closed it) while its body was read: nobody to
        # answer, nothing unexpected.
        log.debug("client disconnected before its request body arrived")
        return error_response(400, "client_disconnected", "client disconnected")

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")
        return error_response(
            503, "internal_error", f"unexpected {type(exc).__name__}; retry, then report it"
        )
