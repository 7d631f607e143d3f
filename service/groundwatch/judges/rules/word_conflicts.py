"""Conflicts in the words themselves: a name swapped in place, a "non-" prefix, a name split.

Usage::

    negated_prefix("The fee is refundable.", "The fee is non-refundable.")
    # -> 'refundable vs non-refundable'
    entity_swap(ClaimTarget.build("Germany won the 2018 World Cup."), ["germany"],
                "France won the 2018 World Cup.", "Who won in 2018?")
    # -> 'entity mismatch: Germany vs France'

The slot checks (:mod:`groundwatch.judges.values.agreement`) compare values; these compare the words a
claim and a sentence about the same thing use for its names and its polarity.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundwatch.contract.record import Conflict
from groundwatch.judges.claims.target import ClaimTarget, fuzzy_in
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.slots import parse_slots

__all__ = [
    "entity_phrases_ok",
    "entity_rival",
    "entity_swap",
    "is_qualifier",
    "negated_prefix",
    "negated_prefix_pair",
]


def entity_phrases_ok(entities: Sequence[str], text: str) -> bool:
    """Multi-word names must appear as such: "Great Plains Aquifer" is not "Great Plains"."""
    seq = content_words(text)
    for ent in entities:
        parts = content_words(ent)
        if len(parts) < 2:
            continue
        n = len(parts)
        if not any(
            all(
                seq[k + j] == parts[j] or fuzzy_in(parts[j], frozenset((seq[k + j],)))
                for j in range(n)
            )
            for k in range(len(seq) - n + 1)
        ):
            return False
    return True


_NEG_PREFIX = re.compile(r"\bnon-?([a-z]{4,})\b", re.I)


def negated_prefix(claim: str, evidence: str) -> str | None:
    """The claim says "refundable" where the evidence says "non-refundable" (or vice versa)."""
    pair = negated_prefix_pair(claim, evidence)
    return None if pair is None else f"{pair[0]} vs {pair[1]}"


def negated_prefix_pair(claim: str, evidence: str) -> tuple[str, str] | None:
    """(the claim's word, the evidence's word) of :func:`negated_prefix`."""
    claim_l, evidence_l = claim.lower(), evidence.lower()
    for text, other in ((evidence_l, claim_l), (claim_l, evidence_l)):
        for m in _NEG_PREFIX.finditer(text):
            word = m.group(1)
            if re.search(rf"(?<![\w-]){re.escape(word)}\b", other) and not re.search(
                rf"\bnon-?{re.escape(word)}\b", other
            ):
                return (word, m.group(0)) if text is evidence_l else (m.group(0), word)
    return None


def entity_swap(
    target: ClaimTarget,
    hard_missing: list[str],
    evidence: str,
    question: str,
) -> str | None:
    """The claim names X where a sentence about the same thing names Y instead."""
    rival = entity_rival(target, hard_missing, evidence, question)
    return None if rival is None else f"entity mismatch: {rival.claim} vs {rival.evidence}"


def entity_rival(
    target: ClaimTarget,
    hard_missing: list[str],
    evidence: str,
    question: str,
) -> Conflict | None:
    """The names of :func:`entity_swap`, as data."""
    missing = set(hard_missing)
    claim_ents = [e for e in target.entities if set(content_words(e)) & missing]
    if not claim_ents:
        return None
    known = set(target.key) | set(content_words(question))
    # A rival must be the same kind of name: a code or designation ("K4", "C/2019") is no
    # rival for a word name ("Linz"), and the other way round.
    coded = _has_digit(claim_ents[0])
    others = [
        e
        for e in parse_slots(evidence).entities
        if not set(content_words(e)) <= known and _has_digit(e) == coded
    ]
    if not others:
        return None
    ent_words = set(content_words(claim_ents[0]))
    others.sort(key=lambda e: -len(set(content_words(e)) & ent_words))
    return Conflict(kind="entity", claim=claim_ents[0], evidence=others[0])


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def is_qualifier(target: ClaimTarget, missing: list[str], claim: str) -> bool:
    """ "In Canada, ..." / "for the Team plan": a name that scopes the claim, not its value."""
    for ent in target.entities:
        if not set(content_words(ent)) & set(missing):
            continue
        m = re.search(rf"(\w+)\s+(?:the\s+)?{re.escape(ent)}", claim)
        if m and m.group(1).lower() in _QUALIFIER_PREPS:
            return True
    return False


_QUALIFIER_PREPS = frozenset(
    ["in", "for", "at", "on", "within", "across", "during", "under", "per", "throughout"]
)
