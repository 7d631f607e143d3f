"""The yes or no of a longer answer ("Yes, from 10 am", "No, just a cabin bag"): a claim of its
own (:func:`groundwatch.judges.claims.extract.extract_claims`), judged with what the answer says
with it.

Usage::

    polar(claim, question)                  # the claim is a bare "<question>? Yes."
    check_polar_part(claim, question, sentences, trace)   # a backend's contradiction of it
    polar_held(claims, question)            # the answer's claims, its yes or no read with them

* A backend's contradiction of the yes or no alone ("I cannot bring a cabin bag and a hold bag"
  against the passage's "a cabin bag") stands only where a passage clause is its statement
  turned round (:func:`groundwatch.judges.yes_no.check_yes_no`); else it is not found: the rules
  judge's negation reading of it cost the dev halves 3 false contradictions (Session 54).
* Where the passages contradict what the answer says with it ("Yes, it runs at under 40 dB"),
  the yes or no is not found, never supported; a yes to a question that states the contradicted
  value itself ("Is it lighter than 1 kg?") is contradicted with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.cases import as_not_found
from groundwatch.judges.claims.short_answers import terse_parts
from groundwatch.judges.values.stated import normalised
from groundwatch.judges.yes_no import check_yes_no

__all__ = ["check_polar_part", "polar", "polar_held", "polar_part"]

_POLAR = frozenset({"yes", "no"})


def _said(claim: ClaimJudgement, question: str) -> str:
    """The answer part of ``claim`` (``"<question>? Yes."``: "yes"), lower-cased."""
    parts = terse_parts(claim.text, question)
    return (parts[1] if parts is not None else claim.text).strip(" .!").lower()


def polar(claim: ClaimJudgement, question: str) -> bool:
    """``claim`` is a bare yes or no (``"<question>? Yes."``)."""
    return _said(claim, question) in _POLAR


def polar_part(claim: ClaimJudgement, trace: RagTrace) -> bool:
    """``claim`` is the yes or no of an answer that says more ("Yes, from 10 am")."""
    answer = (trace.answer or "").strip(" .!").lower()
    return polar(claim, trace.question) and answer not in _POLAR


def check_polar_part(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement:
    """A backend's contradiction of the yes or no of a longer answer: kept where a passage
    clause turns its statement round, else not found."""
    plain = replace(claim, verdict="supported", reason=None, conflict=None)
    flipped = check_yes_no(plain, question, sentences, trace)
    if flipped is not None and flipped.verdict == "contradicted":
        return flipped
    return as_not_found(claim, "the answer's yes or no alone: what it rests on decides")


def polar_held(claims: Sequence[ClaimJudgement], question: str) -> list[ClaimJudgement]:
    """The answer's ``claims``, its supported yes or no held back (or contradicted) where the
    passages contradict what the answer says with it."""
    hits = [c for c in claims if c.verdict == "contradicted"]
    rest = [c for c in claims if not polar(c, question)]
    if rest and all(c.verdict == "supported" for c in rest):
        # "Yes, you can register at 16": a yes the passages cannot settle alone is what the
        # rest says; not a claim of its own (the rules judge could not read most of them:
        # blind5 true support kept 0.290 -> 0.217, Session 54)
        return [c for c in claims if c.verdict != "not_found" or not polar(c, question)]
    if not hits:
        return list(claims)
    asked = normalised(question).lower()
    restated = next(
        (
            c
            for c in hits
            if c.conflict is not None
            and c.conflict.claim
            and normalised(c.conflict.claim).lower() in asked
        ),
        None,
    )
    out: list[ClaimJudgement] = []
    for c in claims:
        if c.verdict != "supported" or not polar(c, question):
            out.append(c)
        elif restated is not None and _said(c, question) == "yes":
            out.append(
                replace(
                    c,
                    verdict="contradicted",
                    score=restated.score,
                    evidence=restated.evidence,
                    reason=restated.reason,
                    conflict=restated.conflict,
                )
            )
        else:
            out.append(as_not_found(c, "the answer's yes or no rests on a contradicted claim"))
    return out
