"""The read side of a window store: the :class:`WindowReader` protocol that the collector, the
drift report, the HTTP API and the baseline commands read through, and :class:`BucketWindows`,
the bucket reading, parsing and caching shared by the memory and Redis stores (each provides
``_fetch``). The bucket layout itself is in :mod:`groundwatch.state.buckets`.
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from groundwatch.contract.trace import MAX_FUTURE_SKEW_S
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.buckets import (
    ALL,
    SEP,
    Baseline,
    BucketKey,
    FieldLayout,
    SliceId,
    WindowSummary,
    plan_buckets,
)

__all__ = ["BucketWindows", "RawBucket", "WindowReader", "as_reader"]


@runtime_checkable
class WindowReader(Protocol):
    """Read side of a window store (collector, drift, HTTP API, baseline CLI)."""

    def now(self) -> float:
        """The store's clock (unix seconds); windows end here."""
        ...

    def summaries(self, start: float, end: float) -> dict[SliceId, WindowSummary]:
        """Per-slice summaries of the range ``(start, end]`` (see the module docstring)."""
        ...

    def summaries_many(
        self, ranges: Sequence[tuple[float, float]]
    ) -> list[dict[SliceId, WindowSummary]]:
        """Several ranges at once; each bucket is read once."""
        ...

    def load_baseline(self) -> Baseline | None: ...

    def save_baseline(self, baseline: Baseline) -> None: ...

    def delete_baseline(self) -> bool: ...


def as_reader(store: object) -> WindowReader:
    """The read interface of a window store (both shipped stores implement it)."""
    if not isinstance(store, WindowReader):
        raise TypeError(f"{type(store).__name__} does not implement WindowReader")
    return store


# Timestamps are kept as sent, so a backlog replayed later lands in the windows it belongs to.
# The bounds: a trace up to this far in the future is clock skew and counts now; further ahead
# it is rejected (not counted in any window). In the past, anything within the retention counts
# at its own time (coarse buckets when the fine ones have expired); older is not counted.
# The skew bound is the contract's: ingest refuses what lies further ahead, findings keep it.


def _bucket_ts(ts: float, now: float) -> float | None:
    if ts > now + MAX_FUTURE_SKEW_S:
        return None
    return min(ts, now)


Parsed = dict[SliceId, "npt.NDArray[np.float64]"]
RawBucket = Mapping[str, float] | Mapping[bytes, bytes]


class BucketWindows:
    """Shared read logic; subclasses provide ``_fetch`` (bucket key -> flat fields).

    Reads cache parsed buckets that closed more than ``10 * bucket_s`` (at least 10 min) ago
    for ``windows.read_cache_s`` (jittered), so a scrape reads only recent buckets; a late
    write into an older bucket shows up within that time."""

    settings: WindowSettings
    clock: Callable[[], float]
    _layout: FieldLayout
    _cache: dict[BucketKey, tuple[float, Parsed]]
    _cache_lock: threading.Lock

    #: Set by :meth:`freeze`: the time the windows end at for good.
    frozen_at: float | None = None

    def now(self) -> float:
        return self.clock()

    def freeze(self, at: float | None = None) -> float:
        """Stop this store's clock (at ``at``, default now): the windows keep ending there, so
        they keep their last values instead of emptying as time passes. For a replay that has
        ended (``groundwatch demo --serve-forever``), never for a live service. Returns the
        time frozen at; reports carry it (``frozen_at``) so that readers can say so."""
        stopped = self.clock() if at is None else at
        self.frozen_at = stopped
        self.clock = lambda: stopped
        return stopped

    def _fetch(self, keys: Sequence[BucketKey]) -> dict[BucketKey, RawBucket]:
        """The stored fields of each existing bucket (names as str or bytes)."""
        raise NotImplementedError

    def _init_reader(self) -> None:
        s = self.settings
        if s.bucket_s <= 0 or s.rollup_s <= 0 or s.rollup_s % s.bucket_s:
            raise ValueError("windows.rollup_s must be a positive multiple of windows.bucket_s")
        self._layout = FieldLayout(s.histogram_bins)
        self._cache = {}
        self._cache_lock = threading.Lock()
        self._names: dict[str | bytes, tuple[SliceId, int]] = {}
        self._rng = random.Random()

    def summaries(self, start: float, end: float) -> dict[SliceId, WindowSummary]:
        return self.summaries_many([(start, end)])[0]

    def summaries_many(
        self, ranges: Sequence[tuple[float, float]]
    ) -> list[dict[SliceId, WindowSummary]]:
        now = self.now()
        plans = [plan_buckets(s, e, now, self.settings) for s, e in ranges]
        parsed = self._read(sorted({k for plan in plans for k in plan}), now)
        out: list[dict[SliceId, WindowSummary]] = []
        for plan in plans:
            acc: dict[SliceId, npt.NDArray[np.float64]] = {}
            for key in plan:
                for group, vec in parsed.get(key, {}).items():
                    have = acc.get(group)
                    acc[group] = vec.copy() if have is None else np.add(have, vec, out=have)
            out.append({g: self._layout.summary(v) for g, v in acc.items()})
        return out

    def _read(self, keys: Sequence[BucketKey], now: float) -> dict[BucketKey, Parsed]:
        s = self.settings
        ttl = s.read_cache_s
        settled = now - max(600, 10 * s.bucket_s)
        out: dict[BucketKey, Parsed] = {}
        missing: list[BucketKey] = []
        with self._cache_lock:
            for key in keys:
                hit = self._cache.get(key)
                if hit is not None and hit[0] > now:
                    out[key] = hit[1]
                else:
                    missing.append(key)
        fetched = self._fetch(missing) if missing else {}
        with self._cache_lock:
            # Bounded: entries live at most 2 * read_cache_s and keys are buckets in retention.
            for key in [k for k, (expires, _) in self._cache.items() if expires <= now]:
                del self._cache[key]
            for key in missing:
                raw = fetched.get(key)
                parsed = self._parse(raw) if raw else {}
                out[key] = parsed
                width = s.bucket_s if key[0] == "f" else s.rollup_s
                if ttl > 0 and key[1] + width <= settled:
                    self._cache[key] = (now + ttl * (1.0 + self._rng.random()), parsed)
        return out

    def _parse(self, flat: RawBucket) -> Parsed:
        names, width = self._names, self._layout.width
        if len(names) > 200_000:  # bounded: slice values are bounded, field names are fixed
            names.clear()
        out: Parsed = {}
        for name, value in flat.items():
            hit = names.get(name)
            if hit is None:
                hit = names[name] = self._resolve(name)
            group, at = hit
            if at < 0:
                continue  # a field from another version or bin count
            vec = out.get(group)
            if vec is None:
                vec = out[group] = np.zeros(width)
            vec[at] += float(value)
        return out

    def _resolve(self, name: str | bytes) -> tuple[SliceId, int]:
        text = name.decode() if isinstance(name, bytes) else name
        parts = text.split(SEP, 2)
        if len(parts) != 3:
            return ALL, -1
        return (parts[0], parts[1]), self._layout.index.get(parts[2], -1)

    def _targets(self, ts: float, now: float) -> list[tuple[BucketKey, float]]:
        """(bucket, expires_at) for a write at ts; expired resolutions are skipped."""
        s = self.settings
        at = _bucket_ts(ts, now)
        if at is None:
            return []
        ts = at
        fine = math.floor(ts / s.bucket_s) * s.bucket_s
        coarse = math.floor(ts / s.rollup_s) * s.rollup_s
        out: list[tuple[BucketKey, float]] = []
        fine_exp = fine + s.bucket_s + s.fine_retention_s
        coarse_exp = coarse + s.rollup_s + s.retention_s
        if fine_exp > now:
            out.append((("f", fine), fine_exp))
        if coarse_exp > now:
            out.append((("c", coarse), coarse_exp))
        return out
