"""Ingest throughput of the Kafka source, one core: consume -> decode -> validate ->
sample (rate 0) -> count (window store) -> commit, against the real broker (Tansu).

Usage::

    .venv/bin/python -m benchmarks.ingest                 # 100,000 traces
    .venv/bin/python -m benchmarks.ingest -n 20000 --profile

Prints traces/s from the first counted trace to the last committed offset. Target >= 10,000/s.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import threading
import time
from collections.abc import Sequence

from groundwatch.findings import MemoryFindingStore
from groundwatch.settings import KafkaSettings, SamplingSettings, Settings
from groundwatch.stores import IngestObservation
from groundwatch.windows import MemoryWindowStore
from kafka import KafkaProducer
from prometheus_client import CollectorRegistry

from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from tests.consumer_support import make_processor, make_trace
from tests.infra import KafkaBroker


class TimedWindows(MemoryWindowStore):
    """The in-memory window store, timing the first and last ingest write."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.first: float | None = None
        self.last = 0.0
        self.count = 0

    def observe_ingest(self, items: Sequence[IngestObservation]) -> list[bool]:
        if self.first is None:
            self.first = time.perf_counter()
        out = super().observe_ingest(items)
        self.count += len(items)
        self.last = time.perf_counter()
        return out


def produce(bootstrap: str, topic: str, n: int) -> float:
    producer = KafkaProducer(
        bootstrap_servers=bootstrap, linger_ms=50, batch_size=1 << 20, acks=1
    )
    template = make_trace("x")
    start = time.perf_counter()
    for i in range(n):
        template["trace_id"] = f"bench-{i}"
        template["contexts"][0]["score"] = (i % 100) / 100
        value = json.dumps(template).encode()
        producer.send(topic, value, key=template["trace_id"].encode())
    producer.flush()
    producer.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=100_000)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--max-poll-records", type=int, default=5000)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core, every thread
    with KafkaBroker.start() as broker:
        topic = "bench.traces"
        broker.create_topic(topic, args.partitions)
        broker.create_topic(f"{topic}.dlq", 1)
        took = produce(broker.bootstrap, topic, args.n)
        print(f"produced {args.n} traces in {took:.1f}s ({args.n / took:,.0f}/s)")
        settings = Settings(
            kafka=KafkaSettings(
                bootstrap_servers=broker.bootstrap,
                topic=topic,
                dlq_topic=f"{topic}.dlq",
                results_topic=None,
                group_id="bench",
                session_timeout_ms=6000,
                heartbeat_interval_ms=1000,
                max_poll_records=args.max_poll_records,
            ),
            sampling=SamplingSettings(rate=0.0),
        )
        registry = CollectorRegistry()
        windows = TimedWindows(settings)
        processor = make_processor(settings, windows, MemoryFindingStore(settings), [], registry)
        options = ConsumerOptions(handle_signals=False, queue_capacity=4 * args.max_poll_records)
        consumer = KafkaTraceConsumer(settings, processor, registry, options=options)
        profiler = cProfile.Profile() if args.profile else None
        thread = threading.Thread(target=consumer.run, daemon=True)
        if profiler:
            threading.setprofile(lambda *a: None)
            profiler.enable()
        thread.start()
        while windows.count < args.n or consumer.tracker.in_flight() or consumer.tracker.committable():
            time.sleep(0.01)
        done = time.perf_counter()
        if profiler:
            profiler.disable()
        consumer.stop()
        thread.join(30)
        first = windows.first or done
        rate = args.n / (done - first)
        print(
            f"consumed+decoded+validated+sampled(0)+counted+committed {args.n} traces "
            f"in {done - first:.2f}s: {rate:,.0f} traces/s (one core, "
            f"max_poll_records={args.max_poll_records})"
        )
        print(f"received counter: {registry.get_sample_value('groundwatch_traces_received_total', {'source': 'kafka'})}")
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
