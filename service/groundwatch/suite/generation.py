"""Generation metrics decided by the judge: correctness, nuggets, abstention, the 2×2.

Usage::

    probes = generation_probes(case, trace)             # facts to check against the answer
    records = evaluator.evaluate_claims_batch([p.trace for p in probes])  # one probe each
    outcome = decide(case, trace, main, probes=probes, probe_records=records, context_hit=hit)

The judge is used through its public interface only (``Evaluator.evaluate_claims_batch``, the
claim verdicts ``evaluate_batch`` gives without what a probe does not use): a fact is
checked by asking whether the *answer*, given to the judge as the only passage, supports it.

- **Nugget**: the nugget is the "answer" and the assistant's answer the passage. Every claim of
  the nugget supported → YES, some → PARTIAL, none (or one contradicted) → NO.
- **Correctness**: the reference answer is checked the same way; ``correctness`` is the share
  of its claims the answer supports, and the answer is *correct* when that share is at least
  ``CORRECT_SHARE`` and no reference claim is contradicted. Without a reference answer the
  vital nuggets decide (all present → correct).
- **Abstention**: for an unanswerable case a refusal is correct and any answer is a
  hallucination (``false_answer``); for an answerable one a refusal is a ``false_refusal``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.record import Diagnosis, NuggetResult, NuggetVerdict

__all__ = [
    "CORRECT_SHARE",
    "GenerationOutcome",
    "Probe",
    "decide",
    "diagnose",
    "generation_probes",
    "nugget_verdict",
]

CORRECT_SHARE = 0.5

_SCORE: dict[NuggetVerdict, float] = {"YES": 1.0, "PARTIAL": 0.5, "NO": 0.0}


@dataclass(frozen=True)
class Probe:
    """One fact checked against the answer: the judge reads ``fact`` as the answer of a trace
    whose only passage is the assistant's answer (``passage``)."""

    kind: Literal["reference", "nugget"]
    index: int
    case_id: str
    question: str
    passage: str
    fact: str

    @cached_property
    def key(self) -> tuple[str, str, str]:
        """What the judge's verdict depends on: equal keys, equal records."""
        return (self.question, self.passage, self.fact)

    @property
    def trace(self) -> RagTrace:
        suffix = "reference" if self.kind == "reference" else f"nugget{self.index}"
        return RagTrace(
            trace_id=f"{self.case_id}#{suffix}",
            question=self.question,
            contexts=[self.passage],
            answer=self.fact,
        )


@dataclass
class GenerationOutcome:
    metrics: dict[str, float | None] = field(default_factory=dict)
    nuggets: list[NuggetResult] = field(default_factory=list)
    correct: bool | None = None
    diagnosis: Diagnosis = "unknown"
    passed: bool | None = None


def _answered(record: EvaluationRecord, trace: RagTrace) -> bool:
    return bool((trace.answer or "").strip()) and not record.refusal


def generation_probes(case: EvalCase, trace: RagTrace) -> list[Probe]:
    """The facts to check against the answer: the reference answer, then each nugget."""
    answer = (trace.answer or "").strip()
    if not case.answerable or not answer:
        return []
    probes: list[Probe] = []
    if case.reference_answer and case.reference_answer.strip():
        probes.append(Probe("reference", 0, case.id, case.question, answer, case.reference_answer))
    for i, nugget in enumerate(case.nuggets):
        probes.append(Probe("nugget", i, case.id, case.question, answer, nugget.text))
    return probes


def nugget_verdict(record: EvaluationRecord) -> NuggetVerdict:
    """YES when every claim is supported, PARTIAL when some are, NO otherwise."""
    if record.status != "scored" or not record.claims or record.contradicted_claims:
        return "NO"
    supported = sum(1 for c in record.claims if c.verdict == "supported")
    if supported == len(record.claims):
        return "YES"
    return "PARTIAL" if supported else "NO"


def diagnose(
    answerable: bool, refused: bool, context_hit: bool | None, correct: bool | None
) -> Diagnosis:
    """The 2×2 (gold context retrieved × answer correct), plus abstention."""
    if not answerable:
        return "correct_refusal" if refused else "false_answer"
    if refused:
        # A refusal is a wrong answer: it lands in the 2×2 by whether the gold context was
        # there (refusing despite it is generation's fault; with nothing retrieved, retrieval's).
        # ``false_refusal`` counts refusals on their own.
        if context_hit is None:
            return "abstained"
        return "generation_problem" if context_hit else "retrieval_problem"
    if correct is None or context_hit is None:
        return "unknown"
    if context_hit:
        return "working" if correct else "generation_problem"
    return "lucky" if correct else "retrieval_problem"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def decide(
    case: EvalCase,
    trace: RagTrace,
    main: EvaluationRecord,
    *,
    probes: Sequence[Probe],
    probe_records: Sequence[EvaluationRecord],
    context_hit: bool | None,
) -> GenerationOutcome:
    """Every generation metric of one case from the judge's records."""
    out = GenerationOutcome()
    m = out.metrics
    m["faithfulness"] = main.faithfulness
    m["contradicted_claims"] = float(main.contradicted_claims)
    m["not_found_claims"] = float(main.not_found_claims)
    m["has_contradiction"] = float(main.contradicted_claims > 0)
    m["answer_relevance"] = main.answer_relevance
    m["refusal"] = float(main.refusal)
    m["context_relevance_precision"] = main.context_precision
    answered = _answered(main, trace)
    refused = not answered

    by_kind = {(p.kind, p.index): r for p, r in zip(probes, probe_records, strict=True)}
    verdicts: list[NuggetVerdict] = []
    for i, nugget in enumerate(case.nuggets):
        record = by_kind.get(("nugget", i))
        verdict = nugget_verdict(record) if record is not None else "NO"
        verdicts.append(verdict)
        out.nuggets.append(NuggetResult(text=nugget.text, vital=nugget.vital, verdict=verdict))
    vital = [_SCORE[v] for v, n in zip(verdicts, case.nuggets, strict=True) if n.vital]
    if case.answerable and case.nuggets:
        m["nugget_recall"] = _mean([_SCORE[v] for v in verdicts])
        m["vital_nugget_recall"] = _mean(vital)
        m["all_vital_present"] = (
            float(all(v == "YES" for v, n in zip(verdicts, case.nuggets, strict=True) if n.vital))
            if vital
            else None
        )

    reference = by_kind.get(("reference", 0))
    if case.answerable:
        if refused:
            out.correct = False
            if case.reference_answer:
                m["correctness"] = 0.0
        elif reference is not None and reference.status == "scored" and reference.claims:
            share = sum(1 for c in reference.claims if c.verdict == "supported") / len(
                reference.claims
            )
            m["correctness"] = share
            out.correct = share >= CORRECT_SHARE and reference.contradicted_claims == 0
        elif case.nuggets and vital:
            out.correct = m.get("all_vital_present") == 1.0
        m["false_refusal"] = float(refused)
    else:
        out.correct = refused
        m["false_answer"] = float(not refused)
    m["correct"] = None if out.correct is None else float(out.correct)
    out.diagnosis = diagnose(case.answerable, refused, context_hit, out.correct)
    out.passed = out.correct
    return out
