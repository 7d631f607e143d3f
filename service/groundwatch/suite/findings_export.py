"""Findings become cases: contradicted claims from production as draft eval cases.

Usage::

    drafts = drafts_from_records(traces_by_id, records)   # groundwatch evaluate's input + output
    groundwatch findings export --traces T.jsonl --records R.jsonl -o drafts.jsonl
    drafts = drafts_from_findings(store.page(limit=500).items)   # GET /v1/findings/cases

Each trace with at least one contradicted claim gives one draft :class:`EvalCase`: the question,
the retrieved passages as *candidate* evidence (a reviewer keeps the right ones), the answer and
each contradicted claim with the sentence that contradicts it (in ``origin``), and
``needs_review: true`` so ``suite run`` skips it until a person has labelled it.

From the finding store (:func:`drafts_from_findings`), the trace text is what the store kept
(``Finding.trace``: redacted like the claim, cut to ``findings.case_text_chars``); without it
(redaction mode ``drop_text``, or a finding stored before it was kept) a draft has the claim,
its verdict's evidence, ids and slices only, and the question reads ``(question not recorded)``.
A finding labelled on the page carries its label (``origin.contradicted[].label``), the input
of ``groundwatch judge adapt``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from groundwatch.contract.case import (
    CaseOrigin,
    ClaimLabel,
    ContradictedClaim,
    EvalCase,
    EvidenceQuote,
)
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.state.stores import Finding, FindingLabel

__all__ = [
    "NO_QUESTION",
    "draft_case",
    "draft_from_findings",
    "drafts_from_findings",
    "drafts_from_records",
]

NO_QUESTION = "(question not recorded)"


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
        question=trace.question or NO_QUESTION,
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


def _label(label: FindingLabel | None) -> ClaimLabel | None:
    if label is None:
        return None
    return ClaimLabel.model_validate(
        {
            "label": label.label,
            "corrected_verdict": label.corrected_verdict,
            "note": label.note,
            "labelled_at": label.ts,
        }
    )


def draft_from_findings(findings: Sequence[Finding]) -> EvalCase:
    """One draft case from the findings of one trace (its contradicted claims)."""
    first = findings[0]
    claims = sorted(findings, key=lambda f: f.claim_index)
    kept = next((f.trace for f in findings if f.trace is not None), None)
    evidence = (
        [
            EvidenceQuote(
                doc_id=p.doc_id or p.id or f"{first.trace_id}#passage{p.index}", quote=p.text
            )
            for p in kept.passages
            if p.text.strip()
        ]
        if kept is not None
        else []
    )
    return EvalCase(
        id=f"finding-{first.trace_id}"[:256],
        question=(kept.question if kept is not None else "") or NO_QUESTION,
        answerable=True,
        evidence=evidence,
        slice=dict(first.slices),
        needs_review=True,
        origin=CaseOrigin(
            trace_id=first.trace_id,
            answer=kept.answer if kept is not None else None,
            contradicted=[
                ContradictedClaim(
                    claim=f.claim,
                    evidence=f.evidence,
                    context_id=f.context_id,
                    claim_index=f.claim_index,
                    label=_label(f.label),
                )
                for f in claims
            ],
            metric_version=first.metric_version,
        ),
    )


def drafts_from_findings(findings: Iterable[Finding]) -> list[EvalCase]:
    """One draft per trace, in the order its first finding comes (newest first from a store)."""
    by_trace: dict[str, list[Finding]] = {}
    for f in findings:
        by_trace.setdefault(f.trace_id, []).append(f)
    return [draft_from_findings(group) for group in by_trace.values()]
