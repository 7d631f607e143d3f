"""Evaluator workers: take units of valid traces off the bounded queue and drive the processor
(observe/sample -> judge -> record), retrying retriable failures with backoff.

Usage::

    health = Health()
    workers = EvaluationWorkers(processor=..., tracker=..., spans=..., options=..., health=...,
                                retries=..., on_fatal=...)
    workers.start(); workers.queue.offer(unit, len(unit.offsets)) ...; workers.abort(); workers.join(5)

A unit's offsets are marked done in the :class:`OffsetTracker` only after
``TraceProcessor.record`` returned for all its sampled traces, i.e. once they are durable.
A unit is abandoned (offsets left uncommitted, so re-delivered) on shutdown or when its
partition is revoked. A non-retriable error is narrowed down to the trace that causes it (the
chunk is retried trace by trace): that trace is handed to ``on_poison`` (dead-lettered, reason
``unprocessable``) and the rest of the unit is scored and committed as usual. Only a run of
``MAX_CONSECUTIVE_POISON`` traces failing alone (a systemic fault, not one bad message) goes to
``on_fatal``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kafka.structs import TopicPartition
from opentelemetry.context import Context
from prometheus_client import Counter

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.processing import TRACES_PER_CALL, TraceProcessor
from groundwatch.state.stores import Delivery
from groundwatch_consumers.backpressure import WorkQueue
from groundwatch_consumers.offsets import OffsetTracker
from groundwatch_consumers.tracing import TraceSpans

__all__ = [
    "MAX_CONSECUTIVE_POISON",
    "SOURCE",
    "AbandonedError",
    "ConsumerOptions",
    "EvaluationWorkers",
    "Health",
    "PoisonFn",
    "WorkUnit",
]

log = logging.getLogger(__name__)
_T = TypeVar("_T")
SOURCE = "kafka"
#: Traces in a row that fail alone before the fault is taken for systemic (process restarts).
MAX_CONSECUTIVE_POISON = 50
#: ``on_poison(unit, index, exc)``: trace ``index`` of ``unit`` can never be processed.
PoisonFn = Callable[["WorkUnit", int, BaseException], None]


@dataclass(frozen=True)
class ConsumerOptions:
    """Tuning knobs that are not operator settings (tests and benchmarks change them)."""

    workers: int = 1
    queue_capacity: int = 1000
    eval_batch: int = TRACES_PER_CALL
    poll_timeout_ms: int = 100
    backoff_initial_s: float = 0.2
    backoff_max_s: float = 5.0
    shutdown_timeout_s: float = 30.0
    revoke_timeout_s: float = 5.0
    # A synchronous commit waits for the group coordinator; kafka-python's default bound is the
    # consumer's request timeout (30 s), during which the loop would not poll, feed or notice
    # the broker gone.
    commit_timeout_ms: int = 5000
    # Paused partitions are not fetched, so their high watermark (from fetch responses) goes
    # stale; their end offsets are asked for this often instead, each call bounded.
    lag_refresh_s: float = 2.0
    lag_refresh_timeout_ms: int = 1000
    # A dead letter the broker keeps failing is retried this long, then skipped (counted,
    # logged) and committed past: one bad message never stops a partition for good.
    dlq_retry_s: float = 30.0
    # The consumer loop not turning for this long (blocked, not idle) makes it not live.
    stall_after_s: float = 120.0
    handle_signals: bool = True
    consumer_overrides: dict[str, Any] = field(default_factory=dict)
    producer_overrides: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class WorkUnit:
    """Valid traces of one partition from one poll, in offset order."""

    tp: TopicPartition
    offsets: list[int] = field(default_factory=list)
    traces: list[RagTrace] = field(default_factory=list)
    parents: list[Context | None] = field(default_factory=list)
    #: The raw messages (for a dead-letter copy, byte for byte, of a trace that cannot be
    #: processed); parallel to ``offsets``.
    records: list[Any] = field(default_factory=list)
    cancelled: bool = False


class AbandonedError(Exception):
    """A unit given up (shutdown or partition revoked); its offsets stay uncommitted."""


class Health:
    """Which stages (store, sink, broker, commit) are failing right now. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._failing: dict[str, str] = {}

    def fail(self, stage: str, exc: BaseException) -> None:
        with self._lock:
            first = stage not in self._failing
            self._failing[stage] = f"{type(exc).__name__}: {exc}"[:300]
        if first:
            log.warning("%s failing, backing off and retrying: %s", stage, exc)

    def recover(self, stage: str) -> None:
        with self._lock:
            if self._failing.pop(stage, None) is not None:
                log.info("%s recovered", stage)

    def failing(self) -> dict[str, str]:
        with self._lock:
            return dict(self._failing)


def _chunks(items: Sequence[_T], size: int) -> Iterator[Sequence[_T]]:
    for i in range(0, len(items), max(1, size)):
        yield items[i : i + size]


class EvaluationWorkers:
    """A pool of threads draining a :class:`WorkQueue` of :class:`WorkUnit`."""

    def __init__(
        self,
        *,
        processor: TraceProcessor,
        tracker: OffsetTracker,
        spans: TraceSpans,
        options: ConsumerOptions,
        health: Health,
        retries: Counter,
        on_fatal: Callable[[BaseException], None],
        on_poison: PoisonFn | None = None,
    ) -> None:
        self.processor = processor
        self.tracker = tracker
        self.spans = spans
        self.options = options
        self.health = health
        self.retries = retries
        self.on_fatal = on_fatal
        self.on_poison = on_poison
        self._poison_run = 0
        self.queue: WorkQueue[WorkUnit] = WorkQueue(options.queue_capacity)
        self._abort = threading.Event()
        self._lock = threading.Lock()
        self._active: dict[int, WorkUnit] = {}
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        for i in range(self.options.workers):
            thread = threading.Thread(target=self._work, name=f"groundwatch-eval-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def abort(self) -> None:
        """Stop taking work; units in retry give up (their offsets stay uncommitted)."""
        self._abort.set()

    def join(self, timeout: float) -> None:
        for thread in self._threads:
            thread.join(timeout)

    def active(self) -> list[WorkUnit]:
        with self._lock:
            return list(self._active.values())

    def cancel(self, tps: set[TopicPartition]) -> None:
        """Partitions revoked: drop their queued units, make running ones give up retrying."""

        def theirs(unit: WorkUnit) -> bool:
            if unit.tp in tps:
                unit.cancelled = True
                return True
            return False

        self.queue.remove(theirs)
        with self._lock:
            for unit in self._active.values():
                unit.cancelled = unit.cancelled or unit.tp in tps

    def wait_idle(self, tps: set[TopicPartition], timeout: float) -> bool:
        """Wait until no unit of ``tps`` is being evaluated."""
        return self.queue.wait_until(lambda: not any(u.tp in tps for u in self.active()), timeout)

    def _work(self) -> None:
        ident = threading.get_ident()
        while not self._abort.is_set():
            unit = self.queue.take(timeout=0.1)
            if unit is None:
                continue
            with self._lock:
                self._active[ident] = unit
            try:
                self._process(unit)
            except AbandonedError:
                pass
            except BaseException as exc:
                log.exception("evaluator worker failed; stopping the consumer")
                self._abort.set()
                self.on_fatal(exc)
            finally:
                with self._lock:
                    self._active.pop(ident, None)
                self.queue.task_done(len(unit.offsets))

    def _process(self, unit: WorkUnit) -> None:
        if unit.cancelled:
            return
        proc = self.processor
        poisoned: set[int] = set()
        index_of = {id(t): i for i, t in enumerate(unit.traces)}
        with self.spans.batch("groundwatch.sample", unit.parents, traces=len(unit.traces)):
            sampled = self._isolated(
                unit,
                unit.traces,
                lambda ts: self._retry(
                    unit, "observe", lambda: proc.observe(ts, SOURCE, self._deliveries(unit, ts))
                ),
                index_of,
                poisoned,
                scoring=False,
            )
        parent_of = dict(zip((t.trace_id for t in unit.traces), unit.parents, strict=True))
        for chunk in _chunks(sampled, self.options.eval_batch):
            parents = [parent_of.get(t.trace_id) for t in chunk]
            with self.spans.batch("groundwatch.judge", parents, traces=len(chunk)):
                self._isolated(
                    unit, chunk, lambda ts: self._score(unit, ts, parent_of), index_of, poisoned
                )
        if not unit.cancelled:
            done = [o for i, o in enumerate(unit.offsets) if i not in poisoned]
            self.tracker.done(unit.tp, done)

    def _score(
        self, unit: WorkUnit, traces: Sequence[RagTrace], parent_of: dict[str, Context | None]
    ) -> list[RagTrace]:
        records = self.processor.evaluate(traces)
        parents = [parent_of.get(t.trace_id) for t in traces]
        deliveries = self._deliveries(unit, traces)
        with self.spans.batch("groundwatch.record", parents, traces=len(traces)):
            self._retry(unit, "record", lambda: self.processor.record(traces, records, deliveries))
        return list(traces)

    def _deliveries(self, unit: WorkUnit, traces: Sequence[RagTrace]) -> list[Delivery]:
        """Where each of ``traces`` (of ``unit``) was read: the windows are idempotent by it."""
        floor = self.tracker.committed(unit.tp)
        at = {id(t): i for i, t in enumerate(unit.traces)}
        tp = unit.tp
        return [Delivery(tp.topic, tp.partition, unit.offsets[at[id(t)]], floor) for t in traces]

    def _isolated(
        self,
        unit: WorkUnit,
        traces: Sequence[RagTrace],
        fn: Callable[[Sequence[RagTrace]], list[RagTrace]],
        index_of: dict[int, int],
        poisoned: set[int],
        *,
        scoring: bool = True,
    ) -> list[RagTrace]:
        """``fn(traces)``; on a non-retriable error, ``fn`` on each trace alone, and a trace
        that fails alone is poison: handed to ``on_poison``, left out of the result."""
        try:
            result = fn(traces)
        except AbandonedError:
            raise
        except Exception as exc:
            if self.on_poison is None:
                raise
            if len(traces) > 1:
                log.warning(
                    "a batch of %d traces failed (%s); retrying one by one", len(traces), exc
                )
                out: list[RagTrace] = []
                for trace in traces:
                    out += self._isolated(unit, [trace], fn, index_of, poisoned, scoring=scoring)
                return out
            self._poison_run += 1
            if self._poison_run > MAX_CONSECUTIVE_POISON:
                raise
            index = index_of[id(traces[0])]
            log.error(
                "trace at offset %d of %s cannot be processed; dead-lettering it: %s",
                unit.offsets[index],
                unit.tp,
                exc,
            )
            poisoned.add(index)
            self.on_poison(unit, index, exc)
            return []
        if scoring:  # only a trace scored and recorded ends a run of poison (not its counting)
            self._poison_run = 0
        return result

    def _retry(self, unit: WorkUnit, stage: str, fn: Callable[[], _T]) -> _T:
        delay = self.options.backoff_initial_s
        while True:
            try:
                result = fn()
            except Exception as exc:
                if not getattr(exc, "retriable", False):
                    raise
                self.health.fail(stage, exc)
                self.retries.labels(stage=stage).inc()
                if self._abort.wait(delay) or unit.cancelled:
                    raise AbandonedError from exc
                delay = min(delay * 2, self.options.backoff_max_s)
                continue
            self.health.recover(stage)
            return result
