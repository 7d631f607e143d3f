"""Compressed bombs and dead letters that cannot be written, through a real Kafka-compatible
broker (Tansu) and a real Redis.

Before the fix a gzip record of about 50 KB that inflates to 50 MB was decompressed whole by
kafka-python, failed the size check, and its dead-letter copy failed with
``MessageSizeTooLargeError``, retried forever: every partition stopped, ``/healthz`` stayed 200,
the lag gauge read 0, and a restart stalled again on the same record.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import crc32c
import pytest
from fastapi.testclient import TestClient
from kafka import KafkaProducer
from kafka.record import MemoryRecords
from kafka.record.default_records import DefaultRecordBatchBuilder
from prometheus_client import CollectorRegistry

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.runtime import Runtime
from groundwatch.sections.connections import RedisSettings
from groundwatch.settings import Settings
from groundwatch.state.redis_store import RedisWindowStore, redis_client
from groundwatch_consumers.dlq import DeadLetterPublisher, SourceRecord
from groundwatch_consumers.inflate import MARKER_HEADER, FetchGuard, InflateBounds
from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from tests.builders import build_pipeline_settings
from tests.consumer_support import make_trace, read_topic
from tests.fakes import FakeJudge
from tests.infra import KafkaBroker, RedisServer
from tests.test_consumer_kafka import (
    _topics,
    committed_all,
    counts,
    running,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[1]
BOMB_BYTES = 50_000_000
#: Peak RSS (VmHWM) allowed to the consumer process that meets a 50 MB bomb on each of its three
#: partitions. Measured: 82 MiB with the fix, 268 MiB (and stalled) without it.
RSS_BOUND_MIB = 150


def _bomb(name: str) -> bytes:
    """Valid JSON of BOMB_BYTES that gzip shrinks to about 50 KB."""
    head = json.dumps({"trace_id": name, "question": ""})[:-2].encode()
    return head + b"a" * (BOMB_BYTES - len(head) - 2) + b'"}'


def _produce_with_bombs(bootstrap: str, topic: str, ids: list[str], partitions: int) -> None:
    """On each partition: valid traces, one gzip bomb, valid traces; all gzip compressed."""
    producer = KafkaProducer(
        bootstrap_servers=bootstrap,
        compression_type="gzip",
        linger_ms=20,
        max_request_size=BOMB_BYTES + 1_000_000,  # the producer checks the size before gzip
    )
    try:
        per = len(ids) // partitions
        for p in range(partitions):
            mine = ids[p * per : (p + 1) * per]
            for trace_id in mine[: per // 2]:
                value = json.dumps(make_trace(trace_id)).encode()
                producer.send(topic, value, trace_id.encode(), partition=p)
            producer.flush()
            producer.send(topic, _bomb(f"bomb-{p}"), f"bomb-{p}".encode(), partition=p)
            producer.flush()
            for trace_id in mine[per // 2 :]:
                value = json.dumps(make_trace(trace_id)).encode()
                producer.send(topic, value, trace_id.encode(), partition=p)
            producer.flush()
    finally:
        producer.close()


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def _spawn(settings: Settings, name: str, log: Path) -> subprocess.Popen[bytes]:
    assert settings.kafka.bootstrap_servers
    assert settings.redis.url
    cmd = [
        sys.executable, "-m", "tests.consumer_proc",
        "--bootstrap", settings.kafka.bootstrap_servers, "--topic", name,
        "--group", settings.kafka.group_id,
        "--redis-url", settings.redis.url.get_secret_value(),
        "--prefix", name, "--rate", "1.0", "--judge-delay", "0.05",
        "--eval-batch", "8", "--commit-interval", "0.3",
    ]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=log.open("ab"), env={**os.environ}
    )


@pytest.mark.kafka
@pytest.mark.redis
def test_gzip_bomb_on_every_partition_with_a_kill_9_mid_stream(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str, tmp_path: Path
) -> None:
    """The target of issue 45: every valid trace scored, each bomb dead-lettered bounded, every
    offset committed, peak RSS bounded, across a SIGKILL and a restart."""
    _topics(kafka_broker, unique_name)
    settings = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name, 1.0)
    windows = RedisWindowStore(redis_client(settings.redis), settings.windows, settings.redis)
    ids = [f"{unique_name}-{i}" for i in range(600)]
    _produce_with_bombs(kafka_broker.bootstrap, unique_name, ids, 3)
    log = tmp_path / "consumer.log"
    first = _spawn(settings, unique_name, log)
    second: subprocess.Popen[bytes] | None = None
    try:
        wait_for(lambda: counts(windows)[1] >= 150, 90, "first consumer got past the bombs")
        peak_first = _peak_rss_mib(first.pid)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        at_kill = counts(windows)[1]
        assert at_kill < len(ids), "killed too late to be mid-stream"
        second = _spawn(settings, unique_name, log)
        wait_for(lambda: counts(windows) == (600, 600), 120, "every valid trace scored")
        wait_for(
            lambda: committed_all(kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 3),
            30,
            "every offset committed, the bombs' too",
        )
        peak_second = _peak_rss_mib(second.pid)
        second.send_signal(signal.SIGTERM)
        second.communicate(timeout=30)
        assert second.returncode == 0, log.read_text()[-3000:]
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait(10)
    print(
        f"\ngzip bombs: killed at {int(at_kill)} of 600 scored; peak RSS {peak_first:.0f} MiB "
        f"(first), {peak_second:.0f} MiB (second, after the restart)"
    )
    assert max(peak_first, peak_second) < RSS_BOUND_MIB
    dead = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=3)
    # The first consumer may have written a copy before its offset was committed: the same
    # coordinates again, never another record.
    coordinates = {
        (m.headers["x-groundwatch-source-partition"], m.headers["x-groundwatch-source-offset"])
        for m in dead
    }
    assert {p for p, _ in coordinates} == {b"0", b"1", b"2"}
    assert len(coordinates) == 3
    for m in dead:
        assert m.key is not None
        assert m.key.startswith(b"bomb-")
        assert m.headers["x-groundwatch-reason"] == b"oversize"
        assert m.headers["x-groundwatch-truncated"] == b"1"
        assert int(m.headers["x-groundwatch-source-bytes"]) > BOMB_BYTES
        assert m.value is not None
        assert 0 < len(m.value) <= 64 * 1024
        assert MARKER_HEADER not in m.headers
    results = read_topic(kafka_broker.bootstrap, f"{unique_name}.results", expect=600)
    assert {(m.key or b"").decode() for m in results} == set(ids)


@pytest.mark.kafka
@pytest.mark.redis
def test_a_dead_letter_too_large_for_the_producer_is_written_as_a_bounded_copy(
    kafka_broker: KafkaBroker, redis_server: RedisServer, unique_name: str
) -> None:
    """A plain (uncompressed) record of 1.5 MB is over ``max_bytes`` and over the DLQ
    producer's ``max_request_size`` (1 MiB): its copy is cut, says so, and keeps the original
    coordinates, size and reason."""
    _topics(kafka_broker, unique_name, partitions=1)
    settings = build_pipeline_settings(kafka_broker.bootstrap, redis_server.url, unique_name, 1.0)
    big = b'{"trace_id":"big","question":"' + b"q" * 1_500_000 + b'"}'
    ids = [f"{unique_name}-{i}" for i in range(20)]
    with running(settings) as run:
        producer = KafkaProducer(bootstrap_servers=kafka_broker.bootstrap, max_request_size=4 << 20)
        for trace_id in ids[:10]:
            producer.send(unique_name, json.dumps(make_trace(trace_id)).encode(), trace_id.encode())
        producer.send(unique_name, big, b"big", headers=[("origin", b"test")])
        for trace_id in ids[10:]:
            producer.send(unique_name, json.dumps(make_trace(trace_id)).encode(), trace_id.encode())
        producer.flush()
        producer.close()
        wait_for(lambda: counts(run.windows) == (20, 20), 60, "the valid traces scored")
        wait_for(
            lambda: committed_all(kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 1),
            15,
            "committed past the big record",
        )
        labels = {"source": "kafka", "reason": "oversize"}
        assert run.registry.get_sample_value("groundwatch_traces_rejected_total", labels) == 1
    [copy] = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=1)
    assert copy.value == big[: 256 * 1024]
    assert copy.key == b"big"
    assert copy.headers["origin"] == b"test"
    assert copy.headers["x-groundwatch-truncated"] == b"1"
    assert copy.headers["x-groundwatch-source-bytes"] == str(len(big)).encode()
    assert copy.headers["x-groundwatch-reason"] == b"oversize"
    assert copy.headers["x-groundwatch-source-topic"] == unique_name.encode()
    assert copy.headers["x-groundwatch-source-partition"] == b"0"
    assert copy.headers["x-groundwatch-source-offset"] == b"10"


@pytest.mark.kafka
@pytest.mark.parametrize(
    ("max_request_size", "written", "skipped"),
    [(2_000, "minimal", None), (120, None, "rejected")],
)
def test_a_copy_the_producer_refuses_is_written_minimal_or_skipped_and_counted(
    kafka_broker: KafkaBroker,
    unique_name: str,
    max_request_size: int,
    written: str | None,
    skipped: str | None,
) -> None:
    """A DLQ producer that refuses the bounded copy (``MessageSizeTooLargeError``, not
    retriable): a minimal copy (coordinates, size, reason; no value) is written instead; when
    even that is refused the dead letter is skipped, counted by reason, and committed past."""
    _topics(kafka_broker, unique_name, partitions=1)
    settings = _memory_settings(kafka_broker, unique_name)
    producer = KafkaProducer(
        bootstrap_servers=kafka_broker.bootstrap, max_request_size=max_request_size
    )
    publisher = DeadLetterPublisher(producer, f"{unique_name}.dlq")
    registry, _, client = _in_app(settings, publisher)
    with client:
        _send(kafka_broker.bootstrap, unique_name, [b"not json " * 500, *_valid(unique_name, 5)])
        wait_for(
            lambda: committed_all(kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 1),
            30,
            "committed past the poison message",
        )
        skips = registry.get_sample_value(
            "groundwatch_consumer_dead_letters_skipped_total", {"reason": "rejected"}
        )
        assert (skips or 0) == (1 if skipped else 0)
        assert client.get("/healthz").status_code == 200
    dead = read_topic(kafka_broker.bootstrap, f"{unique_name}.dlq", expect=1, timeout_s=5)
    if written:
        [copy] = dead
        assert copy.value == b""
        assert copy.key is None
        assert copy.headers["x-groundwatch-reason"] == b"not_json"
        assert copy.headers["x-groundwatch-source-bytes"] == b"4500"
        assert copy.headers["x-groundwatch-source-offset"] == b"0"
    else:
        assert dead == []


@pytest.mark.kafka
def test_a_dlq_that_stays_down_is_given_up_and_healthz_and_lag_tell_the_truth_meanwhile(
    kafka_broker: KafkaBroker, unique_name: str
) -> None:
    """The DLQ's broker is gone (SIGKILL): while the dead letter is retried the partition is
    stuck, and /healthz says so (503, ``kafka_loop``) and the lag gauge counts what waits
    behind it. After ``dlq_retry_s`` it is skipped (counted, ``unavailable``), committed past,
    and the rest is scored. The second dead letter behind the same dead DLQ gets one try, not
    another ``dlq_retry_s``."""
    _topics(kafka_broker, unique_name, partitions=1)
    settings = _memory_settings(kafka_broker, unique_name)
    with KafkaBroker.start() as dlq_broker:
        producer = KafkaProducer(
            bootstrap_servers=dlq_broker.bootstrap, max_block_ms=1000, request_timeout_ms=1000
        )
        dlq_broker.kill(signal.SIGKILL)
        publisher = _CountingPublisher(producer, f"{unique_name}.dlq", flush_timeout_s=1.0)
        registry, _, client = _in_app(settings, publisher, dlq_retry_s=8.0, stall_after_s=2.0)
        poison = [b"not json", b"not json either"]
        _send(kafka_broker.bootstrap, unique_name, [*poison, *_valid(unique_name, 30)])
        with client:
            wait_for(lambda: client.get("/healthz").status_code == 503, 15, "healthz 503")
            body = client.get("/healthz").json()
            assert body["checks"]["kafka_loop"] is False
            assert client.get("/readyz").status_code == 503
            lag = registry.get_sample_value(
                "groundwatch_consumer_lag", {"topic": unique_name, "partition": "0"}
            )
            assert lag == 32  # the stuck dead letters and the 30 traces behind them
            wait_for(lambda: client.get("/healthz").status_code == 200, 20, "healthz 200 again")
            wait_for(
                lambda: committed_all(
                    kafka_broker.bootstrap, settings.kafka.group_id, unique_name, 1
                ),
                30,
                "committed past the dead letters",
            )
            # The first is retried for dlq_retry_s; the breaker gives the second one try only
            # (without it, another dlq_retry_s of tries). Counted, not timed: timing on a
            # shared machine is noise.
            assert publisher.tries[0] > 1
            assert publisher.tries[1] == 1
            wait_for(lambda: client.get("/readyz").status_code == 200, 10, "ready again")
            skips = registry.get_sample_value(
                "groundwatch_consumer_dead_letters_skipped_total", {"reason": "unavailable"}
            )
            assert skips == 2
            evaluated = registry.get_sample_value(
                "groundwatch_traces_evaluated_total", {"status": "scored"}
            )
            assert evaluated == 30
            lag = registry.get_sample_value(
                "groundwatch_consumer_lag", {"topic": unique_name, "partition": "0"}
            )
            assert lag == 0


class _CountingPublisher(DeadLetterPublisher):
    """Counts the tries at each source offset (one ``send`` each)."""

    def __init__(self, producer: KafkaProducer, topic: str, *, flush_timeout_s: float) -> None:
        super().__init__(producer, topic, flush_timeout_s=flush_timeout_s)
        self.tries: dict[int, int] = {}

    def send(
        self,
        record: SourceRecord,
        reason: str,
        detail: str,
        *,
        size: int | None = None,
        minimal: bool = False,
    ) -> None:
        self.tries[record.offset] = self.tries.get(record.offset, 0) + 1
        super().send(record, reason, detail, size=size, minimal=minimal)


def _memory_settings(broker: KafkaBroker, name: str) -> Settings:
    """Kafka on ``broker``; windows and findings in memory."""
    settings = build_pipeline_settings(broker.bootstrap, "redis://127.0.0.1:1/0", name, 1.0)
    return settings.model_copy(update={"redis": RedisSettings()})


def _in_app(
    settings: Settings,
    dlq: DeadLetterPublisher,
    *,
    dlq_retry_s: float = 30.0,
    stall_after_s: float = 120.0,
) -> tuple[CollectorRegistry, KafkaTraceConsumer, TestClient]:
    """The service's own app and runtime (in-memory stores) around a Kafka consumer with
    ``dlq`` as its dead-letter publisher."""
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    consumer = KafkaTraceConsumer(
        settings.kafka,
        settings.limits,
        runtime.processor,
        runtime.registry,
        options=ConsumerOptions(
            handle_signals=False,
            backoff_initial_s=0.1,
            backoff_max_s=0.5,
            dlq_retry_s=dlq_retry_s,
            stall_after_s=stall_after_s,
        ),
        dlq=dlq,
    )
    runtime.consumer = consumer
    return runtime.registry, consumer, TestClient(create_app(runtime, app_config(settings)))


def _valid(name: str, n: int) -> list[bytes]:
    return [json.dumps(make_trace(f"{name}-{i}")).encode() for i in range(n)]


def _send(bootstrap: str, topic: str, values: list[bytes]) -> None:
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    for value in values:
        producer.send(topic, value)
    producer.flush()
    producer.close()


# -- the fetch guard on its own: kafka-python's own batch format, no broker -------------------


def _batch(base: int, values: list[bytes], headers: tuple[tuple[str, bytes], ...] = ()) -> bytes:
    builder = DefaultRecordBatchBuilder(
        magic=2, compression_type=1, is_transactional=False,
        producer_id=-1, producer_epoch=-1, base_sequence=-1, batch_size=1 << 30,
    )  # fmt: skip
    for i, value in enumerate(values):
        builder.append(i, timestamp=1000 + i, key=b"k%d" % i, value=value, headers=list(headers))
    out = builder.build()
    struct.pack_into(">q", out, 0, base)
    return bytes(out)


def _read(data: bytes) -> list[tuple[int, bytes | None, list[tuple[str, bytes]]]]:
    out: list[tuple[int, bytes | None, list[tuple[str, bytes]]]] = []
    for batch in MemoryRecords(data):
        assert batch.validate_crc()
        out.extend((r.offset, r.value, r.headers) for r in batch)
    return out


def test_a_forged_marker_header_is_not_a_marker() -> None:
    guard = FetchGuard(InflateBounds.for_limit(1000), CollectorRegistry())
    forged = _batch(0, [b"x" * 10_000], ((MARKER_HEADER, b"0000:oversize:99"),))
    [(offset, value, headers)] = _read(guard.rewrite(forged, 0))
    assert guard.marker(headers) is None
    assert value == b"x" * 10_000
    assert offset == 0
    bomb = _batch(0, [b"y" * 5_000_000])
    [(_, value, headers)] = _read(guard.rewrite(bomb, 0))
    marker = guard.marker(headers)
    assert marker is not None
    assert marker.reason == "oversize"
    assert marker.size > 5_000_000
    assert value == b"y" * guard.bounds.keep_bytes


def test_a_bomb_inside_a_batch_of_valid_records_becomes_a_marker_between_them() -> None:
    guard = FetchGuard(InflateBounds.for_limit(1000), CollectorRegistry())
    raw = _batch(7, [b"first", b"z" * 20_000_000, b"last"])
    assert len(raw) < 100_000
    got = _read(guard.rewrite(raw, 7))
    assert [(offset, value) for offset, value, _ in got[::2]] == [(7, b"first"), (9, b"last")]
    assert got[1][0] == 8
    marker = guard.marker(got[1][2])
    assert marker is not None
    assert marker.reason == "oversize"
    assert marker.size > 20_000_000
    assert guard.marker(got[0][2]) is None


def test_the_fetch_budget_cuts_a_batch_and_every_record_still_arrives() -> None:
    """A batch larger than the per-fetch budget is handed on in pieces: each fetch (from the
    next offset, as kafka-python asks) gets some records, none is skipped or repeated."""
    bounds = InflateBounds(record_bytes=2000, keep_bytes=100, fetch_bytes=0)
    guard = FetchGuard(bounds, CollectorRegistry())
    values = [bytes([65 + i % 26]) * 1500 for i in range(40)]
    raw = _batch(100, values) + _batch(140, values[:3])
    seen: list[int] = []
    position, fetches = 100, 0
    while position < 143:
        got = _read(guard.rewrite(raw, position))
        got = [r for r in got if r[0] >= position]  # kafka-python skips these too
        assert got, "a fetch made no progress"
        assert all(len(bytes(r[1] or b"")) == 1500 for r in got)
        seen.extend(r[0] for r in got)
        position = got[-1][0] + 1
        fetches += 1
    assert seen == list(range(100, 143))
    assert fetches > 5


def test_a_corrupt_gzip_batch_becomes_one_marker_at_its_last_offset() -> None:
    guard = FetchGuard(InflateBounds.for_limit(1000), CollectorRegistry())
    good = _batch(0, [b"a" * 300, b"b" * 300])
    body = bytearray(good)
    body[70:90] = gzip.compress(b"garbage")[:20]  # inside the compressed records
    struct.pack_into(">I", body, 17, crc32c.crc32c(bytes(body[21:])))  # corrupt at the source
    got = _read(guard.rewrite(bytes(body), 0))
    assert got[-1][0] == 1
    marker = guard.marker(got[-1][2])
    assert marker is not None
    assert marker.reason == "corrupt"
