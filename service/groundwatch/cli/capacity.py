"""``groundwatch capacity``: the sizing of docs/capacity.md for one traffic figure.

Usage::

    groundwatch capacity --traces-per-second 1000 --sample-rate 0.1
    groundwatch capacity --traces-per-second 1000 --sample-rate 0.1 --judge verifier --json
    groundwatch capacity --table          # the doc's whole sizing table (Markdown)

The coefficients are the measured unit costs in :mod:`groundwatch.capacity`; the configured
dedup TTL (HTTP/OTLP markers), Kafka re-send window and poll size, retention, bucket widths, slice keys and ``top_n`` (``GROUNDWATCH_*``) enter the
memory and series terms, so the answer is for this deployment's settings.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from groundwatch.capacity import (
    COEFFICIENTS,
    HEADER,
    JUDGES,
    REPLICA_CORE_BUDGET,
    Sizing,
    SizingInputs,
    markdown_row,
    markdown_table,
    size,
)
from groundwatch.settings import Settings

__all__ = ["add_parser", "inputs_from_settings", "run_capacity"]


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "capacity",
        help="replicas, partitions, Redis and series for a traffic figure",
        description="Replicas, partitions, Redis and series for a traffic figure, from the"
        " unit costs measured by benchmarks/capacity.py (docs/capacity.md).",
    )
    p.add_argument("--traces-per-second", type=float, default=None, help="traces/s on the topic")
    p.add_argument(
        "--sample-rate",
        type=float,
        default=None,
        help="share of traces scored (default: GROUNDWATCH_SAMPLING__RATE)",
    )
    p.add_argument("--judge", choices=JUDGES, default=None, help="judge (default: configured)")
    p.add_argument(
        "--drain-s",
        type=float,
        default=60.0,
        help="seconds of a replica's throughput its lag target holds (default: 60)",
    )
    p.add_argument(
        "--http-share",
        type=float,
        default=0.0,
        help="share of traces sent over HTTP/OTLP (a Redis marker each for"
        " redis.dedup_ttl_s) instead of Kafka (counted by offset); default 0",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table row")
    p.add_argument("--table", action="store_true", help="print the doc's whole sizing table")
    p.add_argument("--coefficients", action="store_true", help="print the measured unit costs")


def inputs_from_settings(
    settings: Settings, drain_s: float = 60.0, http_share: float = 0.0
) -> SizingInputs:
    w = settings.windows
    buckets = w.fine_retention_s // w.bucket_s + w.retention_s // w.rollup_s
    return SizingInputs(
        slice_values=len(w.slice_keys) * (w.top_n + 1),
        dedup_ttl_s=float(settings.redis.dedup_ttl_s),
        resend_window_offsets=settings.redis.resend_window_offsets,
        poll_records=settings.kafka.max_poll_records,
        http_share=http_share,
        one_window_exporter=w.export_lease_s > 0,
        buckets=int(buckets),
        findings_max=settings.findings.max_items,
        drain_s=drain_s,
    )


def run_capacity(settings: Settings, args: argparse.Namespace) -> int:
    if not 0.0 <= args.http_share <= 1.0:
        print("groundwatch capacity: --http-share must be in [0, 1]")
        return 2
    inputs = inputs_from_settings(settings, args.drain_s, args.http_share)
    if args.coefficients:
        for name, c in COEFFICIENTS.items():
            print(f"{name:32} {c.value:<12.4g} {c.unit}  <- {c.source}")
        return 0
    if args.table:
        print(markdown_table(inputs=inputs))
        return 0
    if args.traces_per_second is None:
        print("groundwatch capacity: --traces-per-second is required (or --table)")
        return 2
    judge = args.judge or settings.judge.backend
    if judge not in JUDGES:
        print(f"groundwatch capacity: measured judges are {', '.join(JUDGES)}, not {judge!r}")
        return 2
    rate = settings.sampling.rate if args.sample_rate is None else args.sample_rate
    try:
        s = size(args.traces_per_second, rate, judge, inputs)
    except ValueError as exc:
        print(f"groundwatch capacity: {exc}")
        return 2
    if args.json:
        print(json.dumps(dataclasses.asdict(s), indent=1))
        return 0
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    print(markdown_row(s))
    parts = ", ".join(f"{k} {v / 1e9:.3g} GB" for k, v in s.redis_memory_parts.items())
    print(
        f"\nRedis: {s.redis_ops_per_s:,.0f} commands/s, {s.redis_round_trips_per_s:,.0f} round"
        f" trips/s; memory {parts}.\nAutoscaling: lagPerReplica = {s.lag_per_replica:,}"
        f" ({args.drain_s:g} s of one replica's {s.per_replica_traces_per_s:,.0f} traces/s)."
    )
    if s.extrapolated:
        print(f"Extrapolated beyond what was measured: {', '.join(s.extrapolated)}.")
    print(rates_note(s, judge, rate))
    return 0


#: The README's evaluator figures (docs/performance.md: 2 cores, both ONNX threads, the
#: evaluator alone): (warm cache, cold cache) traces/s; the embedded judge's cold run was 6.5.
README_RATES = {"verifier": (12.0, 7.5), "embedded": (30.0, 6.5)}


def rates_note(s: Sizing, judge: str, sample_rate: float) -> str:
    """Evaluated traces/s per core and per replica under this model, and how they square with
    the README's figures for the same judge (docs/capacity.md, "Two sets of figures")."""
    flat_out = s.per_replica_traces_per_s / REPLICA_CORE_BUDGET * sample_rate
    planned = s.per_replica_traces_per_s * sample_rate
    warm, cold = README_RATES[judge]
    return (
        f"Evaluated traces/s ({judge} judge): {flat_out:.1f} per core flat out, {planned:.1f} "
        f"per replica as planned ({REPLICA_CORE_BUDGET:.0%} of its one core). That is the "
        "pipeline as deployed (one judge thread, one ONNX thread, Kafka and Redis work) with a "
        f"mostly cold embedding cache. The README's ~{warm:g} traces/s is the evaluator alone on "
        f"2 cores with a warm cache (every passage seen before), ~{warm / 2:g} per core; cold it "
        f"is {cold:g} on 2 cores, ~{cold / 2:g} per core. Plan on this command's figure unless "
        "your passages repeat; see docs/capacity.md, 'Two sets of figures'."
    )
