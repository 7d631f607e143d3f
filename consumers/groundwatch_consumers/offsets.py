"""Which offsets may be committed: per partition, the highest *contiguous* processed offset + 1.

Usage::

    tracker = OffsetTracker()
    tracker.assign([tp])
    tracker.delivered(tp, [10, 11, 12])     # consumer thread, in fetch order
    tracker.done(tp, [10, 12])              # any thread, when durable
    tracker.committable()                   # {tp: 11}: 11 is still in flight

Offsets are tracked in delivery order rather than as ``offset + 1`` so that gaps in a partition
(compaction, transaction markers) never stall the commit point.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from kafka.structs import TopicPartition

__all__ = ["OffsetTracker"]


@dataclass
class _Partition:
    pending: deque[int] = field(default_factory=deque)
    done: set[int] = field(default_factory=set)
    commit_point: int | None = None  # next offset to commit (highest contiguous done + 1)
    committed: int | None = None  # last commit point sent successfully
    next_fetch: int | None = None  # last delivered offset + 1


class OffsetTracker:
    """Thread-safe bookkeeping of delivered and durable offsets per assigned partition."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._parts: dict[TopicPartition, _Partition] = {}

    def assign(self, tps: Iterable[TopicPartition]) -> None:
        with self._lock:
            for tp in tps:
                self._parts.setdefault(tp, _Partition())

    def revoke(self, tps: Iterable[TopicPartition]) -> None:
        """Forget partitions; late completions for them are ignored."""
        with self._lock:
            for tp in tps:
                self._parts.pop(tp, None)

    def partitions(self) -> list[TopicPartition]:
        with self._lock:
            return list(self._parts)

    def delivered(self, tp: TopicPartition, offsets: Iterable[int]) -> None:
        with self._lock:
            part = self._parts.setdefault(tp, _Partition())
            for offset in offsets:
                part.pending.append(offset)
                part.next_fetch = offset + 1

    def done(self, tp: TopicPartition, offsets: Iterable[int]) -> None:
        with self._lock:
            part = self._parts.get(tp)
            if part is None:
                return
            part.done.update(offsets)
            while part.pending and part.pending[0] in part.done:
                offset = part.pending.popleft()
                part.done.discard(offset)
                part.commit_point = offset + 1

    def in_flight(self, tps: Iterable[TopicPartition] | None = None) -> int:
        """Delivered offsets not yet durable (optionally only for ``tps``)."""
        with self._lock:
            keys = list(self._parts) if tps is None else [tp for tp in tps if tp in self._parts]
            return sum(len(self._parts[tp].pending) for tp in keys)

    def committable(self, tps: Iterable[TopicPartition] | None = None) -> dict[TopicPartition, int]:
        """Commit points that moved since the last :meth:`mark_committed`."""
        with self._lock:
            keys = list(self._parts) if tps is None else [tp for tp in tps if tp in self._parts]
            out: dict[TopicPartition, int] = {}
            for tp in keys:
                part = self._parts[tp]
                if part.commit_point is not None and part.commit_point != part.committed:
                    out[tp] = part.commit_point
            return out

    def mark_committed(self, offsets: dict[TopicPartition, int]) -> None:
        with self._lock:
            for tp, offset in offsets.items():
                part = self._parts.get(tp)
                if part is not None:
                    part.committed = offset

    def committed(self, tp: TopicPartition) -> int | None:
        """The last commit point of ``tp`` sent successfully (None before the first)."""
        with self._lock:
            part = self._parts.get(tp)
            return None if part is None else part.committed

    def positions(self) -> dict[TopicPartition, int | None]:
        """Per partition, the oldest offset not yet durable (what lag is measured from)."""
        with self._lock:
            out: dict[TopicPartition, int | None] = {}
            for tp, part in self._parts.items():
                if part.pending:
                    out[tp] = part.pending[0]
                else:
                    out[tp] = part.next_fetch if part.next_fetch is not None else part.commit_point
            return out
