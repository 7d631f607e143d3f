"""A question that gives a value and asks which thing has it, answered with another thing.

Usage::

    hit = valued_name(
        "Which tier includes 50 GB of storage?",
        "Basic",
        ["The Basic tier includes 10 GB of storage, while the Plus tier includes 50 GB."],
    )
    hit.said, hit.said_value, hit.stated, hit.stated_value   # 'Basic', '10 GB', 'Plus', '50 GB'

"Which plan lets four devices stream?" gives the value and asks for the name. In a sentence
whose clauses give names their values side by side, an answer naming the thing whose clause
states another value of the asked kind, where another clause names another thing with the asked
value, names the wrong thing. An answer whose clause states the asked value too, or a question
without a value, is never crossed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.sentences import split_sentences
from groundwatch.judges.values.agreement import clauses_of
from groundwatch.judges.values.alignment import agrees
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.quantities import kinds_compatible
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = ["ValuedName", "valued_name"]

_ARTICLES = frozenset({"the", "a", "an"})


@dataclass(frozen=True)
class ValuedName:
    """The answer's name (``said``) stated with ``said_value``; ``stated`` with the asked one."""

    said: str
    said_value: str
    stated: str
    stated_value: str
    sentence: int


def _same_kind(a: StatedValue, b: StatedValue) -> bool:
    if a.quantity is None or b.quantity is None:
        return False
    return kinds_compatible(a.quantity, b.quantity)


def _name_words(text: str) -> frozenset[str]:
    """A name's words, lower-cased, function words kept ("Plus" is a tier's name)."""
    return frozenset(w for w in re.findall(r"[\w'-]+", text.lower()) if w not in _ARTICLES)


def valued_name(question: str, answer: str, evidence: Sequence[str]) -> ValuedName | None:
    """The clause pair of one ``evidence`` sentence that gives ``answer`` another value than the
    one ``question`` gives, and another name that one; None otherwise."""
    asked = [v for v in stated_values(question) if v.quantity is not None]
    mine = _name_words(answer)
    if not asked or not mine:
        return None
    question_words = set(_name_words(question))
    for k, text in enumerate(evidence):
        for sentence in split_sentences(text) or [text]:
            hit = _in_sentence(asked, (answer, mine), question_words, sentence, k)
            if hit is not None:
                return hit
    return None


def _in_sentence(
    asked: list[StatedValue],
    named: tuple[str, frozenset[str]],
    question_words: set[str],
    sentence: str,
    k: int,
) -> ValuedName | None:
    answer, mine = named  # as written, and its words
    clauses = [(c, stated_values(c)) for c in clauses_of(sentence)]
    own = [(c, vs) for c, vs in clauses if mine <= _name_words(c)]
    if not own:
        return None
    for want in asked:
        kind = [v for _, vs in own for v in vs if _same_kind(v, want)]
        if not kind or any(agrees(v, want) or agrees(want, v) for v in kind):
            continue  # the answer's clause gives no value of the kind, or the asked one
        for clause, values in clauses:
            if mine <= _name_words(clause):
                continue
            right = [v for v in values if _same_kind(v, want) and agrees(v, want)]
            names = [
                n
                for n in entity_spans(clause)
                if _name_words(n) and not _name_words(n) <= (mine | question_words)
            ]
            if right and names:
                return ValuedName(answer, kind[0].text, names[0], right[0].text, k)
    return None
