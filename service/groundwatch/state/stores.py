"""State and sink interfaces of the pipeline. Implementations live side by side:
``MemoryWindowStore`` / ``RedisWindowStore`` (windows.py, redis_store.py), ``MemoryFindingStore`` /
``RedisFindingStore`` (findings.py), result sinks (a Kafka topic, a JSONL file, in-memory list).

Contract for every write method here: when it returns, the write is durable (as durable as the
backend is), and applying the same trace_id twice has the effect of applying it once (for a
window update read from Kafka: the same partition and offset, or the same trace_id re-sent
within the partition's re-send window, see :class:`Delivery`). A backend
that is unreachable raises :class:`StoreUnavailableError` (``retriable = True``); the caller backs off
and does not commit its input offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from groundwatch.contract.record import Conflict, EvaluationRecord

__all__ = [
    "CORRECTED_VERDICTS",
    "LABELS",
    "SCOPE_FILTER",
    "Delivery",
    "Finding",
    "FindingLabel",
    "FindingPage",
    "FindingPassage",
    "FindingStore",
    "FindingTrace",
    "IngestObservation",
    "LabelCountKey",
    "LabelCounts",
    "Redactor",
    "ResultSink",
    "StoreUnavailableError",
    "WindowStore",
]


class StoreUnavailableError(RuntimeError):
    """A state backend or sink cannot be reached right now. Retry later; do not commit."""

    retriable = True


@dataclass(frozen=True)
class IngestObservation:
    """The cheap facts taken from every trace, sampled or not."""

    trace_id: str
    ts: float  # unix seconds (trace timestamp, or receive time)
    slices: dict[str, str]  # already bounded: configured keys only, rare values -> "other"
    sampled: bool
    retrieval_top_score: float | None
    context_count: int
    context_chars: int


@dataclass(frozen=True)
class Delivery:
    """Where a trace was read from: a Kafka ``(topic, partition, offset)``. ``floor`` is the
    partition's offset last committed by the reader (None before its first commit): no offset
    below it is delivered again, so a store may forget what it kept to recognise those."""

    topic: str
    partition: int
    offset: int
    floor: int | None = None


@dataclass(frozen=True)
class FindingPassage:
    """A retrieved passage of a finding's trace (``index``: its position in the trace)."""

    index: int
    text: str
    id: str | None = None
    doc_id: str | None = None


@dataclass(frozen=True)
class FindingTrace:
    """What a draft eval case needs from a finding's trace: the question, the answer and the
    retrieved passages, redacted like the finding's text and cut to ``findings.case_text_chars``
    in all (``truncated`` says so). Never present in ``drop_text`` mode."""

    question: str
    answer: str | None = None
    passages: tuple[FindingPassage, ...] = ()
    truncated: bool = False

    @property
    def chars(self) -> int:
        return len(self.question) + len(self.answer or "") + sum(len(p.text) for p in self.passages)


#: What an engineer says of a finding: the judge was right (the claim is contradicted), wrong,
#: or they cannot tell.
LABELS = ("right", "wrong", "unsure")
#: The verdict a "wrong" finding should have had.
CORRECTED_VERDICTS = ("supported", "not_found")


@dataclass(frozen=True)
class FindingLabel:
    """A person's triage of one finding. ``label`` is one of :data:`LABELS`;
    ``corrected_verdict`` (one of :data:`CORRECTED_VERDICTS`) only goes with "wrong"; ``note``
    is free text for people (never a metric label); ``ts`` is when it was given (unix s)."""

    label: str
    ts: float
    corrected_verdict: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class Finding:
    """One contradicted claim kept for triage (text already redacted as configured); ``trace``
    holds the trace text a draft eval case needs (``GET /v1/findings/cases``), when kept."""

    trace_id: str
    ts: float
    claim_index: int
    claim: str
    evidence: str | None
    context_index: int | None
    context_id: str | None
    score: float
    reason: str | None
    metric_version: str
    slices: dict[str, str] = field(default_factory=dict)
    trace: FindingTrace | None = None
    #: The disagreeing words the judge named (the page marks ``conflict.evidence``).
    conflict: Conflict | None = None
    label: FindingLabel | None = None
    #: Who the trace_id belongs to (a hash of its ``tenant`` attribute; "" without one): two
    #: tenants may send the same trace_id, and neither's finding may replace the other's.
    scope: str = ""

    @property
    def key(self) -> str:
        base = f"{self.trace_id}#{self.claim_index}"
        return f"{base}@{self.scope}" if self.scope else base


#: A ``slice_filter`` key of :class:`FindingStore` that selects a finding's ``scope`` (the hash
#: of its tenant) instead of a slice: indexed like a slice, so a tenant-bound reader's query
#: reads its own findings, never every finding.
SCOPE_FILTER = "~scope"

#: (metric_version, slice_key, slice_value, label): one series of the live precision figures.
LabelCountKey = tuple[str, str, str, str]
#: Labelled findings kept, per :data:`LabelCountKey` (``all``/``all`` and each slice pair of a
#: finding), kept up to date as labels change and findings are dropped: reading it costs
#: O(series), never O(findings). Entries that reach 0 are absent.
LabelCounts = dict[LabelCountKey, int]


@dataclass(frozen=True)
class FindingPage:
    items: list[Finding]
    next_cursor: str | None
    total: int


@runtime_checkable
class WindowStore(Protocol):
    """Time-bucketed counts, sums and histograms per metric and slice, shared by replicas."""

    def observe_ingest(
        self,
        items: Sequence[IngestObservation],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        """Count ingested traces (volume, retrieval score, context size). Idempotent per
        trace_id; an item with a :class:`Delivery` (parallel to ``items``) per partition
        instead: its re-delivery and a re-send soon after are recognised without a marker per
        trace. Returns, per item, whether it was new (False = already counted)."""
        ...

    def observe_evaluations(
        self,
        items: Sequence[tuple[EvaluationRecord, dict[str, str], float]],
        deliveries: Sequence[Delivery | None] | None = None,
    ) -> list[bool]:
        """Add evaluation records (record, bounded slices, ts). Idempotent as
        :meth:`observe_ingest`. Returns, per item, whether it was new (False = already
        counted)."""
        ...

    def evaluated(self, trace_ids: Sequence[str]) -> list[bool]:
        """Per id, whether an evaluation was added under it (its dedup marker is still kept):
        an ingest path that does not re-deliver asks this before refusing a re-send, so a trace
        accepted but never recorded (a crash) is scored when it is sent again. Read only."""
        ...

    def ping(self) -> bool:
        """True when the backend is reachable (used by /readyz)."""
        ...


@runtime_checkable
class FindingStore(Protocol):
    """Bounded store of recent findings, newest first. Idempotent per (trace_id, claim_index)."""

    def add(self, findings: Sequence[Finding]) -> int:
        """Store findings; returns how many were new."""
        ...

    def page(
        self,
        *,
        limit: int = 50,
        cursor: str | None = None,
        slice_filter: dict[str, str] | None = None,
    ) -> FindingPage: ...

    def set_label(self, key: str, label: FindingLabel) -> Finding | None:
        """Label the finding ``key`` (``trace_id#claim_index``), replacing any earlier label
        (idempotent); durable when it returns. Returns the labelled finding, or None when no
        such finding is kept. Re-adding the finding (a re-delivery) keeps its label."""
        ...

    def labelled(self) -> list[Finding]:
        """Every kept finding that has a label (bounded by the store's size), any order."""
        ...

    def label_counts(self) -> LabelCounts:
        """The labels of the kept findings, counted (see :data:`LabelCounts`): what the live
        precision figures are computed from at every scrape, so O(series), not O(findings)."""
        ...

    def sample(self, n: int, *, slice_filter: dict[str, str] | None = None) -> list[Finding]:
        """Up to ``n`` kept findings matching ``slice_filter``, drawn uniformly at random
        without replacement (an unbiased set to label), newest first."""
        ...

    def ping(self) -> bool: ...


@runtime_checkable
class Redactor(Protocol):
    """Removes personal data before anything is stored or published. Scoring sees the original."""

    def redact_text(self, text: str) -> str | None:
        """The text to store, or None when text must not be kept at all (drop_text mode)."""
        ...

    def redact_record(self, record: EvaluationRecord) -> EvaluationRecord: ...

    def redact_id(self, value: str) -> str:
        """An identifier (trace_id, context id) safe to store; stable for the same input."""
        ...

    def redact_label(self, value: str) -> str:
        """A slice value safe to become a metric label or a window key."""
        ...


@runtime_checkable
class ResultSink(Protocol):
    """Where evaluation records go (results topic, file). Durable when ``write`` returns."""

    def write(self, records: Sequence[EvaluationRecord]) -> None: ...

    def close(self) -> None: ...
