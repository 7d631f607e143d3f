"""A value the passages state for the opposite case: "unmetered" when "metered" is asked.

Usage::

    [v] = stated_values("£486 a year")
    hit = opposite_case(v, "What's the annual charge for metered customers? £486 a year.", [
        "Metered customers are billed every six months.",
        "Unmetered customers pay a fixed annual charge of £486."])
    hit.said, hit.case, hit.stated   # '£486', 'Unmetered', None

Prices and rules are listed for a case and its negation ("members" / "non-members",
"residents" / "non-residents", "metered" / "unmetered", "EU" / "non-EU"). A word and its form
with a negating prefix name two cases for certain, whatever the sentences look like; the value
of one claimed for the other is the wrong case's. When a clause about the asked case states a
value of the same kind instead, that is the value; else the asked case's is not stated.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = ["Opposite", "opposite_case"]

# "un-", "non-" (with or without the hyphen); the rest a word of four letters or more.
_NEGATED = re.compile(r"\b(un|non-?)([a-z]{4,})", re.IGNORECASE)


@dataclass(frozen=True)
class Opposite:
    """A claim value the evidence states only for the opposite of an asked case."""

    said: str  # the value as the evidence writes it
    case: str  # the opposite case, as written ("Unmetered", "non-members")
    stated: str | None  # the value a clause about the asked case states instead, if any
    sentence: int | None  # the evidence sentence stating it


def _cases(text: str) -> tuple[frozenset[str], dict[str, str]]:
    """The words ``text`` says plainly, and those it says negated (stem -> as written)."""
    negated: dict[str, str] = {}
    for m in _NEGATED.finditer(text):
        base = content_words(m.group(2))
        if base:
            negated.setdefault(base[0], m.group(0))
    return frozenset(content_words(_NEGATED.sub(" ", text))), negated


def _turned(claim: str, clause: str) -> tuple[str, str] | None:
    """(the word, the clause's case as written) when ``clause`` is about the opposite of a case
    ``claim`` names: one says a word plainly, the other only negated, or the other way round."""
    plain, negated = _cases(claim)
    c_plain, c_negated = _cases(clause)
    for word, written in c_negated.items():
        if word in plain and word not in negated and word not in c_plain:
            return word, written  # "metered" asked, "unmetered" stated
    for word in negated:
        if word in c_plain and word not in c_negated and word not in plain:
            return word, next(w for w in clause.split() if word in content_words(w))
    return None


def opposite_case(
    value: StatedValue,
    claim: str,
    evidence: Sequence[str],
    claimed: Sequence[StatedValue] = (),
    passage_of: Sequence[int] | None = None,
) -> Opposite | None:
    """Where every clause stating ``value`` is about the opposite of a case ``claim`` (with its
    question) names: the value is the opposite case's. None otherwise."""
    if value.kind == "year":
        return None
    pieces = [(k, c) for k, s in enumerate(evidence) for c in clauses(s)]
    stating = [(k, c) for k, c in pieces if any(agrees(value, e) for e in stated_values(c))]
    if not stating:
        return None
    turned = [_turned(claim, c) for _, c in stating]
    if any(t is None for t in turned):
        return None
    first = turned[0]
    assert first is not None
    k0, c0 = stating[0]
    said = next(e.text for e in stated_values(c0) if agrees(value, e))
    for k, c in pieces:
        if _turned(claim, c) is not None or first[0] not in _cases(c)[0] | set(_cases(c)[1]):
            continue  # about the opposite case too, or about neither
        if passage_of is not None and passage_of[k] != passage_of[k0]:
            continue
        for e in stated_values(c):
            if exact_kind(value, e) and not any(agrees(v, e) for v in (value, *claimed)):
                return Opposite(said, first[1], e.text, k)
    return Opposite(said, first[1], None, None)
