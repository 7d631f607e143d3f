"""In-process evaluation queue for the sidecar paths (HTTP, OTLP): bounded, with worker threads.

Usage::

    queue = EvaluationQueue(processor, capacity=1000, workers=1)
    queue.start()
    if not queue.offer(sampled_traces): ...   # full: the caller answers 503 + Retry-After
    queue.stop(drain=True)

Workers take up to ``batch_size`` traces at a time (model calls batch across traces) and record
them through the processor. A store outage is retried with backoff; nothing is dropped while
the process lives.

The queue lives in process memory: a 202 means "recorded, or re-sendable" (issue 45). A trace
counts as received for good only once its evaluation is recorded, so the client's re-send of a
trace this queue lost (kill -9, SIGTERM past the drain timeout, a judge bug) is accepted and
scored, and a re-send of one still queued here (:meth:`EvaluationQueue.holds`) or recorded is a
duplicate. What leaves unrecorded is counted in ``groundwatch_traces_unrecorded_total{reason}``
(``shutdown``, ``judge_bug``, ``record_failed``). (Durability without a re-send is the Kafka
consumer's job.)

Bounded twice: at most ``capacity`` traces and ``max_chars`` characters of trace text
(question, answer, passages), so a queue of large traces cannot hold gigabytes.

A trace whose judging timed out (the judge was busy, e.g. with abandoned calls) is put back and
judged again, alone and once the queue has nothing newer to do, up to ``timeout_retries`` times
(``groundwatch_judge_retries_total``), before it is
recorded ``unscored`` (reason ``timeout``): once recorded, a re-send is a duplicate and the score
lost. Judging given up at shutdown is not recorded at all: the re-send is scored.
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
import time
from collections.abc import Sequence

from prometheus_client import Counter

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import JUDGE_BUGS
from groundwatch.evaluation.processing import TRACES_PER_CALL, TraceProcessor
from groundwatch.state.stores import StoreUnavailableError

__all__ = ["UNRECORDED_REASONS", "EvaluationQueue", "trace_chars"]

log = logging.getLogger(__name__)

#: Why accepted traces left the queue unrecorded (re-sendable): the labels of
#: ``groundwatch_traces_unrecorded_total``.
UNRECORDED_REASONS = ("shutdown", "judge_bug", "record_failed")


def trace_chars(trace: RagTrace) -> int:
    """The text a queued trace holds: question, answer and passages, in characters."""
    return len(trace.question) + len(trace.answer or "") + sum(len(c.text) for c in trace.contexts)


class EvaluationQueue:
    """A bounded queue of sampled traces and the workers that evaluate them."""

    def __init__(
        self,
        processor: TraceProcessor,
        *,
        capacity: int = 1000,
        workers: int = 1,
        batch_size: int = TRACES_PER_CALL,
        max_backoff_s: float = 5.0,
        max_chars: int = 0,
        timeout_retries: int = 2,
    ):
        self.processor = processor
        self.capacity = max(1, capacity)
        self._queue: queue.Queue[RagTrace] = queue.Queue(self.capacity)
        self._workers = max(1, workers)
        self._batch_size = max(1, batch_size)
        self._max_backoff_s = max_backoff_s
        self._threads: list[threading.Thread] = []
        self._stop = threading.Event()
        self._cancel = threading.Event()  # set when a drain runs out of time
        self._lock = threading.Lock()
        self._pending = 0  # offered and not yet finished
        self.max_chars = max_chars  # 0 = no bound in characters
        self._chars = 0  # text of the traces offered and not yet finished
        self.timeout_retries = max(0, timeout_retries)
        self._attempts: dict[str, int] = {}  # dedup id -> judge timeouts so far
        self._held: collections.Counter[str] = collections.Counter()  # dedup ids not finished
        self._again: collections.deque[RagTrace] = collections.deque()  # to judge again
        self._retries = Counter(
            "groundwatch_judge_retries",
            "Pipeline traces judged again after a judge timeout (HTTP/OTLP queue).",
            registry=processor.metrics.registry,
        )
        self._unrecorded = Counter(
            "groundwatch_traces_unrecorded",
            "Traces accepted by the HTTP/OTLP queue and left unrecorded, by reason "
            "(shutdown, judge_bug, record_failed): a re-send of them is scored.",
            ["reason"],
            registry=processor.metrics.registry,
        )
        for reason in UNRECORDED_REASONS:
            self._unrecorded.labels(reason=reason)
        self.healthy = True
        self.broken = False  # set for good by a judge bug
        self.processed = 0

    def start(self) -> None:
        self._stop.clear()
        for i in range(self._workers):
            thread = threading.Thread(target=self._run, name=f"gw-eval-{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def depth(self) -> int:
        return self._queue.qsize() + len(self._again)

    def free(self) -> int:
        return self.capacity - self._queue.qsize()

    def fits(self, traces: Sequence[RagTrace]) -> bool:
        """Whether :meth:`offer` would take ``traces`` now (room in traces and in characters)."""
        with self._lock:
            return self._fits(len(traces), sum(trace_chars(t) for t in traces))

    def _fits(self, n: int, size: int) -> bool:
        if self.free() < n:
            return False
        # An empty queue takes any one batch, however large: it must make progress.
        return not (self.max_chars and self._chars and self._chars + size > self.max_chars)

    def offer(self, traces: Sequence[RagTrace]) -> bool:
        """Enqueue all traces, or none when there is not room for all of them."""
        size = sum(trace_chars(t) for t in traces)
        with self._lock:
            if not self._fits(len(traces), size):
                return False
            for trace in traces:
                self._queue.put_nowait(trace)
                self._held[self.processor.dedup_id(trace)] += 1
            self._pending += len(traces)
            self._chars += size
        self.processor.metrics.queue_depth.labels(queue="evaluation").set(self.depth())
        return True

    def holds(self, trace: RagTrace) -> bool:
        """Whether ``trace`` (its tenant and trace_id) is queued or being judged here."""
        key = self.processor.dedup_id(trace)
        with self._lock:
            return self._held[key] > 0

    def idle(self) -> bool:
        with self._lock:
            return self._pending == 0

    def join(self, timeout: float = 30.0) -> bool:
        """Wait until everything offered so far is recorded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.idle():
                return True
            time.sleep(0.01)
        return self.idle()

    def stop(self, drain: bool = True, timeout: float = 30.0) -> None:
        """Stop the workers; with ``drain``, first wait up to ``timeout`` for what is queued.
        Judging still running then is given up at once (unscored, reason ``timeout``), so a
        stop takes about ``timeout`` at most, whatever the judge is doing."""
        if drain:
            self.join(timeout)
        self._stop.set()
        self._cancel.set()
        for thread in self._threads:
            thread.join(timeout=5.0)
        self._threads.clear()
        self._cancel.clear()
        left = self._discard_queued()
        if left:
            log.warning("stopping with %d queued traces not evaluated (re-sendable)", left)

    def _discard_queued(self) -> int:
        """Empty the queue at stop: its traces are unrecorded (reason ``shutdown``)."""
        left: list[RagTrace] = []
        with self._lock:
            while True:
                try:
                    left.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            left.extend(self._again)
            self._again.clear()
        self._finish(left)
        self._unrecorded.labels(reason="shutdown").inc(len(left))
        self.processor.metrics.queue_depth.labels(queue="evaluation").set(self.depth())
        return len(left)

    def _finish(self, traces: Sequence[RagTrace]) -> None:
        with self._lock:
            self._pending -= len(traces)
            self._chars -= sum(trace_chars(t) for t in traces)
            for trace in traces:
                key = self.processor.dedup_id(trace)
                self._held[key] -= 1
                if self._held[key] <= 0:
                    del self._held[key]

    def _retry_timeouts(
        self, batch: list[RagTrace], records: list[EvaluationRecord]
    ) -> tuple[list[RagTrace], list[EvaluationRecord]]:
        """Put timed-out traces back (not past their retries); return the rest, to be
        recorded. At shutdown a timed-out trace is not recorded: its re-send is scored."""
        stopping = self._cancel.is_set() or self._stop.is_set()
        keep: list[tuple[RagTrace, EvaluationRecord]] = []
        again: list[RagTrace] = []
        for trace, record in zip(batch, records, strict=True):
            timed_out = record.status == "unscored" and record.unscored_reason == "timeout"
            key = self.processor.dedup_id(trace)
            if timed_out and stopping:
                self._attempts.pop(key, None)
                self._unrecorded.labels(reason="shutdown").inc()
                continue
            tries = self._attempts.get(key, 0)
            if timed_out and tries < self.timeout_retries:
                again.append(trace)
                continue
            self._attempts.pop(key, None)
            keep.append((trace, record))
        if again:
            with self._lock:
                self._again.extend(again)
                self._pending += len(again)
                self._chars += sum(trace_chars(t) for t in again)
                for trace in again:
                    self._held[self.processor.dedup_id(trace)] += 1
            for trace in again:
                key = self.processor.dedup_id(trace)
                self._attempts[key] = self._attempts.get(key, 0) + 1
            self._retries.inc(len(again))
            log.info("judge timed out on %d traces; judging them again", len(again))
        return [t for t, _ in keep], [r for _, r in keep]

    def _take_batch(self) -> list[RagTrace]:
        try:
            first = self._queue.get_nowait()
        except queue.Empty:
            with self._lock:
                if self._again:  # nothing newer waits: judge one timed-out trace again, alone
                    return [self._again.popleft()]
            try:
                first = self._queue.get(timeout=0.1)
            except queue.Empty:
                return []
        batch = [first]
        while len(batch) < self._batch_size:
            try:
                batch.append(self._queue.get_nowait())
            except queue.Empty:
                break
        return batch

    def _run(self) -> None:
        while not self._stop.is_set():
            batch = self._take_batch()
            if not batch:
                continue
            try:
                self._process(batch)
            finally:
                self._finish(batch)
                self.processor.metrics.queue_depth.labels(queue="evaluation").set(self.depth())

    def _process(self, batch: list[RagTrace]) -> None:
        try:
            records = self.processor.evaluate(batch, cancel=self._cancel)
        except JUDGE_BUGS:
            # A judge bug: the service stays up for the traces it already holds, but reports
            # itself not ready for good, so it is restarted (and the bug is in the log).
            log.exception("judge bug on a batch of %d traces; dropped", len(batch))
            self._unrecorded.labels(reason="judge_bug").inc(len(batch))
            self.broken = True
            self.healthy = False
            return
        batch, records = self._retry_timeouts(batch, records)
        if not batch:
            return
        backoff = 0.1
        while True:
            try:
                self.processor.record(batch, records)
                self.healthy = not self.broken
                self.processed += len(batch)
                return
            except StoreUnavailableError as exc:
                self.healthy = False
                log.warning("state store unavailable, retrying in %.1fs: %s", backoff, exc)
                if self._stop.wait(backoff):
                    log.error("stopping with %d unrecorded traces", len(batch))
                    self._unrecorded.labels(reason="shutdown").inc(len(batch))
                    return
                backoff = min(self._max_backoff_s, backoff * 2)
            except Exception:
                log.exception("recording failed for a batch of %d traces; dropped", len(batch))
                self._unrecorded.labels(reason="record_failed").inc(len(batch))
                return
