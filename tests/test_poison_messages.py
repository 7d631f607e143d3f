"""Poison messages through a real Kafka-compatible broker (Tansu) and a real Redis: a message
that cannot be read, or that validates but cannot be processed, is dead-lettered with its
reason, and every valid message before and after it in the same poll is scored and committed.

Before the fix either poison message below killed the consumer thread (0 of 120 valid traces
scored) and killed it again on every re-delivery.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Sequence

import pytest
from kafka import KafkaProducer
from prometheus_client import CollectorRegistry

from groundwatch.contract.record import EvaluationRecord
from groundwatch.settings import Settings
from groundwatch.state.redis_store import RedisFindingStore, RedisWindowStore, redis_client
from groundwatch.state.stores import ResultSink
from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from groundwatch_consumers.results import KafkaResultSink
from tests.builders import build_pipeline_settings
from tests.consumer_support import FakeJudge, make_processor, make_trace, read_topic
from tests.infra import KafkaBroker, RedisServer
from tests.test_consumer_kafka import committed_all, counts, wait_for

pytestmark = [pytest.mark.kafka, pytest.mark.redis]

#: An integer literal longer than Python's 4,300-digit int conversion limit: valid JSON that
#: ``json.loads`` refuses with a plain ValueError.
HUGE_INT = (
    b'{"trace_id":"huge-int","question":"q?","contexts":[],"answer":"a","n":' + b"7" * 5000 + b"}"
)
#: A passage id that is a lone surrogate: valid JSON, not valid Unicode, so it cannot be
#: written to the results topic as UTF-8.
LONE_SURROGATE = (
    b'{"trace_id":"lone-surrogate","question":"What is the fee?",'
    b'"contexts":[{"text":"The fee is 5 EUR.","id":"\\ud800"}],"answer":"The fee is 5 EUR."}'
)


class PoisonSink:
    """A result sink that cannot write one trace's record (as a record that fails to encode):
    a non-retriable error on that trace alone, every time it is re-delivered."""

    def write(self, records: Sequence[EvaluationRecord]) -> None:
        if any(r.trace_id == "poison-trace" for r in records):
            raise ValueError("cannot encode this record")

    def close(self) -> None:
        return None


@contextlib.contextmanager
def consumer(
    settings: Settings, judge: FakeJudge, extra: Sequence[ResultSink] = ()
) -> Iterator[tuple[KafkaTraceConsumer, CollectorRegistry, RedisWindowStore, threading.Thread]]:
    registry = CollectorRegistry()
    client = redis_client(settings.redis, socket_timeout=1.0)
    windows = RedisWindowStore(client, settings.windows, settings.redis)
    sink = KafkaResultSink.from_settings(settings.kafka)
    processor = make_processor(
        windows,
        RedisFindingStore(client, settings.findings, settings.redis),
        [sink, *extra],
        registry,
        judge,
        sampling=settings.sampling,
        slices=settings.windows,
    )
    options = ConsumerOptions(handle_signals=False, backoff_initial_s=0.1, backoff_max_s=0.5)
    running = KafkaTraceConsumer(
        settings.kafka, settings.limits, processor, registry, options=options
    )
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    try:
        wait_for(running.ready, 30, "consumer joined its group")
        yield running, registry, windows, thread
    finally:
        running.stop()
        thread.join(30)
        sink.close()


def _produce_around(broker: KafkaBroker, topic: str, poison: list[bytes], ids: list[str]) -> None:
    """Half the valid traces, the poison, the other half: one partition, so they share polls."""
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, linger_ms=50)
    half = len(ids) // 2
    for trace_id in ids[:half]:
        producer.send(topic, json.dumps(make_trace(trace_id)).encode(), trace_id.encode())
    for n, value in enumerate(poison):
        producer.send(topic, value, f"poison-{n}".encode())
    for trace_id in ids[half:]:
        producer.send(topic, json.dumps(make_trace(trace_id)).encode(), trace_id.encode())
    producer.flush()
    producer.close()


def _topics(broker: KafkaBroker, name: str) -> None:
    broker.create_topic(name, 1)
    broker.create_topic(f"{name}.dlq", 1)
    broker.create_topic(f"{name}.results", 1)


def test_unreadable_poison_messages_are_dead_lettered_and_the_rest_scored(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str
) -> None:
    _topics(kafka_broker, unique_name)
    settings = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name, 1.0)
    ids = [f"{unique_name}-{i}" for i in range(120)]
    with consumer(settings, FakeJudge()) as (running, registry, windows, thread):
        _produce_around(kafka_broker, unique_name, [HUGE_INT, LONE_SURROGATE], ids)
        wait_for(lambda: counts(windows) == (120, 120), 60, "all 120 valid traces scored")
        wait_for(
            lambda: committed_all(kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 1),
            15,
            "every offset committed, the poison ones too",
        )
        assert thread.is_alive()
        assert running.ready()
        for reason in ("not_json", "schema"):
            labels = {"source": "kafka", "reason": reason}
            assert registry.get_sample_value("groundwatch_traces_rejected_total", labels) == 1
    dead = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=2)
    by_value = {m.value: m for m in dead}
    assert set(by_value) == {HUGE_INT, LONE_SURROGATE}
    assert by_value[HUGE_INT].headers["x-groundwatch-reason"] == b"not_json"
    assert by_value[LONE_SURROGATE].headers["x-groundwatch-reason"] == b"schema"
    assert b"contexts.0.id" in by_value[LONE_SURROGATE].headers["x-groundwatch-error"]
    results = read_topic(kafka_broker.bootstrap, f"{unique_name}.results", expect=120)
    assert {(m.key or b"").decode() for m in results} == set(ids)


def test_a_trace_that_cannot_be_processed_is_dead_lettered_not_fatal(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str
) -> None:
    _topics(kafka_broker, unique_name)
    settings = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name, 1.0)
    ids = [f"{unique_name}-{i}" for i in range(40)]
    poison = json.dumps(make_trace("poison-trace")).encode()
    with consumer(settings, FakeJudge(), [PoisonSink()]) as (running, registry, windows, thread):
        _produce_around(kafka_broker, unique_name, [poison], ids)
        # Every trace is counted as received; the poison one is never evaluated.
        wait_for(lambda: counts(windows) == (41, 40), 60, "the 40 valid traces scored")
        wait_for(
            lambda: committed_all(kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 1),
            15,
            "every offset committed",
        )
        assert thread.is_alive()
        assert running.ready()
        labels = {"source": "kafka", "reason": "unprocessable"}
        assert registry.get_sample_value("groundwatch_traces_rejected_total", labels) == 1
    dead = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=1)
    assert [m.value for m in dead] == [poison]
    assert dead[0].headers["x-groundwatch-reason"] == b"unprocessable"
    assert b"cannot encode" in dead[0].headers["x-groundwatch-error"]
