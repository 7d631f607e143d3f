"""Names in a coordination whose second half leaves its verb out.

Usage::

    hit = gapped_rival("Who runs the Riverside Bistro?", "Ana Diaz",
                       ["The Copper Bar is run by Ana Diaz, and the Riverside Bistro by Leo Marsh."])
    hit.stated, hit.asked     # 'Leo Marsh', ('riversid', 'bistro')

"X is run by A, and Y by B" and "A edited the 2019 edition, and B the 2022 one" say the same
of two things, the verb written once. The halves are cut at ", and", a bare "and" before a
name, a semicolon, "while", "whereas" and "but". A short answer's name said in one half, where
another half says question's words the answer's half does not (the other half has no verb: at
most one plain word beside its names and asides), and names someone else beside them: the
question asks the other half's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.grammar import is_verb
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.entities import entity_spans

__all__ = ["GappedRival", "gapped_rival"]

_HALF = re.compile(
    r",\s+and\s+|\s+and\s+(?=[A-Z])|;\s*|,?\s+(?:while|whereas)\s+|,\s+but\s+", re.UNICODE
)
#: Only a question that asks "Who ...?": one that asks "which <kind>" names the answer by its
#: kind, which another half may state too (HaluEval QA dev lost true answers otherwise).
_WHO = re.compile(r"\s*(?:who|whom)\b", re.I)
_WH = frozenset({"who", "whom", "whose", "which", "what", "where", "when", "how"})


@dataclass(frozen=True)
class GappedRival:
    """The name another half of evidence ``sentence`` gives (``stated``), with the question's
    words it says (``asked``) that the answer's half does not."""

    stated: str
    asked: tuple[str, ...]
    sentence: int


def _words(text: str) -> frozenset[str]:
    """The content words of ``text``, and its codes of digits and letters ("3.x", "v2")."""
    codes = {c.lower().rstrip(".") for c in _CODE.findall(text)}
    return frozenset(w for w in content_words(text) if w.isalpha()) | codes


_CODE = re.compile(r"\b(?=[\w.]*\d)(?=[\w.]*[A-Za-z])[\w.]+")
_ASIDE = re.compile(r",[^,]*,")


def _verbless(half: str) -> bool:
    """No verb and at most one plain (lowercase) word outside its asides: a half that leaves
    the verb out ("Saltmarsh, the seafood restaurant, by Hannah Okafor"; not "Leeds staff
    report to ...", "Northbound was directed by ...")."""
    tokens = re.findall(r"[A-Za-z][\w'’-]*", _ASIDE.sub(" ", half))
    if any(is_verb(t) or (t[0].islower() and t.endswith("ed")) for t in tokens):
        return False
    plain = [t for t in tokens if t[0].islower() and content_words(t)]
    return len(plain) <= 1


def gapped_rival(question: str, answer: str, evidence: Sequence[str]) -> GappedRival | None:
    """The first sentence of ``evidence`` whose half naming ``answer`` says none of the
    question's words another half says, beside another name; None when there is none."""
    mine = _words(answer)
    if not mine or not _WHO.match(question):
        return None
    asked = _words(question) - _WH - mine
    for k, sentence in enumerate(evidence):
        halves = [h for h in _HALF.split(sentence) if h.strip()]
        if len(halves) < 2:
            continue
        own = [h for h in halves if mine <= _words(h)]
        if len(own) != 1:
            continue
        said = _words(own[0]) & asked
        for half in halves:
            if half is own[0]:
                continue
            theirs = _words(half) & asked
            if not theirs - said:
                continue
            if not (_verbless(half) or _verbless(own[0])):
                continue  # two halves with verbs of their own: no verb left out
            names = [n for n in entity_spans(half) if _words(n) and not _words(n) & (asked | mine)]
            if len(names) == 1:
                return GappedRival(names[0], tuple(sorted(theirs - said)), k)
    return None
