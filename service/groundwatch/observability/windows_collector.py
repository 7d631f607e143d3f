"""Windowed values and drift, read from the shared window store at scrape time.

Usage::

    registry.register(WindowsCollector(window_store, window_settings))
    report = build_report(window_store, window_settings)  # the same numbers, for GET /v1/windows

Multi-replica rule: these series carry no replica identity, and every replica reading the same
Redis exports the same values. Prometheus adds ``instance``/``pod``; dashboards and alert rules
aggregate with ``max without(instance, pod)`` (never ``sum``). See docs/metrics.md.

A window value computed from fewer than ``windows.min_samples`` samples is not exported at all
(the series is absent, not 0): alerts then see "no data" rather than a noisy value. Drift is
decided here for the whole family of one evaluation (see :mod:`groundwatch.state.drift`): each
slice x metric x rate with data on both sides exports a ``decision`` (0 or 1, also 0 while the
slice is underpowered), its p- and q-value, its effect size and both sample sizes.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import WindowReader, as_reader
from groundwatch.state.buckets import (
    ALL,
    RATES,
    SCORE_METRICS,
    Baseline,
    SliceId,
    WindowSummary,
)
from groundwatch.state.drift import DriftPolicy, SliceDrift, compare, decide
from groundwatch.state.stores import StoreUnavailableError, WindowStore

__all__ = ["WindowReport", "WindowsCollector", "build_report", "report_to_json"]

log = logging.getLogger(__name__)

MEAN_METRICS = (*SCORE_METRICS, "retrieval_top_score")
TRACE_KINDS = ("received", "sampled", "evaluated", "scored", "unscored")
CLAIM_VERDICTS = {"contradicted": "contradicted", "not_found": "not_found"}
_SLICE = ["slice_key", "slice_value"]
_FIRST_REPORT_WAIT_S = 5.0
#: Families whose value changes at every scrape; every other family is a function of the report.
_LIVE = (
    "groundwatch_window_store_up",
    "groundwatch_window_collect_duration_seconds",
    "groundwatch_window_report_age_seconds",
)


@dataclass
class WindowReport:
    """Everything the collector exports, computed once per scrape."""

    now: float
    min_samples: int
    reference: str  # "rolling" | "pinned"
    reference_range: tuple[float, float]
    windows: dict[str, dict[SliceId, WindowSummary]] = field(default_factory=dict)
    drift: dict[SliceId, SliceDrift] = field(default_factory=dict)
    baseline: Baseline | None = None
    drift_tests: int = 0  # family size of the multiple-testing correction
    drift_fdr: float = 0.01
    #: The store's clock was stopped here (a demo whose replay ended): the windows are frozen.
    frozen_at: float | None = None


def drift_policy(ws: WindowSettings) -> DriftPolicy:
    """The drift decision rule configured in ``windows.*``."""
    return DriftPolicy(
        fdr=ws.drift_fdr,
        min_wasserstein=ws.drift_min_wasserstein,
        min_rate_ratio=ws.drift_min_rate_ratio,
        detectable_shift=ws.drift_detectable_shift,
        detectable_rate_ratio=ws.drift_detectable_rate_ratio,
        min_samples=ws.min_samples,
        bins=ws.histogram_bins,
        psi_epsilon=ws.psi_epsilon,
    )


def build_report(
    reader: WindowReader, ws: WindowSettings, now: float | None = None
) -> WindowReport:
    """Query every exported window and the drift pair (current vs reference) in one read, as
    the ``windows`` section ``ws`` lays them out."""
    now = reader.now() if now is None else now
    cur_s, ref_s = ws.current_window_s, ws.reference_window_s
    ranges = [(now - seconds, now) for seconds in ws.export_windows_s.values()]
    ranges.append((now - cur_s, now))
    baseline = reader.load_baseline()
    use_pinned = ws.reference == "pinned" and baseline is not None
    ref_range = (now - cur_s - ref_s, now - cur_s)
    if not use_pinned:
        ranges.append(ref_range)
    results = reader.summaries_many(ranges)
    report = WindowReport(
        now=now,
        min_samples=ws.min_samples,
        reference="pinned" if use_pinned else "rolling",
        reference_range=(baseline.start, baseline.end) if use_pinned and baseline else ref_range,
        baseline=baseline,
        # Only a BucketWindows store can be frozen; other readers never are.
        frozen_at=getattr(reader, "frozen_at", None),
    )
    for name, summaries in zip(ws.export_windows_s, results, strict=False):
        report.windows[name] = summaries
    current = results[len(ws.export_windows_s)]
    reference = baseline.slices if use_pinned and baseline else results[-1]
    policy = drift_policy(ws)
    for slice_id, cur in current.items():
        ref = reference.get(slice_id)
        if ref is None:
            continue
        drift = compare(cur, ref, policy)
        if not drift.empty():
            report.drift[slice_id] = drift
    report.drift_tests = decide(report.drift, policy)
    report.drift_fdr = policy.fdr
    return report


def _rate(summary: WindowSummary, name: str, min_samples: int) -> float | None:
    num, den = summary.rate(name)
    return num / den if den >= max(1, min_samples) else None


def report_to_json(report: WindowReport) -> dict[str, Any]:
    """The report as JSON for GET /v1/windows (same thresholds as the collector)."""
    m = report.min_samples
    windows: dict[str, list[dict[str, Any]]] = {}
    for name, by_slice in report.windows.items():
        rows = []
        for (sk, sv), s in sorted(by_slice.items(), key=lambda kv: (kv[0] != ALL, kv[0])):
            rows.append(
                {
                    "slice_key": sk,
                    "slice_value": sv,
                    "traces": {k: s.count(k) for k in TRACE_KINDS},
                    "means": {
                        x: s.mean(x) if s.samples(x) >= max(1, m) else None for x in MEAN_METRICS
                    },
                    "samples": {x: s.samples(x) for x in MEAN_METRICS},
                    "rates": {r: _rate(s, r, m) for r in RATES},
                }
            )
        windows[name] = rows
    drift = [
        {
            "slice_key": sk,
            "slice_value": sv,
            "psi": d.psi,
            "wasserstein": d.wasserstein,
            "metrics": {
                m: {
                    "decision": t.decision,
                    "p_value": t.p_value,
                    "q_value": t.q_value,
                    "psi": t.psi,
                    "wasserstein": t.wasserstein,
                    "samples": {"current": t.n_current, "reference": t.n_reference},
                    "required_samples": _finite(t.required),
                }
                for m, t in d.metrics.items()
            },
            "rates": {
                r: {
                    "decision": t.decision,
                    "z": t.z,
                    "p_value": t.p_value,
                    "q_value": t.q_value,
                    "ratio": t.ratio,
                    "current": t.current,
                    "reference": t.reference,
                    "samples": {"current": t.n_current, "reference": t.n_reference},
                    "required_samples": _finite(t.required),
                }
                for r, t in d.rates.items()
            },
        }
        for (sk, sv), d in sorted(report.drift.items(), key=lambda kv: (kv[0] != ALL, kv[0]))
    ]
    b = report.baseline
    return {
        "now": report.now,
        "min_samples": m,
        "reference": report.reference,
        "reference_range": list(report.reference_range),
        "baseline": None
        if b is None
        else {"pinned_at": b.pinned_at, "start": b.start, "end": b.end},
        "windows": windows,
        "drift": drift,
        "drift_tests": report.drift_tests,
        "drift_fdr": report.drift_fdr,
        "frozen_at": report.frozen_at,
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


class WindowsCollector(Collector):
    """prometheus_client collector over a :class:`~groundwatch.state.bucket_reader.WindowReader`.

    Usage: ``registry.register(WindowsCollector(store, windows))``, ``windows`` the
    :class:`~groundwatch.sections.windows.WindowSettings`.
    """

    def __init__(self, store: WindowStore | WindowReader, windows: WindowSettings):
        self.reader = as_reader(store)
        self.windows = windows
        self._lock = threading.Lock()
        self._report: WindowReport | None = None
        self._report_at = 0.0  # time.monotonic() when the served report was computed
        self._duration = 0.0
        self._error: str | None = None
        self._refresh: threading.Thread | None = None
        #: Called with each new report where it was computed (the background refresh, off
        #: the scrape path): :class:`~groundwatch.observability.window_export.WindowExport`
        #: renders it there.
        self.on_report: Callable[[WindowReport], None] | None = None

    def _compute(self) -> None:
        start = time.perf_counter()
        report: WindowReport | None = None
        error: str | None = None
        try:
            report = build_report(self.reader, self.windows)
        except StoreUnavailableError as exc:
            # A scrape must not fail because Redis is down: report it as a series instead.
            log.warning("window store unavailable: %s", exc)
            error = str(exc)
        except Exception as exc:  # never raise into a scrape; logged, visible as store_up 0
            log.exception("window report failed")
            error = type(exc).__name__
        with self._lock:
            self._report, self._error = report, error
            self._report_at = time.monotonic()
            self._duration = time.perf_counter() - start
        if report is not None and self.on_report is not None:
            try:
                self.on_report(report)
            except Exception:  # never raise into a scrape or the refresh thread
                log.exception("window report hook failed")
        with self._lock:
            self._refresh = None

    def _current(self) -> tuple[WindowReport | None, str | None, float]:
        """The report to serve. With ``report_refresh_s > 0`` scrapes never wait for the store
        (except for the very first report): a stale report triggers a background refresh and
        is served meanwhile, so scrape time and store load do not grow with the window data."""
        refresh_s = self.windows.report_refresh_s
        if refresh_s <= 0:
            self._compute()
        else:
            with self._lock:
                stale = self._report is None or time.monotonic() - self._report_at >= refresh_s
                if stale and self._refresh is None:
                    self._refresh = threading.Thread(
                        target=self._compute, name="gw-window-report", daemon=True
                    )
                    self._refresh.start()
                first = self._report is None and self._error is None
                waiter = self._refresh if first else None
            if waiter is not None:
                waiter.join(_FIRST_REPORT_WAIT_S)
        with self._lock:
            return self._report, self._error, time.monotonic() - self._report_at

    def describe(self) -> list[Metric]:
        # Declared without samples so registering never touches the store.
        return list(self._families().values())

    def _families(self) -> dict[str, Metric]:
        wl = ["window"]
        fams: list[Metric] = [
            GaugeMetricFamily(
                "groundwatch_window_mean",
                "Mean score over a window, by metric and slice (absent below min_samples).",
                labels=[*wl, "metric", *_SLICE],
            ),
            GaugeMetricFamily(
                "groundwatch_window_samples",
                "Non-null values of a metric in a window, by slice.",
                labels=[*wl, "metric", *_SLICE],
            ),
            GaugeMetricFamily(
                "groundwatch_window_traces",
                "Traces in a window by kind (received = every trace, sampled or not), by slice.",
                labels=[*wl, "kind", *_SLICE],
            ),
            GaugeMetricFamily(
                "groundwatch_window_claims",
                "Claims in a window, by verdict (contradicted | not_found | all) and slice.",
                labels=[*wl, "verdict", *_SLICE],
            ),
            GaugeMetricFamily(
                "groundwatch_window_rate",
                "Rates over a window, by slice (absent when the denominator < min_samples).",
                labels=[*wl, "rate", *_SLICE],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_decision",
                "1 when a metric drifted: significant after Benjamini-Hochberg and Wasserstein-1 "
                "above windows.drift_min_wasserstein; 0 otherwise or while underpowered.",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_p_value",
                "p-value of the two-sample test (chi-square + Mann-Whitney, ties handled) of a "
                "metric, current window vs reference (absent while underpowered).",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_q_value",
                "Benjamini-Hochberg adjusted p-value over all drift tests of one evaluation.",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_psi",
                "Population stability index (effect size), current window vs reference.",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_wasserstein",
                "Wasserstein-1 distance on [0,1] (effect size), current window vs reference.",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_samples",
                "Samples behind a drift value, by side (current | reference).",
                labels=["metric", *_SLICE, "reference", "side"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_required_samples",
                "Current samples needed to detect windows.drift_detectable_shift (80% power); "
                "fewer = underpowered, untested.",
                labels=["metric", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_decision",
                "1 when a rate rose: significant (exact one-sided test, Benjamini-Hochberg) and "
                "ratio above windows.drift_min_rate_ratio; 0 otherwise or while underpowered.",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_z",
                "Two-proportion z (current minus reference) of a rate, by slice.",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_p_value",
                "Exact one-sided p-value (hypergeometric) that a rate rose (absent while "
                "underpowered).",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_q_value",
                "Benjamini-Hochberg adjusted p-value of a rate increase.",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_ratio",
                "Current rate / reference rate (the reference floored at half a count).",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_samples",
                "Denominator of a rate by side (current | reference).",
                labels=["rate", *_SLICE, "reference", "side"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_rate_required_samples",
                "Current denominator needed to detect windows.drift_detectable_rate_ratio.",
                labels=["rate", *_SLICE, "reference"],
            ),
            GaugeMetricFamily(
                "groundwatch_drift_tests",
                "Drift tests made in the last evaluation: the family size of the "
                "Benjamini-Hochberg correction.",
            ),
            GaugeMetricFamily(
                "groundwatch_drift_fdr",
                "The false discovery rate drift decisions are made at (windows.drift_fdr).",
            ),
            InfoMetricFamily(
                "groundwatch_baseline",
                "The pinned drift baseline (present only while one is pinned).",
                labels=["pinned_at", "reference_start", "reference_end", "active"],
            ),
            GaugeMetricFamily(
                "groundwatch_window_store_up",
                "1 when the last window report could read the window store, else 0.",
            ),
            GaugeMetricFamily(
                "groundwatch_window_collect_duration_seconds",
                "Time the last window report took to read the store and compute drift.",
            ),
            GaugeMetricFamily(
                "groundwatch_window_report_age_seconds",
                "Age of the window report served (refreshed every windows.report_refresh_s).",
            ),
        ]
        return {f.name: f for f in fams}

    def collect(self) -> Iterator[Metric]:
        report, error, age = self.current()
        yield from self.report_families(report if error is None else None)
        yield from self.live_families(report, error, age)

    def current(self) -> tuple[WindowReport | None, str | None, float]:
        """(report served now, the error that replaced it, its age in seconds)."""
        return self._current()

    def report_families(self, report: WindowReport | None) -> list[Metric]:
        """The families that depend on ``report`` alone (the same for its whole lifetime, so
        they may be rendered once: :mod:`groundwatch.observability.window_export`); empty
        families without a report."""
        fams = self._families()
        if report is not None:
            self._fill(fams, report)
        return [f for name, f in fams.items() if name not in _LIVE]

    def live_families(
        self, report: WindowReport | None, error: str | None, age: float
    ) -> list[Metric]:
        """The families that change at every scrape (store up, report age, its duration)."""
        fams = {name: f for name, f in self._families().items() if name in _LIVE}

        def gauge(name: str) -> GaugeMetricFamily:
            fam = fams[name]
            assert isinstance(fam, GaugeMetricFamily)
            return fam

        if report is not None and error is None:
            gauge("groundwatch_window_report_age_seconds").add_metric([], age)
        if report is not None or error is not None:
            gauge("groundwatch_window_store_up").add_metric([], 0.0 if error else 1.0)
            gauge("groundwatch_window_collect_duration_seconds").add_metric([], self._duration)
        return list(fams.values())

    def _fill(self, fams: dict[str, Metric], r: WindowReport) -> None:
        def gauge(name: str) -> GaugeMetricFamily:
            fam = fams[name]
            assert isinstance(fam, GaugeMetricFamily)
            return fam

        mean, samples = gauge("groundwatch_window_mean"), gauge("groundwatch_window_samples")
        traces, claims = gauge("groundwatch_window_traces"), gauge("groundwatch_window_claims")
        rates = gauge("groundwatch_window_rate")
        floor = max(1, r.min_samples)
        slices = {s for by_slice in r.windows.values() for s in by_slice}
        for window, by_slice in r.windows.items():
            for sk, sv in sorted(slices):
                s = by_slice.get((sk, sv), WindowSummary())
                for kind in TRACE_KINDS:
                    traces.add_metric([window, kind, sk, sv], s.count(kind))
                claims.add_metric([window, "all", sk, sv], s.count("claims"))
                for verdict, counter in CLAIM_VERDICTS.items():
                    claims.add_metric([window, verdict, sk, sv], s.count(counter))
                for metric in MEAN_METRICS:
                    n = s.samples(metric)
                    samples.add_metric([window, metric, sk, sv], n)
                    value = s.mean(metric)
                    if n >= floor and value is not None:
                        mean.add_metric([window, metric, sk, sv], value)
                for name in RATES:
                    value = _rate(s, name, r.min_samples)
                    if value is not None:
                        rates.add_metric([window, name, sk, sv], value)
        self._fill_drift(gauge, r)
        if r.baseline is not None:
            info = fams["groundwatch_baseline"]
            assert isinstance(info, InfoMetricFamily)
            b = r.baseline
            info.add_metric(
                [
                    _iso(b.pinned_at),
                    _iso(b.start),
                    _iso(b.end),
                    str(r.reference == "pinned").lower(),
                ],
                {},
            )

    @staticmethod
    def _fill_drift(gauge: Callable[[str], GaugeMetricFamily], r: WindowReport) -> None:
        ref = r.reference
        gauge("groundwatch_drift_tests").add_metric([], float(r.drift_tests))
        gauge("groundwatch_drift_fdr").add_metric([], r.drift_fdr)
        for (sk, sv), d in sorted(r.drift.items()):
            for metric, t in sorted(d.metrics.items()):
                labels = [metric, sk, sv, ref]
                gauge("groundwatch_drift_decision").add_metric(labels, float(t.decision))
                gauge("groundwatch_drift_samples").add_metric([*labels, "current"], t.n_current)
                gauge("groundwatch_drift_samples").add_metric([*labels, "reference"], t.n_reference)
                if math.isfinite(t.required):
                    gauge("groundwatch_drift_required_samples").add_metric(labels, t.required)
                optional = {
                    "groundwatch_drift_p_value": t.p_value,
                    "groundwatch_drift_q_value": t.q_value,
                    "groundwatch_drift_psi": t.psi,
                    "groundwatch_drift_wasserstein": t.wasserstein,
                }
                for name, value in optional.items():
                    if value is not None:
                        gauge(name).add_metric(labels, value)
            for rate, rt in sorted(d.rates.items()):
                labels = [rate, sk, sv, ref]
                gauge("groundwatch_drift_rate_decision").add_metric(labels, float(rt.decision))
                gauge("groundwatch_drift_rate_z").add_metric(labels, rt.z)
                gauge("groundwatch_drift_rate_ratio").add_metric(labels, rt.ratio)
                gauge("groundwatch_drift_rate_samples").add_metric(
                    [*labels, "current"], rt.n_current
                )
                gauge("groundwatch_drift_rate_samples").add_metric(
                    [*labels, "reference"], rt.n_reference
                )
                if math.isfinite(rt.required):
                    gauge("groundwatch_drift_rate_required_samples").add_metric(labels, rt.required)
                if rt.p_value is not None:
                    gauge("groundwatch_drift_rate_p_value").add_metric(labels, rt.p_value)
                if rt.q_value is not None:
                    gauge("groundwatch_drift_rate_q_value").add_metric(labels, rt.q_value)
