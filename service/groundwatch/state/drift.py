"""Drift statistics between a current window and a reference (rolling or pinned baseline), and
the drift *decision*: significant after multiple-testing control, and large.

Usage::

    psi([50, 50], [10, 90])                        # population stability index (effect size)
    wasserstein1([50, 50], [10, 90])               # earth mover's distance on [0, 1] (effect size)
    histogram_p_value([50, 50], [10, 90])          # chi-square + Mann-Whitney on the bins
    rate_increase_p_value(12, 100, 30, 100)        # exact one-sided test (hypergeometric)
    policy = DriftPolicy(fdr=0.01, min_wasserstein=0.03, min_rate_ratio=1.5)
    drift = compare(current, reference, policy)    # SliceDrift (tests, undecided)
    decide({slice_id: drift}, policy)              # Benjamini-Hochberg over the whole family

Why not a fixed PSI threshold: under *no* drift PSI's value depends on the sample sizes (with 30
current samples PSI > 0.25 most of the time), so a fixed threshold pages on noise in every
low-traffic slice. Here a shift is reported when

1. a two-sample test rejects "same distribution" whose null accounts for both sample sizes and for
   ties: for histograms the chi-square test of homogeneity on the bins (adjacent bins merged until
   every expected count is >= 5, so discrete scores such as faithfulness are handled) together
   with the Mann-Whitney U test with tie correction (more power for a location shift), combined
   with Bonferroni (p = min(1, 2 min(p_chi2, p_mw))); for rates an exact one-sided conditional test
   (hypergeometric, i.e. one-sided Fisher), because bad rates only matter when they rise;
2. its p-value stays below the level after Benjamini-Hochberg over *every* test made in the same
   evaluation (all slices x metrics x rates: the family size is exported), and
3. the effect is large: Wasserstein-1 >= ``min_wasserstein`` (in score units on [0, 1]) for
   histograms, rate ratio >= ``min_rate_ratio`` for rates (with so much traffic that a tiny,
   harmless change is significant, the floor keeps it quiet).

A test is only made when the current window holds at least ``required samples``: the sample size
at which a shift of ``detectable_shift`` (histograms, in units of the axis) or a rate ratio of
``detectable_rate_ratio`` would be detected with probability ``power`` at level ``fdr`` (normal
approximation, given the reference's own spread and size), and never fewer than ``min_samples``.
Below it the slice is *underpowered*: decision 0, reported with both sample sizes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import NormalDist

import numpy as np
from scipy import stats

from groundwatch.state.buckets import HIST_METRICS, SliceId, WindowSummary

__all__ = [
    "DECISION_RATES",
    "DriftPolicy",
    "MetricDrift",
    "RateTest",
    "SliceDrift",
    "benjamini_hochberg",
    "compare",
    "decide",
    "histogram_p_value",
    "psi",
    "rate_increase_p_value",
    "required_samples_rate",
    "required_samples_shift",
    "two_proportion_z",
    "wasserstein1",
]

# Rates tested for an increase, each "bad when higher" and counted per trace (claim-level shares
# are left out: claims of one answer are not independent, an exact test on them would be
# anti-conservative; contradicted_trace_share is the per-trace form of the contradiction rate).
DECISION_RATES = (
    "contradicted_trace_share",
    "refusal",
    "false_refusal_suspected",
    "answered_without_evidence",
    "unscored",
)
_N = NormalDist()


@dataclass(frozen=True)
class DriftPolicy:
    """When a difference counts as drift (see the module docstring)."""

    fdr: float = 0.01
    min_wasserstein: float = 0.03
    min_rate_ratio: float = 1.5
    detectable_shift: float = 0.1
    detectable_rate_ratio: float = 2.0
    power: float = 0.8
    min_samples: int = 30
    bins: int = 20
    psi_epsilon: float = 1e-4


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
    """Population stability index, sum((c - r) * ln(c / r)) over bins. 0 = identical.
    An effect size only: its value under no drift grows as the samples shrink."""
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


def _merge_sparse(ref: np.ndarray, cur: np.ndarray, min_expected: float) -> np.ndarray:
    """Merge adjacent bins until every expected count (both rows) is >= ``min_expected``.
    Returns a 2 x k table (k >= 1)."""
    n_r, n_c = ref.sum(), cur.sum()
    smaller = min(n_r, n_c) / (n_r + n_c)
    cols: list[list[float]] = []
    acc_r = acc_c = 0.0
    for r, c in zip(ref, cur, strict=True):
        acc_r += r
        acc_c += c
        if (acc_r + acc_c) * smaller >= min_expected:
            cols.append([acc_r, acc_c])
            acc_r = acc_c = 0.0
    if acc_r + acc_c > 0:
        if cols:
            cols[-1][0] += acc_r
            cols[-1][1] += acc_c
        else:
            cols.append([acc_r, acc_c])
    return np.array(cols, dtype=np.float64).T


def _chi2_p(ref: np.ndarray, cur: np.ndarray) -> float:
    table = _merge_sparse(ref, cur, 5.0)
    if table.shape[1] < 2:
        return 1.0
    col = table.sum(axis=0)
    row = table.sum(axis=1)
    expected = np.outer(row, col) / table.sum()
    stat = float(((table - expected) ** 2 / expected).sum())
    return float(stats.chi2.sf(stat, table.shape[1] - 1))


def _mann_whitney_p(ref: np.ndarray, cur: np.ndarray) -> float:
    """Two-sided Mann-Whitney U on binned values (ties = same bin), normal approximation with
    the tie correction of the variance."""
    n1, n2 = float(ref.sum()), float(cur.sum())
    t = ref + cur
    n = n1 + n2
    below = np.concatenate(([0.0], np.cumsum(t)[:-1]))
    midrank = below + (t + 1.0) / 2.0
    u = float((cur * midrank).sum()) - n2 * (n2 + 1.0) / 2.0
    ties = float((t**3 - t).sum())
    var = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)))
    if var <= 0:
        return 1.0
    z = (u - n1 * n2 / 2.0) / math.sqrt(var)
    return math.erfc(abs(z) / math.sqrt(2.0))


def histogram_p_value(reference: Sequence[float], current: Sequence[float]) -> float:
    """p-value of "both histograms come from the same distribution": chi-square homogeneity
    (sparse bins merged) and Mann-Whitney with ties, Bonferroni-combined."""
    ref = np.asarray(reference, dtype=np.float64)
    cur = np.asarray(current, dtype=np.float64)
    if ref.shape != cur.shape:
        raise ValueError("histograms differ in bin count")
    if ref.sum() <= 0 or cur.sum() <= 0:
        raise ValueError("empty histogram")
    return min(1.0, 2.0 * min(_chi2_p(ref, cur), _mann_whitney_p(ref, cur)))


def rate_increase_p_value(x_ref: float, n_ref: float, x_cur: float, n_cur: float) -> float:
    """Exact one-sided p-value that the current share is higher than the reference's:
    P(X >= x_cur) with X hypergeometric given the pooled successes (one-sided Fisher)."""
    if n_ref <= 0 or n_cur <= 0:
        raise ValueError("empty sample")
    total, k, n = round(n_ref + n_cur), round(x_ref + x_cur), round(n_cur)
    return float(min(1.0, stats.hypergeom.sf(round(x_cur) - 1, total, k, n)))


def _z(p: float) -> float:
    return _N.inv_cdf(1.0 - p)


def required_samples_shift(sd: float, n_ref: float, policy: DriftPolicy) -> float:
    """Current samples needed to detect a mean shift of ``detectable_shift`` at two-sided level
    ``fdr`` with probability ``power``, given the reference's standard deviation and size.
    ``inf`` when even an infinite current window would not do (reference too small)."""
    zz = (_z(policy.fdr / 2.0) + _z(1.0 - policy.power)) ** 2
    sd = max(sd, 0.05)  # a constant reference: any spread at all in the current is a change
    room = policy.detectable_shift**2 / zz - sd**2 / max(n_ref, 1.0)
    return math.inf if room <= 0 else max(float(policy.min_samples), sd**2 / room)


def required_samples_rate(p_ref: float, n_ref: float, policy: DriftPolicy) -> float:
    """Current samples needed to detect the rate rising ``detectable_rate_ratio``-fold (one-sided
    level ``fdr``, probability ``power``), normal approximation."""
    zz = (_z(policy.fdr) + _z(1.0 - policy.power)) ** 2
    p1 = min(max(p_ref, 0.005), 0.99)
    p2 = min(0.999, p1 * policy.detectable_rate_ratio)
    room = (p2 - p1) ** 2 / zz - p1 * (1.0 - p1) / max(n_ref, 1.0)
    return math.inf if room <= 0 else max(float(policy.min_samples), p2 * (1.0 - p2) / room)


@dataclass(frozen=True)
class MetricDrift:
    """Drift of one histogram metric in one slice. ``p_value`` is None when untested
    (fewer current samples than ``required``); ``q_value``/``decision`` are set by decide()."""

    n_reference: float
    n_current: float
    required: float
    psi: float | None = None
    wasserstein: float | None = None
    p_value: float | None = None
    q_value: float | None = None
    decision: bool = False


@dataclass(frozen=True)
class RateTest:
    """A proportion rate in one slice: current vs reference, with the exact one-sided test."""

    z: float
    p_value: float | None
    current: float
    reference: float
    n_current: float = 0.0
    n_reference: float = 0.0
    required: float = 0.0
    ratio: float = 1.0
    q_value: float | None = None
    decision: bool = False


@dataclass
class SliceDrift:
    """Drift of one slice: every histogram metric and rate with data on both sides."""

    metrics: dict[str, MetricDrift] = field(default_factory=dict)
    rates: dict[str, RateTest] = field(default_factory=dict)

    @property
    def psi(self) -> dict[str, float]:
        return {m: d.psi for m, d in self.metrics.items() if d.psi is not None}

    @property
    def wasserstein(self) -> dict[str, float]:
        return {m: d.wasserstein for m, d in self.metrics.items() if d.wasserstein is not None}

    def empty(self) -> bool:
        return not (self.metrics or self.rates)


def _sd(bins: Sequence[float]) -> float:
    counts = np.asarray(bins, dtype=np.float64)
    mids = (np.arange(len(counts)) + 0.5) / len(counts)
    total = counts.sum()
    mean = float((counts * mids).sum() / total)
    return math.sqrt(max(0.0, float((counts * (mids - mean) ** 2).sum() / total)))


def compare(
    current: WindowSummary, reference: WindowSummary, policy: DriftPolicy | None = None
) -> SliceDrift:
    """Test every histogram metric and every proportion rate of one slice (not yet decided:
    see :func:`decide`). Metrics with no data on either side are left out; those with too few
    current samples are kept, untested, with both sample sizes."""
    policy = policy or DriftPolicy()
    out = SliceDrift()
    for metric in HIST_METRICS:
        cur, ref = current.hist(metric, policy.bins), reference.hist(metric, policy.bins)
        n_cur, n_ref = float(sum(cur.bins)), float(sum(ref.bins))
        if n_cur <= 0 or n_ref <= 0 or len(cur.bins) != len(ref.bins):
            continue
        required = required_samples_shift(_sd(ref.bins), n_ref, policy)
        if n_cur < required or n_ref < policy.min_samples:
            out.metrics[metric] = MetricDrift(n_ref, n_cur, required)
            continue
        out.metrics[metric] = MetricDrift(
            n_ref,
            n_cur,
            required,
            psi=psi(ref.bins, cur.bins, policy.psi_epsilon),
            wasserstein=wasserstein1(ref.bins, cur.bins),
            p_value=histogram_p_value(ref.bins, cur.bins),
        )
    for name in DECISION_RATES:
        x_cur, n_cur = current.rate(name)
        x_ref, n_ref = reference.rate(name)
        if n_cur <= 0 or n_ref <= 0:
            continue
        p_ref, p_cur = x_ref / n_ref, x_cur / n_cur
        z, _ = two_proportion_z(x_ref, n_ref, x_cur, n_cur)
        # Finite when the reference saw none: its rate is floored at half a count.
        ratio = p_cur / max(p_ref, 0.5 / n_ref)
        required = required_samples_rate(p_ref, n_ref, policy)
        tested = n_cur >= required and n_ref >= policy.min_samples
        p = rate_increase_p_value(x_ref, n_ref, x_cur, n_cur) if tested else None
        out.rates[name] = RateTest(z, p, p_cur, p_ref, n_cur, n_ref, required, ratio)
    return out


def benjamini_hochberg(p_values: Sequence[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values (q-values), in the input order. Rejecting
    q <= alpha controls the false discovery rate at alpha (independent or positively dependent
    tests, which overlapping slices are); under no drift at all, it is the family-wise rate."""
    m = len(p_values)
    if m == 0:
        return []
    order = np.argsort(p_values)
    ranked = np.asarray(p_values, dtype=np.float64)[order] * m / np.arange(1, m + 1)
    adjusted = np.minimum(1.0, np.minimum.accumulate(ranked[::-1])[::-1])
    out = np.empty(m)
    out[order] = adjusted
    return [float(v) for v in out]


def decide(drift: Mapping[SliceId, SliceDrift], policy: DriftPolicy | None = None) -> int:
    """Adjust every p-value of one evaluation with Benjamini-Hochberg and set each test's
    q-value and decision in place. Returns the family size (tests made)."""
    policy = policy or DriftPolicy()
    keys: list[tuple[SliceId, str, str]] = []
    ps: list[float] = []
    for slice_id, d in drift.items():
        for metric, md in d.metrics.items():
            if md.p_value is not None:
                keys.append((slice_id, "m", metric))
                ps.append(md.p_value)
        for name, rt in d.rates.items():
            if rt.p_value is not None:
                keys.append((slice_id, "r", name))
                ps.append(rt.p_value)
    for (slice_id, kind, name), q in zip(keys, benjamini_hochberg(ps), strict=True):
        d = drift[slice_id]
        if kind == "m":
            md = d.metrics[name]
            large = (md.wasserstein or 0.0) >= policy.min_wasserstein
            d.metrics[name] = replace(md, q_value=q, decision=q <= policy.fdr and large)
        else:
            rt = d.rates[name]
            large = rt.ratio >= policy.min_rate_ratio
            d.rates[name] = replace(rt, q_value=q, decision=q <= policy.fdr and large)
    return len(ps)
