"""The judge's contradicted precision on this deployment, measured from triage labels, read
from the finding store's label counts at scrape time.

Usage::

    registry.register(PrecisionCollector(finding_store, judge_version=lambda: judge.version))
    estimate = precision_from_counts(store.label_counts())[("all", "all")]   # the page's numbers

A scrape reads the store's label counts (kept as labels change: O(series), never every
labelled finding), and concurrent scrapes share one read: a scrape that arrives while another
reads waits for that read and exports its result.

Every finding is a claim the judge called *contradicted*; an engineer's label says whether it
was (*right*) or not (*wrong*); *unsure* counts as labelled but not in the estimate. Precision
= right / (right + wrong), with a Wilson 95 % interval, per slice (``all``/``all`` and each
slice pair the finding carries: already bounded by the slice mapper when the finding was
stored, so the labels here are bounded too). Only findings of ``judge_version`` count when it
is given: a new calibration (``groundwatch judge adapt``) starts with no measured precision.

The estimate is unbiased only when the labelled findings are a random sample of the findings
(``GET /v1/findings?sample=random``, the page's "random sample" view); labelling the newest
or loudest first measures those.

Series (absent while a slice has no right/wrong label)::

    groundwatch_judge_contradicted_precision{slice_key, slice_value}
    groundwatch_judge_contradicted_precision_bound{slice_key, slice_value, bound="lower"|"upper"}
    groundwatch_judge_contradicted_labels{slice_key, slice_value, label="right"|"wrong"|"unsure"}
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from groundwatch.state.buckets import ALL, SliceId
from groundwatch.state.stores import (
    LABELS,
    Finding,
    FindingStore,
    LabelCounts,
    StoreUnavailableError,
)

__all__ = [
    "PrecisionCollector",
    "PrecisionEstimate",
    "precision_by_slice",
    "precision_from_counts",
    "wilson_interval",
]

log = logging.getLogger(__name__)

_Z95 = 1.959963984540054
_SLICE = ["slice_key", "slice_value"]


def wilson_interval(successes: int, n: int, z: float = _Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95 % by default); (0, 1) for n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class PrecisionEstimate:
    """Label counts of one slice and the precision they give."""

    right: int = 0
    wrong: int = 0
    unsure: int = 0

    @property
    def decided(self) -> int:
        return self.right + self.wrong

    @property
    def precision(self) -> float | None:
        return self.right / self.decided if self.decided else None

    @property
    def interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.right, self.decided) if self.decided else None

    def add(self, label: str, n: int = 1) -> None:
        if label in LABELS:
            setattr(self, label, getattr(self, label) + n)


def precision_by_slice(
    findings: Iterable[Finding], judge_version: str | None = None
) -> dict[SliceId, PrecisionEstimate]:
    """Label counts per slice (``all``/``all`` always present) of the labelled ``findings``
    (of ``judge_version`` only, when given)."""
    out: dict[SliceId, PrecisionEstimate] = {ALL: PrecisionEstimate()}
    for f in findings:
        if f.label is None or (judge_version is not None and f.metric_version != judge_version):
            continue
        out[ALL].add(f.label.label)
        for pair in sorted(f.slices.items()):
            out.setdefault(pair, PrecisionEstimate()).add(f.label.label)
    return out


def precision_from_counts(
    counts: LabelCounts, judge_version: str | None = None
) -> dict[SliceId, PrecisionEstimate]:
    """:func:`precision_by_slice` from a store's :data:`~groundwatch.state.stores.LabelCounts`
    (of ``judge_version`` only, when given): the same figures, at O(series)."""
    out: dict[SliceId, PrecisionEstimate] = {ALL: PrecisionEstimate()}
    for (version, key, value, label), n in sorted(counts.items()):
        if judge_version is not None and version != judge_version:
            continue
        out.setdefault((key, value), PrecisionEstimate()).add(label, n)
    return out


class PrecisionCollector(Collector):
    """Exports :func:`precision_from_counts` of the store's label counts at every scrape.
    Concurrent scrapes share one read of the store (so N scrapers cost one read, not N). A
    store that cannot be read exports nothing for that scrape (logged; never raised)."""

    def __init__(
        self, store: FindingStore, *, judge_version: str | Callable[[], str] | None = None
    ):
        self._store = store
        self._version = judge_version
        self._lock = threading.Lock()
        self._last: tuple[float, LabelCounts] | None = None  # (monotonic end of read, counts)

    def _counts(self) -> LabelCounts:
        """The store's label counts: read now, or by a read that ended after this call began
        (one read shared by every scrape that waited for it)."""
        asked = time.monotonic()
        with self._lock:
            if self._last is not None and self._last[0] >= asked:
                return self._last[1]
            counts = self._store.label_counts()
            self._last = (time.monotonic(), counts)
            return counts

    def collect(self) -> Iterator[Metric]:
        try:
            version = self._version() if callable(self._version) else self._version
            estimates = precision_from_counts(self._counts(), version)
        except StoreUnavailableError as exc:
            log.warning("finding store unavailable for the precision gauges: %s", exc)
            return
        except Exception:  # never raise into a scrape
            log.exception("precision gauges failed")
            return
        precision = GaugeMetricFamily(
            "groundwatch_judge_contradicted_precision",
            "Share of labelled findings (claims the judge called contradicted) that engineers "
            "labelled right: right / (right + wrong). Absent without such labels.",
            labels=_SLICE,
        )
        bound = GaugeMetricFamily(
            "groundwatch_judge_contradicted_precision_bound",
            "Wilson 95 % interval of groundwatch_judge_contradicted_precision.",
            labels=[*_SLICE, "bound"],
        )
        counts = GaugeMetricFamily(
            "groundwatch_judge_contradicted_labels",
            "Labelled findings of the current judge version, by label.",
            labels=[*_SLICE, "label"],
        )
        for (key, value), est in sorted(estimates.items()):
            for label in LABELS:
                counts.add_metric([key, value, label], float(getattr(est, label)))
            if est.precision is None or est.interval is None:
                continue
            precision.add_metric([key, value], est.precision)
            bound.add_metric([key, value, "lower"], est.interval[0])
            bound.add_metric([key, value, "upper"], est.interval[1])
        yield precision
        yield bound
        yield counts
