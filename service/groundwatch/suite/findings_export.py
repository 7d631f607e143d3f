"""Findings become cases: contradicted claims from production as draft eval cases.

Usage::

    drafts = drafts_from_records(traces_by_id, records)   # groundwatch evaluate's input + output
    groundwatch findings export --traces T.jsonl --records R.jsonl -o drafts.jsonl

Each trace with at least one contradicted claim gives one draft :class:`EvalCase`: the question,
the retrieved passages as *candidate* evidence (a reviewer keeps the right ones), the answer and
each contradicted claim with the sentence that contradicts it (in ``origin``), and
``needs_review: true`` so ``suite run`` skips it until a person has labelled it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from groundwatch.contract.case import (
    CaseOrigin,
    ContradictedClaim,
    EvalCase,
    EvidenceQuote,
)
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace

__all__ = ["draft_case", "drafts_from_records"]


def draft_case(trace: RagTrace, record: EvaluationRecord) -> EvalCase:
    evidence = [
        EvidenceQuote(doc_id=p.doc_id or p.id or f"{trace.trace_id}#passage{i}", quote=p.text)
        for i, p in enumerate(trace.contexts)
        if p.text.strip()
    ]
    contradicted = [
        ContradictedClaim(
            claim=c.text,
            evidence=c.evidence.text if c.evidence else None,
            context_id=c.evidence.context_id if c.evidence else None,
        )
        for c in record.claims
        if c.verdict == "contradicted"
    ]
    return EvalCase(
        id=f"finding-{trace.trace_id}",
        question=trace.question or "(question not recorded)",
        answerable=True,
        evidence=evidence,
        slice=dict(trace.attributes),
        needs_review=True,
        origin=CaseOrigin(
            trace_id=trace.trace_id,
            answer=trace.answer,
            contradicted=contradicted,
            metric_version=record.metric_version,
        ),
    )


def drafts_from_records(
    traces: Mapping[str, RagTrace], records: Iterable[EvaluationRecord]
) -> tuple[list[EvalCase], list[str]]:
    """Drafts for records with contradicted claims, and the trace ids that had no trace."""
    drafts: list[EvalCase] = []
    missing: list[str] = []
    for record in records:
        if record.contradicted_claims <= 0:
            continue
        trace = traces.get(record.trace_id)
        if trace is None:
            missing.append(record.trace_id)
            continue
        drafts.append(draft_case(trace, record))
    return drafts, missing
