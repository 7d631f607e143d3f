"""Helpers shared by the consumer tests, the subprocess consumer and the ingest benchmark: a fast
deterministic judge, processor assembly, topic readers.

Usage::

    processor = make_processor(windows, findings, sinks, registry, sampling=settings.sampling)
    records = read_topic(bootstrap, "results", expect=10)
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from prometheus_client import CollectorRegistry

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.evaluation.processing import TraceProcessor
from groundwatch.ingest.sampling import Sampler
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.observability.metrics import PipelineMetrics
from groundwatch.sections.pipeline import SamplingSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.slices import SliceMapper
from groundwatch.state.stores import FindingStore, ResultSink, WindowStore
from tests.builders import build_trace

__all__ = ["FakeJudge", "Msg", "make_processor", "make_trace", "read_topic"]


class FakeJudge:
    """Deterministic and fast: every answer is one supported claim. ``delay_s`` per batch
    simulates a slow judge. Thread-safe."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.delay_s = delay_s
        self.calls = 0
        self.judged = 0
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        return "fake/v1"

    @property
    def backend(self) -> str:
        return "fake"

    def load(self) -> None:
        return None

    def ready(self) -> bool:
        return True

    def close(self) -> None:
        return None

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        if self.delay_s:
            time.sleep(self.delay_s)
        with self._lock:
            self.calls += 1
            self.judged += len(traces)
        out: list[TraceJudgement | JudgeError] = []
        for t in traces:
            claims = (
                [ClaimJudgement(text=t.answer[:80], verdict="supported", score=0.9)]
                if t.answer
                else []
            )
            out.append(
                TraceJudgement(
                    claims=claims,
                    context_relevance=[0.8] * len(t.contexts),
                    relevance_threshold=0.5,
                    answer_relevance=0.9 if t.answer else None,
                    refusal=False,
                    context_tokens=sum(len(c.text.split()) for c in t.contexts),
                )
            )
        return out


def make_processor(
    windows: WindowStore,
    findings: FindingStore,
    sinks: Sequence[ResultSink],
    registry: CollectorRegistry,
    judge: Any = None,
    *,
    sampling: SamplingSettings | None = None,
    slices: WindowSettings | None = None,
) -> TraceProcessor:
    """A processor over the given stores and sinks (the fake judge unless ``judge``), sampling
    as ``sampling`` says and labelling slices by the ``windows`` section ``slices`` (the
    sections' defaults when None)."""
    sampling = sampling or SamplingSettings()
    slices = slices or WindowSettings()
    return TraceProcessor(
        evaluator=Evaluator(judge or FakeJudge()),
        sampler=Sampler(sampling),
        slices=SliceMapper(slices.slice_keys, slices.top_n),
        windows=windows,
        findings=findings,
        sinks=sinks,
        metrics=PipelineMetrics(registry),
    )


def make_trace(trace_id: str | None = None, **extra: Any) -> dict[str, Any]:
    """:func:`tests.builders.build_trace` with a random id unless one is given."""
    return build_trace(trace_id or uuid.uuid4().hex, **extra)


@dataclass(frozen=True)
class Msg:
    key: bytes | None
    value: bytes | None
    headers: dict[str, bytes]
    partition: int
    offset: int


def read_topic(bootstrap: str, topic: str, *, expect: int, timeout_s: float = 30.0) -> list[Msg]:
    """Every message of ``topic`` from the beginning (manual assignment, no group), waiting
    until at least ``expect`` arrived or the timeout passed."""
    from kafka import KafkaConsumer
    from kafka.structs import TopicPartition

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    try:
        deadline = time.monotonic() + timeout_s
        parts: set[int] | None = None
        while parts is None and time.monotonic() < deadline:
            parts = consumer.partitions_for_topic(topic)
            if parts is None:
                time.sleep(0.2)
        if not parts:
            return []
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        consumer.seek_to_beginning(*tps)
        out: list[Msg] = []
        while time.monotonic() < deadline:
            batch = consumer.poll(timeout_ms=300)
            for records in batch.values():
                out.extend(
                    Msg(r.key, r.value, dict(r.headers or []), r.partition, r.offset)
                    for r in records
                )
            if len(out) >= expect and not batch:
                break
        return out
    finally:
        consumer.close(autocommit=False)
