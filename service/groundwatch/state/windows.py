"""The in-memory window store (sidecar, tests): time-bucketed counters and histograms of the
pipeline, kept in process. The bucket layout is in :mod:`groundwatch.state.buckets`, the read
side shared with the Redis store in :mod:`groundwatch.state.bucket_reader`.

Usage::

    store = MemoryWindowStore(WindowSettings())
    store.observe_ingest([observation])                 # idempotent per trace_id
    store.observe_evaluations([(record, slices, ts)])   # idempotent per trace_id
    now = store.now()
    by_slice = store.summaries(now - 3600, now)         # {("all", "all"): WindowSummary, ...}
    by_slice[ALL].mean("faithfulness")
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from groundwatch.contract.record import EvaluationRecord
from groundwatch.sections.connections import (
    DEFAULT_DEDUP_TTL_S,
    DEFAULT_RESEND_WINDOW_OFFSETS,
)
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import BucketWindows, RawBucket
from groundwatch.state.buckets import (
    SEP,
    Baseline,
    BucketKey,
    Increments,
    evaluation_increments,
    ingest_increments,
)
from groundwatch.state.stores import Delivery, IngestObservation

__all__ = ["MemoryWindowStore"]


class MemoryWindowStore(BucketWindows):
    """Process-local window store (sidecar, tests). Bounded: expired buckets are dropped and
    at most ``memory_dedup_max`` trace ids are remembered (oldest forgotten first). A trace
    read from Kafka (with a :class:`Delivery`) is remembered per partition instead, like
    :class:`~groundwatch.state.redis_store.RedisWindowStore` does: from its partition's floor
    less ``resend_window_offsets`` on.

    Usage: ``store = MemoryWindowStore(windows); store.observe_ingest([...])``; the re-delivery
    horizon is the ``redis`` section's (``dedup_ttl_s``, ``resend_window_offsets``).
    """

    def __init__(
        self,
        windows: WindowSettings,
        clock: Callable[[], float] = time.time,
        *,
        dedup_ttl_s: int = DEFAULT_DEDUP_TTL_S,
        resend_window_offsets: int = DEFAULT_RESEND_WINDOW_OFFSETS,
    ):
        self.settings = windows
        self.clock = clock
        self._init_reader()
        self._dedup_ttl = dedup_ttl_s
        self._resend_window = resend_window_offsets
        # (kind, topic, partition) -> {trace id: offset}, the offsets a re-delivery may repeat
        self._offsets: dict[tuple[str, str, int], dict[str, int]] = {}
        self._lock = threading.Lock()
        self._buckets: dict[BucketKey, dict[str, float]] = {}
        self._expiry: dict[BucketKey, float] = {}
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._baseline: Baseline | None = None
        self._next_prune = 0.0

    def ping(self) -> bool:
        return True

    def observe_ingest(
        self,
        items: Sequence[IngestObservation],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        marks = deliveries if deliveries is not None else [None] * len(items)
        return [
            self._apply("i", o.trace_id, o.ts, ingest_increments(o, bins), d)
            for o, d in zip(items, marks, strict=True)
        ]

    def observe_evaluations(
        self,
        items: Sequence[tuple[EvaluationRecord, dict[str, str], float]],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        marks = deliveries if deliveries is not None else [None] * len(items)
        return [
            self._apply("e", r.trace_id, ts, evaluation_increments(r, slices, bins), d)
            for (r, slices, ts), d in zip(items, marks, strict=True)
        ]

    def evaluated(self, trace_ids: Sequence[str]) -> list[bool]:
        now = self.now()
        with self._lock:
            return [self._seen.get("e:" + t, 0.0) > now for t in trace_ids]

    def _claim_offset(self, kind: str, trace_id: str, delivery: Delivery) -> bool:
        """Whether ``trace_id`` is new in its partition; forgets offsets below the floor less
        the re-send margin (never above the delivered offset: a reset log forgets nothing)."""
        seen = self._offsets.setdefault((kind, delivery.topic, delivery.partition), {})
        if delivery.floor is not None:
            below = min(delivery.floor, delivery.offset) - self._resend_window
            # Kept in delivery order (about offset order): drop from the oldest on.
            while seen and below > 0:
                oldest, offset = next(iter(seen.items()))
                if offset >= below:
                    break
                del seen[oldest]
        if trace_id in seen:
            return False
        seen[trace_id] = delivery.offset
        return True

    def _claim_id(self, dedup_key: str, now: float) -> bool:
        expires = self._seen.get(dedup_key)
        if expires is not None and expires > now:
            return False
        self._seen[dedup_key] = now + self._dedup_ttl
        self._seen.move_to_end(dedup_key)
        while len(self._seen) > self.settings.memory_dedup_max:
            self._seen.popitem(last=False)
        return True

    def _apply(
        self, kind: str, trace_id: str, ts: float, incr: Increments, delivery: Delivery | None
    ) -> bool:
        now = self.now()
        groups, fields = incr
        with self._lock:
            self._prune(now)
            if delivery is not None:
                if not self._claim_offset(kind, trace_id, delivery):
                    return False
            elif not self._claim_id(f"{kind}:{trace_id}", now):
                return False
            for key, expires_at in self._targets(ts, now):
                bucket = self._buckets.setdefault(key, {})
                self._expiry[key] = expires_at
                for group in groups:
                    prefix = group + SEP
                    for name, value in fields.items():
                        field_key = prefix + name
                        bucket[field_key] = bucket.get(field_key, 0.0) + value
            return True

    def _prune(self, now: float) -> None:
        if now < self._next_prune:
            return
        self._next_prune = now + self.settings.bucket_s
        for key in [k for k, exp in self._expiry.items() if exp <= now]:
            del self._expiry[key]
            self._buckets.pop(key, None)
        while self._seen:
            trace_key, exp = next(iter(self._seen.items()))
            if exp > now:
                break
            del self._seen[trace_key]

    def _fetch(self, keys: Sequence[BucketKey]) -> dict[BucketKey, RawBucket]:
        now = self.now()
        with self._lock:
            return {
                k: dict(self._buckets[k])
                for k in keys
                if k in self._buckets and self._expiry.get(k, 0.0) > now
            }

    def bucket_count(self) -> int:
        with self._lock:
            self._prune(self.now())
            return len(self._buckets)

    def load_baseline(self) -> Baseline | None:
        return self._baseline

    def save_baseline(self, baseline: Baseline) -> None:
        self._baseline = baseline

    def delete_baseline(self) -> bool:
        had, self._baseline = self._baseline is not None, None
        return had
