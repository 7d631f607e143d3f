"""The window bucket layout shared by every window store: which fields a trace adds to which
bucket groups (counters and histograms), which buckets make up a range, and the summaries and
pinned baseline read back from them. Pure functions and data; no storage, no I/O.

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
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import EvaluationRecord
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.stores import IngestObservation

__all__ = [
    "ALL",
    "COUNTERS",
    "HIST_METRICS",
    "INGEST_METRICS",
    "RATES",
    "SCORE_METRICS",
    "SEP",
    "Baseline",
    "BucketKey",
    "FieldLayout",
    "Histogram",
    "Increments",
    "SliceId",
    "WindowSummary",
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
    "contradicted_trace_share": ("contradicted_traces", "scored", True),
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
