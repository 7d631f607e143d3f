"""Replaying the payloads captured from real instrumentation libraries (tests/otel_payloads/).

Each payload file holds the OTLP/HTTP requests one library's exporter sent for five RAG questions
(see tests/otel_payloads/capture.py). A replay gives every trace fresh ids (so one service can take
the same payload twice), may edit span attributes (to take the passages or the question out), and
encodes each request as protobuf or as OTLP JSON (hex ids).

Usage::

    payload = Payload.load("langfuse-3")
    for request in payload.requests("json", strip=lambda span, key: key == "..."):
        httpx.post(url + request.path, content=request.body, headers=...)
    request.trace_ids   # the replayed trace ids, in order of first appearance
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

DIR = Path(__file__).resolve().parent / "otel_payloads"
Encoding = Literal["protobuf", "json"]
# (span name, attribute key) -> True to drop that attribute from the replayed span.
Strip = Callable[[str, str], bool]

PAYLOADS = sorted(p.stem for p in DIR.glob("*.json"))


@dataclass
class Request:
    path: str
    content_type: str
    body: bytes


@dataclass
class Payload:
    name: str
    data: dict[str, Any]
    trace_ids: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, name: str) -> Payload:
        return cls(name, json.loads((DIR / f"{name}.json").read_text()))

    @property
    def questions(self) -> list[str]:
        return list(self.data["questions"])

    def requests(self, encoding: Encoding, strip: Strip | None = None) -> Iterator[Request]:
        """The captured requests, re-identified and re-encoded (module docstring)."""
        ids: dict[bytes, bytes] = {}
        self.trace_ids = []

        def new_id(old: bytes) -> bytes:
            if old not in ids:
                ids[old] = os.urandom(16)
                self.trace_ids.append(ids[old].hex())
            return ids[old]

        for captured in self.data["requests"]:
            raw = base64.b64decode(captured["body_b64"])
            message: Any
            if captured["path"].endswith("/v1/logs"):
                message = ExportLogsServiceRequest.FromString(raw)
                for resource in message.resource_logs:
                    for scope in resource.scope_logs:
                        for record in scope.log_records:
                            record.trace_id = new_id(record.trace_id)
            else:
                message = ExportTraceServiceRequest.FromString(raw)
                for resource in message.resource_spans:
                    for scope in resource.scope_spans:
                        for span in scope.spans:
                            span.trace_id = new_id(span.trace_id)
                            if strip is not None:
                                kept = [a for a in span.attributes if not strip(span.name, a.key)]
                                del span.attributes[:]
                                span.attributes.extend(kept)
            if encoding == "protobuf":
                yield Request(
                    captured["path"], "application/x-protobuf", message.SerializeToString()
                )
            else:
                yield Request(captured["path"], "application/json", _otlp_json(message))

    def span_count(self) -> int:
        count = 0
        for captured in self.data["requests"]:
            if not captured["path"].endswith("/v1/logs"):
                raw = base64.b64decode(captured["body_b64"])
                message = ExportTraceServiceRequest.FromString(raw)
                count += sum(len(s.spans) for r in message.resource_spans for s in r.scope_spans)
        return count


def _hex_ids(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids(item)


def _otlp_json(message: Any) -> bytes:
    """OTLP JSON: the protobuf JSON mapping with hex ids, as OTLP/JSON exporters send."""
    obj = json_format.MessageToDict(message)
    _hex_ids(obj)
    return json.dumps(obj).encode()
