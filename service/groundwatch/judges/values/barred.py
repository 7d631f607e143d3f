"""A value the passages bar: "bags over 32 kg are not accepted", and a "Yes" to one of them.

Usage::

    hit = barred("Can I check a 35 kg bag?", ["Bags over 32 kg are not accepted."])
    hit.asked, hit.stated   # '35 kg', 'Bags over 32 kg are not accepted'

A rule that bars a range of a value ("riders under 12 years are not permitted", "expenses above
£50 are not reimbursed without a receipt") answers every question of a value inside it: "Can I
check a 35 kg bag?" is answered no. The question's value must fall within the bound the passage
piece states (of exactly its kind), the piece must say the thing is not accepted, allowed,
permitted ... (a refusal, not any negation), and it must name something the question asks of
besides the value ("bags"), and every name it gives ("the Vortex coaster").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.bands import age_band, claim_age
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import stated_values

__all__ = ["Barred", "barred"]

#: A refusal: "are not accepted", "is not allowed", "cannot be carried", "may not ... admitted".
_REFUSED = re.compile(
    r"\b(?:not|never|cannot|can't|won't)\b(?:\s+\w+){0,2}?\s+"
    r"(?:accepted|allowed|permitted|admitted|eligible|carried|reimbursed|refunded|covered)\b",
    re.I,
)


@dataclass(frozen=True)
class Barred:
    """The question's value (``asked``), barred by the passage piece ``stated`` (in evidence
    ``sentence``)."""

    asked: str
    stated: str
    sentence: int


def barred(question: str, evidence: Sequence[str]) -> Barred | None:
    """The first of ``question``'s values that a piece of ``evidence`` bars; None otherwise."""
    asked = [v for v in stated_values(question) if v.quantity is not None and v.date is None]
    age = claim_age(question)
    if not asked and age is None:
        return None
    words = (
        set(content_words(question))
        - LIGHT_WORDS
        - {w for v in asked for w in content_words(v.text)}
    )
    names = [set(content_words(n)) for n in entity_spans(question)]
    for k, sentence in enumerate(evidence):
        for piece in clauses(sentence):
            if not _REFUSED.search(piece):
                continue
            said = set(content_words(piece))
            if not (words - _AGE_WORDS) & said or any(n - said for n in names):
                continue  # about something else ("the Log Flume", not "the Vortex coaster")
            band = age_band(piece) if age is not None else None
            if age is not None and band is not None and band[0] <= age <= band[1]:
                return Barred(f"{age:g} years old", piece.strip(), k)  # "my 10-year-old"
            for e in stated_values(piece):
                if e.quantity is None or not e.quantity.bound:
                    continue
                for v in asked:
                    if exact_kind(v, e) and agrees(v, e):
                        return Barred(v.text, piece.strip(), k)
    return None


_AGE_WORDS = frozenset(content_words("year years old age aged"))
