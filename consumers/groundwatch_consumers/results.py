"""Evaluation records to the results topic: one record per scored trace, key = trace_id.

Usage::

    sink = KafkaResultSink.from_settings(settings.kafka)     # or KafkaResultSink(producer, topic)
    processor = TraceProcessor(..., sinks=[sink])
    sink.write(records)      # durable (acknowledged by the broker) when it returns
    sink.close()

A failure raises :class:`ResultSinkUnavailableError`, a retriable
:class:`~groundwatch.state.stores.StoreUnavailableError`: the consumer backs off and does not commit.
Re-delivery can publish a record twice; consumers of the topic dedupe on the key.
``from_settings`` connects on the first write, not at start (kafka-python bootstraps in the
producer's constructor and raises when no broker answers): a process started while the broker
is away starts, reports not ready, and writes once the broker is back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import Any

from kafka import KafkaProducer
from kafka.errors import KafkaError

from groundwatch.contract.record import EvaluationRecord
from groundwatch.sections.connections import KafkaSettings
from groundwatch.state.stores import StoreUnavailableError
from groundwatch_consumers.config import any_reachable, client_config

__all__ = ["KafkaResultSink", "ResultSinkUnavailableError", "build_producer"]

log = logging.getLogger(__name__)


class ResultSinkUnavailableError(StoreUnavailableError):
    """The results topic did not acknowledge. Retriable."""

    retriable = True


def build_producer(settings: KafkaSettings, *, suffix: str, **overrides: Any) -> KafkaProducer:
    """A producer tuned for durability: acks from all in-sync replicas, bounded blocking."""
    cfg: dict[str, Any] = {
        "acks": "all",
        "linger_ms": 5,
        "retries": 5,
        "max_block_ms": 10_000,
        "request_timeout_ms": 10_000,
        "delivery_timeout_ms": 30_000,
        **client_config(settings, suffix=suffix),
    }
    cfg.update(overrides)
    return KafkaProducer(**cfg)


class KafkaResultSink:
    """:class:`~groundwatch.state.stores.ResultSink` writing JSON records to a Kafka topic."""

    def __init__(
        self,
        producer: Any,
        topic: str,
        *,
        flush_timeout_s: float = 15.0,
        owns_producer: bool = True,
        producer_factory: Callable[[], Any] | None = None,
    ) -> None:
        """``producer``: a ready client, or None with ``producer_factory`` to build it on the
        first write (retried on the next write when building fails)."""
        if producer is None and producer_factory is None:
            raise ValueError("a producer or a producer_factory is required")
        self.producer = producer
        self.topic = topic
        self.flush_timeout_s = flush_timeout_s
        self._owns = owns_producer
        self._factory = producer_factory
        # flush() waits for *all* sends of the producer; one writer at a time keeps each
        # caller's durability claim about its own records.
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: KafkaSettings, **producer_overrides: Any) -> KafkaResultSink:
        if not settings.results_topic:
            raise ValueError("kafka.results_topic is not set")
        topic = settings.results_topic

        def connect() -> KafkaProducer:
            # Checked first: a client that fails to bootstrap leaves its IO thread behind.
            if not any_reachable(client_config(settings)["bootstrap_servers"]):
                raise ResultSinkUnavailableError(
                    f"results topic {topic}: no bootstrap server reachable"
                )
            return build_producer(settings, suffix="-results", **producer_overrides)

        return cls(None, topic, producer_factory=connect)

    def write(self, records: Sequence[EvaluationRecord]) -> None:
        if not records:
            return
        with self._lock:
            try:
                if self.producer is None:
                    assert self._factory is not None
                    self.producer = self._factory()
                futures = [
                    self.producer.send(
                        self.topic,
                        value=record.model_dump_json().encode("utf-8"),
                        key=record.trace_id.encode("utf-8"),
                    )
                    for record in records
                ]
                self.producer.flush(timeout=self.flush_timeout_s)
                for future in futures:
                    future.get(timeout=0)
            except KafkaError as exc:
                raise ResultSinkUnavailableError(f"results topic {self.topic}: {exc}") from exc

    def close(self) -> None:
        """Best effort: with the broker away the producer cannot flush; nothing it held was
        reported durable (no ``write`` returned for it), so its offsets were not committed."""
        if self._owns and self.producer is not None:
            # No broker to flush to: do not wait the flush timeout out.
            bootstrap = getattr(self.producer, "config", {}).get("bootstrap_servers") or []
            if isinstance(bootstrap, str):
                bootstrap = bootstrap.split(",")
            reachable = any_reachable(list(bootstrap), 1.0) if bootstrap else True
            try:
                self.producer.close(timeout=5 if reachable else 0)
            except KafkaError as exc:
                log.warning("results producer closed without flushing: %s", exc)
