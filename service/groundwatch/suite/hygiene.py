"""Label hygiene: does every gold quote still exist in the corpus?

Usage::

    report = check_evidence(cases, corpus)      # corpus: {doc_id: text}
    report.kept, report.quarantined             # run the kept ones; fix or drop the others

Documents get edited, renamed and deleted; a case whose gold evidence vanished measures nothing
but the edit. A piece of evidence is *present* when its document exists and contains the quote
(normalised as in ``matching``) or the span lies inside the text; *drifted* when only the fuzzy
rule finds it (kept, reported); *missing* otherwise (the case is quarantined).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from groundwatch.suite.cases import EvalCase, EvidenceQuote
from groundwatch.suite.matching import FUZZY_SHARE, normalise

__all__ = ["EvidenceProblem", "HygieneReport", "check_evidence"]


@dataclass(frozen=True)
class EvidenceProblem:
    case_id: str
    evidence_index: int
    doc_id: str
    problem: Literal["document_missing", "quote_missing", "span_out_of_range", "quote_drifted"]


@dataclass
class HygieneReport:
    kept: list[EvalCase] = field(default_factory=list)
    quarantined: list[EvalCase] = field(default_factory=list)
    problems: list[EvidenceProblem] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"{len(self.kept)} case(s) kept, {len(self.quarantined)} quarantined"]
        out += [
            f"  {p.case_id} evidence[{p.evidence_index}] ({p.doc_id}): {p.problem}"
            for p in self.problems
        ]
        return out


def _drifted(quote: str, text: str) -> bool:
    words = quote.split()
    have = set(text.split())
    return bool(words) and sum(w in have for w in words) / len(words) >= FUZZY_SHARE


def check_evidence(cases: Sequence[EvalCase], corpus: Mapping[str, str]) -> HygieneReport:
    report = HygieneReport()
    normal = {doc: f" {normalise(text)} " for doc, text in corpus.items()}
    for case in cases:
        fatal = False
        for i, ev in enumerate(case.evidence):
            if ev.doc_id not in corpus:
                report.problems.append(EvidenceProblem(case.id, i, ev.doc_id, "document_missing"))
                fatal = True
                continue
            if not isinstance(ev, EvidenceQuote):
                if ev.end > len(corpus[ev.doc_id]):
                    report.problems.append(
                        EvidenceProblem(case.id, i, ev.doc_id, "span_out_of_range")
                    )
                    fatal = True
                continue
            wanted = normalise(ev.quote)
            if f" {wanted} " in normal[ev.doc_id]:
                continue
            if _drifted(wanted, normal[ev.doc_id]):
                report.problems.append(EvidenceProblem(case.id, i, ev.doc_id, "quote_drifted"))
                continue
            report.problems.append(EvidenceProblem(case.id, i, ev.doc_id, "quote_missing"))
            fatal = True
        (report.quarantined if fatal else report.kept).append(case)
    return report
