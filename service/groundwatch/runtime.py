"""Wiring: builds every component from one Settings object. The only module (with app.py and
cli.py) that knows both the domain (``groundwatch``) and the stream layer
(``groundwatch_consumers``).

Usage::

    runtime = Runtime.build(settings)        # loads the judge; connects stores
    runtime.start()                          # evaluation workers (+ Kafka consumer when configured)
    ...
    runtime.stop()
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from prometheus_client import CollectorRegistry

from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.evaluation.processing import TraceProcessor
from groundwatch.evaluation.queue import EvaluationQueue
from groundwatch.ingest.sampling import Sampler
from groundwatch.judges.base import Judge
from groundwatch.observability.log_guard import install_log_guard
from groundwatch.observability.metrics import PipelineMetrics
from groundwatch.settings import Settings
from groundwatch.state.slice_ranking import SliceRanking
from groundwatch.state.slices import SliceMapper
from groundwatch.state.stores import FindingStore, Redactor, ResultSink, WindowStore

if TYPE_CHECKING:  # Redis is imported lazily, where it is used
    from groundwatch.observability.window_export import WindowExport
    from groundwatch.state.export_lease import RedisExportLease

__all__ = ["Runtime"]

log = logging.getLogger(__name__)


def _slice_mapper(
    settings: Settings, ranking: SliceRanking, redactor: Redactor | None
) -> SliceMapper:
    """Slice labels: PII in a value is redacted before it becomes a label or window key, a
    key with an allow-list pattern keeps only values matching it, and the top-N values by
    recent volume (``ranking``) get their own label."""
    import re

    try:
        allow = {k: re.compile(v) for k, v in settings.windows.slice_allow.items()}
    except re.error as exc:
        raise ValueError(f"GROUNDWATCH_WINDOWS__SLICE_ALLOW: invalid pattern: {exc}") from None
    return SliceMapper(
        settings.windows.slice_keys,
        settings.windows.top_n,
        ranking,
        scrub=redactor.redact_label if redactor is not None else None,
        allow=allow,
    )


def _build_stores(
    settings: Settings, redactor: Redactor | None = None
) -> tuple[WindowStore, FindingStore, SliceMapper]:
    use_redis = settings.state == "redis" or (
        settings.state == "auto" and settings.redis.url is not None
    )
    top_n, window_s = settings.windows.top_n, settings.windows.slice_window_s
    if use_redis:
        from groundwatch.state.redis_store import RedisFindingStore, RedisWindowStore, redis_client
        from groundwatch.state.slice_ranking import RedisSliceRanking

        client = redis_client(settings.redis, socket_timeout=5.0, health_check_interval=10)
        windows = RedisWindowStore(client, settings.windows, settings.redis)
        findings: FindingStore = RedisFindingStore(client, settings.findings, settings.redis)
        shared = RedisSliceRanking(client, settings.redis.key_prefix, top_n, window_s)
        return windows, findings, _slice_mapper(settings, shared, redactor)
    from groundwatch.state.findings import MemoryFindingStore
    from groundwatch.state.slice_ranking import MemorySliceRanking
    from groundwatch.state.windows import MemoryWindowStore

    local = MemorySliceRanking(top_n, window_s)
    return (
        MemoryWindowStore(
            settings.windows,
            dedup_ttl_s=settings.redis.dedup_ttl_s,
            resend_window_offsets=settings.redis.resend_window_offsets,
        ),
        MemoryFindingStore(settings.findings),
        _slice_mapper(settings, local, redactor),
    )


def _build_redactor(settings: Settings) -> Redactor | None:
    if settings.redaction.mode == "off":
        return None
    try:
        from groundwatch.evaluation.redaction import build_redactor
    except ImportError:  # pragma: no cover - redaction ships with the package
        log.warning("redaction module missing; storing text unredacted")
        return None
    redactor: Redactor = build_redactor(settings.redaction)
    return redactor


@dataclass
class Runtime:
    """Everything a running groundwatch holds, built from Settings."""

    settings: Settings
    registry: CollectorRegistry
    metrics: PipelineMetrics
    judge: Judge
    evaluator: Evaluator
    windows: WindowStore
    findings: FindingStore
    slices: SliceMapper
    processor: TraceProcessor
    queue: EvaluationQueue
    sinks: list[ResultSink] = field(default_factory=list)
    consumer: Any = None
    extras: dict[str, Any] = field(default_factory=dict)
    #: The window and drift series as exported (behind the export lease, cached per report).
    window_export: WindowExport | None = None
    _lease: RedisExportLease | None = None
    _consumer_thread: threading.Thread | None = None
    _started: bool = False

    @classmethod
    def build(
        cls,
        settings: Settings,
        *,
        judge: Judge | None = None,
        registry: CollectorRegistry | None = None,
        windows: WindowStore | None = None,
        findings: FindingStore | None = None,
        sinks: list[ResultSink] | None = None,
        with_kafka: bool = True,
    ) -> Runtime:
        install_log_guard(settings.redaction.mode)  # before any judge can log trace text
        registry = registry or CollectorRegistry()
        metrics = PipelineMetrics(registry)
        if judge is None:
            from groundwatch.judges.factory import build_judge

            judge = build_judge(settings.judge, settings.embedding)
        judge.load()
        redactor = _build_redactor(settings)
        built_windows, built_findings, slices = _build_stores(settings, redactor)
        windows = windows or built_windows
        findings = findings or built_findings
        from groundwatch.evaluation.deadline import GuardedJudge

        # Every backend, the embedded one too, runs under a deadline and a size budget.
        evaluator = Evaluator(
            GuardedJudge(
                judge,
                timeout_s=settings.judge.timeout_s,
                max_chars=settings.judge.max_chars,
                over_budget=settings.judge.over_budget,
                max_abandoned=settings.judge.workers + 1,
                registry=registry,
            )
        )
        sink_list = list(sinks or [])
        kafka_on = with_kafka and bool(settings.kafka.bootstrap_servers)
        if kafka_on and settings.kafka.results_topic:
            from groundwatch_consumers.results import KafkaResultSink

            sink_list.append(KafkaResultSink.from_settings(settings.kafka))
        from groundwatch.observability.telemetry import (
            EvaluationEventEmitter,
            PipelineTracer,
            ProducerContexts,
            build_tracer_provider,
        )

        extras: dict[str, Any] = {}
        provider = build_tracer_provider(settings.otel, registry=registry)
        extras["tracer_provider"] = provider
        extras["pipeline_tracer"] = PipelineTracer(provider)
        producers = ProducerContexts(max_items=settings.otel.max_pending_traces)
        extras["producer_contexts"] = producers
        if settings.otel.endpoint:
            sink_list.append(
                EvaluationEventEmitter(provider, producers=producers, registry=registry)
            )
        processor = TraceProcessor(
            evaluator=evaluator,
            sampler=Sampler(settings.sampling),
            slices=slices,
            windows=windows,
            findings=findings,
            sinks=sink_list,
            metrics=metrics,
            redactor=redactor,
            case_text_chars=settings.findings.case_text_chars,
        )
        queue = EvaluationQueue(
            processor,
            capacity=settings.api.queue_size,
            workers=settings.judge.workers,
            max_chars=settings.api.queue_max_chars,
        )
        runtime = cls(
            settings=settings,
            registry=registry,
            metrics=metrics,
            judge=judge,
            evaluator=evaluator,
            windows=windows,
            findings=findings,
            slices=slices,
            processor=processor,
            queue=queue,
            sinks=sink_list,
            extras=extras,
        )
        runtime._register_collectors()
        if kafka_on:
            from groundwatch_consumers.kafka_source import ConsumerOptions, build_kafka_consumer

            runtime.consumer = build_kafka_consumer(
                settings.kafka,
                settings.limits,
                processor,
                registry,
                # Spans cost CPU per message: only when they go somewhere.
                tracer_provider=provider if settings.otel.endpoint else None,
                options=ConsumerOptions(
                    workers=max(1, settings.judge.workers), queue_capacity=settings.api.queue_size
                ),
                producer_contexts=producers,
            )
        return runtime

    def _register_collectors(self) -> None:
        try:
            from groundwatch.observability.windows_collector import WindowsCollector
            from groundwatch.state.bucket_reader import WindowReader
        except ImportError:  # pragma: no cover
            log.warning("window collector unavailable")
            return
        from groundwatch.observability.window_export import WindowExport

        collector = WindowsCollector(cast(WindowReader, self.windows), self.settings.windows)
        self._lease = self._export_lease()
        self.window_export = WindowExport(collector, self._lease)
        self.registry.register(self.window_export)
        from groundwatch.evaluation.redaction import PiiRedactor, RedactionCollector

        if isinstance(self.processor.redactor, PiiRedactor):
            self.registry.register(RedactionCollector(self.processor.redactor))
        from groundwatch.observability.judge_collector import JudgeUsageCollector

        self.registry.register(JudgeUsageCollector(self.judge))
        from groundwatch.observability.precision_collector import PrecisionCollector

        # Precision from triage labels of this judge version's findings (issue 35).
        self.registry.register(
            PrecisionCollector(self.findings, judge_version=lambda: self.judge.version)
        )
        embedder = getattr(self.judge, "embedder", None)
        if embedder is not None and hasattr(embedder, "hit_rate"):
            from groundwatch.observability.cache_collector import EmbeddingCacheCollector

            self.registry.register(EmbeddingCacheCollector(embedder))

    def _export_lease(self) -> RedisExportLease | None:
        """With Redis windows and ``windows.export_lease_s`` > 0, the lease that lets one
        replica at a time export the window series; None (always export) otherwise."""
        client = getattr(self.windows, "client", None)
        if client is None or self.settings.windows.export_lease_s <= 0:
            return None
        from groundwatch.state.export_lease import RedisExportLease

        key = f"{self.settings.redis.key_prefix}:lease:windows"
        return RedisExportLease(client, key, self.settings.windows.export_lease_s)

    def exposition(self) -> bytes:
        """The ``/metrics`` body: the registry, the window series from their cache."""
        from groundwatch.observability.window_export import render_registry

        return render_registry(self.registry, self.window_export)

    def start(self) -> None:
        if self._started:
            return
        self._started = True
        if self._lease is not None:
            self._lease.start()
        if not self.judge.ready():
            self.judge.load()
        self.queue.start()
        if self.consumer is not None:
            self._consumer_thread = threading.Thread(
                target=self.consumer.run, name="gw-kafka", daemon=True
            )
            self._consumer_thread.start()

    def stop(self) -> None:
        if not self._started:
            return
        self._started = False
        if self.consumer is not None:
            self.consumer.stop()
            if self._consumer_thread is not None:
                self._consumer_thread.join(timeout=30)
        if self._lease is not None:
            self._lease.stop()  # hands the export lease back: another replica takes it at once
        receiver = self.extras.get("otlp_receiver")
        if receiver is not None:
            receiver.stop()  # hands traces still being assembled to the queue
        self.queue.stop(drain=True, timeout=self.settings.api.drain_timeout_s)
        for sink in self.sinks:
            try:
                sink.close()
            except Exception:  # closing is best effort at shutdown
                log.exception("closing sink failed")
        provider = self.extras.get("tracer_provider")
        if provider is not None:
            provider.shutdown()
        self.judge.close()

    def liveness(self) -> dict[str, bool]:
        """What ``/healthz`` reports: every thread this process relies on is running. A Kafka
        consumer thread that ended on its own (a fatal error) makes the process unhealthy, so
        the orchestrator restarts it instead of leaving it up and scoring nothing."""
        # Not ``queue.healthy``: that is false while Redis is away, and a restart cures no outage.
        checks = {"evaluator": not self.queue.broken}
        if self.consumer is not None and self._started:
            thread = self._consumer_thread
            checks["kafka_consumer"] = thread is not None and thread.is_alive()
            # A loop blocked (not idle) past stall_after_s scores nothing; a restart re-joins.
            live = getattr(self.consumer, "live", None)
            if checks["kafka_consumer"] and live is not None:
                checks["kafka_loop"] = bool(live())
        return checks

    def readiness(self) -> dict[str, bool]:
        checks = {"judge": self.judge.ready()}
        try:
            checks["windows"] = self.windows.ping()
        except Exception:
            checks["windows"] = False
        try:
            checks["findings"] = self.findings.ping()
        except Exception:
            checks["findings"] = False
        checks["evaluator"] = self.queue.healthy
        if self.consumer is not None:
            checks["kafka"] = bool(self.consumer.ready())
        return checks
