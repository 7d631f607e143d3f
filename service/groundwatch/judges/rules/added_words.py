"""Words a claim adds that no passage has: what the answer invented.

Usage::

    added_words("Mara Voss plays the cello.", "", ["Mara Voss is a German pianist ..."])
    # ['cello']

A model reading a claim against a passage may accept a word it does not find there when the
rest matches ("Steve Earle started his career in acting", "a former majority leader"). A noun
or an adjective that no passage of the trace has, in any form, is content the passages do not
support. Not counted: words that may be verbs (a verb paraphrases: "taught" for "worked as a
teacher"), names (the name checks decide those), units, number and period words ("fortnight",
"daily": values are checked as values), function words and general words (:data:`LIGHT_WORDS`),
and the question's own words (the user's premise). The values check applies it to short
answers to a question only (:mod:`groundwatch.judges.checked`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundwatch.judges.claims.target import ClaimTarget, fuzzy_in
from groundwatch.judges.text.grammar import LIGHT_WORDS, PREPOSITIONS, SUBORDINATORS, can_be_verb
from groundwatch.judges.text.words import content_words, word_set
from groundwatch.judges.values.measures import measure_of
from groundwatch.judges.values.units import NUMBER_WORDS, unit_of

__all__ = ["added_words"]

#: Irregular plurals, so that "child" is found in "children".
_PLURALS = {
    "children": "child", "people": "person", "men": "man", "women": "woman", "feet": "foot",
    "teeth": "tooth", "mice": "mouse", "geese": "goose",
}  # fmt: skip
#: Words that say how often, how much or when rather than what: values and their qualifiers.
_GENERAL = frozenset(
    content_words(
        "every each another plus apart latest earliest noon midnight daily weekly monthly "
        "yearly annual annually hourly fortnight quarter half double twice per total overall "
        "extra additional little slightly decade century third fifth sixth eighth tenth"
    )
)
_WORD = re.compile(r"[A-Za-z][\w'’-]*")
_OPENS = re.compile(r"[.?!:]\s+$")


def _passage_words(passages: Sequence[str]) -> frozenset[str]:
    text = " ".join(passages)
    for plural, singular in _PLURALS.items():
        text = re.sub(rf"\b{plural}\b", f"{singular} {plural}", text, flags=re.I)
    return frozenset(content_words(text))


#: Words before a noun: after one of these a word that may be a verb is a noun ("a nurse").
_DETERMINERS = word_set("a an the his her its their our your my this that these those")


def _is_added(token: str, opens: bool, before: str) -> bool:
    """A token of the claim (``opens`` a sentence of it or not, after the word ``before``)
    that may be counted as added content."""
    low = token.lower()
    if token[:1].isupper() and not opens:
        return False  # a name: the name checks decide
    if low in NUMBER_WORDS or low in PREPOSITIONS or low in SUBORDINATORS:
        return False
    if unit_of(low) or measure_of(low):
        return False
    return before.lower() in _DETERMINERS or not can_be_verb(low)


def added_words(claim: str, question: str, passages: Sequence[str]) -> list[str]:
    """The words of ``claim`` (as written) that no passage has and that say what, not how."""
    seen = _passage_words(passages)
    asked = frozenset(content_words(question))
    key = set(ClaimTarget.build(claim).key)
    found = list(_WORD.finditer(claim))
    tokens = [m.group(0) for m in found]
    # the first word of each sentence is capitalised as such ("What colour will it be? Purple."):
    # no sign of a name
    opens = [
        not claim[: m.start()].strip() or bool(_OPENS.search(claim[: m.start()])) for m in found
    ]
    out: list[str] = []
    for at, token in enumerate(tokens):
        stems = content_words(_PLURALS.get(token.lower(), token))
        if len(stems) != 1:
            continue
        [w] = stems
        if w not in key or w in asked or w in LIGHT_WORDS or w in _GENERAL:
            continue
        before = tokens[at - 1] if at else ""
        if fuzzy_in(w, seen) or not _is_added(token, opens[at], before):
            continue
        if token not in out:
            out.append(token)
    return out
