"""OTLP/HTTP trace decoding: an ``ExportTraceServiceRequest`` body (protobuf or OTLP JSON) into
flat, typed span records that the assembler can read without knowing about protobuf.

Usage::

    spans = decode_otlp_request(body, "application/x-protobuf")   # or "application/json"
    for span in spans:
        span.trace_id, span.name, span.attributes["gen_ai.operation.name"], span.resource

Any body that cannot be decoded raises :class:`OtlpDecodeError` (a ``ValueError``) and nothing
else: this is a trust boundary, the HTTP layer turns it into a 400.

OTLP JSON differs from protobuf's canonical JSON mapping in one way that matters: trace and span
ids are hex strings, not base64. They are rewritten before the message is parsed, so both encodings
share the protobuf path (which also accepts camelCase or snake_case keys, 64-bit integers as
strings, and enums as numbers).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "AttributeValue",
    "LogEventRecord",
    "OtlpDecodeError",
    "SpanEventRecord",
    "SpanRecord",
    "decode_otlp_logs_request",
    "decode_otlp_request",
    "media_kind",
]

AttributeValue = str | bool | int | float | bytes | list[Any] | dict[str, Any] | None

OtlpDecodeReason = Literal["unsupported_media_type", "bad_protobuf", "bad_json", "bad_id"]

_MAX_JSON_DEPTH = 64


class OtlpDecodeError(ValueError):
    """A request body that is not a valid ``ExportTraceServiceRequest``. Not retriable."""

    retriable = False

    def __init__(self, reason: OtlpDecodeReason, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason: OtlpDecodeReason = reason
        self.detail = detail


@dataclass(frozen=True)
class SpanEventRecord:
    """One span event (e.g. ``gen_ai.choice``) with its attributes."""

    name: str
    time_unix_nano: int
    attributes: dict[str, AttributeValue] = field(default_factory=dict)


@dataclass(frozen=True)
class SpanRecord:
    """One decoded span. Ids are lowercase hex; ``parent_span_id`` is "" for a root span."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    kind: int
    start_unix_nano: int
    end_unix_nano: int
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    events: tuple[SpanEventRecord, ...] = ()
    resource: dict[str, AttributeValue] = field(default_factory=dict)
    scope_name: str = ""
    status_code: int = 0

    @property
    def is_root(self) -> bool:
        return not self.parent_span_id


@dataclass(frozen=True)
class LogEventRecord:
    """One decoded OTLP log record that names an event (``event_name``, or the ``event.name``
    attribute of older SDKs) and belongs to a span: GenAI content sent as logs."""

    trace_id: str
    span_id: str
    event_name: str
    time_unix_nano: int
    body: AttributeValue
    attributes: dict[str, AttributeValue] = field(default_factory=dict)
    scope_name: str = ""


def media_kind(content_type: str) -> Literal["protobuf", "json"]:
    """``"protobuf"`` or ``"json"`` for an OTLP/HTTP Content-Type; OtlpDecodeError otherwise."""
    media = content_type.split(";", 1)[0].strip().lower()
    if media in ("application/x-protobuf", "application/protobuf"):
        return "protobuf"
    if media == "application/json":
        return "json"
    raise OtlpDecodeError("unsupported_media_type", f"content type {media or '(none)'!r}")


def decode_otlp_request(body: bytes, content_type: str) -> list[SpanRecord]:
    """Decode an OTLP/HTTP traces request body into span records (see module docstring)."""
    kind = media_kind(content_type)
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    _parse(body, kind, request)
    try:
        return _spans_from_request(request)
    except OtlpDecodeError:
        raise
    except Exception as exc:  # defensive: a malformed message must never escape as another type
        raise OtlpDecodeError("bad_protobuf", f"unreadable span data: {exc}") from None


def decode_otlp_logs_request(body: bytes, content_type: str) -> list[LogEventRecord]:
    """Decode an OTLP/HTTP logs request body; only records with an event name and a span id are
    kept (the others cannot be joined to a span). Raises :class:`OtlpDecodeError` as above."""
    kind = media_kind(content_type)
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

    request = ExportLogsServiceRequest()
    _parse(body, kind, request)
    try:
        return _logs_from_request(request)
    except OtlpDecodeError:
        raise
    except Exception as exc:  # as for traces: one error type at the trust boundary
        raise OtlpDecodeError("bad_protobuf", f"unreadable log data: {exc}") from None


def _parse(body: bytes, kind: Literal["protobuf", "json"], request: Any) -> None:
    if kind == "protobuf":
        try:
            request.ParseFromString(body)
        except Exception as exc:  # DecodeError, RecursionError, ...: all mean "bad body"
            detail = f"not an {type(request).__name__}: {exc}"[:300]
            raise OtlpDecodeError("bad_protobuf", detail) from None
    else:
        _parse_json(body, request)


def _logs_from_request(request: Any) -> list[LogEventRecord]:
    out: list[LogEventRecord] = []
    for resource_logs in request.resource_logs:
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                attributes = _attributes(record.attributes)
                name = getattr(record, "event_name", "") or attributes.pop("event.name", "")
                span_id = _hex_id(record.span_id, 8, "spanId")
                if not isinstance(name, str) or not name or not span_id:
                    continue
                out.append(
                    LogEventRecord(
                        trace_id=_hex_id(record.trace_id, 16, "traceId"),
                        span_id=span_id,
                        event_name=name,
                        time_unix_nano=int(record.time_unix_nano),
                        body=_any_value(record.body),
                        attributes=attributes,
                        scope_name=scope_logs.scope.name,
                    )
                )
    return out


def _parse_json(body: bytes, request: Any) -> None:
    from google.protobuf import json_format

    try:
        obj = json.loads(body.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # also ints over 4,300 digits
        raise OtlpDecodeError("bad_json", f"not JSON: {exc}"[:200]) from None
    if not isinstance(obj, dict):
        raise OtlpDecodeError("bad_json", "expected a JSON object (resourceSpans, resourceLogs)")
    _hex_ids_to_base64(obj, 0)
    try:
        json_format.ParseDict(obj, request, ignore_unknown_fields=True)
    except Exception as exc:  # ParseError, TypeError, RecursionError on odd shapes
        raise OtlpDecodeError("bad_json", f"not an {type(request).__name__}: {exc}"[:300]) from None


_ID_KEYS = frozenset({"traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id"})


def _hex_ids_to_base64(node: Any, depth: int) -> None:
    """Rewrite OTLP JSON's hex ids into the base64 that protobuf's JSON parser expects."""
    if depth > _MAX_JSON_DEPTH:
        raise OtlpDecodeError("bad_json", "nested too deeply")
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_KEYS and isinstance(value, str):
                node[key] = _hex_to_b64(key, value)
            elif isinstance(value, dict | list):
                _hex_ids_to_base64(value, depth + 1)
    elif isinstance(node, list):
        for item in node:
            if isinstance(item, dict | list):
                _hex_ids_to_base64(item, depth + 1)


def _hex_to_b64(key: str, value: str) -> str:
    if value == "":
        return ""
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise OtlpDecodeError("bad_id", f"{key}: not a hex string") from None
    return base64.b64encode(raw).decode("ascii")


def _any_value(value: Any, depth: int = 0) -> AttributeValue:
    if depth > _MAX_JSON_DEPTH:
        return None
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_any_value(v, depth + 1) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _any_value(kv.value, depth + 1) for kv in value.kvlist_value.values}
    result: AttributeValue = getattr(value, which)
    return result


def _attributes(kvs: Any) -> dict[str, AttributeValue]:
    return {kv.key: _any_value(kv.value) for kv in kvs}


def _hex_id(raw: bytes, size: int, what: str) -> str:
    if len(raw) not in (0, size):
        raise OtlpDecodeError("bad_id", f"{what}: {len(raw)} bytes, expected {size}")
    return binascii.hexlify(raw).decode("ascii")


def _spans_from_request(request: Any) -> list[SpanRecord]:
    out: list[SpanRecord] = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            scope_name = scope_spans.scope.name
            for span in scope_spans.spans:
                events = tuple(
                    SpanEventRecord(
                        name=event.name,
                        time_unix_nano=int(event.time_unix_nano),
                        attributes=_attributes(event.attributes),
                    )
                    for event in span.events
                )
                out.append(
                    SpanRecord(
                        trace_id=_hex_id(span.trace_id, 16, "traceId"),
                        span_id=_hex_id(span.span_id, 8, "spanId"),
                        parent_span_id=_hex_id(span.parent_span_id, 8, "parentSpanId"),
                        name=span.name,
                        kind=int(span.kind),
                        start_unix_nano=int(span.start_time_unix_nano),
                        end_unix_nano=int(span.end_time_unix_nano),
                        attributes=_attributes(span.attributes),
                        events=events,
                        resource=resource,
                        scope_name=scope_name,
                        status_code=int(span.status.code),
                    )
                )
    return out
