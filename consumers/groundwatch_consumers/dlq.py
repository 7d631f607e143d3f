"""Dead-letter topic: messages that can never become a trace, kept byte for byte.

Usage::

    dlq = DeadLetterPublisher(producer, "rag.traces.dlq")
    dlq.send(record, reason="not_json", detail="(root): Expecting value ...")
    dlq.flush()          # raises KafkaUnavailableError (retriable) if a copy is not durable

A copy keeps the original key, value and headers, plus ``x-groundwatch-reason`` (a bounded
label: not_utf8, not_json, schema, oversize, unprocessable), ``x-groundwatch-error`` (detail, truncated),
and ``x-groundwatch-source-topic`` / ``-partition`` / ``-offset`` for replay.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from kafka.errors import KafkaError

from groundwatch_consumers.config import KafkaUnavailableError

__all__ = ["REASON_HEADER", "DeadLetterPublisher", "SourceRecord"]

log = logging.getLogger(__name__)

REASON_HEADER = "x-groundwatch-reason"
ERROR_HEADER = "x-groundwatch-error"
MAX_DETAIL_BYTES = 1024
_OURS = (
    REASON_HEADER,
    ERROR_HEADER,
    "x-groundwatch-source-topic",
    "x-groundwatch-source-partition",
    "x-groundwatch-source-offset",
)


class SourceRecord(Protocol):
    """What a dead letter is made from (``kafka.consumer.fetcher.ConsumerRecord`` fits)."""

    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: Any


class _Producer(Protocol):
    def send(
        self,
        topic: str,
        value: bytes | None = ...,
        key: bytes | None = ...,
        headers: list[tuple[str, bytes]] | None = ...,
    ) -> Any: ...

    def flush(self, timeout: float | None = ...) -> None: ...

    def close(self, timeout: float | None = ...) -> None: ...


class DeadLetterPublisher:
    """Publishes dead letters; :meth:`flush` makes every copy sent so far durable or raises."""

    def __init__(self, producer: _Producer, topic: str, *, flush_timeout_s: float = 10.0):
        self.producer = producer
        self.topic = topic
        self.flush_timeout_s = flush_timeout_s
        self._futures: list[Any] = []

    @staticmethod
    def headers_for(record: SourceRecord, reason: str, detail: str) -> list[tuple[str, bytes]]:
        original = [
            (name, value if value is not None else b"")
            for name, value in (record.headers or [])
            if name not in _OURS
        ]
        return [
            *original,
            (REASON_HEADER, reason.encode()),
            (ERROR_HEADER, detail.encode("utf-8", "replace")[:MAX_DETAIL_BYTES]),
            ("x-groundwatch-source-topic", record.topic.encode()),
            ("x-groundwatch-source-partition", str(record.partition).encode()),
            ("x-groundwatch-source-offset", str(record.offset).encode()),
        ]

    def send(self, record: SourceRecord, reason: str, detail: str) -> None:
        try:
            future = self.producer.send(
                self.topic,
                value=record.value,
                key=record.key,
                headers=self.headers_for(record, reason, detail),
            )
        except KafkaError as exc:
            raise KafkaUnavailableError(f"dlq send: {exc}") from exc
        self._futures.append(future)

    @property
    def pending(self) -> int:
        return len(self._futures)

    def flush(self) -> None:
        """Wait until every copy is acknowledged. On failure the pending copies are forgotten
        (the source offsets stay uncommitted, so they are re-delivered and sent again)."""
        if not self._futures:
            return
        futures, self._futures = self._futures, []
        try:
            self.producer.flush(timeout=self.flush_timeout_s)
            for future in futures:
                future.get(timeout=0)
        except KafkaError as exc:
            raise KafkaUnavailableError(f"dlq flush: {exc}") from exc
