"""A groundwatch Kafka consumer in its own process, for the kill -9 and broker-restart tests:
real broker, real Redis, fake judge. Runs until SIGTERM/SIGINT (graceful) or SIGKILL.

Usage::

    python -m tests.consumer_proc --bootstrap 127.0.0.1:9092 --topic t --group g \
        --redis-url redis://127.0.0.1:6379/0 --prefix p --rate 0.7 --judge-delay 0.05 \
        [--status-port 18080]   # GET /readyz (200 or 503, what the service's /readyz reports
                                # for Kafka: consumer.ready()) and GET /metrics
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from prometheus_client import CollectorRegistry, generate_latest

from groundwatch.sections.connections import KafkaSettings, RedisSettings
from groundwatch.sections.pipeline import SamplingSettings
from groundwatch.settings import Settings
from groundwatch.state.redis_store import RedisFindingStore, RedisWindowStore, redis_client
from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from groundwatch_consumers.results import KafkaResultSink
from tests.consumer_support import FakeJudge, make_processor


def serve_status(
    port: int, consumer: KafkaTraceConsumer, registry: CollectorRegistry
) -> ThreadingHTTPServer:
    """/readyz and /metrics on 127.0.0.1:port, in a daemon thread."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path == "/readyz":
                ready = consumer.ready()
                body = json.dumps({"ready": ready, "failing": consumer.failing()}).encode()
                status, kind = (200 if ready else 503), "application/json"
            elif self.path == "/metrics":
                body, status, kind = generate_latest(registry), 200, "text/plain"
            else:
                body, status, kind = b"", 404, "text/plain"
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    for name in ("bootstrap", "topic", "group", "redis-url", "prefix"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--rate", type=float, default=1.0)
    parser.add_argument("--judge-delay", type=float, default=0.0)
    parser.add_argument("--eval-batch", type=int, default=8)
    parser.add_argument("--commit-interval", type=float, default=0.5)
    parser.add_argument("--status-port", type=int, default=0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    settings = Settings(
        kafka=KafkaSettings(
            bootstrap_servers=args.bootstrap,
            topic=args.topic,
            dlq_topic=f"{args.topic}.dlq",
            results_topic=f"{args.topic}.results",
            group_id=args.group,
            client_id=args.group,
            session_timeout_ms=6000,
            heartbeat_interval_ms=1000,
            commit_interval_s=args.commit_interval,
        ),
        redis=RedisSettings(url=args.redis_url, key_prefix=args.prefix),
        sampling=SamplingSettings(rate=args.rate),
    )
    client = redis_client(settings.redis)
    registry = CollectorRegistry()
    sink = KafkaResultSink.from_settings(settings.kafka)
    processor = make_processor(
        RedisWindowStore(client, settings.windows, settings.redis),
        RedisFindingStore(client, settings.findings, settings.redis),
        [sink],
        registry,
        FakeJudge(args.judge_delay),
        sampling=settings.sampling,
        slices=settings.windows,
    )
    consumer = KafkaTraceConsumer(
        settings.kafka,
        settings.limits,
        processor,
        registry,
        options=ConsumerOptions(eval_batch=args.eval_batch),
    )
    status = serve_status(args.status_port, consumer, registry) if args.status_port else None
    try:
        consumer.run()
    finally:
        sink.close()
        if status is not None:
            status.shutdown()
    duplicates = registry.get_sample_value("groundwatch_duplicate_traces_total") or 0
    print(f"duplicates={int(duplicates)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
