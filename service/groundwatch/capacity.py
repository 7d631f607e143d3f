"""The sizing model of docs/capacity.md: measured unit costs (data) and the arithmetic that turns
a traffic figure into replicas, partitions, Redis and Prometheus series. ``groundwatch capacity``
prints it, the doc's tables were printed by it, and a test checks one row of the doc against it,
so the two cannot disagree.

Usage::

    from groundwatch.capacity import size, COEFFICIENTS
    s = size(traces_per_s=1000, sample_rate=0.1, judge="embedded")
    s.replicas, s.partitions, s.redis_shards, s.redis_memory_bytes, s.series

Every coefficient names the line of ``python -m benchmarks.capacity`` it was copied from
(``Coefficient.source``). Pure data and arithmetic: no I/O, no settings import (the CLI passes the
configured TTL, retention and slice bounds in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = [
    "COEFFICIENTS",
    "JUDGES",
    "MEASURED",
    "Coefficient",
    "Sizing",
    "SizingInputs",
    "markdown_table",
    "size",
]

JUDGES = ("embedded", "verifier")


@dataclass(frozen=True)
class Coefficient:
    """One measured unit cost: ``value`` in ``unit``, copied from the benchmark line ``source``."""

    value: float
    unit: str
    source: str


# Measured by `python -m benchmarks.capacity` on the development machine (2 cores, AMD EPYC,
# shared with a training job and other tests: load average 6-10). CPU seconds per trace and
# ratios are the stable figures there; where two runs were taken the median (or, for the
# scale-out efficiency, the lower) is used. Re-run the benchmark and copy the figures here and
# into docs/capacity.md when a judge or the window layout changes; tests/test_capacity.py checks
# that the doc's unit-cost table is this one. The Redis, dedup and series figures are from runs
# 6-8 (2026-12-07), after Kafka dedup moved to 16-byte offset records and one replica exports
# the window series; the CPU, window and finding figures from runs 1-5 (runs 6-8 agree).
COEFFICIENTS: dict[str, Coefficient] = {
    "seen_cpu_s": Coefficient(
        198e-6, "replica CPU s per seen trace (sampled out)", "[seen] cpu_us_per_seen"
    ),
    "eval_cpu_s.embedded": Coefficient(
        0.107, "replica CPU s per evaluated trace", "[embedded] cpu_ms_per_evaluated"
    ),
    "eval_cpu_s.verifier": Coefficient(
        0.235, "replica CPU s per evaluated trace", "[verifier] cpu_ms_per_evaluated"
    ),
    "scaleout_efficiency": Coefficient(
        0.92,
        "evaluated per CPU s, 2 replicas / 1 replica",
        "[scaleout.2] / [scaleout.1] evaluated_per_cpu_s",
    ),
    "redis_cpu_s.seen": Coefficient(
        11.4e-6, "Redis CPU s per seen trace", "[seen.redis] redis_cpu_us_per_trace"
    ),
    "redis_cpu_s.evaluated": Coefficient(
        306e-6,
        "Redis CPU s per evaluated trace, on top of its seen cost",
        "[embedded.redis] / [verifier.redis] redis_cpu_us_per_trace - seen",
    ),
    "redis_cluster_overhead": Coefficient(
        1.49,
        "Redis CPU per trace, Cluster (8 hash tags) / standalone",
        "[flood.2.cluster] / [flood.2] redis_cpu_us_per_trace, runs 7, 8",
    ),
    "redis_round_trips.seen": Coefficient(
        0.0064, "round trips per seen trace", "[seen.redis] round_trips_per_trace"
    ),
    "redis_round_trips.evaluated": Coefficient(
        0.94, "round trips per evaluated trace", "[embedded.redis] round_trips_per_trace"
    ),
    "redis_commands.seen": Coefficient(
        0.36, "commands per seen trace (incl. inside scripts)", "[seen.redis] commands_per_trace"
    ),
    "redis_commands.evaluated": Coefficient(
        58.0, "commands per evaluated trace", "[embedded.redis] commands_per_trace"
    ),
    "redis_bytes_in.seen": Coefficient(
        260.0, "bytes sent to Redis per seen trace", "[seen.redis] bytes_in_per_trace"
    ),
    "redis_bytes_in.evaluated": Coefficient(
        1778.0, "bytes sent to Redis per evaluated trace", "[embedded.redis] bytes_in_per_trace"
    ),
    "dedup_marker_bytes": Coefficient(
        156.0,
        "bytes per HTTP/OTLP dedup marker, kept dedup_ttl_s (used_memory in state)",
        "[http] used_memory_state_per_trace",
    ),
    "offset_record_bytes": Coefficient(
        16.9,
        "bytes per Kafka offset record (16 B + allocation), MEMORY USAGE / records",
        "[seen.offsets] bytes_per_record",
    ),
    "offset_inflight_per_poll_record": Coefficient(
        1.4,
        "offsets delivered, not committed, per partition and kafka.max_poll_records",
        "[seen.offsets] inflight_per_partition / 500",
    ),
    "slice_bucket_bytes": Coefficient(
        1318.0, "bytes per slice value x bucket", "[*.memory] bytes_per_slice_bucket"
    ),
    "finding_bytes": Coefficient(5296.0, "bytes per finding", "[*.memory] bytes_per_finding"),
    "series_process": Coefficient(
        105.0, "series per replica: process, pipeline, consumer", "[series] series_other"
    ),
    "series_window_base": Coefficient(
        46.0,
        "window and drift series of the exporter without slices",
        "[series] series_exporter - series_other",
    ),
    "series_per_slice_value": Coefficient(
        75.0, "series per slice value, per replica", "[prom] series_per_slice_value"
    ),
    "metrics_bytes_per_slice_value": Coefficient(
        8359.0, "/metrics bytes per slice value", "[prom] bytes_per_slice_value"
    ),
    "scrape_s_per_1000_slices": Coefficient(
        1.72, "scrape s at 1,000 slice values (report in the scrape)", "[prom.1000] scrape_ms"
    ),
    "rss_mb.embedded": Coefficient(430.0, "MB RSS per replica", "[embedded] rss_mb_after"),
    "rss_mb.verifier": Coefficient(445.0, "MB RSS per replica", "[verifier] rss_mb_after"),
    "results_bytes": Coefficient(
        1735.0, "results-topic bytes per evaluated trace", "[*.kafka] results_bytes_per_record"
    ),
    "dlq_bytes": Coefficient(
        2149.0, "dead-letter bytes per bad message", "[seen.kafka] dlq_bytes_per_record"
    ),
    "message_bytes": Coefficient(3740.0, "trace-topic bytes per trace", "[seen] message_bytes"),
}

# What was measured here, beyond which a row is an extrapolation: replicas in one group,
# traces/s through the pipeline (the rate-0 flood), Redis CPU share of one core.
MEASURED = {"replicas": 2, "traces_per_s": 7200.0, "redis_cpu": 0.08}

# Planning headroom (policy, not measurements): a replica is sized to this share of its core,
# a Redis shard (one thread) to this share of one core.
REPLICA_CORE_BUDGET = 0.7
REDIS_CORE_BUDGET = 0.5
# ... and to this much memory per shard (a size that still restarts and resyncs in minutes).
REDIS_MEMORY_PER_SHARD = 25e9
# A Kafka trace is counted once by its partition and offset: a 16-byte record (digest, offset)
# in its partition's offset set, one set per kind (ingest, evaluation).
OFFSET_SET_KINDS = 2


def _c(name: str) -> float:
    return COEFFICIENTS[name].value


@dataclass(frozen=True)
class SizingInputs:
    """The deployment's settings that change the answer (defaults: the settings' defaults)."""

    slice_values: int = 44  # 4 slice keys x (top_n 10 + "other")
    dedup_ttl_s: float = 86400  # HTTP/OTLP markers only
    resend_window_offsets: int = 1000  # Kafka: offsets kept below the committed one
    poll_records: int = 500  # kafka.max_poll_records: scales what is delivered, not committed
    http_share: float = 0.0  # share of traces received over HTTP/OTLP instead of Kafka
    one_window_exporter: bool = True  # windows.export_lease_s > 0: one replica exports them
    buckets: int = 26 * 60 + 8 * 24  # fine (26 h of 60 s) + coarse (8 days of 1 h)
    findings_max: int = 10_000
    drain_s: float = 60.0  # the lag a replica may hold, in seconds of its own throughput


@dataclass(frozen=True)
class Sizing:
    """The model's answer for one traffic figure; see docs/capacity.md for every term."""

    traces_per_s: float
    sample_rate: float
    judge: str
    evaluated_per_s: float
    cores: float
    replicas: int
    partitions: int
    per_replica_traces_per_s: float
    lag_per_replica: int
    redis_cpu: float
    redis_shards: int
    redis_ops_per_s: float
    redis_round_trips_per_s: float
    redis_memory_bytes: float
    redis_memory_parts: dict[str, float] = field(default_factory=dict)
    series: int = 0
    extrapolated: list[str] = field(default_factory=list)

    @property
    def redis(self) -> str:
        return "single" if self.redis_shards <= 1 else f"cluster x{self.redis_shards}"


def size(
    traces_per_s: float,
    sample_rate: float,
    judge: str = "embedded",
    inputs: SizingInputs | None = None,
) -> Sizing:
    """Replicas, partitions, Redis and series for ``traces_per_s`` at ``sample_rate``."""
    if judge not in JUDGES:
        raise ValueError(f"judge must be one of {JUDGES}, not {judge!r}")
    if not 0.0 <= sample_rate <= 1.0 or traces_per_s < 0:
        raise ValueError("sample_rate must be in [0, 1] and traces_per_s >= 0")
    p = inputs or SizingInputs()
    if not 0.0 <= p.http_share <= 1.0:
        raise ValueError("http_share must be in [0, 1]")
    evaluated = traces_per_s * sample_rate
    cpu_per_trace = _c("seen_cpu_s") + sample_rate * _c(f"eval_cpu_s.{judge}")
    cores = traces_per_s * cpu_per_trace / _c("scaleout_efficiency")
    replicas = max(1, math.ceil(cores / REPLICA_CORE_BUDGET))
    per_replica = REPLICA_CORE_BUDGET * _c("scaleout_efficiency") / cpu_per_trace
    # A replica that is behind runs its core flat out: the lag target is drain_s of that.
    flat_out = _c("scaleout_efficiency") / cpu_per_trace
    # Partitions bound the replicas a group can use: twice the need leaves room to scale out.
    partitions = max(4, 2 * replicas)
    redis_cpu = traces_per_s * _c("redis_cpu_s.seen") + evaluated * _c("redis_cpu_s.evaluated")
    # Kafka: per partition and kind, the re-send window plus what is delivered, not committed,
    # whatever the traffic. HTTP/OTLP: a marker per trace (two when evaluated) for the TTL.
    inflight = p.poll_records * _c("offset_inflight_per_poll_record")
    offsets = (
        partitions
        * OFFSET_SET_KINDS
        * (p.resend_window_offsets + inflight)
        * _c("offset_record_bytes")
        if p.http_share < 1.0
        else 0.0
    )
    markers = p.http_share * (traces_per_s + evaluated) * p.dedup_ttl_s * _c("dedup_marker_bytes")
    parts = {
        "dedup": offsets + markers,
        "windows": (1 + p.slice_values) * p.buckets * _c("slice_bucket_bytes"),
        "findings": p.findings_max * _c("finding_bytes"),
    }
    memory = sum(parts.values())
    shards = 1
    if redis_cpu > REDIS_CORE_BUDGET or memory > REDIS_MEMORY_PER_SHARD:
        # A Cluster pays more CPU per trace (one script per hash tag and batch).
        shards = max(
            2,
            math.ceil(redis_cpu * _c("redis_cluster_overhead") / REDIS_CORE_BUDGET),
            math.ceil(memory / REDIS_MEMORY_PER_SHARD),
        )
    ops = traces_per_s * _c("redis_commands.seen") + evaluated * _c("redis_commands.evaluated")
    trips = traces_per_s * _c("redis_round_trips.seen") + evaluated * _c(
        "redis_round_trips.evaluated"
    )
    # The window and drift series come from one replica holding the export lease; with
    # windows.export_lease_s = 0 every replica exports them. Process series: every replica.
    window_series = round(_c("series_window_base") + p.slice_values * _c("series_per_slice_value"))
    exporters = 1 if p.one_window_exporter else replicas
    series = replicas * round(_c("series_process")) + exporters * window_series
    beyond = []
    if replicas > MEASURED["replicas"]:
        beyond.append("replicas")
    if traces_per_s > MEASURED["traces_per_s"]:
        beyond.append("traces/s")
    if redis_cpu > MEASURED["redis_cpu"]:
        beyond.append("redis")
    return Sizing(
        traces_per_s=traces_per_s,
        sample_rate=sample_rate,
        judge=judge,
        evaluated_per_s=evaluated,
        cores=cores,
        replicas=replicas,
        partitions=partitions,
        per_replica_traces_per_s=per_replica,
        lag_per_replica=round(flat_out * p.drain_s),
        redis_cpu=redis_cpu,
        redis_shards=shards,
        redis_ops_per_s=ops,
        redis_round_trips_per_s=trips,
        redis_memory_bytes=memory,
        redis_memory_parts=parts,
        series=series,
        extrapolated=beyond,
    )


def _bytes(n: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1e3:.3g} kB"


HEADER = (
    "| traces/s | sampled | judge | evaluated/s | replicas (cores) | partitions | lag/replica"
    " | Redis (CPU) | Redis memory | series | extrapolated |"
)


def markdown_row(s: Sizing) -> str:
    """One row of the doc's sizing table."""
    return (
        f"| {s.traces_per_s:,.0f} | {s.sample_rate:.0%} | {s.judge} | {s.evaluated_per_s:,.1f}"
        f" | {s.replicas} ({s.cores:.2f}) | {s.partitions} | {s.lag_per_replica:,}"
        f" | {s.redis} ({s.redis_cpu:.2f}) | {_bytes(s.redis_memory_bytes)} | {s.series:,}"
        f" | {', '.join(s.extrapolated) or 'no'} |"
    )


def markdown_table(
    rates: tuple[float, ...] = (10, 100, 1_000, 10_000),
    samples: tuple[float, ...] = (0.01, 0.1, 1.0),
    judges: tuple[str, ...] = JUDGES,
    inputs: SizingInputs | None = None,
) -> str:
    """The doc's sizing table: every traffic figure x sampling rate x judge."""
    sep = "|" + "---|" * (HEADER.count("|") - 1)
    rows = [
        markdown_row(size(t, r, judge, inputs)) for judge in judges for t in rates for r in samples
    ]
    return "\n".join([HEADER, sep, *rows])
