"""``groundwatch suite run CASES.jsonl TRACES.jsonl -o RUN.jsonl``: one eval record per case.

Usage::

    records = run_suite(cases, traces_by_id, evaluator, ks=(1, 3, 5), config={"top_k": 3})

The traces are what the assistant under test produced for the cases, joined on
``trace_id == case.id`` (or a ``case_id`` attribute). A case without a trace gets a
``missing_trace`` record; bad lines in either file are reported with their line numbers and
never abort the run. The judge sees each trace once (the reference-free record, exactly as
``groundwatch evaluate`` computes it) plus short probe traces for the reference answer and the
nuggets (:func:`groundwatch.suite.generation.generation_probes`): per batch of cases, one
judge call for the traces (so the main records are bit for bit those of ``evaluate`` with the
same batches) and one claims-only call for all their probes
(:meth:`~groundwatch.evaluation.evaluator.Evaluator.evaluate_claims_batch`: the same claim
verdicts, without the answer relevance and refusal a probe does not use). A probe's verdict depends only on its content
(question, answer, fact), so probes are deduplicated and their records kept in a bounded
:class:`ProbeCache` for the run: a fact already checked against the same answer is not judged
again (``benchmarks/suite_run.py`` reports how many were judged and how many came from it).
"""

from __future__ import annotations

import json
import sys
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TextIO

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, decode_trace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.suite.cases import CaseError, EvalCase
from groundwatch.suite.generation import GenerationOutcome, Probe, decide, generation_probes
from groundwatch.suite.record import EvalRecord
from groundwatch.suite.stages import retrieval_stage

__all__ = [
    "DEFAULT_KS",
    "ProbeCache",
    "load_corpus",
    "load_records",
    "load_traces",
    "run_suite",
    "write_records",
]

DEFAULT_KS: tuple[int, ...] = (1, 3, 5)


class ProbeCache:
    """Scored probe records by judge version and content (question, answer, fact); bounded LRU.

    Only scored records are kept: a judge error is never replayed. Not thread-safe (one run).
    """

    def __init__(self, max_entries: int = 50_000):
        self._max = max(0, max_entries)
        self._records: OrderedDict[tuple[str, str, str, str], EvaluationRecord] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._records)

    def get(self, version: str, key: tuple[str, str, str]) -> EvaluationRecord | None:
        full = (version, *key)
        record = self._records.get(full)
        if record is None:
            self.misses += 1
            return None
        self._records.move_to_end(full)
        self.hits += 1
        return record

    def put(self, version: str, key: tuple[str, str, str], record: EvaluationRecord) -> None:
        if not self._max or record.status != "scored":
            return
        full = (version, *key)
        self._records[full] = record
        self._records.move_to_end(full)
        while len(self._records) > self._max:
            self._records.popitem(last=False)


def load_traces(
    path: str | Path, limits: TraceLimits | None = None
) -> tuple[dict[str, RagTrace], list[CaseError]]:
    """Traces keyed by case id (``attributes.case_id`` when set, else ``trace_id``)."""
    limits = limits or TraceLimits()
    traces: dict[str, RagTrace] = {}
    errors: list[CaseError] = []
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                trace = decode_trace(raw.rstrip(b"\r\n"), limits)
            except TraceDecodeError as exc:
                reason: Literal["not_json", "schema"] = (
                    "not_json" if exc.reason in ("not_json", "not_utf8") else "schema"
                )
                errors.append(CaseError(number, reason, f"{exc.reason}: {exc.detail}"))
                continue
            key = trace.attributes.get("case_id", trace.trace_id)
            if key in traces:
                errors.append(CaseError(number, "duplicate_id", f"trace for {key!r} repeated"))
                continue
            traces[key] = trace
    return traces, errors


def load_corpus(path: str | Path) -> dict[str, str]:
    """``{doc_id: text}`` from a JSONL of ``{"doc_id", "text"}`` objects."""
    corpus: dict[str, str] = {}
    with open(path, encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            obj = json.loads(raw)
            if not isinstance(obj, dict) or not isinstance(obj.get("doc_id"), str):
                raise ValueError(f"{path}: line {number}: expected an object with doc_id and text")
            corpus[obj["doc_id"]] = str(obj.get("text", ""))
    return corpus


def load_records(path: str | Path) -> list[EvalRecord]:
    """A run file written by ``suite run``; raises ``ValueError`` naming the bad line."""
    records: list[EvalRecord] = []
    with open(path, encoding="utf-8") as fh:
        for number, raw in enumerate(fh, start=1):
            if raw.strip():
                try:
                    records.append(EvalRecord.model_validate_json(raw))
                except ValueError as exc:
                    raise ValueError(f"{path}: line {number}: not an eval record: {exc}") from None
    return records


def _chunks(items: Sequence[EvalCase], size: int) -> Iterator[Sequence[EvalCase]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _missing(case: EvalCase, config: Mapping[str, Any]) -> EvalRecord:
    return EvalRecord(
        case_id=case.id,
        question=case.question,
        slices=case.slices(),
        answerable=case.answerable,
        config=dict(config),
        status="missing_trace",
        relevant=sorted({e.doc_id for e in case.evidence}),
    )


def run_suite(
    cases: Sequence[EvalCase],
    traces: Mapping[str, RagTrace],
    evaluator: Evaluator,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    config: Mapping[str, Any] | None = None,
    corpus: Mapping[str, str] | None = None,
    batch_size: int = 16,
    progress: TextIO | None = None,
    probe_cache: ProbeCache | None = None,
) -> list[EvalRecord]:
    """One record per case, in case order. ``probe_cache``: pass one to share it across runs
    (or ``ProbeCache(0)`` to judge every probe); by default each run has its own."""
    config = dict(config or {})
    cache = ProbeCache() if probe_cache is None else probe_cache
    out: dict[str, EvalRecord] = {}
    present = [c for c in cases if c.id in traces]
    for case in cases:
        if case.id not in traces:
            out[case.id] = _missing(case, config)
    done = 0
    for chunk in _chunks(present, batch_size):
        chunk_traces = [traces[c.id] for c in chunk]
        mains = evaluator.evaluate_batch(chunk_traces)
        probes_per_case = [
            generation_probes(c, t) if m.status == "scored" else []
            for c, t, m in zip(chunk, chunk_traces, mains, strict=True)
        ]
        version = evaluator.metric_version
        known: dict[tuple[str, str, str], EvaluationRecord] = {}
        todo: dict[tuple[str, str, str], Probe] = {}
        for probes in probes_per_case:
            for probe in probes:
                key = probe.key
                if key in known or key in todo:
                    continue
                cached = cache.get(version, key)
                if cached is not None:
                    known[key] = cached
                else:
                    todo[key] = probe
        if todo:
            fresh = evaluator.evaluate_claims_batch([probe.trace for probe in todo.values()])
            for key, record in zip(todo, fresh, strict=True):
                known[key] = record
                cache.put(version, key, record)
        for case, trace, main, probes in zip(
            chunk, chunk_traces, mains, probes_per_case, strict=True
        ):
            out[case.id] = _record(
                case,
                trace,
                main,
                probes=probes,
                probe_records=[known[p.key] for p in probes],
                ks=ks,
                config=config,
                corpus=corpus,
            )
        done += len(chunk)
        if progress is not None:
            _progress(progress, f"suite run: {done}/{len(present)} cases")
    if progress is not None and present and _is_tty(progress):
        print(file=progress)
    return [out[c.id] for c in cases]


def _is_tty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty())


def _progress(stream: TextIO, line: str) -> None:
    """One progress line: rewritten in place on a terminal, one line each elsewhere (a log or a
    CI console shows no carriage return, so the lines ran together)."""
    if _is_tty(stream):
        print(f"\r{line}", end="", file=stream, flush=True)
    else:
        print(line, file=stream, flush=True)


def _record(
    case: EvalCase,
    trace: RagTrace,
    main: EvaluationRecord,
    *,
    probes: Sequence[Probe],
    probe_records: Sequence[EvaluationRecord],
    ks: Sequence[int],
    config: Mapping[str, Any],
    corpus: Mapping[str, str] | None,
) -> EvalRecord:
    scored = main.status == "scored"
    stage = retrieval_stage(
        case, trace, ks, corpus, context_tokens=main.context_tokens if scored else None
    )
    metrics = stage.metrics
    outcome = (
        decide(
            case,
            trace,
            main,
            probes=probes,
            probe_records=probe_records,
            context_hit=stage.context_hit,
        )
        if scored
        else GenerationOutcome()
    )
    if scored:
        metrics.update(outcome.metrics)
    slices = {k: v for k, v in trace.attributes.items() if k != "case_id"}
    slices.update(case.slices())
    return EvalRecord(
        case_id=case.id,
        question=case.question,
        slices=slices,
        answerable=case.answerable,
        config=dict(config),
        status="scored" if scored else "unscored",
        unscored_reason=main.unscored_reason,
        metric_version=main.metric_version,
        relevant=stage.relevant,
        retrieved=stage.retrieved,
        answer=trace.answer,
        evidence_matches=stage.matches,
        metrics=metrics,
        nuggets=outcome.nuggets,
        diagnosis=outcome.diagnosis,
        passed=outcome.passed,
    )


def write_records(records: Sequence[EvalRecord], path: str) -> None:
    sink = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for record in records:
            sink.write(record.model_dump_json() + "\n")
    finally:
        if sink is not sys.stdout:
            sink.close()
