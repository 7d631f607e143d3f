"""A noun put in another's place: what the claim says of one kind, its evidence says of another.

Usage::

    substituted("Blueberries cost £7 a kilo.", "",
                "Pick-your-own strawberries £5 per kg, raspberries £7 per kg.")
    # ('blueberries', 'strawberries')

A model accepts "Blueberries cost £7 a kilo" against "raspberries £7 per kg": every word but one
matches. The one that does not is no paraphrase when the claim's noun is not in the evidence
(the clause that states the claim's value) and the evidence names, where the claim has nothing,
another kind of the same thing (:func:`groundwatch.judges.text.kinds.kinds_apart`: two fruits,
two animals, a man and a woman). The value is then that kind's: the claim is not found, never
supported. Not counted: names in the claim, words that are more often verbs, number, time and
unit words. For a short answer the question's nouns are the claim's ("How much is a cat
groom?": "$55").
"""

from __future__ import annotations

import re

from lemminflect import getAllLemmas, getLemma

from groundwatch.judges.claims.target import fuzzy_in
from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.kinds import kinds_apart
from groundwatch.judges.text.words import STOPWORDS, content_words
from groundwatch.judges.values.units import NUMBER_WORDS, unit_of

__all__ = ["substituted"]

#: Words of time, amount and order: a value's words, checked as values.
_VALUE_WORDS = frozenset(
    content_words(
        """
    second minute hour day week fortnight month year decade century morning afternoon evening
    night noon midnight weekday weekend january february march april may june july august
    september october november december monday tuesday wednesday thursday friday saturday
    sunday spring summer autumn winter half quarter third single double dozen hundred thousand
    million billion trillion total average percent dollar pound euro cent penny pence yen won
    rupee franc
    """
    )
)
_WORD = re.compile(r"[A-Za-z][a-z]+(?:-[a-z]+)*")
_OPENS = re.compile(r"(?:^|[.?!:])\s*$")


def _nouns(text: str, *, titles: bool = False) -> list[str]:
    """The words of ``text`` that may be common nouns (value words left out, and names unless
    ``titles``: "the Small Dog Grooming package" names a dog's groom)."""
    out: list[str] = []
    for m in _WORD.finditer(text):
        word = m.group(0)
        low = word.lower()
        if not titles and word[0].isupper() and not _OPENS.search(text[: m.start()]):
            continue  # a name
        lemmas = getAllLemmas(low)
        if {"ADV", "ADP"} & set(lemmas) or (low.endswith("ing") and "VERB" in lemmas):
            continue  # "goes round", "well"; "voting" is the verb's as much as a noun
        if len(low) < 3 or low in STOPWORDS or low in NUMBER_WORDS or unit_of(low) is not None:
            continue
        stems = content_words(low)
        if len(stems) != 1 or stems[0] in LIGHT_WORDS or stems[0] in _VALUE_WORDS:
            continue
        if low not in out:
            out.append(low)
    return out


def substituted(claim: str, question: str, evidence: str) -> tuple[str, str] | None:
    """(the claim's noun, the evidence's noun) where ``claim`` (with its ``question``, for a
    short answer) names a kind ``evidence`` lacks and ``evidence`` another kind of the same
    thing that the claim does not name; None otherwise."""
    seen = _words(evidence)
    said = _words(f"{claim} {question}")
    mine = [w for w in _nouns(f"{question} {claim}".strip()) if not _in(w, seen)]
    if not mine:
        return None
    theirs = [w for w in _nouns(evidence, titles=True) if not _in(w, said)]
    for a in mine:
        for b in theirs:
            if kinds_apart(a, b):
                return a, b
    return None


def _words(text: str) -> frozenset[str]:
    """The stems of ``text``'s content words, with each word's noun lemma ("children": "child")."""
    out = set(content_words(text))
    for m in _WORD.finditer(text):
        out.update(content_words(" ".join(getLemma(m.group(0).lower(), upos="NOUN"))))
    return frozenset(out)


def _in(word: str, words: frozenset[str]) -> bool:
    return any(fuzzy_in(w, words) for w in _words(word))
