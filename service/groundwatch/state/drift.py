"""Drift statistics between a current window and a reference (rolling or pinned baseline).

Usage::

    psi([50, 50], [10, 90])                        # population stability index
    wasserstein1([50, 50], [10, 90])               # earth mover's distance on [0, 1]
    two_proportion_z(12, 100, 30, 100)             # (z, two-sided p)
    compare(current, reference, min_samples=30)    # SliceDrift for two WindowSummary

Histograms are equal-width bins on [0, 1] (see buckets.py; context size is log-scaled into it).
Nothing is reported when either side has fewer than ``min_samples`` values: a drift series that
is absent means "not enough data", never "no drift".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from groundwatch.state.buckets import HIST_METRICS, RATES, WindowSummary

__all__ = [
    "RateTest",
    "SliceDrift",
    "compare",
    "psi",
    "two_proportion_z",
    "wasserstein1",
]


def _shares(counts: Sequence[float], epsilon: float) -> list[float]:
    total = float(sum(counts))
    if total <= 0:
        raise ValueError("empty histogram")
    # Floor empty bins at epsilon, then renormalise: PSI stays finite and an empty bin on one
    # side counts as "very rare" rather than impossible.
    shares = [max(c / total, epsilon) for c in counts]
    norm = sum(shares)
    return [s / norm for s in shares]


def psi(reference: Sequence[float], current: Sequence[float], epsilon: float = 1e-4) -> float:
    """Population stability index, sum((c - r) * ln(c / r)) over bins. 0 = identical;
    by convention < 0.1 stable, 0.1-0.25 moderate, > 0.25 a significant shift."""
    if len(reference) != len(current):
        raise ValueError("histograms differ in bin count")
    ref = _shares(reference, epsilon)
    cur = _shares(current, epsilon)
    return float(sum((c - r) * math.log(c / r) for r, c in zip(ref, cur, strict=True)))


def wasserstein1(reference: Sequence[float], current: Sequence[float]) -> float:
    """Wasserstein-1 (earth mover's) distance between two histograms of equal-width bins on
    [0, 1]: the integral of |CDF_ref - CDF_cur|, in units of the axis (0..1)."""
    if len(reference) != len(current):
        raise ValueError("histograms differ in bin count")
    rt, ct = float(sum(reference)), float(sum(current))
    if rt <= 0 or ct <= 0:
        raise ValueError("empty histogram")
    width = 1.0 / len(reference)
    distance = 0.0
    rc = cc = 0.0
    for r, c in zip(reference[:-1], current[:-1], strict=True):
        rc += r / rt
        cc += c / ct
        distance += abs(rc - cc) * width
    return distance


def two_proportion_z(x_ref: float, n_ref: float, x_cur: float, n_cur: float) -> tuple[float, float]:
    """Pooled two-proportion z-test: z > 0 when the current share is higher. Returns
    (z, two-sided p-value); (0, 1) when both shares are 0 or 1 (no variance)."""
    if n_ref <= 0 or n_cur <= 0:
        raise ValueError("empty sample")
    p_ref, p_cur = x_ref / n_ref, x_cur / n_cur
    pooled = (x_ref + x_cur) / (n_ref + n_cur)
    var = pooled * (1.0 - pooled) * (1.0 / n_ref + 1.0 / n_cur)
    if var <= 0:
        return 0.0, 1.0
    z = (p_cur - p_ref) / math.sqrt(var)
    return z, math.erfc(abs(z) / math.sqrt(2.0))


@dataclass(frozen=True)
class RateTest:
    z: float
    p_value: float
    current: float
    reference: float


@dataclass
class SliceDrift:
    """Drift of one slice; metrics or rates with too few samples are simply missing."""

    psi: dict[str, float] = field(default_factory=dict)
    wasserstein: dict[str, float] = field(default_factory=dict)
    rates: dict[str, RateTest] = field(default_factory=dict)

    def empty(self) -> bool:
        return not (self.psi or self.rates)


def compare(
    current: WindowSummary,
    reference: WindowSummary,
    *,
    min_samples: int,
    bins: int = 20,
    epsilon: float = 1e-4,
) -> SliceDrift:
    """Drift of every histogram metric and every proportion rate between two summaries."""
    out = SliceDrift()
    floor = max(1, min_samples)
    for metric in HIST_METRICS:
        cur, ref = current.hist(metric, bins), reference.hist(metric, bins)
        if sum(cur.bins) < floor or sum(ref.bins) < floor or len(cur.bins) != len(ref.bins):
            continue
        out.psi[metric] = psi(ref.bins, cur.bins, epsilon)
        out.wasserstein[metric] = wasserstein1(ref.bins, cur.bins)
    for name, (_, _, proportion) in RATES.items():
        if not proportion:
            continue
        x_cur, n_cur = current.rate(name)
        x_ref, n_ref = reference.rate(name)
        if n_cur < floor or n_ref < floor:
            continue
        z, p = two_proportion_z(x_ref, n_ref, x_cur, n_cur)
        out.rates[name] = RateTest(z, p, x_cur / n_cur, x_ref / n_ref)
    return out
