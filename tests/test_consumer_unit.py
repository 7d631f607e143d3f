"""Unit tests of the Kafka consumer layer, one module at a time, with fakes for Kafka."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from kafka.errors import KafkaTimeoutError
from kafka.structs import TopicPartition
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import CollectorRegistry

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import TraceLimits
from groundwatch.sections.connections import KafkaSettings
from groundwatch.sections.pipeline import SamplingSettings
from groundwatch.sections.windows import FindingsSettings, WindowSettings
from groundwatch.state.buckets import ALL
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Delivery, IngestObservation, StoreUnavailableError
from groundwatch.state.windows import MemoryWindowStore
from groundwatch_consumers.backpressure import PartitionGate, WorkQueue
from groundwatch_consumers.config import KafkaUnavailableError, client_config
from groundwatch_consumers.dlq import DeadLetterPublisher
from groundwatch_consumers.kafka_source import ConsumerOptions, KafkaTraceConsumer
from groundwatch_consumers.lag import ConsumerLagGauge
from groundwatch_consumers.offsets import OffsetTracker
from groundwatch_consumers.publisher import encode_trace
from groundwatch_consumers.results import KafkaResultSink, ResultSinkUnavailableError
from groundwatch_consumers.samples import sample_traces
from groundwatch_consumers.tracing import TraceSpans
from groundwatch_consumers.workers import MAX_CONSECUTIVE_POISON
from tests.consumer_support import FakeJudge, make_processor, make_trace

TP0 = TopicPartition("t", 0)
TP1 = TopicPartition("t", 1)
TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


# -- offsets ------------------------------------------------------------------------------


def test_offsets_commit_highest_contiguous_plus_one() -> None:
    tracker = OffsetTracker()
    tracker.assign([TP0])
    tracker.delivered(TP0, [10, 11, 13, 14])  # 12 is a gap (compaction): never delivered
    tracker.done(TP0, [11, 13])
    assert tracker.committable() == {}
    tracker.done(TP0, [10])
    assert tracker.committable() == {TP0: 14}
    tracker.mark_committed({TP0: 14})
    assert tracker.committable() == {}
    tracker.done(TP0, [14])
    assert tracker.committable() == {TP0: 15}
    assert tracker.in_flight() == 0


def test_offsets_revoked_partition_ignores_late_completions() -> None:
    tracker = OffsetTracker()
    tracker.assign([TP0, TP1])
    tracker.delivered(TP0, [0, 1])
    tracker.delivered(TP1, [5])
    tracker.revoke([TP0])
    tracker.done(TP0, [0, 1])
    tracker.done(TP1, [5])
    assert tracker.committable() == {TP1: 6}
    assert tracker.positions() == {TP1: 6}


def test_offsets_positions_measure_lag_from_the_oldest_not_durable() -> None:
    # Found by the mutation pass (docs/mutation.md): pending[0] -> pending[-1] survived.
    tracker = OffsetTracker()
    tracker.assign([TP0])
    assert tracker.positions() == {TP0: None}  # nothing fetched yet: no position
    tracker.delivered(TP0, [300, 301, 302])
    tracker.done(TP0, [301, 302])
    assert tracker.positions() == {TP0: 300}  # 300 is still in flight
    tracker.done(TP0, [300])
    assert tracker.positions() == {TP0: 303}


# -- backpressure ---------------------------------------------------------------------------


def test_work_queue_bounds_traces_in_flight() -> None:
    queue: WorkQueue[str] = WorkQueue(capacity=10, low_watermark=4)
    assert queue.offer("a", 6)
    assert not queue.offer("b", 6)  # would exceed capacity
    assert queue.offer("c", 4)
    assert queue.is_overloaded()
    assert queue.take(0.01) == "a"
    assert queue.in_flight == 10  # still being evaluated
    queue.task_done(6)
    assert queue.drained()
    assert queue.remove(lambda item: item == "c") == 4
    assert queue.in_flight == 0
    assert queue.offer("big", 50)  # an empty queue takes any unit: no wedge


@dataclass
class FakePausable:
    assigned: set[TopicPartition] = field(default_factory=lambda: {TP0, TP1})
    paused: set[TopicPartition] = field(default_factory=set)

    def pause(self, *tps: TopicPartition) -> None:
        self.paused |= set(tps)

    def resume(self, *tps: TopicPartition) -> None:
        self.paused -= set(tps)

    def assignment(self) -> set[TopicPartition]:
        return self.assigned


def test_partition_gate_pauses_and_resumes_assigned_partitions() -> None:
    consumer = FakePausable()
    seen: list[int] = []
    gate = PartitionGate(consumer, seen.append)
    gate.pause()
    assert consumer.paused == {TP0, TP1}
    assert gate.paused
    gate.forget([TP1])
    gate.resume()
    assert consumer.paused == {TP1}  # TP1 was revoked: not ours to resume
    assert seen[-1] == 0
    assert gate.pauses == 1


# -- lag ------------------------------------------------------------------------------------


def test_lag_gauge_from_high_watermark() -> None:
    registry = CollectorRegistry()
    lag = ConsumerLagGauge(registry)
    lag.update({TP0: 100, TP1: None}, {TP0: 40, TP1: 3})
    labels = {"topic": "t", "partition": "0"}
    assert registry.get_sample_value("groundwatch_consumer_lag", labels) == 60
    assert (
        registry.get_sample_value("groundwatch_consumer_lag", {**labels, "partition": "1"}) is None
    )
    lag.forget([TP0])
    assert registry.get_sample_value("groundwatch_consumer_lag", labels) is None


# -- DLQ and results (fake producer) -------------------------------------------------------


class FakeFuture:
    def __init__(self, error: Exception | None = None) -> None:
        self.error = error

    def get(self, timeout: float | None = None) -> None:
        if self.error:
            raise self.error

    def succeeded(self) -> bool:
        return self.error is None


@dataclass
class FakeProducer:
    sent: list[dict[str, Any]] = field(default_factory=list)
    fail: bool = False
    flushes: int = 0

    def send(self, topic: str, value: Any = None, key: Any = None, headers: Any = None) -> Any:
        self.sent.append({"topic": topic, "value": value, "key": key, "headers": headers})
        return FakeFuture(KafkaTimeoutError("no ack") if self.fail else None)

    def flush(self, timeout: float | None = None) -> None:
        self.flushes += 1

    def close(self, timeout: float | None = None) -> None:
        return None


@dataclass
class Rec:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes]] = field(default_factory=list)


def test_dlq_keeps_original_bytes_key_headers_and_names_reason() -> None:
    producer = FakeProducer()
    dlq = DeadLetterPublisher(producer, "t.dlq")
    dlq.send(Rec("t", 2, 7, b"k", b"\xff\xfe", [("traceparent", b"x")]), "not_utf8", "bad byte")
    dlq.flush()
    sent = producer.sent[0]
    headers = dict(sent["headers"])
    assert (sent["topic"], sent["key"], sent["value"]) == ("t.dlq", b"k", b"\xff\xfe")
    assert headers["traceparent"] == b"x"
    assert headers["x-groundwatch-reason"] == b"not_utf8"
    assert headers["x-groundwatch-error"] == b"bad byte"
    assert headers["x-groundwatch-source-partition"] == b"2"
    assert headers["x-groundwatch-source-offset"] == b"7"
    producer.fail = True
    dlq.send(Rec("t", 0, 1, None, b"{}"), "schema", "x")
    with pytest.raises(KafkaUnavailableError) as info:
        dlq.flush()
    assert info.value.retriable


def _record(trace_id: str) -> EvaluationRecord:
    return EvaluationRecord(
        trace_id=trace_id, evaluated_at="2024-01-01T00:00:00Z", metric_version="v", status="scored"
    )


def test_result_sink_keys_by_trace_id_and_is_durable_on_return() -> None:
    producer = FakeProducer()
    sink = KafkaResultSink(producer, "results")
    sink.write([_record("a"), _record("b")])
    assert [m["key"] for m in producer.sent] == [b"a", b"b"]
    assert json.loads(producer.sent[0]["value"])["trace_id"] == "a"
    assert producer.flushes == 1
    producer.fail = True
    with pytest.raises(ResultSinkUnavailableError) as info:
        sink.write([_record("c")])
    assert isinstance(info.value, StoreUnavailableError)
    assert info.value.retriable


def test_client_config_passes_sasl_ssl_through() -> None:
    cfg = client_config(
        KafkaSettings(
            bootstrap_servers="a:9092, b:9092",
            security_protocol="SASL_SSL",
            sasl_mechanism="SCRAM-SHA-512",
            sasl_username="u",
            sasl_password="p",
            ssl_cafile="/ca.pem",
        ),
        suffix="-x",
    )
    assert cfg["bootstrap_servers"] == ["a:9092", "b:9092"]
    assert cfg["client_id"] == "groundwatch-x"
    assert cfg["sasl_plain_password"] == "p"
    assert cfg["ssl_cafile"] == "/ca.pem"


def test_encode_trace_and_samples() -> None:
    key, value = encode_trace(make_trace("abc"))
    assert key == b"abc"
    assert json.loads(value)["trace_id"] == "abc"
    traces = sample_traces(5, seed=3)
    assert len({t["trace_id"] for t in traces}) == 5


# -- tracing -------------------------------------------------------------------------------


def _provider() -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def test_traceparent_header_becomes_parent_and_link() -> None:
    provider, exporter = _provider()
    spans = TraceSpans(provider)
    parent = spans.extract([("traceparent", TRACEPARENT.encode())])
    assert parent is not None
    assert spans.extract([("other", b"x")]) is None
    with spans.child("groundwatch.decode", parent):
        pass
    other = spans.extract([("traceparent", TRACEPARENT.replace("b7ad", "c7ad").encode())])
    with spans.batch("groundwatch.judge", [parent, other, None]):
        pass
    decode, judge = exporter.get_finished_spans()
    assert decode.parent is not None
    assert decode.context is not None
    assert f"{decode.context.trace_id:032x}" == TRACEPARENT.split("-")[1]
    assert f"{decode.parent.span_id:016x}" == "b7ad6b7169203331"
    assert judge.parent is None
    assert {f"{link.context.span_id:016x}" for link in judge.links} == {
        "b7ad6b7169203331",
        "c7ad6b7169203331",
    }
    assert TraceSpans(None).extract([("traceparent", TRACEPARENT.encode())]) is None


# -- the consumer loop, with a fake KafkaConsumer --------------------------------------------


class FakeConsumer:
    """Just enough of kafka.KafkaConsumer: two partitions, records fed by the test."""

    def __init__(self) -> None:
        self.records: dict[TopicPartition, list[Rec]] = {TP0: [], TP1: []}
        self.position = {TP0: 0, TP1: 0}
        self.paused_tps: set[TopicPartition] = set()
        self.commits: list[dict[TopicPartition, int]] = []
        self.listener: Any = None
        self.closed = False
        self.max_paused = 0
        self._lock = threading.Lock()

    def add(
        self, tp: TopicPartition, value: bytes, headers: list[tuple[str, bytes]] | None = None
    ) -> None:
        with self._lock:
            offset = len(self.records[tp])
            self.records[tp].append(Rec(tp.topic, tp.partition, offset, b"k", value, headers or []))

    def subscribe(self, topics: list[str], listener: Any) -> None:
        self.listener = listener

    def poll(self, timeout_ms: int = 0) -> dict[TopicPartition, list[Rec]]:
        if self.listener is not None:
            listener, self.listener = self.listener, None
            listener.on_partitions_assigned({TP0, TP1})
        out: dict[TopicPartition, list[Rec]] = {}
        with self._lock:
            for tp, recs in self.records.items():
                if tp in self.paused_tps:
                    continue
                batch = recs[self.position[tp] : self.position[tp] + 5]
                if batch:
                    out[tp] = batch
                    self.position[tp] += len(batch)
        if not out:
            time.sleep(timeout_ms / 1000)
        return out

    def pause(self, *tps: TopicPartition) -> None:
        self.paused_tps |= set(tps)
        self.max_paused = max(self.max_paused, len(self.paused_tps))

    def resume(self, *tps: TopicPartition) -> None:
        self.paused_tps -= set(tps)

    def assignment(self) -> set[TopicPartition]:
        return {TP0, TP1}

    def highwater(self, tp: TopicPartition) -> int:
        return len(self.records[tp])

    def commit(self, offsets: dict[TopicPartition, Any], timeout_ms: int | None = None) -> None:
        self.commits.append({tp: o.offset for tp, o in offsets.items()})

    def commit_async(self, offsets: dict[TopicPartition, Any]) -> None:
        self.commit(offsets)

    def close(self, autocommit: bool = True) -> None:
        self.closed = True

    def committed(self) -> dict[TopicPartition, int]:
        out: dict[TopicPartition, int] = {}
        for commit in self.commits:
            out.update(commit)
        return out


class FlakyWindows(MemoryWindowStore):
    """Fails the first ``failures`` evaluation writes, like a Redis that is down."""

    def __init__(self, windows: WindowSettings, failures: int) -> None:
        super().__init__(windows)
        self.failures = failures

    def observe_evaluations(
        self,
        items: Sequence[tuple[EvaluationRecord, dict[str, str], float]],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        if self.failures > 0:
            self.failures -= 1
            raise StoreUnavailableError("redis down")
        return super().observe_evaluations(items, deliveries)

    def observe_ingest(
        self,
        items: Sequence[IngestObservation],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        return super().observe_ingest(items, deliveries)


def _run_consumer(
    fake: FakeConsumer,
    windows: MemoryWindowStore,
    *,
    judge: FakeJudge | None = None,
    options: ConsumerOptions | None = None,
    provider: TracerProvider | None = None,
    rate: float = 1.0,
    notes: Any = None,
) -> tuple[KafkaTraceConsumer, threading.Thread, FakeProducer, CollectorRegistry]:
    kafka = KafkaSettings(bootstrap_servers="fake:9092", topic="t", commit_interval_s=0.05)
    registry = CollectorRegistry()
    processor = make_processor(
        windows,
        MemoryFindingStore(FindingsSettings()),
        [],
        registry,
        judge,
        sampling=SamplingSettings(rate=rate),
    )
    dlq_producer = FakeProducer()
    consumer = KafkaTraceConsumer(
        kafka,
        TraceLimits(),
        processor,
        registry,
        tracer_provider=provider,
        options=options
        or ConsumerOptions(handle_signals=False, poll_timeout_ms=10, backoff_initial_s=0.02),
        consumer_factory=lambda: fake,
        dlq=DeadLetterPublisher(dlq_producer, "t.dlq"),
        producer_contexts=notes,
    )
    thread = threading.Thread(target=consumer.run, daemon=True)
    thread.start()
    return consumer, thread, dlq_producer, registry


def _wait(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.01)


def test_consumer_dead_letters_bad_input_and_commits_after_durable() -> None:
    fake = FakeConsumer()
    windows = MemoryWindowStore(WindowSettings())
    provider, exporter = _provider()
    for i in range(6):
        fake.add(
            TP0, json.dumps(make_trace(f"a{i}")).encode(), [("traceparent", TRACEPARENT.encode())]
        )
    fake.add(TP0, b"not json")
    fake.add(TP1, b"\xff")
    fake.add(TP1, json.dumps({"trace_id": "x"}).encode())
    fake.add(TP1, json.dumps(make_trace("b0")).encode())
    from groundwatch.observability.telemetry import ProducerContexts

    notes = ProducerContexts()
    consumer, thread, dlq, registry = _run_consumer(fake, windows, provider=provider, notes=notes)
    try:
        _wait(lambda: fake.committed() == {TP0: 7, TP1: 3})
        assert consumer.ready()
    finally:
        consumer.stop()
        thread.join(10)
    assert fake.closed
    reasons = sorted(dict(m["headers"])["x-groundwatch-reason"] for m in dlq.sent)
    assert reasons == [b"not_json", b"not_utf8", b"schema"]
    rejected = registry.get_sample_value(
        "groundwatch_traces_rejected_total", {"source": "kafka", "reason": "schema"}
    )
    assert rejected == 1
    summary = windows.summaries(time.time() - 600, time.time() + 60)[ALL]
    assert summary.count("received") == 7
    assert summary.count("evaluated") == 7
    noted = notes.pop("a3")
    assert noted is not None
    assert f"{noted.span_id:016x}" == "b7ad6b7169203331"
    assert notes.pop("b0") is None  # no traceparent header
    names = {s.name for s in exporter.get_finished_spans()}
    assert {
        "groundwatch.decode",
        "groundwatch.sample",
        "groundwatch.judge",
        "groundwatch.record",
    } <= names


def test_consumer_pauses_when_judge_is_slow_and_resumes() -> None:
    fake = FakeConsumer()
    windows = MemoryWindowStore(WindowSettings())
    for i in range(40):
        fake.add(TP0 if i % 2 else TP1, json.dumps(make_trace(f"s{i}")).encode())
    options = ConsumerOptions(
        handle_signals=False, poll_timeout_ms=5, queue_capacity=6, eval_batch=2
    )
    consumer, thread, _, _ = _run_consumer(fake, windows, judge=FakeJudge(0.02), options=options)
    try:
        _wait(lambda: fake.committed() == {TP0: 20, TP1: 20})
    finally:
        consumer.stop()
        thread.join(10)
    assert fake.max_paused == 2
    assert not fake.paused_tps
    assert windows.summaries(time.time() - 600, time.time() + 60)[ALL].count("evaluated") == 40


def test_consumer_retries_unavailable_store_without_committing() -> None:
    fake = FakeConsumer()
    windows = FlakyWindows(WindowSettings(), failures=6)
    for i in range(3):
        fake.add(TP0, json.dumps(make_trace(f"r{i}")).encode())
    consumer, thread, _, registry = _run_consumer(fake, windows)
    readiness: list[bool] = []
    try:
        _wait(lambda: bool(consumer.failing()))
        readiness.append(consumer.ready())
        assert fake.committed() == {}
        _wait(lambda: fake.committed() == {TP0: 3})
        _wait(consumer.ready)
    finally:
        consumer.stop()
        thread.join(10)
    assert readiness == [False]
    assert registry.get_sample_value("groundwatch_consumer_retries_total", {"stage": "record"}) == 6
    assert windows.summaries(time.time() - 600, time.time() + 60)[ALL].count("evaluated") == 3


class _BuggyJudge(FakeJudge):
    """A bug (AssertionError) on every trace whose id starts with ``bad``."""

    def judge_batch(self, traces: Any) -> Any:
        if any(t.trace_id.startswith("bad") for t in traces):
            raise AssertionError("bug in the judge")
        return super().judge_batch(traces)


def _buggy_consumer(
    fake: FakeConsumer, where: str
) -> tuple[KafkaTraceConsumer, FakeProducer, list[Any]]:
    windows = MemoryWindowStore(WindowSettings())
    kafka = KafkaSettings(bootstrap_servers="fake:9092", topic="t", commit_interval_s=0.05)
    registry = CollectorRegistry()
    judge = _BuggyJudge() if where == "judge" else FakeJudge()
    processor = make_processor(windows, MemoryFindingStore(FindingsSettings()), [], registry, judge)
    recorded: list[Any] = []
    real_record = processor.record

    def spy(traces: Any, records: Any, deliveries: Any = None) -> Any:
        if where == "store" and any(t.trace_id.startswith("bad") for t in traces):
            raise TypeError("bug in the store")
        recorded.extend(records)
        return real_record(traces, records, deliveries)

    processor.record = spy  # type: ignore[method-assign]
    dlq = FakeProducer()
    consumer = KafkaTraceConsumer(
        kafka,
        TraceLimits(),
        processor,
        registry,
        options=ConsumerOptions(handle_signals=False, poll_timeout_ms=5),
        consumer_factory=lambda: fake,
        dlq=DeadLetterPublisher(dlq, "t.dlq"),
    )
    return consumer, dlq, recorded


@pytest.mark.parametrize("where", ["judge", "store"])
def test_a_bug_on_one_trace_dead_letters_it_and_the_rest_of_the_batch_commits(where: str) -> None:
    # A trace that fails alone, every time (a poison message that validates), is dead-lettered
    # with reason "unprocessable"; its batch-mates are scored and every offset is committed.
    fake = FakeConsumer()
    for trace_id in ("a", "b", "bad-1", "c", "d"):
        fake.add(TP0, json.dumps(make_trace(trace_id)).encode())
    consumer, dlq, recorded = _buggy_consumer(fake, where)
    thread = threading.Thread(target=consumer.run, daemon=True)
    thread.start()
    try:
        _wait(lambda: fake.committed() == {TP0: 5})
        assert thread.is_alive()
    finally:
        consumer.stop()
        thread.join(10)
    assert sorted(r.trace_id for r in recorded) == ["a", "b", "c", "d"]
    assert len(dlq.sent) == 1
    headers = dict(dlq.sent[0]["headers"])
    assert headers["x-groundwatch-reason"] == b"unprocessable"
    assert json.loads(dlq.sent[0]["value"])["trace_id"] == "bad-1"
    kind = b"AssertionError" if where == "judge" else b"TypeError"
    assert headers["x-groundwatch-error"].startswith(kind)


@pytest.mark.parametrize("where", ["judge", "store"])
def test_a_systemic_bug_still_stops_the_consumer_loudly(where: str) -> None:
    # Every trace failing alone is a bug, not bad input: after MAX_CONSECUTIVE_POISON of them
    # the consumer stops with the error and closes the client, so the process restarts.
    fake = FakeConsumer()
    for i in range(MAX_CONSECUTIVE_POISON + 10):
        fake.add(TP0, json.dumps(make_trace(f"bad-{i}")).encode())
    consumer, dlq, recorded = _buggy_consumer(fake, where)
    raised: list[BaseException] = []

    def run() -> None:
        try:
            consumer.run()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(30)
    if thread.is_alive():  # the bug was swallowed: the consumer carried on
        consumer.stop()
        thread.join(10)
    assert [type(e) for e in raised] == [AssertionError if where == "judge" else TypeError]
    assert recorded == []  # no unscored record stands in for the judge's bug
    assert len(dlq.sent) <= MAX_CONSECUTIVE_POISON
    assert (fake.committed().get(TP0) or 0) <= MAX_CONSECUTIVE_POISON
    assert fake.closed


# -- decode fast path ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        json.dumps(make_trace("ok")).encode(),
        json.dumps(make_trace("ok", contexts=["plain string passage"])).encode(),
        b"{oops",
        b"\xff\xfe",
        b"\xef\xbb\xbf" + json.dumps(make_trace("bom")).encode(),
        json.dumps({"trace_id": "x", "contexts": []}).encode(),
        b'{"trace_id":"\\ud800","question":"q","contexts":[]}',
        b'{"trace_id":"n","question":"q","contexts":[{"text":"t","score":NaN}]}',
        json.dumps(make_trace("long", question="q" * 9000)).encode(),
        json.dumps(make_trace("big", answer="a" * 3000)).encode(),
        b"[]",
        b"",
    ],
)
def test_decode_fast_agrees_with_the_contract(raw: bytes) -> None:
    from groundwatch.contract.trace import TraceDecodeError, TraceLimits, decode_trace
    from groundwatch_consumers.decode import decode_fast

    limits = TraceLimits(max_bytes=2000)

    def outcome(fn: Callable[[bytes, TraceLimits], Any]) -> Any:
        try:
            return fn(raw, limits).model_dump()
        except TraceDecodeError as exc:
            return (exc.reason, exc.detail)

    assert outcome(decode_fast) == outcome(decode_trace)


def test_consumer_retries_an_unreachable_broker_at_start() -> None:
    from kafka.errors import KafkaConnectionError

    fake = FakeConsumer()
    fake.add(TP0, json.dumps(make_trace("late")).encode())
    attempts: list[int] = []

    def factory() -> FakeConsumer:
        attempts.append(1)
        if len(attempts) < 3:
            raise KafkaConnectionError("no broker")
        return fake

    registry = CollectorRegistry()
    windows = MemoryWindowStore(WindowSettings())
    processor = make_processor(windows, MemoryFindingStore(FindingsSettings()), [], registry)
    consumer = KafkaTraceConsumer(
        KafkaSettings(bootstrap_servers="fake:9092", topic="t"),
        TraceLimits(),
        processor,
        registry,
        options=ConsumerOptions(handle_signals=False, poll_timeout_ms=5, backoff_initial_s=0.05),
        consumer_factory=factory,
        dlq=DeadLetterPublisher(FakeProducer(), "t.dlq"),
    )
    thread = threading.Thread(target=consumer.run, daemon=True)
    thread.start()
    try:
        _wait(lambda: "broker" in consumer.failing())
        assert not consumer.ready()
        _wait(consumer.ready)
        _wait(lambda: fake.committed() == {TP0: 1})
    finally:
        consumer.stop()
        thread.join(10)
    assert len(attempts) == 3
    assert (
        registry.get_sample_value("groundwatch_consumer_retries_total", {"stage": "connect"}) == 2
    )
