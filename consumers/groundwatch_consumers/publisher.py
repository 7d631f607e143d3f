"""Publishing traces from the assistant: the contract's JSON, key = trace_id, W3C traceparent.

Usage::

    with TracePublisher("kafka:9092", "rag.traces") as publisher:
        publisher.publish({"trace_id": "t1", "question": "...", "contexts": [...], "answer": "..."})
        publisher.publish(rag_trace, traceparent="00-<trace-id>-<span-id>-01")

With no explicit ``traceparent``, the current OpenTelemetry span (if any) is propagated, so
groundwatch's spans for the trace join the request that produced it. ``publish`` is
asynchronous; ``flush()`` (or leaving the ``with`` block) waits for acknowledgement.
Validation happens on groundwatch's side (invalid traces land in the DLQ); a dict is sent as is.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import TracebackType
from typing import Any

from kafka import KafkaProducer

from groundwatch.contract.trace import RagTrace
from groundwatch_consumers.tracing import inject_headers

__all__ = ["TracePublisher", "encode_trace"]


def encode_trace(trace: RagTrace | Mapping[str, Any]) -> tuple[bytes, bytes]:
    """(key, value) of a trace as the contract puts it on the wire."""
    if isinstance(trace, RagTrace):
        value = trace.model_dump_json(exclude_none=True).encode("utf-8")
        trace_id = trace.trace_id
    else:
        value = json.dumps(trace, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        trace_id = str(trace.get("trace_id", ""))
    return trace_id.encode("utf-8"), value


class TracePublisher:
    """A small producer for the trace topic, for the assistant side."""

    def __init__(
        self,
        bootstrap: str | list[str],
        topic: str = "rag.traces",
        *,
        propagate_current_span: bool = True,
        **producer_config: Any,
    ) -> None:
        servers = bootstrap.split(",") if isinstance(bootstrap, str) else bootstrap
        cfg: dict[str, Any] = {"acks": "all", "linger_ms": 5, **producer_config}
        self.producer = KafkaProducer(bootstrap_servers=servers, **cfg)
        self.topic = topic
        self.propagate_current_span = propagate_current_span

    def publish(self, trace: RagTrace | Mapping[str, Any], traceparent: str | None = None) -> Any:
        """Send one trace; returns the client's future (``.get()`` for the record metadata)."""
        key, value = encode_trace(trace)
        headers: list[tuple[str, bytes]] = []
        if traceparent:
            headers.append(("traceparent", traceparent.encode("ascii")))
        elif self.propagate_current_span:
            headers.extend((k, v.encode("ascii")) for k, v in inject_headers().items())
        return self.producer.send(self.topic, value=value, key=key, headers=headers or None)

    def flush(self, timeout: float | None = None) -> None:
        self.producer.flush(timeout=timeout)

    def close(self, timeout: float = 10.0) -> None:
        self.producer.close(timeout=timeout)

    def __enter__(self) -> TracePublisher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.flush()
        self.close()
