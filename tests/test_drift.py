"""Drift statistics, the window collector and the baseline commands."""

from __future__ import annotations

import math

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from groundwatch.observability.windows_collector import WindowsCollector, build_report
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.baseline import BaselineError, clear_baseline, pin_baseline, show_baseline
from groundwatch.state.buckets import ALL, Histogram, WindowSummary
from groundwatch.state.drift import DriftPolicy, compare, psi, two_proportion_z, wasserstein1
from groundwatch.state.stores import StoreUnavailableError
from groundwatch.state.windows import MemoryWindowStore
from tests.builders import DRIFT_WINDOWS, build_windows
from tests.helpers_windows import FakeClock, obs, record


def test_psi_zero_for_identical_and_matches_hand_computation() -> None:
    assert psi([10, 20, 30], [1, 2, 3]) == pytest.approx(0.0)
    ref, cur = [50, 50], [10, 90]
    expected = (0.1 - 0.5) * math.log(0.1 / 0.5) + (0.9 - 0.5) * math.log(0.9 / 0.5)
    assert psi(ref, cur) == pytest.approx(expected)


def test_psi_empty_bins_are_smoothed_not_infinite() -> None:
    value = psi([100, 0], [0, 100], epsilon=1e-4)
    assert math.isfinite(value)
    assert value > 10
    with pytest.raises(ValueError, match="empty"):
        psi([0, 0], [1, 1])


def test_wasserstein_on_unit_interval() -> None:
    bins = 10
    low = [0.0] * bins
    high = [0.0] * bins
    low[0], high[9] = 5, 5
    assert wasserstein1(low, high) == pytest.approx(0.9)  # mass moves 9 bins of width 0.1
    assert wasserstein1(low, low) == 0.0
    half = [0.0] * bins
    half[0], half[9] = 5, 5
    assert wasserstein1(low, half) == pytest.approx(0.45)
    assert wasserstein1(high, low) == wasserstein1(low, high)


def test_two_proportion_z_known_values() -> None:
    z, p = two_proportion_z(10, 100, 30, 100)
    pooled = 40 / 200
    se = math.sqrt(pooled * (1 - pooled) * (2 / 100))
    assert z == pytest.approx((0.3 - 0.1) / se)
    assert p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)))
    assert p < 0.001
    assert two_proportion_z(0, 50, 0, 50) == (0.0, 1.0)
    assert two_proportion_z(30, 100, 10, 100)[0] < 0


def _summary(values: list[float], refusals: int = 0, bins: int = 20) -> WindowSummary:
    h = Histogram(0.0, 0.0, [0.0] * bins)
    for v in values:
        h.count += 1
        h.total += v
        h.bins[min(bins - 1, int(v * bins))] += 1
    n = float(len(values))
    return WindowSummary(
        counts={"scored": n, "refusal": float(refusals), "claims": n, "contradicted": 0.0},
        hists={"faithfulness": h},
    )


def test_compare_respects_min_samples() -> None:
    ref = _summary([0.9] * 40, refusals=2)
    cur = _summary([0.3] * 10, refusals=5)
    untested = compare(cur, ref, DriftPolicy(min_samples=30))
    assert untested.psi == {}  # underpowered: kept with its sample sizes, no statistic
    assert untested.metrics["faithfulness"].p_value is None
    assert untested.metrics["faithfulness"].n_current == 10
    drift = compare(cur, ref, DriftPolicy(min_samples=10))
    assert drift.psi["faithfulness"] > 1
    assert drift.wasserstein["faithfulness"] == pytest.approx(0.6)
    assert drift.rates["refusal"].z > 2
    assert "retrieval_top_score" not in drift.metrics  # no samples on either side


# --- collector -------------------------------------------------------------------------


def _feed(store: MemoryWindowStore, prefix: str, n: int, t0: float, t1: float, good: bool) -> None:
    ts = [t0 + (t1 - t0) * i / n for i in range(n)]
    store.observe_ingest(
        [
            obs(f"{prefix}{i}", t, {"tenant": "acme"}, top=0.8 if good else 0.3)
            for i, t in enumerate(ts)
        ]
    )
    store.observe_evaluations(
        [
            (
                record(f"{prefix}{i}", supported=4 if good else 1, contradicted=0 if good else 3),
                {"tenant": "acme"},
                t,
            )
            for i, t in enumerate(ts)
        ]
    )


def _scrape(
    store: MemoryWindowStore, windows: WindowSettings
) -> dict[str, list[tuple[dict[str, str], float]]]:
    registry = CollectorRegistry()
    registry.register(WindowsCollector(store, windows))
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for fam in text_string_to_metric_families(generate_latest(registry).decode()):
        for s in fam.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


def _value(
    series: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str
) -> float | None:
    for got, value in series.get(name, []):
        if all(got.get(k) == v for k, v in labels.items()):
            return value
    return None


def test_collector_absent_below_min_samples_present_above() -> None:
    clock = FakeClock.aligned()
    windows = build_windows(DRIFT_WINDOWS)
    store = MemoryWindowStore(windows, clock=clock)
    now = clock()
    _feed(store, "r", 10, now - 1000, now - 400, good=True)
    _feed(store, "c", 10, now - 200, now, good=True)
    series = _scrape(store, windows)
    all_ = {"slice_key": "all", "slice_value": "all"}
    assert _value(series, "groundwatch_window_traces", window="5m", kind="received", **all_) == 10
    assert (
        _value(series, "groundwatch_window_samples", window="5m", metric="faithfulness", **all_)
        == 10
    )
    assert _value(series, "groundwatch_window_mean", window="5m", **all_) is None  # absent, not 0
    assert "groundwatch_drift_psi" not in series
    assert _value(series, "groundwatch_window_store_up") == 1
    _feed(store, "r2", 40, now - 1000, now - 400, good=True)
    _feed(store, "c2", 40, now - 200, now, good=False)
    series = _scrape(store, windows)
    mean = _value(series, "groundwatch_window_mean", window="5m", metric="faithfulness", **all_)
    assert mean == pytest.approx((10 * 1.0 + 40 * 0.25) / 50)
    assert (
        _value(
            series,
            "groundwatch_window_mean",
            window="5m",
            metric="faithfulness",
            slice_key="tenant",
            slice_value="acme",
        )
        == mean
    )
    psi_value = _value(
        series, "groundwatch_drift_psi", metric="faithfulness", reference="rolling", **all_
    )
    assert psi_value is not None
    assert psi_value > 0.25
    assert (
        _value(series, "groundwatch_drift_psi", metric="retrieval_top_score", **all_) or 0
    ) > 0.25
    z = _value(series, "groundwatch_drift_rate_z", rate="contradicted_trace_share", **all_)
    assert (z or 0) > 3
    rate = _value(
        series, "groundwatch_window_rate", window="1h", rate="contradicted_per_trace", **all_
    )
    assert rate == pytest.approx(120 / 100)
    assert (
        _value(series, "groundwatch_window_claims", window="1h", verdict="contradicted", **all_)
        == 120
    )
    assert "groundwatch_baseline_info" not in series


def test_pinned_baseline_is_used_and_exported() -> None:
    clock = FakeClock.aligned()
    windows = build_windows(DRIFT_WINDOWS, reference="pinned")
    store = MemoryWindowStore(windows, clock=clock)
    now = clock()
    with pytest.raises(BaselineError):
        pin_baseline(store, windows, now)
    _feed(store, "r", 50, now - 1500, now - 400, good=True)
    baseline = pin_baseline(store, windows, metric_version="fake/v1")
    assert baseline.slices[ALL].count("scored") == 50
    shown = show_baseline(store)
    assert shown is not None
    assert shown["traces_scored"] == 50
    assert shown["metric_version"] == "fake/v1"
    # a later, rolling reference would now contain bad data; the pinned one does not
    clock.t = now + 1000
    _feed(store, "b", 50, clock() - 1500, clock() - 400, good=False)
    _feed(store, "c", 50, clock() - 200, clock(), good=False)
    report = build_report(store, windows)
    assert report.reference == "pinned"
    assert report.drift[ALL].psi["faithfulness"] > 1
    series = _scrape(store, windows)
    assert _value(series, "groundwatch_baseline_info", active="true") == 1
    assert (
        _value(series, "groundwatch_drift_psi", metric="faithfulness", reference="pinned")
        is not None
    )
    assert clear_baseline(store) is True
    assert show_baseline(store) is None
    assert build_report(store, windows).reference == "rolling"


class _DownStore(MemoryWindowStore):
    def _fetch(self, keys):  # type: ignore[no-untyped-def]
        raise StoreUnavailableError("down")


def test_scrape_survives_store_outage() -> None:
    windows = build_windows(DRIFT_WINDOWS)
    series = _scrape(_DownStore(windows), windows)
    assert _value(series, "groundwatch_window_store_up") == 0
    assert "groundwatch_window_mean" not in series


class _CountingStore(MemoryWindowStore):
    reads = 0

    def _fetch(self, keys):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super()._fetch(keys)


def test_registering_does_not_read_the_store() -> None:
    windows = build_windows(DRIFT_WINDOWS)
    store = _CountingStore(windows)
    # auto_describe: without a describe() the registry would call collect() to learn names
    registry = CollectorRegistry(auto_describe=True)
    registry.register(WindowsCollector(store, windows))
    assert store.reads == 0
    generate_latest(registry)
    assert store.reads > 0  # the counter does see reads: a scrape reads the store
