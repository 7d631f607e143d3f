"""The Kafka source: consume -> decode -> (DLQ | queue) -> observe/sample -> judge -> record ->
commit. At-least-once; re-delivery is harmless because every store is idempotent per trace_id.

Usage::

    consumer = build_kafka_consumer(settings.kafka, settings.limits, processor, registry)
    consumer.run()          # blocks; SIGTERM/SIGINT (main thread) or consumer.stop() ends it

Threads: this loop owns the ``KafkaConsumer`` (poll, decode, DLQ, commit); worker threads
(workers.py) run the processor. Between them a :class:`~groundwatch_consumers.backpressure.WorkQueue` bounded in
traces: when it is full, partitions are paused and polling goes on. An offset is committed only
once the trace is durable (``TraceProcessor.record`` returned, or its DLQ copy acknowledged,
or its DLQ copy given up after ``dlq_retry_s``: counted, logged, committed past).
Compressed records are inflated within bounds before the client materialises them (inflate.py):
one too large arrives as a bounded marker and is dead-lettered as ``oversize``.
Retriable failures (store, broker) back off and retry without committing; anything else stops
the consumer and ``run()`` raises, so the process restarts.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from kafka import ConsumerRebalanceListener, KafkaConsumer
from kafka.errors import KafkaError
from kafka.structs import OffsetAndMetadata, TopicPartition
from opentelemetry.trace import TracerProvider
from prometheus_client import CollectorRegistry, Counter, Gauge

from groundwatch.contract.trace import TraceDecodeError, TraceLimits
from groundwatch.evaluation.processing import TraceProcessor
from groundwatch.sections.connections import KafkaSettings
from groundwatch_consumers.backpressure import PartitionGate
from groundwatch_consumers.config import KafkaUnavailableError, any_reachable, client_config
from groundwatch_consumers.decode import decode_fast
from groundwatch_consumers.dlq import DeadLetterPublisher
from groundwatch_consumers.inflate import FetchGuard, InflateBounds
from groundwatch_consumers.lag import ConsumerLagGauge
from groundwatch_consumers.offsets import OffsetTracker
from groundwatch_consumers.results import build_producer
from groundwatch_consumers.tracing import TraceSpans
from groundwatch_consumers.workers import (
    SOURCE,
    ConsumerOptions,
    EvaluationWorkers,
    Health,
    WorkUnit,
)

__all__ = ["ConsumerOptions", "KafkaTraceConsumer", "TraceparentNotes", "build_kafka_consumer"]

log = logging.getLogger(__name__)


class TraceparentNotes(Protocol):
    """Told each trace's producer ``traceparent`` (``groundwatch.observability.telemetry.ProducerContexts``
    fits), so evaluation events can point at the request that produced the trace."""

    def note(self, trace_id: str, traceparent: str | None) -> None: ...


def _traceparent(headers: Any) -> str | None:
    for name, value in headers or ():
        if name == "traceparent" and value:
            return bytes(value).decode("latin-1")
    return None


class _Listener(ConsumerRebalanceListener):  # type: ignore[misc]
    def __init__(self, owner: KafkaTraceConsumer) -> None:
        self.owner = owner

    def on_partitions_revoked(self, revoked: set[TopicPartition]) -> None:
        self.owner._on_revoked(set(revoked), commit=True)

    def on_partitions_lost(self, lost: set[TopicPartition]) -> None:
        self.owner._on_revoked(set(lost), commit=False)

    def on_partitions_assigned(self, assigned: set[TopicPartition]) -> None:
        self.owner._on_assigned(set(assigned))


def _oam(offset: int) -> OffsetAndMetadata:
    # kafka-python >= 2.1 added leader_epoch to the tuple.
    if len(OffsetAndMetadata._fields) == 3:
        return OffsetAndMetadata(offset, "", -1)
    return OffsetAndMetadata(offset, "")  # pragma: no cover


class KafkaTraceConsumer:
    """Consumes the trace topic in a consumer group and drives a :class:`TraceProcessor`.

    Usage: ``KafkaTraceConsumer(kafka, limits, processor, registry).run()``; ``stop()`` from
    any thread; ``ready()`` for /readyz. ``kafka`` is the ``kafka`` section (brokers, topics,
    group, commit interval), ``limits`` the trace limits every message is decoded under;
    ``options`` the tuning the operator does not set (workers and queue capacity are set by the
    composition root from ``judge.workers`` and ``api.queue_size``).
    """

    def __init__(
        self,
        kafka: KafkaSettings,
        limits: TraceLimits,
        processor: TraceProcessor,
        registry: CollectorRegistry,
        *,
        tracer_provider: TracerProvider | None = None,
        options: ConsumerOptions | None = None,
        consumer_factory: Callable[[], Any] | None = None,
        dlq: DeadLetterPublisher | None = None,
        producer_contexts: TraceparentNotes | None = None,
    ) -> None:
        self.kafka = kafka
        self.limits: TraceLimits = limits
        self.processor = processor
        self.options = options or ConsumerOptions()
        self.spans = TraceSpans(tracer_provider)
        self.tracker = OffsetTracker()
        self.lag = ConsumerLagGauge(registry)
        self._paused_gauge = Gauge(
            "groundwatch_consumer_paused_partitions",
            "Partitions paused by backpressure.",
            registry=registry,
        )
        self._retries = Counter(
            "groundwatch_consumer_retries",
            "Retriable failures (store, sink, broker) backed off and retried, by stage.",
            ["stage"],
            registry=registry,
        )
        self._commits = Counter(
            "groundwatch_consumer_commits", "Offset commits that succeeded.", registry=registry
        )
        self._rebalances = Counter(
            "groundwatch_consumer_rebalances",
            "Partition assignments received from the group (1 on join; more = rebalances).",
            registry=registry,
        )
        self._guard = FetchGuard(InflateBounds.for_limit(self.limits.max_bytes), registry)
        self._dlq_skipped = Counter(
            "groundwatch_consumer_dead_letters_skipped",
            "Dead letters given up and committed past: the broker refused even a minimal copy "
            "(rejected) or stayed unreachable for dlq_retry_s (unavailable).",
            ["reason"],
            registry=registry,
        )
        self._turned = time.monotonic()  # when the consumer loop last went round
        self._dlq_down = False  # a dead letter was given up as unavailable; none written since
        self.health = Health()
        self.workers = EvaluationWorkers(
            processor=processor,
            tracker=self.tracker,
            spans=self.spans,
            options=self.options,
            health=self.health,
            retries=self._retries,
            on_fatal=self._on_fatal,
            on_poison=self._on_poison,
        )
        self.queue = self.workers.queue
        self._notes = producer_contexts
        self._consumer_factory = consumer_factory or self._default_consumer
        self._dlq = dlq
        self._consumer: Any = None
        self._gate: PartitionGate | None = None
        self._pending: deque[WorkUnit] = deque()
        # Traces a worker could not process (set aside by a worker thread, dead-lettered by
        # this loop, which owns the DLQ producer); their offsets commit once the copy is durable.
        self._poisoned: list[tuple[Any, TraceDecodeError]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._joined = threading.Event()
        self._running = False
        self._fatal: BaseException | None = None
        self._last_commit = 0.0
        self._ends: dict[TopicPartition, int] = {}  # end offsets asked for while paused
        self._last_ends = 0.0

    # -- public ---------------------------------------------------------------------------

    def ready(self) -> bool:
        """Connected and joined the group, and no store, sink or broker is failing now."""
        return (
            self._running
            and self._joined.is_set()
            and not self.health.failing()
            and self._fatal is None
        )

    def live(self) -> bool:
        """False while the consumer loop has not gone round for ``stall_after_s``: blocked,
        not idle (an idle loop polls every ``poll_timeout_ms``). For /healthz."""
        return not self._running or time.monotonic() - self._turned < self.options.stall_after_s

    def failing(self) -> dict[str, str]:
        """Stage -> last error, for the stages failing now (empty when healthy)."""
        return self.health.failing()

    def stop(self) -> None:
        """Ask ``run()`` to finish in-flight work, commit, leave the group and return."""
        self._stop.set()

    def run(self) -> None:
        """Consume until :meth:`stop` (or SIGTERM/SIGINT). Raises on a non-retriable error."""
        restore = self._install_signals()
        self._running = True
        try:
            consumer = self._connect()
            if consumer is not None:
                self.workers.start()
                try:
                    self._loop(consumer)
                finally:
                    self._shutdown(consumer)
        finally:
            self._running = False
            restore()
        if self._fatal is not None:
            raise self._fatal

    # -- consumer thread ------------------------------------------------------------------

    def _default_consumer(self) -> KafkaConsumer:
        try:
            import crc32c  # noqa: F401  # kafka-python's C CRC; pure Python otherwise
        except ImportError:
            log.warning("crc32c is not installed: record CRC checks run in pure Python (slow)")
        client = client_config(self.kafka, suffix="-consumer")
        if not any_reachable(client["bootstrap_servers"]):
            raise KafkaUnavailableError(
                f"no bootstrap server reachable: {self.kafka.bootstrap_servers}"
            )
        cfg: dict[str, Any] = {
            **client,
            "group_id": self.kafka.group_id,
            "enable_auto_commit": False,
            "auto_offset_reset": "earliest",
            "max_poll_records": self.kafka.max_poll_records,
            "session_timeout_ms": self.kafka.session_timeout_ms,
            "heartbeat_interval_ms": self.kafka.heartbeat_interval_ms,
            "fetch_max_bytes": 64 * 1024 * 1024,
            "max_partition_fetch_bytes": max(8 * 1024 * 1024, self.limits.max_bytes + 4096),
            **self.options.consumer_overrides,
        }
        return KafkaConsumer(**cfg)

    def _connect(self) -> Any:
        delay = self.options.backoff_initial_s
        while not self._stop.is_set():
            self._turned = time.monotonic()
            try:
                consumer = self._consumer_factory()
                consumer.subscribe([self.kafka.topic], listener=_Listener(self))
            except (KafkaError, KafkaUnavailableError) as exc:
                self.health.fail("broker", exc)
                self._retries.labels(stage="connect").inc()
                self._stop.wait(delay)
                delay = min(delay * 2, self.options.backoff_max_s)
                continue
            self.health.recover("broker")
            self._guard.install(consumer)
            self._consumer = consumer
            self._gate = PartitionGate(consumer, self._paused_gauge.set)
            if self._dlq is None:
                producer = build_producer(
                    self.kafka, suffix="-dlq", **self.options.producer_overrides
                )
                self._dlq = DeadLetterPublisher(producer, self.kafka.dlq_topic)
            return consumer
        return None

    def _loop(self, consumer: Any) -> None:
        depth = self.processor.metrics.queue_depth.labels(queue=SOURCE)
        while not self._stop.is_set():
            self._turned = time.monotonic()
            self._feed()
            batch = consumer.poll(timeout_ms=self.options.poll_timeout_ms)
            if batch:
                self._handle(batch)
                self._feed()
            self._dead_letter_poisoned()
            self._check_broker(consumer)
            self._update_lag(consumer)
            depth.set(self.queue.in_flight + sum(len(u.offsets) for u in self._pending))
            self._commit(consumer, force=False)

    def _handle(self, batch: dict[TopicPartition, list[Any]]) -> None:
        dead: list[tuple[Any, TraceDecodeError]] = []
        for tp, records in batch.items():
            unit = WorkUnit(tp)
            self.tracker.delivered(tp, [r.offset for r in records])
            tracing = self.spans.enabled
            for rec in records:
                raw = rec.value if rec.value is not None else b""
                bounded = self._guard.rejection(rec.headers)
                if bounded is not None:
                    dead.append((rec, bounded))
                    continue
                parent = self.spans.extract(rec.headers) if tracing else None
                try:
                    # Only messages with a producer context get a decode span: a root span per
                    # untraced message would cost CPU and tell nobody anything.
                    if parent is not None:
                        with self.spans.child("groundwatch.decode", parent, offset=rec.offset):
                            trace = decode_fast(raw, self.limits)
                    else:
                        trace = decode_fast(raw, self.limits)
                except TraceDecodeError as exc:
                    dead.append((rec, exc))
                    continue
                if self._notes is not None:
                    self._notes.note(trace.trace_id, _traceparent(rec.headers))
                unit.offsets.append(rec.offset)
                unit.traces.append(trace)
                unit.parents.append(parent)
                unit.records.append(rec)
            if unit.offsets:
                with self._lock:
                    self._pending.append(unit)
        if dead:
            self._dead_letter(dead)

    def _dead_letter(self, dead: list[tuple[Any, TraceDecodeError]]) -> None:
        """Each copy is written, or given up after ``dlq_retry_s`` (counted and logged); either
        way its offset is done. Only a stop leaves offsets uncommitted (re-delivered). Once one
        was given up as unavailable, the next get one try each until a copy is written again,
        so a run of bad messages behind a dead DLQ does not cost ``dlq_retry_s`` apiece."""
        assert self._dlq is not None
        for rec, exc in dead:
            outcome = self._dlq.publish(
                rec,
                exc.reason,
                exc.detail,
                size=getattr(exc, "size", None),
                retry_s=0.0 if self._dlq_down else self.options.dlq_retry_s,
                backoff=(self.options.backoff_initial_s, self.options.backoff_max_s),
                wait=self._stop.wait,
                on_retry=self._dlq_retry,
            )
            if outcome == "stopped":
                return
            self._dlq_down = outcome == "unavailable"
            if outcome != "written":
                self._dlq_skipped.labels(reason=outcome).inc()
                log.error(
                    "dead letter for %s[%d]@%d (%s) not written (%s): skipped, committing past it",
                    rec.topic,
                    rec.partition,
                    rec.offset,
                    exc.reason,
                    outcome,
                )
            self.health.recover("dlq")
            self.processor.metrics.rejected.labels(source=SOURCE, reason=exc.reason).inc()
            self.tracker.done(TopicPartition(rec.topic, rec.partition), [rec.offset])

    def _dlq_retry(self, err: Exception) -> None:
        """While a dead letter is retried the loop does not go round: readiness and lag are
        kept true from here."""
        self.health.fail("dlq", err)
        self._retries.labels(stage="dlq").inc()
        if self._consumer is not None:
            self._update_lag(self._consumer)

    def _feed(self) -> None:
        """Move held-back units into the queue; pause when it is full, resume when drained."""
        assert self._gate is not None
        with self._lock:
            while self._pending:
                unit = self._pending[0]
                if not self.queue.offer(unit, len(unit.offsets)):
                    break
                self._pending.popleft()
            held = bool(self._pending)
        if held or self.queue.is_overloaded():
            self._gate.pause()
        elif self._gate.paused and self.queue.drained():
            self._gate.resume()

    def _check_broker(self, consumer: Any) -> None:
        """``broker`` failing (readiness false) while the group coordinator is unknown or its
        connection is down. kafka-python's ``poll()`` retries a lost broker silently, so an idle
        consumer, or one whose work is queued, would otherwise look ready while its broker is
        away (measured: a SIGTERMed broker left ``ready()`` true). ``coordinator_unknown()`` is
        kafka-python's own check (it drives re-discovery in ``poll()``); a client without it
        leaves readiness to the other stages."""
        coordinator = getattr(consumer, "_coordinator", None)
        unknown = getattr(coordinator, "coordinator_unknown", None)
        if unknown is None or not self._joined.is_set():
            return
        try:
            lost = unknown() is True
        except Exception:  # an internal of the client: never let it stop the loop
            return
        if lost:
            self.health.fail("broker", KafkaUnavailableError("group coordinator unreachable"))
        else:
            self.health.recover("broker")

    def _update_lag(self, consumer: Any) -> None:
        self._refresh_paused_ends(consumer)
        highwaters: dict[TopicPartition, int | None] = {}
        for tp in self.tracker.partitions():
            with contextlib.suppress(KafkaError):
                highwaters[tp] = consumer.highwater(tp)
            end = self._ends.get(tp)
            if end is not None:
                high = highwaters.get(tp)
                highwaters[tp] = end if high is None else max(high, end)
        self.lag.update(highwaters, self.tracker.positions())

    def _refresh_paused_ends(self, consumer: Any) -> None:
        """While backpressure pauses partitions no fetch brings their high watermark, so lag
        would stay at its value when they were paused however much arrives. Every
        ``lag_refresh_s`` their end offsets are asked for (ListOffsets, bounded) and the lag
        uses the larger of the two. Some brokers under-report end offsets (Tansu: the last
        batch's first offset + 1), never over-report, so the larger is still a lower bound."""
        paused = self._gate.paused_partitions() if self._gate is not None else set()
        if not paused:
            self._ends.clear()
            return
        now = time.monotonic()
        if now - self._last_ends < self.options.lag_refresh_s:
            return
        self._last_ends = now
        if "broker" in self.health.failing():
            return
        ask = getattr(consumer, "end_offsets", None)
        if ask is None:
            return
        try:
            ends = ask(sorted(paused), timeout_ms=self.options.lag_refresh_timeout_ms)
        except KafkaError as exc:
            log.debug("end offsets for paused partitions: %s", exc)
            return
        for tp, end in (ends or {}).items():
            if tp in paused and isinstance(end, int):
                self._ends[tp] = max(end, self._ends.get(tp, 0))

    def _commit(self, consumer: Any, *, force: bool) -> bool:
        now = time.monotonic()
        if not force and now - self._last_commit < self.kafka.commit_interval_s:
            return True
        self._last_commit = now
        offsets = self.tracker.committable()
        if not offsets:
            return True
        if not force and "broker" in self.health.failing():
            return False  # kept: committed once the coordinator is back
        try:
            consumer.commit(
                {tp: _oam(off) for tp, off in offsets.items()},
                timeout_ms=self.options.commit_timeout_ms,
            )
        except KafkaError as exc:
            log.warning("offset commit failed (will retry): %s", exc)
            self.health.fail("commit", exc)
            self._retries.labels(stage="commit").inc()
            return False
        self.tracker.mark_committed(offsets)
        self._commits.inc()
        self.health.recover("commit")
        return True

    def _shutdown(self, consumer: Any) -> None:
        with self._lock:
            self._pending.clear()  # never queued: uncommitted, re-delivered later
        # With the broker away no offset can be committed (nor a result published), so waiting
        # for in-flight work buys nothing: it is left uncommitted and re-delivered, and the
        # process exits now instead of after shutdown_timeout_s (measured: 30 s -> about 1 s).
        self._check_broker(consumer)
        broker_away = "broker" in self.health.failing()
        drained = broker_away or self.queue.wait_until(
            lambda: self.queue.in_flight == 0 or self._fatal is not None,
            self.options.shutdown_timeout_s,
        )
        if broker_away:
            log.warning("shutdown: broker unreachable; in-flight work will be re-delivered")
        elif not drained:
            log.warning("shutdown: evaluator did not drain in time; re-delivery will follow")
        self.workers.abort()
        # A worker may sit in a results flush that cannot finish without the broker; it is a
        # daemon thread and its offsets are not committed, so it is not waited for.
        self.workers.join(1.0 if broker_away else self.options.shutdown_timeout_s)
        if not broker_away:
            self._commit(consumer, force=True)
        # Leaves the group; with the broker away the LeaveGroup cannot be sent (about 5 s).
        close: dict[str, Any] = {"autocommit": False}
        if broker_away:
            close["timeout_ms"] = 500
        with contextlib.suppress(Exception):
            consumer.close(**close)
        if self._dlq is not None:
            with contextlib.suppress(Exception):
                self._dlq.producer.close(timeout=0 if broker_away else 5)

    # -- rebalance (called by the Kafka client, possibly on its IO thread) ------------------

    def _on_assigned(self, assigned: set[TopicPartition]) -> None:
        self._rebalances.inc()
        self.tracker.assign(assigned)
        self._joined.set()
        log.info("assigned %s", sorted(assigned))

    def _on_revoked(self, revoked: set[TopicPartition], *, commit: bool) -> None:
        log.info("revoking %s (commit=%s)", sorted(revoked), commit)
        with self._lock:
            for unit in self._pending:
                unit.cancelled = unit.cancelled or unit.tp in revoked
            self._pending = deque(u for u in self._pending if not u.cancelled)

        self.workers.cancel(revoked)
        # With the broker away (e.g. close() at shutdown) the commit cannot be sent: do not
        # wait revoke_timeout_s for units to finish first.
        if commit and "broker" not in self.health.failing():
            # Let units being evaluated for these partitions finish, then commit them.
            self.workers.wait_idle(revoked, self.options.revoke_timeout_s)
            offsets = self.tracker.committable(revoked)
            if offsets and self._consumer is not None:
                try:
                    # Non-blocking: this may run on the client's IO thread.
                    self._consumer.commit_async({tp: _oam(o) for tp, o in offsets.items()})
                    self.tracker.mark_committed(offsets)
                except KafkaError as exc:
                    log.warning("commit on revoke failed: %s", exc)
        self.tracker.revoke(revoked)
        if self._gate is not None:
            self._gate.forget(revoked)
        for tp in revoked:
            self._ends.pop(tp, None)
        self.lag.forget(revoked)

    def _on_poison(self, unit: WorkUnit, index: int, exc: BaseException) -> None:
        detail = f"{type(exc).__name__}: {exc}"
        with self._lock:
            self._poisoned.append((unit.records[index], TraceDecodeError("unprocessable", detail)))

    def _dead_letter_poisoned(self) -> None:
        with self._lock:
            poisoned, self._poisoned = self._poisoned, []
        if poisoned:
            self._dead_letter(poisoned)

    def _on_fatal(self, exc: BaseException) -> None:
        self._fatal = exc
        self._stop.set()

    # -- helpers ----------------------------------------------------------------------------

    def _install_signals(self) -> Callable[[], None]:
        if (
            not self.options.handle_signals
            or threading.current_thread() is not threading.main_thread()
        ):
            return lambda: None
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT)}
        for sig in previous:
            signal.signal(sig, lambda *_: self.stop())

        def restore() -> None:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

        return restore


def build_kafka_consumer(
    kafka: KafkaSettings,
    limits: TraceLimits,
    processor: TraceProcessor,
    registry: CollectorRegistry,
    tracer_provider: TracerProvider | None = None,
    *,
    options: ConsumerOptions | None = None,
    producer_contexts: TraceparentNotes | None = None,
) -> KafkaTraceConsumer:
    """The consumer ``groundwatch serve`` runs when ``kafka.bootstrap_servers`` is set.

    Pass ``tracer_provider`` only when spans are exported: each message then gets a
    ``groundwatch.decode`` span, which costs CPU at high rates even if nothing records it."""
    if not kafka.bootstrap_servers:
        raise ValueError("kafka.bootstrap_servers is not set")
    return KafkaTraceConsumer(
        kafka,
        limits,
        processor,
        registry,
        tracer_provider=tracer_provider,
        options=options,
        producer_contexts=producer_contexts,
    )
