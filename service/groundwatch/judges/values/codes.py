"""Codes: grades, bands, ratings and designations written as short capitalised tokens ("EPC rating
C", "Council Tax band D", "0W-20 oil", "IP67"), and a short answer that gives one. A code is
one letter (maybe signed: "B+") or letters with digits; an acronym ("NBC") is a name.

Usage::

    hit = account_code("What's the EPC rating of the house?", "D",
                       ["Council Tax band D, EPC rating C, freehold."])
    hit.status, hit.stated   # 'conflict', 'C'

A code is compared by its shape (a capital letter for each letter, 9 for each digit, the
punctuation as written: "0W-20" is "9A-99", "B+" is "A+"): codes of one shape are values of one
kind. A passage's codes of the answer's shape are its candidates; each is read with the words
around it in its clause (three before, three after: "EPC rating", "fully synthetic oil"). The
candidate whose words share the most with the question is the code it gives for what is asked:
the answer **agrees** when it is that code (or one as well aligned), and is in **conflict** when
that code is another, the only one aligned best, by a word of the question that no other
candidate has ("physics" for "grade C in Physics", not "grade").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.words import content_words

__all__ = ["CodeAccount", "account_code", "is_code"]

_CODE = re.compile(r"(?<![\w.\-/])(?=[A-Z0-9+\-/]*[A-Z])[A-Z0-9][A-Z0-9+\-/]{0,6}(?![\w\-/])")
#: Words an answer may put before its code: "Band D", "Grade B".
_LEAD = re.compile(
    r"(?:(?:it(?:'s| is)|the|a|an)\s+)?(?:(?:band|grade|rating|class|category|level|tier|group|"
    r"zone|type|code|size)\s+)?",
    re.I,
)
_WORDS_AROUND = 3
_CLAUSE = re.compile(r"[,;:()]|\s(?:and|or|but|while|whereas)\s")


@dataclass(frozen=True)
class CodeAccount:
    """Where a short answer's code stands against the passages: "agreed", "conflict" or
    "unaccounted"; ``stated``: the code the passages give for what is asked (``sentence``: its
    index)."""

    status: str
    answer: str
    stated: str | None = None
    sentence: int | None = None


def _shape(code: str) -> str:
    return re.sub(r"\d", "9", re.sub(r"[A-Z]", "A", code))


#: A grade: one letter, maybe with a sign ("B+", "A-").
_GRADE = re.compile(r"[A-Z][+\-]?")


def is_code(answer: str) -> str | None:
    """The code ``answer`` is, when it is nothing else ("D", "Band D", "0W-30."); else None."""
    text = answer.strip().rstrip(".").strip()
    lead = _LEAD.match(text)
    rest = text[lead.end() :] if lead is not None else text
    m = _CODE.fullmatch(rest)
    if m is None or rest.isdigit():
        return None
    if not _GRADE.fullmatch(rest) and not any(ch.isdigit() for ch in rest):
        return None
    return m.group(0)


def _codes(text: str) -> list[re.Match[str]]:
    """The codes of ``text``; not "A" or "I" opening a sentence or before a lower-case word
    (an article, a pronoun)."""
    out = []
    for m in _CODE.finditer(text):
        if not _GRADE.fullmatch(m.group(0)) and not any(ch.isdigit() for ch in m.group(0)):
            continue  # "EPC", "NBC": an acronym is a name, no code
        if m.group(0) in ("A", "I"):
            opening = not text[: m.start()].strip() or text[: m.start()].rstrip()[-1:] in ".!?:;"
            if opening or re.match(r"\s+[a-z]", text[m.end() :]):
                continue
        out.append(m)
    return out


def _around(sentence: str, start: int, end: int) -> set[str]:
    """The content words of the code's clause within three words either side."""
    cuts = [0, *(m.end() for m in _CLAUSE.finditer(sentence, 0, start))]
    after = _CLAUSE.search(sentence, end)
    before = content_words(sentence[max(cuts) : start])[-_WORDS_AROUND:]
    following = content_words(sentence[end : after.start() if after else len(sentence)])
    return set(before) | set(following[:_WORDS_AROUND])


def account_code(question: str, answer: str, evidence: Sequence[str]) -> CodeAccount | None:
    """The account of ``answer``'s code (None when the answer is no code)."""
    code = is_code(answer)
    if code is None:
        return None
    asked = set(content_words(question)) - LIGHT_WORDS
    shape = _shape(code)
    given = {m.group(0) for m in _codes(question)}
    cands: list[tuple[int, str, int, set[str]]] = []  # (score, code, sentence, words)
    for k, sentence in enumerate(evidence):
        for m in _codes(sentence):
            if _shape(m.group(0)) != shape or m.group(0) in given:
                continue
            words = _around(sentence, m.start(), m.end())
            cands.append((len(words & asked), m.group(0), k, words))
    if not cands:
        return CodeAccount("unaccounted", code)
    best = max(t[0] for t in cands)
    mine = [t for t in cands if t[1] == code]
    if any(t[0] >= best for t in mine):
        top = max(mine, key=lambda t: t[0])
        return CodeAccount("agreed", code, top[1], top[2])
    leaders = [t for t in cands if t[0] == best]
    leader = leaders[0]
    own = set().union(*(t[3] for t in mine)) if mine else set()
    # the one code best aligned, by a word of the question no other candidate has
    others = set().union(*(t[3] for t in cands if t is not leader and t[1] != leader[1]))
    telling = (leader[3] & asked) - own - others
    if best >= 1 and len({t[1] for t in leaders}) == 1 and telling:
        return CodeAccount("conflict", code, leader[1], leader[2])
    return CodeAccount("unaccounted", code)
