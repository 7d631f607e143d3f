"""The reliable stream layer of groundwatch: a Kafka source that samples, dead-letters,
backpressures and commits only after results are durable. Imports go one way: this package
uses ``groundwatch``; ``groundwatch`` never imports it (only the app wiring does).

Usage::

    from groundwatch_consumers import build_kafka_consumer
    build_kafka_consumer(settings.kafka, settings.limits, processor, registry).run()
"""

from __future__ import annotations

from groundwatch_consumers.backpressure import PartitionGate, WorkQueue
from groundwatch_consumers.config import KafkaUnavailableError, any_reachable, client_config
from groundwatch_consumers.decode import decode_fast
from groundwatch_consumers.dlq import REASON_HEADER, DeadLetterPublisher, DeadLetterRejectedError
from groundwatch_consumers.inflate import FetchGuard, InflateBounds
from groundwatch_consumers.kafka_source import KafkaTraceConsumer, build_kafka_consumer
from groundwatch_consumers.lag import ConsumerLagGauge
from groundwatch_consumers.offsets import OffsetTracker
from groundwatch_consumers.publisher import TracePublisher, encode_trace
from groundwatch_consumers.results import (
    KafkaResultSink,
    ResultSinkUnavailableError,
    build_producer,
)
from groundwatch_consumers.samples import produce_samples, sample_traces
from groundwatch_consumers.tracing import TraceSpans, inject_headers
from groundwatch_consumers.workers import ConsumerOptions, EvaluationWorkers, Health, WorkUnit

__all__ = [
    "REASON_HEADER",
    "ConsumerLagGauge",
    "ConsumerOptions",
    "DeadLetterPublisher",
    "DeadLetterRejectedError",
    "EvaluationWorkers",
    "FetchGuard",
    "Health",
    "InflateBounds",
    "KafkaResultSink",
    "KafkaTraceConsumer",
    "KafkaUnavailableError",
    "OffsetTracker",
    "PartitionGate",
    "ResultSinkUnavailableError",
    "TracePublisher",
    "TraceSpans",
    "WorkQueue",
    "WorkUnit",
    "any_reachable",
    "build_kafka_consumer",
    "build_producer",
    "client_config",
    "decode_fast",
    "encode_trace",
    "inject_headers",
    "produce_samples",
    "sample_traces",
]
