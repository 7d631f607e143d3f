"""Baseline vs candidate: per metric and slice, the paired delta with a bootstrap interval.

Usage::

    comparison = compare_runs(base_records, cand_records, resamples=1000, seed=0)
    for row in comparison.rows: row.slice, row.metric, row.base, row.cand, row.delta, row.lo, row.hi
    comparison.flips                           # cases that went pass → fail or fail → pass

Cases are paired on ``case_id``; a metric is compared on the cases where both runs have a value.
The interval is a paired percentile bootstrap of the mean difference (candidate − baseline):
cases are resampled with replacement, both runs together, ``resamples`` times from a seeded
generator, so the same inputs always give the same interval. For 0/1 metrics (rates) an exact
McNemar test on the discordant pairs is reported as well.

Every slice group is bootstrapped with one matrix product (resample weights × per-case
differences), which keeps 10,000 cases × 1,000 resamples well under a second per slice key.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from groundwatch.suite.record import EvalRecord

__all__ = [
    "LOWER_IS_BETTER",
    "NEUTRAL",
    "Comparison",
    "Flip",
    "MetricRow",
    "bootstrap_mean_ci",
    "compare_runs",
    "mcnemar_p",
]

# Metrics where a rise is a regression; NEUTRAL ones are reported but never "better"/"worse".
LOWER_IS_BETTER = frozenset(
    {
        "false_answer",
        "false_refusal",
        "has_contradiction",
        "contradicted_claims",
        "not_found_claims",
        "first_gold_rank",
    }
)
NEUTRAL = frozenset({"context_passages", "context_tokens", "refusal"})

_BLOCK = 200  # resamples per matrix product: bounds memory at 200 × n weights


@dataclass(frozen=True)
class MetricRow:
    slice: str  # "all" or "key=value"
    metric: str
    n: int  # paired cases with a value in both runs
    base: float | None
    cand: float | None
    delta: float | None
    lo: float | None
    hi: float | None
    p_value: float | None = None  # exact McNemar, for 0/1 metrics

    @property
    def direction(self) -> int:
        """+1 when higher is better, -1 when lower is better, 0 when neutral."""
        if self.metric in NEUTRAL:
            return 0
        return -1 if self.metric in LOWER_IS_BETTER else 1

    @property
    def significant(self) -> bool:
        """The interval excludes zero."""
        return self.lo is not None and self.hi is not None and (self.lo > 0 or self.hi < 0)

    @property
    def regressed(self) -> bool:
        """Significantly worse: the whole interval lies on the bad side of zero."""
        if self.lo is None or self.hi is None or self.direction == 0:
            return False
        return self.hi < 0 if self.direction > 0 else self.lo > 0


@dataclass(frozen=True)
class Flip:
    case_id: str
    slices: dict[str, str]
    before: bool
    after: bool
    base_diagnosis: str
    cand_diagnosis: str
    changes: dict[str, tuple[float | None, float | None]]
    retrieved_before: list[str]
    retrieved_after: list[str]


@dataclass
class Comparison:
    rows: list[MetricRow] = field(default_factory=list)
    flips: list[Flip] = field(default_factory=list)
    paired: int = 0
    only_base: list[str] = field(default_factory=list)
    only_cand: list[str] = field(default_factory=list)
    diagnosis_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    resamples: int = 0
    seed: int = 0

    def row(self, metric: str, slice_: str = "all") -> MetricRow | None:
        for r in self.rows:
            if r.metric == metric and r.slice == slice_:
                return r
        return None

    def slices(self) -> list[str]:
        return list(dict.fromkeys(r.slice for r in self.rows))


def _weights(rng: np.random.Generator, n: int, b: int) -> npt.NDArray[np.float64]:
    """``b`` bootstrap resamples of ``n`` cases as counts: row i says how often case j is drawn."""
    idx = rng.integers(0, n, size=(b, n)) + (np.arange(b) * n)[:, None]
    return np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(np.float64)


def bootstrap_mean_ci(
    diffs: npt.NDArray[np.float64],
    resamples: int,
    seed: int,
    level: float = 0.95,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Percentile interval of the column means of ``diffs`` (cases × metrics, NaN = missing),
    resampling rows. Returns (lo, hi) per column; NaN where a column has no values."""
    n, m = diffs.shape
    if n == 0:
        nan = np.full(m, np.nan)
        return nan, nan.copy()
    present = ~np.isnan(diffs)
    values = np.where(present, diffs, 0.0)
    mask = present.astype(np.float64)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, m))
    for start in range(0, resamples, _BLOCK):
        b = min(_BLOCK, resamples - start)
        w = _weights(rng, n, b)
        sums = w @ values
        counts = w @ mask
        with np.errstate(invalid="ignore", divide="ignore"):
            means[start : start + b] = sums / counts
    alpha = (1.0 - level) / 2.0
    lo = np.full(m, np.nan)
    hi = np.full(m, np.nan)
    for j in range(m):
        col = means[:, j]
        col = col[~np.isnan(col)]
        if col.size:
            lo[j], hi[j] = np.quantile(col, [alpha, 1.0 - alpha])
    return lo, hi


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value: ``b`` pairs went 1 → 0, ``c`` went 0 → 1."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)

    def log_pmf(i: int) -> float:
        return math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) - n * math.log(2)

    logs = [log_pmf(i) for i in range(k + 1)]
    top = max(logs)
    tail = math.exp(top) * sum(math.exp(x - top) for x in logs)
    return min(1.0, 2.0 * tail)


def _groups(records: Sequence[EvalRecord]) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {"all": list(range(len(records)))}
    for i, record in enumerate(records):
        for key, value in sorted(record.slices.items()):
            groups.setdefault(f"{key}={value}", []).append(i)
    return groups


def _matrix(records: Sequence[EvalRecord], metrics: Sequence[str]) -> npt.NDArray[np.float64]:
    out = np.full((len(records), len(metrics)), np.nan)
    for i, record in enumerate(records):
        for j, name in enumerate(metrics):
            value = record.metrics.get(name)
            if value is not None:
                out[i, j] = value
    return out


def _opt(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def _flip(b: EvalRecord, c: EvalRecord) -> Flip:
    changes = {
        k: (b.metrics.get(k), c.metrics.get(k))
        for k in sorted(set(b.metrics) | set(c.metrics))
        if b.metrics.get(k) != c.metrics.get(k)
    }
    return Flip(
        case_id=b.case_id,
        slices=b.slices,
        before=bool(b.passed),
        after=bool(c.passed),
        base_diagnosis=b.diagnosis,
        cand_diagnosis=c.diagnosis,
        changes=changes,
        retrieved_before=b.retrieved,
        retrieved_after=c.retrieved,
    )


def compare_runs(
    base: Sequence[EvalRecord],
    cand: Sequence[EvalRecord],
    *,
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> Comparison:
    """Paired comparison of two runs of the same suite (see module docstring)."""
    by_id = {r.case_id: r for r in cand}
    base_ids = {r.case_id for r in base}
    pairs = [(b, by_id[b.case_id]) for b in base if b.case_id in by_id]
    out = Comparison(
        paired=len(pairs),
        only_base=sorted(base_ids - set(by_id)),
        only_cand=sorted(set(by_id) - base_ids),
        resamples=resamples,
        seed=seed,
    )
    if not pairs:
        return out
    bases = [b for b, _ in pairs]
    cands = [c for _, c in pairs]
    metrics = sorted({k for r in (*bases, *cands) for k in r.metrics})
    b_mat = _matrix(bases, metrics)
    c_mat = _matrix(cands, metrics)
    d_mat = c_mat - b_mat  # NaN where either is missing
    binary = [
        bool(np.all(np.isin(b_mat[~np.isnan(b_mat[:, j]), j], (0.0, 1.0))))
        and bool(np.all(np.isin(c_mat[~np.isnan(c_mat[:, j]), j], (0.0, 1.0))))
        for j in range(len(metrics))
    ]
    for name, rows in _groups(bases).items():
        idx = np.asarray(rows)
        d = d_mat[idx]
        lo, hi = bootstrap_mean_ci(d, resamples, seed + zlib.crc32(name.encode()), level)
        both = ~np.isnan(d)
        for j, metric in enumerate(metrics):
            keep = both[:, j]
            n = int(keep.sum())
            if n == 0:
                continue
            bv = b_mat[idx, j][keep]
            cv = c_mat[idx, j][keep]
            p = None
            if binary[j]:
                p = mcnemar_p(
                    int(np.sum((bv == 1) & (cv == 0))), int(np.sum((bv == 0) & (cv == 1)))
                )
            out.rows.append(
                MetricRow(
                    slice=name,
                    metric=metric,
                    n=n,
                    base=float(bv.mean()),
                    cand=float(cv.mean()),
                    delta=float((cv - bv).mean()),
                    lo=_opt(lo[j]),
                    hi=_opt(hi[j]),
                    p_value=p,
                )
            )
    for b, c in pairs:
        if b.passed is not None and c.passed is not None and b.passed != c.passed:
            out.flips.append(_flip(b, c))
    for label, run in (("base", bases), ("cand", cands)):
        counts: dict[str, int] = {}
        for r in run:
            counts[r.diagnosis] = counts.get(r.diagnosis, 0) + 1
        out.diagnosis_counts[label] = counts
    return out
