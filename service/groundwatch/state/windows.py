"""Time-bucketed windows: the bucket layout shared by every window store, the in-memory store,
and the read interface used by the collector, the drift report and the HTTP API.

Usage::

    store = MemoryWindowStore(settings)
    store.observe_ingest([observation])                 # idempotent per trace_id
    store.observe_evaluations([(record, slices, ts)])   # idempotent per trace_id
    now = store.now()
    by_slice = store.summaries(now - 3600, now)         # {("all", "all"): WindowSummary, ...}
    by_slice[ALL].mean("faithfulness")

Layout. Every update is added to one *fine* bucket (``bucket_s`` wide, kept ``fine_retention_s``)
and one *coarse* bucket (``rollup_s`` wide, kept ``retention_s``). A bucket is a flat map of
``"<slice_key>\\x1f<slice_value>\\x1f<field>" -> number``: counters (``n:<name>``) and, per metric,
a histogram of ``histogram_bins`` equal-width bins on [0, 1] plus its sum (``h:<metric>:<bin>``,
``h:<metric>:sum``; the count is the sum of the bins). Each trace adds the same field increments
to the total (``all``/``all``) and to one group per configured slice key.

A range ``(start, end]`` covers the fine buckets whose start lies in
``(floor(start), floor(end)]`` (times floored to ``bucket_s``): a window ending now includes the
bucket in progress, and a current window and the reference just before it never overlap. Coarse
buckets wholly inside the range replace their fine buckets, so a 7-day reference reads about
200 buckets, not 10,000.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import EvaluationRecord
from groundwatch.settings import Settings, WindowSettings
from groundwatch.state.stores import IngestObservation

__all__ = [
    "ALL",
    "COUNTERS",
    "HIST_METRICS",
    "INGEST_METRICS",
    "RATES",
    "SCORE_METRICS",
    "Baseline",
    "BucketKey",
    "BucketWindows",
    "FieldLayout",
    "Histogram",
    "Increments",
    "MemoryWindowStore",
    "SliceId",
    "WindowReader",
    "WindowSummary",
    "as_reader",
    "evaluation_increments",
    "ingest_increments",
    "plan_buckets",
    "position",
    "slice_groups",
]

SliceId = tuple[str, str]
BucketKey = tuple[str, int]  # ("f" | "c", bucket start in unix seconds)
ALL: SliceId = ("all", "all")
SEP = "\x1f"

SCORE_METRICS = ("faithfulness", "context_precision", "answer_relevance", "citation_support")
INGEST_METRICS = ("retrieval_top_score", "context_chars")
HIST_METRICS = SCORE_METRICS + INGEST_METRICS
COUNTERS = (
    "received",
    "sampled",
    "evaluated",
    "scored",
    "unscored",
    "claims",
    "contradicted",
    "not_found",
    "contradicted_traces",
    "refusal",
    "false_refusal_suspected",
    "answered_without_evidence",
)
# rate name -> (numerator counter, denominator counter, is a proportion)
RATES: dict[str, tuple[str, str, bool]] = {
    "contradicted_per_trace": ("contradicted", "scored", False),
    "contradicted_share": ("contradicted", "claims", True),
    "not_found_share": ("not_found", "claims", True),
    "refusal": ("refusal", "scored", True),
    "false_refusal_suspected": ("false_refusal_suspected", "scored", True),
    "answered_without_evidence": ("answered_without_evidence", "scored", True),
    "unscored": ("unscored", "evaluated", True),
}
# context size is log-scaled into [0, 1]: one bin per doubling up to 2**20 characters.
CONTEXT_LOG2_MAX = 20.0


def position(metric: str, value: float) -> float:
    """Where a value falls on the [0, 1] axis of its histogram."""
    if metric == "context_chars":
        return min(1.0, math.log2(1.0 + max(0.0, value)) / CONTEXT_LOG2_MAX)
    return min(1.0, max(0.0, value))


def slice_groups(slices: Mapping[str, str]) -> list[str]:
    """The bucket groups one trace updates: the total and one per slice key."""
    return [f"all{SEP}all", *(f"{k}{SEP}{v}" for k, v in slices.items() if k != "all")]


def _add_hist(out: dict[str, float], metric: str, value: float, bins: int) -> None:
    pos = position(metric, value)
    out[f"h:{metric}:sum"] = value if metric == "context_chars" else pos
    out[f"h:{metric}:{min(bins - 1, int(pos * bins))}"] = 1.0


Increments = tuple[list[str], dict[str, float]]  # (groups, field increments for each group)


def ingest_increments(obs: IngestObservation, bins: int) -> Increments:
    """Bucket increments for one ingested trace (sampled or not)."""
    out: dict[str, float] = {"n:received": 1.0}
    if obs.sampled:
        out["n:sampled"] = 1.0
    if obs.retrieval_top_score is not None and math.isfinite(obs.retrieval_top_score):
        _add_hist(out, "retrieval_top_score", obs.retrieval_top_score, bins)
    _add_hist(out, "context_chars", float(obs.context_chars), bins)
    return slice_groups(obs.slices), out


def evaluation_increments(
    record: EvaluationRecord, slices: Mapping[str, str], bins: int
) -> Increments:
    """Bucket increments for one evaluation record."""
    groups = slice_groups(slices)
    if record.status != "scored":
        return groups, {"n:evaluated": 1.0, "n:unscored": 1.0}
    counts = {
        "evaluated": 1,
        "scored": 1,
        "claims": len(record.claims),
        "contradicted": record.contradicted_claims,
        "not_found": record.not_found_claims,
        "contradicted_traces": int(record.contradicted_claims > 0),
        "refusal": int(record.refusal),
        "false_refusal_suspected": int(record.false_refusal_suspected),
        "answered_without_evidence": int(record.answered_without_evidence),
    }
    out = {f"n:{name}": float(n) for name, n in counts.items() if n}
    for metric in SCORE_METRICS:
        value = getattr(record, metric)
        if value is not None:
            _add_hist(out, metric, float(value), bins)
    return groups, out


class FieldLayout:
    """Dense vector layout of one group's fields: counters, then per metric (sum, bins...).
    A histogram's count is the sum of its bins (not stored separately)."""

    def __init__(self, bins: int):
        self.bins = bins
        self.index: dict[str, int] = {f"n:{c}": i for i, c in enumerate(COUNTERS)}
        self.hist_at: dict[str, int] = {}
        at = len(COUNTERS)
        for metric in HIST_METRICS:
            self.hist_at[metric] = at
            self.index[f"h:{metric}:sum"] = at
            for b in range(bins):
                self.index[f"h:{metric}:{b}"] = at + 1 + b
            at += 1 + bins
        self.width = at

    def summary(self, vec: npt.NDArray[np.float64]) -> WindowSummary:
        counts = {c: float(vec[i]) for i, c in enumerate(COUNTERS) if vec[i]}
        hists: dict[str, Histogram] = {}
        for metric, at in self.hist_at.items():
            bins = vec[at + 1 : at + 1 + self.bins]
            n = float(bins.sum())
            if n > 0:
                hists[metric] = Histogram(n, float(vec[at]), [float(b) for b in bins])
        return WindowSummary(counts, hists)


@dataclass
class Histogram:
    """Count, sum and equal-width bin counts of one metric over a range of buckets."""

    count: float = 0.0
    total: float = 0.0
    bins: list[float] = field(default_factory=list)

    @property
    def mean(self) -> float | None:
        return self.total / self.count if self.count > 0 else None


@dataclass
class WindowSummary:
    """Counters and histograms of one slice over a range of buckets."""

    counts: dict[str, float] = field(default_factory=dict)
    hists: dict[str, Histogram] = field(default_factory=dict)

    def count(self, name: str) -> float:
        return self.counts.get(name, 0.0)

    def hist(self, metric: str, bins: int) -> Histogram:
        h = self.hists.get(metric)
        if h is None:
            return Histogram(0.0, 0.0, [0.0] * bins)
        return h

    def samples(self, metric: str) -> float:
        h = self.hists.get(metric)
        return h.count if h else 0.0

    def mean(self, metric: str) -> float | None:
        h = self.hists.get(metric)
        return h.mean if h else None

    def rate(self, name: str) -> tuple[float, float]:
        """(numerator, denominator) of a rate in RATES."""
        num, den, _ = RATES[name]
        return self.count(num), self.count(den)

    def to_dict(self) -> dict[str, Any]:
        return {
            "counts": dict(self.counts),
            "hists": {
                m: {"count": h.count, "sum": h.total, "bins": list(h.bins)}
                for m, h in self.hists.items()
            },
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WindowSummary:
        hists = {
            str(m): Histogram(float(h["count"]), float(h["sum"]), [float(b) for b in h["bins"]])
            for m, h in dict(data.get("hists", {})).items()
        }
        counts = {str(k): float(v) for k, v in dict(data.get("counts", {})).items()}
        return cls(counts, hists)


@dataclass(frozen=True)
class Baseline:
    """A pinned drift reference: per-slice summaries frozen at ``pinned_at``."""

    pinned_at: float
    start: float
    end: float
    metric_version: str | None
    slices: dict[SliceId, WindowSummary]

    def to_dict(self) -> dict[str, Any]:
        return {
            "pinned_at": self.pinned_at,
            "start": self.start,
            "end": self.end,
            "metric_version": self.metric_version,
            "slices": [[sk, sv, s.to_dict()] for (sk, sv), s in self.slices.items()],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Baseline:
        slices = {(str(sk), str(sv)): WindowSummary.from_dict(s) for sk, sv, s in data["slices"]}
        version = data.get("metric_version")
        return cls(
            float(data["pinned_at"]),
            float(data["start"]),
            float(data["end"]),
            str(version) if version is not None else None,
            slices,
        )


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


def plan_buckets(start: float, end: float, now: float, settings: WindowSettings) -> list[BucketKey]:
    """The buckets that make up the range ``(start, end]``: coarse where they fit wholly,
    fine elsewhere. Where fine buckets have expired, a coarse bucket more than half inside
    the range stands in for them."""
    f, c = settings.bucket_s, settings.rollup_s
    lo = math.floor(start / f) * f + f  # first fine bucket start in range
    hi = math.floor(end / f) * f  # last fine bucket start in range
    if hi < lo:
        return []
    fine_floor = math.floor((now - settings.fine_retention_s) / f) * f + f
    keys: list[BucketKey] = []
    coarse = math.floor(lo / c) * c
    while coarse <= hi:
        first, last = max(lo, coarse), min(hi, coarse + c - f)
        if coarse + c + settings.retention_s <= now:
            pass  # past retention, whether or not the backend has dropped it yet
        elif first == coarse and last == coarse + c - f:
            keys.append(("c", coarse))
        elif first >= fine_floor:
            keys.extend(("f", b) for b in range(first, last + f, f))
        elif (last - first + f) * 2 > c:
            keys.append(("c", coarse))
        else:
            keys.extend(("f", b) for b in range(max(first, fine_floor), last + f, f))
        coarse += c
    return keys


def _bucket_ts(ts: float, now: float) -> float:
    # Clock skew: a trace from the future counts now, not in a bucket no window covers yet.
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

    def now(self) -> float:
        return self.clock()

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
        ts = _bucket_ts(ts, now)
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


class MemoryWindowStore(BucketWindows):
    """Process-local window store (sidecar, tests). Bounded: expired buckets are dropped and
    at most ``memory_dedup_max`` trace ids are remembered (oldest forgotten first).

    Usage: ``store = MemoryWindowStore(settings); store.observe_ingest([...])``.
    """

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time):
        self.settings = settings.windows
        self.clock = clock
        self._init_reader()
        self._dedup_ttl = settings.redis.dedup_ttl_s
        self._lock = threading.Lock()
        self._buckets: dict[BucketKey, dict[str, float]] = {}
        self._expiry: dict[BucketKey, float] = {}
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._baseline: Baseline | None = None
        self._slices: dict[str, set[str]] = {}
        self._next_prune = 0.0

    def ping(self) -> bool:
        return True

    def observe_ingest(self, items: Sequence[IngestObservation]) -> list[bool]:
        bins = self.settings.histogram_bins
        return [self._apply("i:" + o.trace_id, o.ts, ingest_increments(o, bins)) for o in items]

    def observe_evaluations(
        self, items: Sequence[tuple[EvaluationRecord, dict[str, str], float]]
    ) -> list[bool]:
        bins = self.settings.histogram_bins
        return [
            self._apply("e:" + r.trace_id, ts, evaluation_increments(r, slices, bins))
            for r, slices, ts in items
        ]

    def _apply(self, dedup_key: str, ts: float, incr: Increments) -> bool:
        now = self.now()
        groups, fields = incr
        with self._lock:
            self._prune(now)
            expires = self._seen.get(dedup_key)
            if expires is not None and expires > now:
                return False
            self._seen[dedup_key] = now + self._dedup_ttl
            self._seen.move_to_end(dedup_key)
            while len(self._seen) > self.settings.memory_dedup_max:
                self._seen.popitem(last=False)
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

    def admit_slice_value(self, key: str, value: str, top_n: int) -> bool:
        """First ``top_n`` distinct values of a slice key are admitted (process-local)."""
        with self._lock:
            admitted = self._slices.setdefault(key, set())
            if value in admitted:
                return True
            if len(admitted) >= top_n:
                return False
            admitted.add(value)
            return True

    def load_baseline(self) -> Baseline | None:
        return self._baseline

    def save_baseline(self, baseline: Baseline) -> None:
        self._baseline = baseline

    def delete_baseline(self) -> bool:
        had, self._baseline = self._baseline is not None, None
        return had
