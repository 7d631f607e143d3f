"""Ingest throughput of the Kafka source, one core: consume -> decode -> validate ->
sample (rate 0) -> count (window store) -> commit, against the real broker (Tansu).

Usage::

    .venv/bin/python -m benchmarks.ingest                 # 100,000 traces
    .venv/bin/python -m benchmarks.ingest -n 20000 --profile

Prints traces/s from the first counted trace to the last committed offset, and the consumer
process's CPU time per trace (less sensitive to other load on the machine). The broker and the
producer run before the consumer is pinned to one core. ``--store count`` (default) isolates the
consumer path with a store that only remembers trace ids; ``--store memory`` includes the
in-memory window store's bucket updates. Target >= 10,000 traces/s.
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

from kafka import KafkaProducer
from prometheus_client import CollectorRegistry

from groundwatch.sections.connections import KafkaSettings
from groundwatch.sections.pipeline import SamplingSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.settings import Settings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Delivery, IngestObservation
from groundwatch.state.windows import MemoryWindowStore
from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from tests.consumer_support import make_processor, make_trace
from tests.infra import KafkaBroker


class TimedWindows(MemoryWindowStore):
    """The in-memory window store (or, with ``count_only``, a set of trace ids), timing the
    first ingest write."""

    def __init__(self, windows: WindowSettings, count_only: bool) -> None:
        super().__init__(windows)
        self.count_only = count_only
        self.seen: set[str] = set()
        self.first: float | None = None
        self.count = 0

    def observe_ingest(
        self,
        items: Sequence[IngestObservation],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        if self.first is None:
            self.first = time.perf_counter()
        if self.count_only:
            out = [o.trace_id not in self.seen for o in items]
            self.seen.update(o.trace_id for o in items)
        else:
            out = super().observe_ingest(items, deliveries)
        self.count += len(items)
        return out


def produce(bootstrap: str, topic: str, n: int) -> float:
    producer = KafkaProducer(bootstrap_servers=bootstrap, linger_ms=50, batch_size=1 << 20, acks=1)
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
    parser.add_argument("--store", choices=["count", "memory"], default="count")
    parser.add_argument(
        "--tracing", action="store_true", help="an SDK TracerProvider (no exporter) is injected"
    )
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with KafkaBroker.start() as broker:
        topic = "bench.traces"
        broker.create_topic(topic, args.partitions)
        broker.create_topic(f"{topic}.dlq", 1)
        took = produce(broker.bootstrap, topic, args.n)
        print(f"produced {args.n} traces in {took:.1f}s ({args.n / took:,.0f}/s)")
        if hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})  # consumer: one core
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
        windows = TimedWindows(settings.windows, count_only=args.store == "count")
        processor = make_processor(
            windows, MemoryFindingStore(settings.findings), [], registry, sampling=settings.sampling
        )
        options = ConsumerOptions(handle_signals=False, queue_capacity=4 * args.max_poll_records)
        provider = None
        if args.tracing:
            from opentelemetry.sdk.trace import TracerProvider

            provider = TracerProvider()
        consumer = KafkaTraceConsumer(
            settings.kafka,
            settings.limits,
            processor,
            registry,
            tracer_provider=provider,
            options=options,
        )
        profiler = cProfile.Profile() if args.profile else None
        thread = threading.Thread(target=consumer.run, daemon=True)
        if profiler:
            threading.setprofile(lambda *a: None)
            profiler.enable()
        cpu0 = time.process_time()
        thread.start()
        while (
            windows.count < args.n or consumer.tracker.in_flight() or consumer.tracker.committable()
        ):
            time.sleep(0.01)
        done = time.perf_counter()
        cpu = time.process_time() - cpu0
        if profiler:
            profiler.disable()
        consumer.stop()
        thread.join(30)
        first = windows.first or done
        rate = args.n / (done - first)
        print(
            f"consumed+decoded+validated+sampled(0)+counted+committed {args.n} traces "
            f"in {done - first:.2f}s: {rate:,.0f} traces/s (one core, "
            f"max_poll_records={args.max_poll_records}, store={args.store}, "
            f"tracing={args.tracing})"
        )
        print(
            f"consumer CPU: {cpu * 1e6 / args.n:.0f} us/trace "
            f"(includes the ~3 s group join) -> {args.n / cpu:,.0f} traces per CPU-second"
        )
        print(
            f"received counter: {registry.get_sample_value('groundwatch_traces_received_total', {'source': 'kafka'})}"
        )
        if profiler:
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)


if __name__ == "__main__":
    main()
