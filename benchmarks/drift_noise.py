"""Drift alerting under realistic traffic: false alarms per slice-day without drift, and power
and delay for real shifts, through the real window store and drift code (issue 19).

Usage::

    .venv/bin/python -m benchmarks.drift_noise                  # 50 slices, 7 + 4 days
    .venv/bin/python -m benchmarks.drift_noise --days 2 --slices 20 --chart out.png

Traffic: 50 slices (tenants) whose mean volumes span 3 to 600 traces an hour (log-uniform),
Poisson arrivals per 5-minute bucket with a diurnal cycle (x0.4 at night, x1.6 at noon).
Each trace has 1-5 claims (each supported 0.85, contradicted 0.04, else not found), so
faithfulness takes few distinct values (ties), a 5% refusal rate, a continuous retrieval top
score (Beta around a per-slice mean) and a log-normal context size. Traces go through
``MemoryWindowStore.observe_ingest/observe_evaluations``; every 15 minutes the collector's
``build_report`` (current 1 h vs rolling 7 days, the decision of groundwatch.state.drift) is
computed, exactly as a scrape does.

An alert *fires* when a (slice, metric) decision is 1 at two consecutive evaluations (the
shipped rules: ``max_over_time(...[5m])`` with ``for: 15m``). The anchors are computed on the
same histograms with the same persistence rule and the same minimum of 30 samples:
fixed PSI > 0.25 (the old groundwatch rule; "major shift" for Arize/WhyLabs), PSI > 0.1, and
Evidently's default for numerical columns (two-sample K-S p < 0.05 up to 1,000 samples,
normed Wasserstein > 0.1 above), for histogram metrics only, plus the old z > 3 for rates.

Shift scenarios (after the warm-up, at day 1 of the test period, each on its own 8 slices):
faithfulness mean -0.1, contradiction rate x2, retrieval top score -0.05, and a new index whose
scores have a different scale (x -> 0.35 + 0.5 x). Power = share of shifted slices detected
within 24 h; delay = hours from the shift to the first firing, median over detected slices.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np
from scipy import stats

from groundwatch.contract.record import ClaimResult, EvaluationRecord
from groundwatch.observability.windows_collector import WindowReport, build_report
from groundwatch.sections.windows import WindowSettings
from groundwatch.settings import Settings
from groundwatch.state.buckets import HIST_METRICS
from groundwatch.state.drift import psi, wasserstein1
from groundwatch.state.stores import IngestObservation
from groundwatch.state.windows import MemoryWindowStore

DAY = 86400.0
STEP = 300.0  # traffic bucket
EVAL = 900.0  # evaluation interval
SHIFTS = ("faithfulness -0.1", "contradictions x2", "retrieval -0.05", "new index scale")
Verdict = Literal["supported", "contradicted", "not_found"]
Key = tuple[tuple[str, str], str]  # (slice id, metric or "rate:<name>")
RULES = ("groundwatch", "PSI > 0.25", "PSI > 0.1", "Evidently (K-S / Wasserstein)")


@dataclass
class Slice:
    name: str
    per_hour: float
    top_mean: float
    shift: str | None = None


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _claims(n: int, verdicts: list[Verdict]) -> list[ClaimResult]:
    return [
        ClaimResult.model_construct(text="c", verdict=v, score=0.9, evidence=None)
        for v in verdicts[:n]
    ]


def _traffic(
    rng: np.random.Generator, sl: Slice, t: float, shifted: bool, seq: list[int]
) -> tuple[list[IngestObservation], list[tuple[EvaluationRecord, dict[str, str], float]]]:
    diurnal = 1.0 + 0.6 * math.sin(2 * math.pi * (t % DAY) / DAY - math.pi / 2)
    n = int(rng.poisson(sl.per_hour * STEP / 3600.0 * diurnal))
    obs: list[IngestObservation] = []
    recs: list[tuple[EvaluationRecord, dict[str, str], float]] = []
    shift = sl.shift if shifted else None
    p_sup, p_con = 0.85, 0.04
    if shift == "faithfulness -0.1":
        p_sup, p_con = 0.75, 0.06
    elif shift == "contradictions x2":
        p_sup, p_con = 0.81, 0.08
    slices = {"tenant": sl.name}
    now = datetime.fromtimestamp(t, UTC)
    for _ in range(n):
        seq[0] += 1
        tid = f"{sl.name}-{seq[0]}"
        ts = t + float(rng.uniform(0, STEP))
        top = float(rng.beta(sl.top_mean * 40, (1 - sl.top_mean) * 40))
        if shift == "retrieval -0.05":
            top = max(0.0, top - 0.05)
        elif shift == "new index scale":
            top = 0.35 + 0.5 * top
        chars = int(rng.lognormal(8.0, 0.5))
        obs.append(IngestObservation(tid, ts, slices, True, top, 3, chars))
        refusal = bool(rng.random() < 0.05)
        k = 0 if refusal else int(rng.integers(1, 6))
        u = rng.random(k)
        verdicts: list[Verdict] = [
            "supported" if x < p_sup else "contradicted" if x < p_sup + p_con else "not_found"
            for x in u
        ]
        sup = verdicts.count("supported")
        rec = EvaluationRecord.model_construct(
            trace_id=tid,
            evaluated_at=now,
            metric_version="bench",
            status="scored",
            faithfulness=sup / k if k else None,
            claims=_claims(k, verdicts),
            contradicted_claims=verdicts.count("contradicted"),
            not_found_claims=verdicts.count("not_found"),
            context_precision=float(rng.beta(6, 3)),
            answer_relevance=None if refusal else float(rng.beta(8, 2)),
            citation_support=None,
            refusal=refusal,
            false_refusal_suspected=refusal and bool(rng.random() < 0.3),
            answered_without_evidence=bool(rng.random() < 0.03),
        )
        recs.append((rec, slices, ts))
    return obs, recs


def _anchor_hits(
    report: WindowReport, current: dict[Any, Any], reference: dict[Any, Any]
) -> dict[str, set[Key]]:
    """(slice, metric) pairs each anchor rule flags at this evaluation."""
    out: dict[str, set[Key]] = {r: set() for r in RULES[1:]}
    bins = 20
    mids = (np.arange(bins) + 0.5) / bins
    for slice_id, cur in current.items():
        ref = reference.get(slice_id)
        if ref is None:
            continue
        for metric in HIST_METRICS:
            c, r = cur.hist(metric, bins).bins, ref.hist(metric, bins).bins
            nc, nr = sum(c), sum(r)
            if nc < 30 or nr < 30:
                continue
            value = psi(r, c)
            if value > 0.25:
                out["PSI > 0.25"].add((slice_id, metric))
            if value > 0.1:
                out["PSI > 0.1"].add((slice_id, metric))
            if nr <= 1000:
                d = float(np.max(np.abs(np.cumsum(c) / nc - np.cumsum(r) / nr)))
                p = float(stats.kstwobign.sf(d * math.sqrt(nc * nr / (nc + nr))))
                hit = p < 0.05
            else:
                mean = float(np.dot(r, mids) / nr)
                sd = math.sqrt(float(np.dot(r, (mids - mean) ** 2) / nr)) or 1e-3
                hit = wasserstein1(r, c) / sd > 0.1
            if hit:
                out["Evidently (K-S / Wasserstein)"].add((slice_id, metric))
        drift = report.drift.get(slice_id)
        for name, test in drift.rates.items() if drift else []:
            if test.z > 3 and test.n_current >= 30 and test.n_reference >= 30:
                for rule in RULES[1:]:
                    out[rule].add((slice_id, "rate:" + name))
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    volumes = np.exp(rng.uniform(math.log(3), math.log(600), args.slices))
    slices = [
        Slice(f"t{i:02d}", float(v), float(rng.uniform(0.55, 0.8))) for i, v in enumerate(volumes)
    ]
    if args.shift:
        order = sorted(range(args.slices), key=lambda i: volumes[i])
        for k, shift in enumerate(SHIFTS):  # each shift on slices spread over volumes
            group = order[k :: len(SHIFTS)]
            stride = max(1, len(group) // max(1, args.per_shift))
            for i in group[::stride][: args.per_shift]:
                slices[i].shift = shift
    ws = WindowSettings(
        slice_keys=["tenant"],
        top_n=args.slices + 5,
        bucket_s=300,
        rollup_s=3600,
        fine_retention_s=26 * 3600,
        retention_s=8 * 86400,
        current_window_s=3600,
        reference_window_s=7 * 86400,
        read_cache_s=86400,
        report_refresh_s=0,
    )
    settings = Settings(windows=ws)
    t0 = math.floor(time.time() / DAY) * DAY - (args.warmup + args.days) * DAY
    clock = Clock(t0)
    store = MemoryWindowStore(settings.windows, clock=clock)
    seq = [0]
    shift_at = t0 + (args.warmup + 1) * DAY
    end = t0 + (args.warmup + args.days) * DAY
    streak: dict[str, dict[Key, int]] = {r: defaultdict(int) for r in RULES}
    fired: dict[str, dict[Key, list[float]]] = {
        r: defaultdict(list) for r in RULES
    }  # (slice, metric) -> times
    t = t0
    next_eval = t0 + args.warmup * DAY
    started = time.perf_counter()
    tests_per_eval: list[int] = []
    while t < end:
        obs_all: list[IngestObservation] = []
        recs_all: list[tuple[EvaluationRecord, dict[str, str], float]] = []
        for sl in slices:
            o, r = _traffic(rng, sl, t, t >= shift_at, seq)
            obs_all += o
            recs_all += r
        clock.t = t + STEP
        store.observe_ingest(obs_all)
        store.observe_evaluations(recs_all)
        t += STEP
        if t >= next_eval:
            next_eval += EVAL
            report = build_report(store, settings.windows)
            tests_per_eval.append(report.drift_tests)
            hits: dict[str, set[Key]] = {"groundwatch": set()}
            for slice_id, d in report.drift.items():
                hits["groundwatch"] |= {(slice_id, m) for m, x in d.metrics.items() if x.decision}
                hits["groundwatch"] |= {
                    (slice_id, "rate:" + n) for n, x in d.rates.items() if x.decision
                }
            now = clock.t
            cur = store.summaries(now - ws.current_window_s, now)
            ref = store.summaries(
                now - ws.current_window_s - ws.reference_window_s, now - ws.current_window_s
            )
            hits.update(_anchor_hits(report, cur, ref))
            for rule in RULES:
                keys = hits[rule]
                for key in list(streak[rule]):
                    if key not in keys:
                        streak[rule][key] = 0
                for key in keys:
                    streak[rule][key] += 1
                    if streak[rule][key] == 2:  # held for one more evaluation (for: 15m)
                        fired[rule][key].append(now)
    return {
        "slices": slices,
        "fired": fired,
        "shift_at": shift_at,
        "test_start": t0 + args.warmup * DAY,
        "end": end,
        "seconds": time.perf_counter() - started,
        "traces": seq[0],
        "tests_per_eval": float(np.mean(tests_per_eval)) if tests_per_eval else 0.0,
    }


def summarise(result: dict[str, Any], args: argparse.Namespace) -> None:
    slices = {s.name: s for s in result["slices"]}
    start, end, shift_at = result["test_start"], result["end"], result["shift_at"]
    print(
        f"{len(slices)} slices, {args.days} test days after {args.warmup} warm-up days, "
        f"{result['traces']} traces, {result['tests_per_eval']:.0f} drift tests per evaluation, "
        f"{result['seconds']:.0f} s"
    )
    print("\n| rule | false alarms per slice-day (stationary slices) | slice-days |")
    print("|---|---|---|")
    for rule in RULES:
        days_with: set[tuple[str, int]] = set()
        total = 0
        for s in slices.values():
            stop = end if s.shift is None else shift_at
            n_days = int((stop - start) // DAY)
            total += n_days
            for (slice_id, _), times in result["fired"][rule].items():
                if slice_id == ("tenant", s.name):
                    days_with |= {
                        (s.name, int((t - start) // DAY)) for t in times if t < start + n_days * DAY
                    }
        print(
            f"| {rule} | {len(days_with) / max(total, 1):.3f} ({len(days_with)}/{total}) | {total} |"
        )
    if not args.shift:
        return
    print("\n| shift | rule | detected within 24 h | median delay (h) | slices (traces/h) |")
    print("|---|---|---|---|---|")
    for shift in SHIFTS:
        group = [s for s in slices.values() if s.shift == shift]
        vols = ", ".join(f"{s.per_hour:.0f}" for s in sorted(group, key=lambda s: s.per_hour))
        for rule in RULES:
            delays = []
            for s in group:
                times = [
                    t
                    for (sid, _), ts in result["fired"][rule].items()
                    if sid == ("tenant", s.name)
                    for t in ts
                    if shift_at <= t < shift_at + DAY
                ]
                if times:
                    delays.append((min(times) - shift_at) / 3600)
            median = f"{np.median(delays):.1f}" if delays else "-"
            print(f"| {shift} | {rule} | {len(delays)}/{len(group)} | {median} | {vols} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slices", type=int, default=50)
    parser.add_argument("--days", type=int, default=4)
    parser.add_argument("--warmup", type=int, default=7)
    parser.add_argument("--per-shift", type=int, default=8)
    parser.add_argument("--no-shift", dest="shift", action="store_false")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    summarise(run(args), args)


if __name__ == "__main__":
    main()
