"""Bounded slice labels: configured attribute keys only, at most top-N values per key, the rest
``"other"``. Label values never carry free text beyond what the operator configured.

Usage::

    mapper = SliceMapper(["tenant", "intent"], top_n=10)
    mapper.slices({"tenant": "acme", "user": "bob"})   # {"tenant": "acme", "intent": "unknown"}
    SliceMapper(["tenant"], 10, ranking=RedisSliceRanking(client, "gw", 10, 3600),
                scrub=redactor.redact_label,                        # PII never becomes a label
                allow={"tenant": r"[a-z]{2,16}"})                   # allow-list: else "other"

A value passes, in order: ``scrub`` (the PII redactor: an e-mail becomes ``[EMAIL]``), the
key's allow-list pattern (a full match, else ``other``), the character clean-up, then the
top-N by recent volume (:mod:`groundwatch.state.slice_ranking`): every value is counted, the
counts go to the ranking about once a second, and the admitted set that comes back decides.
A value new to the set waits for the next ranking (at most one period, ``window_s / 4``)
unless a place is free; a value that stops arriving ages out, so early junk cannot pin a label.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping

from groundwatch.state.slice_ranking import (
    MemorySliceRanking,
    SliceRanking,
    sketch_add,
    sketch_capacity,
)

__all__ = ["MISSING", "OTHER", "SliceMapper"]

OTHER = "other"
MISSING = "unknown"
_MAX_VALUE_LEN = 64
_SAFE = re.compile(r"[^A-Za-z0-9_.:/@+\[\]-]")
_FLUSH_S = 1.0  # counts go to the ranking at least this often (and at each new period)
_DEFAULT_WINDOW_S = 3600.0


class SliceMapper:
    """Maps trace attributes to bounded slice labels.

    ``ranking`` decides which values are admitted (a shared one, such as
    :class:`~groundwatch.state.slice_ranking.RedisSliceRanking`, makes replicas agree); by
    default a :class:`~groundwatch.state.slice_ranking.MemorySliceRanking` over one hour.
    Thread-safe; the ranking is called outside the mapper's lock, one flush at a time.
    """

    def __init__(
        self,
        keys: Iterable[str],
        top_n: int,
        ranking: SliceRanking | None = None,
        *,
        scrub: Callable[[str], str] | None = None,
        allow: Mapping[str, str | re.Pattern[str]] | None = None,
        clock: Callable[[], float] = time.time,
    ):
        self.keys = [k for k in keys if k]
        self.top_n = max(0, top_n)
        self.ranking: SliceRanking = ranking or MemorySliceRanking(self.top_n, _DEFAULT_WINDOW_S)
        self._scrub = scrub
        self._allow = {
            k: re.compile(p) if isinstance(p, str) else p for k, p in (allow or {}).items()
        }
        self._clock = clock
        self._capacity = sketch_capacity(self.top_n)
        self._admitted: dict[str, frozenset[str]] = {k: frozenset() for k in self.keys}
        self._pending: dict[str, dict[str, float]] = {k: {} for k in self.keys}
        self._pending_at: float | None = None  # when the last pending count was taken
        self._next_flush = 0.0
        self._epoch: int | None = None
        self._lock = threading.Lock()
        self._flushing = threading.Lock()

    @staticmethod
    def clean(value: str) -> str:
        return _SAFE.sub("_", value.strip())[:_MAX_VALUE_LEN] or MISSING

    def _label(self, key: str, raw: str | None, count: bool) -> str:
        if raw is None or not raw.strip():
            return MISSING
        if self._scrub is not None:
            raw = self._scrub(raw)
        pattern = self._allow.get(key)
        if pattern is not None and not pattern.fullmatch(raw.strip()):
            return OTHER
        value = self.clean(raw)
        now = self._clock()
        if self._due(now):  # first, so that counts of a past period are sent as such
            self._flush(now)
        with self._lock:
            if count:
                sketch_add(self._pending[key], value, 1.0, self._capacity)
                self._pending_at = now
            admitted = self._admitted[key]
            room = value not in admitted and len(admitted) < self.top_n
            if room and not count and value not in self._pending[key]:
                # Not counted here (its ingest was, perhaps on another replica, or it never
                # went through ingest): a new value still takes a free place at once, asked
                # for with no volume so that the ranking does not count the trace twice.
                sketch_add(self._pending[key], value, 0.0, self._capacity)
        if room:  # a free place: ask now rather than at the next flush
            self._flush(now, (key, value))
        with self._lock:
            return value if value in self._admitted[key] else OTHER

    def _due(self, now: float) -> bool:
        return now >= self._next_flush or self._epoch != math.floor(now / self.ranking.period_s)

    def _flush(self, now: float, room_for: tuple[str, str] | None = None) -> None:
        with self._flushing:
            with self._lock:  # another thread may have flushed while this one waited
                if room_for is None:
                    if not self._due(now):
                        return
                else:
                    key, value = room_for
                    admitted = self._admitted[key]
                    if value in admitted or len(admitted) >= self.top_n:
                        return
                    if value not in self._pending[key]:
                        return  # sent by another thread's flush, which answered
                pending, self._pending = self._pending, {k: {} for k in self.keys}
                counted_at = self._pending_at
            try:
                fresh = self.ranking.flush(pending, now, counted_at)
            except Exception:
                with self._lock:  # nothing counted is lost: the next flush sends it
                    for k, counts in pending.items():
                        for v, n in counts.items():
                            sketch_add(self._pending[k], v, n, self._capacity)
                raise
            with self._lock:
                self._admitted.update(fresh)
                self._next_flush = now + min(_FLUSH_S, self.ranking.period_s / 4)
                self._epoch = math.floor(now / self.ranking.period_s)

    def slices(self, attributes: dict[str, str], *, count: bool = True) -> dict[str, str]:
        """The bounded label of each configured key. ``count=False`` maps without counting the
        trace's volume again (its evaluation, after its ingest was counted)."""
        return {key: self._label(key, attributes.get(key), count) for key in self.keys}
