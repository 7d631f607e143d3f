"""Dead-letter topic: messages that can never become a trace, kept byte for byte.

Usage::

    dlq = DeadLetterPublisher(producer, "rag.traces.dlq")
    dlq.send(record, reason="not_json", detail="(root): Expecting value ...")
    dlq.flush()          # raises KafkaUnavailableError (retriable) if a copy is not durable,
                         # DeadLetterRejectedError if the broker or client refuses it for good

A copy keeps the original key, value and headers, plus ``x-groundwatch-reason`` (a bounded
label: not_utf8, not_json, schema, oversize, unprocessable), ``x-groundwatch-error`` (detail, truncated),
and ``x-groundwatch-source-topic`` / ``-partition`` / ``-offset`` for replay.

A copy is bounded, so that it can always be written: a value over ``max_value_bytes`` is cut to
that size, a key over ``MAX_KEY_BYTES`` is dropped, original headers are kept up to
``MAX_HEADER_BYTES``. A bounded copy says so: ``x-groundwatch-truncated: 1`` and
``x-groundwatch-source-bytes`` (the original value's size). ``send(..., minimal=True)`` writes
the coordinates, size and reason alone (empty value; no key or original headers), for a copy
the broker refused even bounded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from kafka.errors import KafkaError

from groundwatch_consumers.config import KafkaUnavailableError
from groundwatch_consumers.inflate import MARKER_HEADER

__all__ = [
    "REASON_HEADER",
    "DeadLetterPublisher",
    "DeadLetterRejectedError",
    "Outcome",
    "SourceRecord",
]

log = logging.getLogger(__name__)

REASON_HEADER = "x-groundwatch-reason"
ERROR_HEADER = "x-groundwatch-error"
MAX_DETAIL_BYTES = 1024
#: Largest value copied whole; the default producer's ``max_request_size`` is 1 MiB.
MAX_VALUE_BYTES = 256 * 1024
MAX_KEY_BYTES = 16 * 1024
MAX_HEADER_BYTES = 16 * 1024
TRUNCATED_HEADER = "x-groundwatch-truncated"
SIZE_HEADER = "x-groundwatch-source-bytes"
_OURS = (
    REASON_HEADER,
    ERROR_HEADER,
    "x-groundwatch-source-topic",
    "x-groundwatch-source-partition",
    "x-groundwatch-source-offset",
    TRUNCATED_HEADER,
    SIZE_HEADER,
    MARKER_HEADER,
)


#: What became of a dead letter: written (whole or bounded); skipped because the broker refused
#: even a minimal copy (``rejected``) or stayed unreachable past the retry budget
#: (``unavailable``); or not settled because the consumer is stopping (``stopped``).
Outcome = Literal["written", "rejected", "unavailable", "stopped"]


class DeadLetterRejectedError(RuntimeError):
    """The client or broker refuses this copy for good (too large, invalid); retrying the same
    copy cannot help."""

    retriable = False


def _classify(exc: Exception, what: str) -> RuntimeError:
    if getattr(exc, "retriable", False):
        return KafkaUnavailableError(f"dlq {what}: {exc}")
    return DeadLetterRejectedError(f"dlq {what}: {type(exc).__name__}: {exc}")


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

    def __init__(
        self,
        producer: _Producer,
        topic: str,
        *,
        flush_timeout_s: float = 10.0,
        max_value_bytes: int = MAX_VALUE_BYTES,
    ):
        self.producer = producer
        self.topic = topic
        self.flush_timeout_s = flush_timeout_s
        self.max_value_bytes = max_value_bytes
        self._futures: list[Any] = []

    @staticmethod
    def headers_for(
        record: SourceRecord,
        reason: str,
        detail: str,
        *,
        size: int | None = None,
        truncated: bool = False,
        keep_original: bool = True,
    ) -> list[tuple[str, bytes]]:
        original: list[tuple[str, bytes]] = []
        budget = MAX_HEADER_BYTES
        for name, value in (record.headers or []) if keep_original else []:
            data = value if value is not None else b""
            budget -= len(name) + len(data)
            if name in _OURS or budget < 0:
                truncated = truncated or budget < 0
                continue
            original.append((name, data))
        bounded = [(TRUNCATED_HEADER, b"1")] if truncated else []
        if size is not None:
            bounded.append((SIZE_HEADER, str(size).encode()))
        return [
            *original,
            *bounded,
            (REASON_HEADER, reason.encode()),
            (ERROR_HEADER, detail.encode("utf-8", "replace")[:MAX_DETAIL_BYTES]),
            ("x-groundwatch-source-topic", record.topic.encode()),
            ("x-groundwatch-source-partition", str(record.partition).encode()),
            ("x-groundwatch-source-offset", str(record.offset).encode()),
        ]

    def send(
        self,
        record: SourceRecord,
        reason: str,
        detail: str,
        *,
        size: int | None = None,
        minimal: bool = False,
    ) -> None:
        """Queue a bounded copy of ``record``. ``size``: the original value's size when
        ``record.value`` is already a prefix of it (an inflated record cut short)."""
        value, key = record.value, record.key
        original = size if size is not None else len(value or b"")
        truncated = original > len(value or b"")
        if minimal:  # kafka-python refuses a record with neither key nor value
            truncated, value, key = True, b"", None
        if value is not None and len(value) > self.max_value_bytes:
            value, truncated = value[: self.max_value_bytes], True
        if key is not None and len(key) > MAX_KEY_BYTES:
            key, truncated = None, True
        headers = self.headers_for(
            record,
            reason,
            detail,
            size=original if truncated else None,
            truncated=truncated,
            keep_original=not minimal,
        )
        try:
            future = self.producer.send(self.topic, value=value, key=key, headers=headers)
        except KafkaError as exc:
            raise _classify(exc, "send") from exc
        except (ValueError, TypeError) as exc:  # the client refuses the record itself
            raise DeadLetterRejectedError(f"dlq send: {type(exc).__name__}: {exc}") from exc
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
            raise _classify(exc, "flush") from exc

    def publish(
        self,
        record: SourceRecord,
        reason: str,
        detail: str,
        *,
        size: int | None = None,
        retry_s: float,
        backoff: tuple[float, float],
        wait: Callable[[float], bool],
        on_retry: Callable[[Exception], None],
    ) -> Outcome:
        """Write one dead letter, bounded in time: a copy the broker refuses is tried once more
        as a minimal copy; an unreachable broker is retried with backoff (``wait(delay)``
        returns True to stop) for at most ``retry_s``. Never raises for the record's sake."""
        deadline = time.monotonic() + retry_s
        delay, most = backoff
        minimal = False
        while True:
            try:
                self.send(record, reason, detail, size=size, minimal=minimal)
                self.flush()
                return "written"
            except DeadLetterRejectedError as exc:
                if minimal:
                    log.error("dead letter refused even minimal: %s", exc)
                    return "rejected"
                log.warning("dead letter refused (%s); writing a minimal copy", exc)
                minimal = True
            except KafkaUnavailableError as exc:
                on_retry(exc)
                if time.monotonic() + delay > deadline:
                    return "unavailable"
                if wait(delay):
                    return "stopped"
                delay = min(delay * 2, most)
