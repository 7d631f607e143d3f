"""Bounded hand-off between the Kafka consumer thread and evaluator workers.

Usage::

    queue: WorkQueue[Unit] = WorkQueue(capacity=1000)
    if not queue.offer(unit, size=len(unit)):      # consumer thread; never blocks
        gate.pause()                               # stop fetching, keep polling (heartbeats)
    unit = queue.take(timeout=0.1)                 # worker thread
    ...; queue.task_done(size)
    if queue.drained(): gate.resume()

Capacity counts traces *in flight* (queued or being evaluated), not units, so a slow judge
fills the queue and the consumer pauses its partitions instead of buffering without bound.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from kafka.structs import TopicPartition

__all__ = ["PartitionGate", "Pausable", "WorkQueue"]

_T = TypeVar("_T")


class WorkQueue(Generic[_T]):
    """A FIFO bounded by the number of traces in flight; ``is_overloaded()`` says "pause"."""

    def __init__(self, capacity: int, low_watermark: int | None = None) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        self.capacity = capacity
        self.low_watermark = capacity // 2 if low_watermark is None else low_watermark
        self._items: deque[tuple[_T, int]] = deque()
        self._in_flight = 0
        self._cond = threading.Condition()

    def offer(self, item: _T, size: int) -> bool:
        """Enqueue unless that would exceed capacity. An empty queue takes any one item, so a
        unit larger than the capacity cannot wedge the pipeline."""
        with self._cond:
            if self._in_flight and self._in_flight + size > self.capacity:
                return False
            self._items.append((item, size))
            self._in_flight += size
            self._cond.notify()
            return True

    def take(self, timeout: float) -> _T | None:
        with self._cond:
            if not self._items:
                self._cond.wait(timeout)
            if not self._items:
                return None
            return self._items.popleft()[0]

    def task_done(self, size: int) -> None:
        with self._cond:
            self._in_flight = max(0, self._in_flight - size)
            self._cond.notify_all()

    def remove(self, predicate: Callable[[_T], bool]) -> int:
        """Drop queued (not yet taken) items matching ``predicate``; returns traces dropped."""
        with self._cond:
            keep = [(i, s) for i, s in self._items if not predicate(i)]
            dropped = sum(s for i, s in self._items if predicate(i))
            self._items = deque(keep)
            self._in_flight = max(0, self._in_flight - dropped)
            self._cond.notify_all()
            return dropped

    @property
    def in_flight(self) -> int:
        with self._cond:
            return self._in_flight

    def __len__(self) -> int:
        with self._cond:
            return len(self._items)

    def is_overloaded(self) -> bool:
        with self._cond:
            return self._in_flight >= self.capacity

    def drained(self) -> bool:
        with self._cond:
            return self._in_flight <= self.low_watermark

    def wait_until(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Block until ``predicate()`` holds (re-checked on every completion) or timeout."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(min(left, 0.1))
            return True


class Pausable(Protocol):
    """The part of a Kafka consumer the gate needs (``kafka.KafkaConsumer`` fits)."""

    def pause(self, *partitions: TopicPartition) -> None: ...

    def resume(self, *partitions: TopicPartition) -> None: ...

    def assignment(self) -> set[TopicPartition]: ...


class PartitionGate:
    """Pauses every assigned partition while the pipeline is overloaded and resumes them
    when it has drained. Polling goes on while paused, so the member stays in its group."""

    def __init__(self, consumer: Pausable, on_change: Callable[[int], None] | None = None):
        self._consumer = consumer
        self._paused: set[TopicPartition] = set()
        self._on_change = on_change
        self.pauses = 0

    @property
    def paused(self) -> bool:
        return bool(self._paused)

    def paused_partitions(self) -> set[TopicPartition]:
        return set(self._paused)

    def pause(self) -> None:
        assigned = set(self._consumer.assignment() or ())
        fresh = assigned - self._paused
        if fresh:
            if not self._paused:
                self.pauses += 1
            self._consumer.pause(*sorted(fresh))
            self._paused |= fresh
            self._notify()

    def resume(self) -> None:
        if not self._paused:
            return
        assigned = set(self._consumer.assignment() or ())
        live = sorted(self._paused & assigned)
        if live:
            self._consumer.resume(*live)
        self._paused.clear()
        self._notify()

    def forget(self, tps: Iterable[TopicPartition]) -> None:
        """Partitions revoked: they are no longer ours to resume."""
        self._paused -= set(tps)
        self._notify()

    def _notify(self) -> None:
        if self._on_change is not None:
            self._on_change(len(self._paused))
