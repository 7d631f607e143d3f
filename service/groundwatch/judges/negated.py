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

__all__ = ["check_negated"]


def check_negated(
    claim: ClaimJudgement, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement | None:
    """``claim`` contradicted where a passage clause is its statement with the negation turned
    round; None otherwise (and for a claim already contradicted)."""
    if claim.verdict == "contradicted" or claim.evidence is None:
        return None
    for k, (ctx, text) in enumerate(sentences):
        if text != claim.evidence.text:
            continue  # the sentence the backend read the claim against (every sentence: the
            # triage bank set gained a false contradiction, Session 54)
        before = " ".join(t for c, t in sentences[:k] if c == ctx)
        twin = negation_twin(claim.text, text, before)
        if twin is not None:
            reason, conflict = twin
            return replace(
                claim,
                verdict="contradicted",
                score=1.0,
                evidence=Evidence(context_index=ctx, context_id=trace.contexts[ctx].id, text=text),
                reason=reason,
                conflict=conflict,
            )
    return None
