"""A case the question asks that the passages never state, while they state the answer's value
for another one.

Usage::

    hit = uncovered_case(
        "What's the minimum connection time at Munich for international connections?",
        "30 minutes",
        ["At Munich the minimum is 30 minutes for all domestic connections."],
    )
    hit.asked, hit.stated   # 'international connections', 'domestic connections'

"Can Canadian passport holders visit visa-free? Yes, for up to 90 days" against "Travellers
holding a UK, Irish or Australian passport can visit ... for up to 90 days": the value is the
passage's, but for other cases. The question qualifies a noun the passage uses ("passport",
"connections") with a word no passage has ("Canadian", "international"); the sentence stating
the answer's value qualifies that noun with a word of its own ("Australian", "domestic"). The
same holds for a purpose: "How long should I take it for a stomach ulcer?" against "for
heartburn, take one capsule a day for 14 days" (:func:`_purposes`). The answer is then not
supported by the passages: it may hold or not, the passages do not say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.matching import fuzzy_in, spells
from groundwatch.judges.text.words import as_written, content_words

__all__ = ["Uncovered", "uncovered_case", "unmentioned"]

_WORD = re.compile(r"\w[\w'’-]*", re.UNICODE)


#: Words any question about a value may use, whatever it is about.
_ASKING = frozenset(
    content_words(
        "time day date long much many often year price cost amount number size age old far "
        "big large small high low fast"
    )
)


@dataclass(frozen=True)
class Uncovered:
    """The case asked (as the question writes it) and the one stated (as the passage does)."""

    asked: str
    stated: str
    sentence: int


def _pairs(text: str) -> list[tuple[str, str, bool]]:
    """Adjacent content words of ``text`` (stems), in order, and whether the first is written
    as a name (capitalised, not opening the text); none of them with a digit ("2nd") or part
    of a hyphenated compound, and no punctuation between them."""
    out: list[tuple[str, str, bool]] = []
    words: list[tuple[str, bool]] = []
    end = 0
    for m in _WORD.finditer(text):
        stems = content_words(m.group(0))
        if text[end : m.start()].strip():
            words = []  # punctuation between: no phrase
        end = m.end()
        if len(stems) != 1 or any(ch.isdigit() for ch in m.group(0)):
            words = []  # a stopword, a number or a compound breaks the phrase
            continue
        words.append((stems[0], m.group(0)[:1].isupper() and m.start() > 0))
        if len(words) >= 2:
            out.append((words[-2][0], words[-1][0], words[-2][1]))
    return out


#: "for <up to three words>" up to punctuation or another function word: a purpose or a case
#: ("for a stomach ulcer", "for nappy rash"), not a duration ("for 7 days").
_PURPOSE = re.compile(
    r"\bfor\s+(?:an?\s+|the\s+)?(?P<what>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2})"
)


def _purposes(text: str) -> list[tuple[str, frozenset[str]]]:
    """Each "for ..." phrase of ``text`` as written and its content words."""
    out = []
    for m in _PURPOSE.finditer(text):
        words: list[str] = []
        for token in m.group("what").split():
            stems = content_words(token)
            if not stems:
                break  # "for nappy rash in babies": the phrase ends at a function word
            words.append(token)
        if words:
            out.append((f"for {' '.join(words)}", frozenset(content_words(" ".join(words)))))
    return out


def _uncovered_purpose(
    question: str,
    answer_values: Sequence[str],
    evidence: Sequence[str],
    seen: set[str],
    answer: str,
) -> Uncovered | None:
    """A purpose the question asks that no passage has a word of, while the sentence stating
    the answer's value states another purpose (one the answer does not state itself: "Bank
    transfer is available for annual plans over $1,000" answers "... for payment?")."""
    asked_words = set(content_words(question))
    for asked, words in _purposes(question):
        if words & seen:
            continue
        for k, sentence in enumerate(evidence):
            if not any(v and v in sentence for v in answer_values):
                continue
            for stated, theirs in _purposes(sentence):
                if not theirs & asked_words and stated.lower() not in answer.lower():
                    return Uncovered(asked.removeprefix("for "), stated.removeprefix("for "), k)
    return None


def uncovered_case(
    question: str, answer_values: Sequence[str], evidence: Sequence[str], answer: str = ""
) -> Uncovered | None:
    """The first qualified noun of ``question`` whose qualifier no ``evidence`` sentence has,
    while the sentence stating one of ``answer_values`` (as written there) qualifies the same
    noun otherwise, both qualifiers written alike (names or plain words: "Canadian" /
    "Australian", "international" / "domestic"); None when there is none. A phrase of the
    ``answer`` itself ("Security Service Act 1989") qualifies nothing asked."""
    seen = {w for s in evidence for w in content_words(s)}
    asked_words = set(content_words(question))
    for qualifier, noun, name in _pairs(question):
        if qualifier in seen or noun not in seen:
            continue
        for k, sentence in enumerate(evidence):
            if not any(v and v in sentence for v in answer_values):
                continue
            for other, same, other_name in _pairs(sentence):
                if same != noun or other in asked_words or other_name != name:
                    continue
                stated = " ".join(as_written(sentence, [other, noun]))
                if stated.lower() in answer.lower():
                    continue
                asked = " ".join(as_written(question, [qualifier, noun]))
                return Uncovered(asked, stated, k)
    return _uncovered_purpose(question, answer_values, evidence, seen, answer)


_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")


def unmentioned(question: str, evidence: Sequence[str]) -> list[str]:
    """The words ``question`` asks about (as written), when no ``evidence`` sentence has any
    of them ("When is the raffle drawn?" of passages about doors and an auction); else []."""
    seen = frozenset(w for s in evidence for w in content_words(s))
    asked = [w for w in dict.fromkeys(content_words(question)) if w not in LIGHT_WORDS]
    asked = [w for w in asked if w not in _ASKING]
    if not asked or any(fuzzy_in(w, seen) for w in asked):
        return []
    # an acronym the passages spell out ("the ISS": "the International Space Station")
    text = " ".join(evidence)
    if any(spells(a, text) for a in _ACRONYM.findall(question)):
        return []
    return as_written(question, asked)
