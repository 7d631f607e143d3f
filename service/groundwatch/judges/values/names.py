"""A short answer's name, accounted for: the name the evidence gives for the question's relation.

Usage::

    hit = account_name("Who designed the Sydney Opera House?", "Frank Gehry",
                       ["The Sydney Opera House was designed by the Danish architect Jørn Utzon."])
    hit.status, hit.evidence   # 'conflict', 'Jørn Utzon'

The candidates are the names (capitalised spans) of the evidence sentences that the question
does not name itself; each is scored, like a value (:mod:`.alignment`), by how well the words
around it match the question's. The answer is **agreed** when it is (part of) a candidate aligned
about as well as the best one; in **conflict** when another candidate is clearly the one the
evidence gives for the question (and the answer is not); **unaccounted** otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.alignment import (
    CONFLICT_SCORE,
    MARGIN,
    NAME_AGREE_SLACK,
    attribute_score,
    rarity,
)
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.stated import attribute_at

__all__ = ["NameAccount", "account_name"]

#: Names at most this many characters apart, with no clause break between them, are side by
#: side: one answer ("the Danish architect Jørn Utzon").
_BESIDE_CHARS = 40
_BREAK = re.compile(r"[;:,()]|\b(?:and|or|but|while|whereas)\b")


@dataclass(frozen=True)
class NameAccount:
    """Where a short answer's name stands: "agreed", "conflict" or "unaccounted"."""

    status: str
    answer: str
    evidence: str | None = None
    sentence: int | None = None
    score: float = 0.0
    #: The name aligned best with the question (another than the answer's) and its sentence.
    leader: str | None = None
    leader_sentence: int | None = None


def _words(name: str) -> frozenset[str]:
    return frozenset(content_words(name))


@lru_cache(maxsize=16384)
def _names_in(sentence: str) -> tuple[tuple[str, int, int], ...]:
    out: list[tuple[str, int, int]] = []
    pos = 0
    for name in entity_spans(sentence):
        start = sentence.find(name, pos)
        if start < 0:
            start = sentence.find(name)
        if start < 0:
            continue
        out.append((name, start, start + len(name)))
        pos = start + len(name)
    return tuple(out)


#: An appositive right after a name says what the name is: "Sydney, the largest city, has ...",
#: "Canberra, Australia's capital, ...".
_APPOSITIVE = re.compile(
    r"\s*,\s*((?:the|a|an|its|their|his|her|[A-Z][\w'’-]*['’]s)\s[^,;:()]{1,60}?),"
)


#: After a name, a verb and its object: the name is the subject, no qualifier of a noun.
_VERB_NEXT = re.compile(r"\s+[a-z]+(?:s|ed)\s+(?:the|a|an|its|their|his|her|this|these)\b")
_HEADING = re.compile(r"[^:;]{1,80}:(?!\d)")
_PART = re.compile(r";|\s(?:while|whereas|but)\s")
#: The weights of the words of a name's part of its sentence, and of the other parts.
_OWN_PART = 0.8
_OTHER_PART = 0.3


@lru_cache(maxsize=16384)
def _name_attribute(sentence: str, start: int, end: int) -> Mapping[str, float]:
    attribute = attribute_at(sentence, start, end)
    # the part of the sentence the name is in (up to "while", "whereas", "but", a semicolon) is
    # what is said of it; another part is said of another name
    cuts = [0, *(m.start() for m in _PART.finditer(sentence)), len(sentence)]
    lo = max(c for c in cuts if c <= start)
    hi = min(c for c in cuts if c >= end)
    heading = _HEADING.match(sentence)  # "HR contacts: for the London office, ...; for ..."
    shared = sentence[: heading.end()] if heading is not None else ""
    own = set(content_words(f"{shared} {sentence[lo:start]} {sentence[end:hi]}"))
    for word in list(attribute):
        if word in own:
            attribute[word] = max(attribute[word], _OWN_PART)
        else:
            attribute[word] = min(attribute[word], _OTHER_PART)
    appositive = _APPOSITIVE.match(sentence, end)
    if appositive is not None:
        for word in content_words(appositive.group(1)):
            attribute[word] = 1.0
    return MappingProxyType(attribute)


def _beside(a: tuple[int, int, int], b: tuple[int, int, int], evidence: Sequence[str]) -> bool:
    """Two name spans (sentence, start, end) side by side in one clause."""
    if a[0] != b[0]:
        return False
    lo, hi = sorted([a, b], key=lambda t: t[1])
    between = evidence[a[0]][lo[2] : hi[1]]
    return len(between) <= _BESIDE_CHARS and not _BREAK.search(between)


def account_name(question: str, answer: str, evidence: Sequence[str]) -> NameAccount | None:
    """The account of ``answer``'s name against ``evidence``; None when the answer names
    nothing (no capitalised word beyond what the question names)."""
    asked = {w for n in entity_spans(question) for w in _words(n)}
    named = [n for n in entity_spans(answer) if _words(n) - asked]
    if not named:
        return None
    mine = set().union(*(_words(n) for n in named))
    # the word the question asks by ("Which zoo ...?": "Edinburgh Zoo", "Chester Zoo") tells
    # no name from another
    mine = (mine - set(content_words(question))) or mine
    q_attr = attribute_at(f"{question.rstrip('?').strip()} ", len(question) + 1, len(question) + 1)
    cands = []
    q_words = set(content_words(question))
    for k, sentence in enumerate(evidence):
        for name, start, end in _names_in(sentence):
            words = _words(name)
            if not words or words <= asked:
                continue
            following = content_words(sentence[end : end + 30])[:1]
            apposed = sentence[end : end + 2].lstrip().startswith(",")  # "Sydney, the largest"
            apposed = apposed or bool(_VERB_NEXT.match(sentence, end))  # "Pryce Baxter advises the"
            if following and following[0] in q_words and not words & mine and not apposed:
                continue  # "the London office" for a question about an office: a qualifier
            cands.append((name, k, words, _name_attribute(sentence, start, end), start, end))
    if not cands:
        return NameAccount("unaccounted", named[0])
    r = rarity([c[3] for c in cands])
    scored = [
        (attribute_score(q_attr, attr, r), name, k, words, (k, start, end))
        for name, k, words, attr, start, end in cands
    ]
    top = max(t[0] for t in scored)
    leader = max(scored, key=lambda t: t[0])
    # Names side by side ("the Danish architect Jørn Utzon") are one answer: the longest.
    beside = [t for t in scored if _beside(t[4], leader[4], evidence)]
    best = max(beside, key=lambda t: (len(t[3]), t[0]))
    agreeing = [t for t in scored if t[3] & mine]
    best_agree = max(agreeing, key=lambda t: t[0]) if agreeing else None
    if best_agree is not None and (best_agree[0] >= top - NAME_AGREE_SLACK or best_agree in beside):
        rivals = [t for t in scored if not t[3] & mine]
        lead = max(rivals, key=lambda t: t[0]) if rivals else None
        return NameAccount(
            "agreed", named[0], best_agree[1], best_agree[2], best_agree[0],
            leader=lead[1] if lead is not None and lead[0] > best_agree[0] else None,
            leader_sentence=lead[2] if lead is not None else None,
        )  # fmt: skip
    clear = top >= CONFLICT_SCORE and (best_agree is None or top - best_agree[0] >= MARGIN)
    if clear and not best[3] & mine:
        return NameAccount("conflict", named[0], best[1], best[2], best[0])
    if best[3] & mine:
        return NameAccount("unaccounted", named[0])
    return NameAccount("unaccounted", named[0], leader=best[1], leader_sentence=best[2])
