"""Retrieval and context metrics of one case: gold evidence located in the retrieved list.

Usage::

    stage = retrieval_stage(case, trace, ks=(1, 3, 5), corpus=None)
    stage.metrics["recall@3"], stage.context_hit, stage.matches

A passage's gain is the case's graded relevance of its document when the case gives one, else
1 when it holds a piece of gold evidence, else 0. A document is credited once (at its best
rank), so duplicated chunks do not inflate nDCG.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.matching import match_evidence
from groundwatch.suite.record import EvidenceMatch
from groundwatch.suite.retrieval import rank_metrics

__all__ = ["RetrievalStage", "ordered_passages", "passage_label", "retrieval_stage"]


@dataclass
class RetrievalStage:
    metrics: dict[str, float | None] = field(default_factory=dict)
    matches: list[EvidenceMatch] = field(default_factory=list)
    retrieved: list[str] = field(default_factory=list)
    relevant: list[str] = field(default_factory=list)
    context_hit: bool | None = None  # None: nothing gold to find


def ordered_passages(trace: RagTrace) -> list[ContextPassage]:
    """Passages by ``rank`` when every passage has one, else in trace order (stable on ties)."""
    if trace.contexts and all(p.rank is not None for p in trace.contexts):
        return sorted(trace.contexts, key=lambda p: p.rank or 0)
    return list(trace.contexts)


def passage_label(passage: ContextPassage, rank: int) -> str:
    return passage.id or passage.doc_id or f"#{rank}"


def _gains(
    case: EvalCase, passages: Sequence[ContextPassage], found: Sequence[set[int]]
) -> tuple[list[float], list[float]]:
    credited: set[str] = set()
    gains: list[float] = []
    for rank, (passage, items) in enumerate(zip(passages, found, strict=True), start=1):
        key = passage.doc_id or passage_label(passage, rank)
        grade = float(case.relevance.get(key, 1 if items else 0)) if passage.doc_id else 0.0
        if not passage.doc_id and items:
            grade = 1.0
        if key in credited:
            grade = 0.0
        elif grade > 0:
            credited.add(key)
        gains.append(grade)
    gold_docs = {e.doc_id for e in case.evidence}
    ideal = dict.fromkeys(gold_docs, 1.0)
    ideal.update({doc: float(g) for doc, g in case.relevance.items()})
    return gains, list(ideal.values())


def retrieval_stage(
    case: EvalCase,
    trace: RagTrace,
    ks: Sequence[int],
    corpus: Mapping[str, str] | None = None,
    context_tokens: int | None = None,
) -> RetrievalStage:
    passages = ordered_passages(trace)
    stage = RetrievalStage(retrieved=[passage_label(p, i) for i, p in enumerate(passages, 1)])
    found: list[set[int]] = []
    for rank, passage in enumerate(passages, start=1):
        items: set[int] = set()
        for index, evidence in enumerate(case.evidence):
            kind = match_evidence(evidence, passage, corpus)
            if kind is not None:
                items.add(index)
                stage.matches.append(EvidenceMatch(evidence_index=index, rank=rank, kind=kind))
        found.append(items)
    gains, ideal = _gains(case, passages, found)
    stage.relevant = sorted(
        {e.doc_id for e in case.evidence} | {d for d, g in case.relevance.items() if g > 0}
    )
    any_relevant = any(g > 0 for g in ideal)
    m = stage.metrics
    m.update(rank_metrics(found, len(case.evidence), gains, ideal, ks, any_relevant=any_relevant))
    relevant_ranks = [rank for rank, g in enumerate(gains, start=1) if g > 0 or found[rank - 1]]
    if any_relevant:
        m["gold_context_precision"] = len(relevant_ranks) / len(passages) if passages else 0.0
        stage.context_hit = bool(relevant_ranks)
    else:
        m["gold_context_precision"] = None
    m["first_gold_rank"] = float(relevant_ranks[0]) if relevant_ranks else None
    m["context_passages"] = float(len(passages))
    if context_tokens is not None:
        m["context_tokens"] = float(context_tokens)
    return stage
