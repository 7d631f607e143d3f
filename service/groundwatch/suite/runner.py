"""``groundwatch suite run CASES.jsonl TRACES.jsonl -o RUN.jsonl``: one eval record per case.

Usage::

    records = run_suite(cases, traces_by_id, evaluator, ks=(1, 3, 5), config={"top_k": 3})

The traces are what the assistant under test produced for the cases, joined on
``trace_id == case.id`` (or a ``case_id`` attribute). A case without a trace gets a
``missing_trace`` record; bad lines in either file are reported with their line numbers and
never abort the run. The judge sees each trace once (the reference-free record, exactly as
``groundwatch evaluate`` computes it) and then short probe traces for the reference answer and
the nuggets; both are sent in batches.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TextIO

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, decode_trace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.suite.cases import CaseError, EvalCase
from groundwatch.suite.generation import Probe, decide, generation_probes
from groundwatch.suite.record import EvalRecord
from groundwatch.suite.stages import retrieval_stage

__all__ = [
    "DEFAULT_KS",
    "load_corpus",
    "load_records",
    "load_traces",
    "run_suite",
    "write_records",
]

DEFAULT_KS: tuple[int, ...] = (1, 3, 5)


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
) -> list[EvalRecord]:
    """One record per case, in case order."""
    config = dict(config or {})
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
        flat = [p.trace for probes in probes_per_case for p in probes]
        probe_records = evaluator.evaluate_batch(flat) if flat else []
        offset = 0
        for case, trace, main, probes in zip(
            chunk, chunk_traces, mains, probes_per_case, strict=True
        ):
            mine = probe_records[offset : offset + len(probes)]
            offset += len(probes)
            out[case.id] = _record(
                case,
                trace,
                main,
                probes=probes,
                probe_records=mine,
                ks=ks,
                config=config,
                corpus=corpus,
            )
        done += len(chunk)
        if progress is not None:
            print(f"\rsuite run: {done}/{len(present)} cases", end="", file=progress, flush=True)
    if progress is not None and present:
        print(file=progress)
    return [out[c.id] for c in cases]


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
    record = EvalRecord(
        case_id=case.id,
        question=case.question,
        slices={**{k: v for k, v in trace.attributes.items() if k != "case_id"}, **case.slices()},
        answerable=case.answerable,
        config=dict(config),
        status="scored" if scored else "unscored",
        unscored_reason=main.unscored_reason,
        metric_version=main.metric_version,
        relevant=stage.relevant,
        retrieved=stage.retrieved,
        answer=trace.answer,
        evidence_matches=stage.matches,
        metrics=dict(stage.metrics),
    )
    if not scored:
        return record
    outcome = decide(
        case, trace, main, probes=probes, probe_records=probe_records, context_hit=stage.context_hit
    )
    record.metrics.update(outcome.metrics)
    record.nuggets = outcome.nuggets
    record.diagnosis = outcome.diagnosis
    record.passed = outcome.passed
    return record


def write_records(records: Sequence[EvalRecord], path: str) -> None:
    sink = sys.stdout if path == "-" else open(path, "w", encoding="utf-8")  # noqa: SIM115
    try:
        for record in records:
            sink.write(record.model_dump_json() + "\n")
    finally:
        if sink is not sys.stdout:
            sink.close()
