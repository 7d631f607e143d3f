"""A claim whose passage clause says the same with the negation turned round, for every backend.

Usage::

    turned = check_negated(claim, sentences, trace)   # contradicted, or None

The verifier reads the negation twin of its best-aligned sentence itself
(:mod:`.verified`); the rules judge and the remote backends did not, so "Bob Dylan attended the
ceremony in Stockholm" against "He did not attend the ceremony in Stockholm" was not found with
them. Here every passage sentence is read, each with its passage's text before it (a clause whose
subject is a pronoun refers back: :func:`.rules.negation_twin.negation_twin`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from groundwatch.contract.record import Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.rules.negation_twin import negation_twin

__all__ = ["check_negated", "turned_round"]


def check_negated(
    claim: ClaimJudgement, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement | None:
    """``claim`` contradicted where the clause it was judged by (its evidence sentence) is its
    statement with the negation turned round; None otherwise (and for a claim already
    contradicted). Against every passage sentence, the triage bank set gained a false
    contradiction with each judge (Session 54)."""
    if claim.verdict == "contradicted" or claim.evidence is None:
        return None
    return turned_round(claim, claim.text, sentences, trace, within=claim.evidence.text)


def turned_round(
    claim: ClaimJudgement,
    statement: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    within: str | None = None,
    why: str = "",
) -> ClaimJudgement | None:
    """``claim`` contradicted where a passage sentence (only ``within``, when given) is
    ``statement`` with the negation turned round, each sentence read with its passage's text
    before it; ``why`` is added to the reason. None where none is."""
    for k, (ctx, text) in enumerate(sentences):
        if within is not None and text != within:
            continue
        before = " ".join(t for c, t in sentences[:k] if c == ctx)
        twin = negation_twin(statement, text, before)
        if twin is not None:
            reason, conflict = twin
            return replace(
                claim,
                verdict="contradicted",
                score=1.0,
                evidence=Evidence(context_index=ctx, context_id=trace.contexts[ctx].id, text=text),
                reason=f"{reason} ({why})" if why else reason,
                conflict=conflict,
            )
    return None
