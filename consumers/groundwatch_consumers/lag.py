"""Consumer lag per partition, from the fetch high watermark.

Usage::

    lag = ConsumerLagGauge(registry)
    lag.update({tp: consumer.highwater(tp)}, tracker.positions())
    lag.forget(revoked)

The high watermark comes with every fetch response, so lag costs no extra request. It is
measured from the oldest offset not yet durable, so traces waiting in the evaluator queue count
as lag (what an autoscaler on lag should see). ``end_offsets()`` is used only for partitions
paused by backpressure (no fetch, so no fresh high watermark; see
``KafkaTraceConsumer._refresh_paused_ends``), and then only as a lower bound: some
Kafka-compatible brokers under-report it while producers batch.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from kafka.structs import TopicPartition
from prometheus_client import CollectorRegistry, Gauge

__all__ = ["ConsumerLagGauge"]


class ConsumerLagGauge:
    """``groundwatch_consumer_lag{topic,partition}`` on an injected registry."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.gauge = Gauge(
            "groundwatch_consumer_lag",
            "Messages between the partition's high watermark and the oldest offset not yet "
            "durable.",
            ["topic", "partition"],
            registry=registry,
        )
        self._known: set[TopicPartition] = set()

    def update(
        self,
        highwaters: Mapping[TopicPartition, int | None],
        positions: Mapping[TopicPartition, int | None],
    ) -> None:
        for tp, high in highwaters.items():
            if high is None:
                continue
            pos = positions.get(tp)
            lag = high if pos is None else max(0, high - pos)
            self.gauge.labels(topic=tp.topic, partition=str(tp.partition)).set(lag)
            self._known.add(tp)

    def forget(self, tps: Iterable[TopicPartition]) -> None:
        for tp in tps:
            if tp in self._known:
                self._known.discard(tp)
                self.gauge.remove(tp.topic, str(tp.partition))
