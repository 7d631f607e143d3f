"""The words that tell a value's case from its neighbour's, and a claim that names the neighbour's.

Usage::

    [v] = stated_values("On the high setting it needs 8 hours.")
    hit = other_case(v, ["Cook the chili on LOW for 8 hours or on HIGH for 4 to 5 hours."])
    hit.agreed, hit.stated, hit.other   # '8 hours', '4 to 5 hours', ('high',)

A sentence that states two values of one kind says, in each value's clause, what tells them
apart: "on LOW for 8 hours" / "on HIGH for 4 to 5 hours", "Adults have 206 bones" / "newborn
babies have around 270". A claim of one value that agrees with one of them, but whose words
name only what the *other* clause says beside its value ("on the high setting ... 8 hours"),
took the value of the neighbouring case. The words the two clauses share, the noun a count is
of and, where a clause has no subject of its own, the words that open the sentence before its
first value of the kind (its topic, said once for both: "The pool opens at 7:00 and closes at
21:00") tell nothing apart. :func:`other_name` does the same for a short answer's name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from groundwatch.judges.text.grammar import PREPOSITIONS, can_be_verb
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.stated import (
    COUNT_MARK,
    StatedValue,
    clause_bounds,
    clause_stems,
    normalised,
    stated_values,
)

__all__ = ["OtherCase", "other_case", "other_sentence_name", "own_case"]

#: A claim's words: of its value's clause (:mod:`.stated`: they weigh 1.0, decaying with
#: distance; the segment's 0.55).
_CLAIM = 0.6
#: ... and of its segment, which may name the value's own case.
_NEAR = 0.5
_CASE_WORD = re.compile(r"[\w.]+-[a-z]+", re.I)
_SEGMENT_START = re.compile(r"[;:]\s*|\s[–—-]\s")


@dataclass(frozen=True)
class OtherCase:
    """The evidence value the claim's words name the case of (``stated``), and the words that
    tell the agreeing value's case (``own``) from it (``other``)."""

    agreed: str
    stated: str
    own: tuple[str, ...]
    other: tuple[str, ...]
    sentence: int = 0


def _kin(value: StatedValue, e: StatedValue) -> bool:
    """Values of one kind; counts of any noun are kin ("206 bones" / "around 270")."""
    both_counts = value.kind.startswith("n:") and e.kind.startswith("n:")
    return exact_kind(value, e) or both_counts


def _clause_words(v: StatedValue, text: str, noise: set[str]) -> set[str]:
    lo, hi = _reach(text, v)
    return {s for m in _TOKEN.finditer(text, lo, hi) for s in _stems_of(m.group(0))} - noise


_TOKEN = re.compile(r"[\w'’.\-]+")
#: A clause break that a list of words without a value goes on after ("on Fridays and
#: Saturdays", "between Schengen and non-Schengen flights").
_LIST_BREAK = re.compile(r",\s|\s(?:and|or)\s")


def _reach(text: str, v: StatedValue) -> tuple[int, int]:
    """The clause of ``v`` (:func:`.stated.clause_bounds`), with the clauses after it that
    state no value: the rest of a list its words begin ("£150 on Fridays and Saturdays")."""
    lo, hi = clause_bounds(text, *v.span)
    starts = [e.span[0] for e in stated_values(text)]
    while hi < len(text):
        m = _LIST_BREAK.match(text, hi)
        if m is None:
            break
        nlo, nhi = clause_bounds(text, m.end(), m.end())
        if nhi <= m.end() or any(nlo <= at < nhi for at in starts):
            break
        hi = nhi
    return lo, hi


def _elided(text: str, values: Sequence[StatedValue]) -> bool:
    """A clause of one of ``values`` has no subject of its own: it opens (after its
    conjunction) with a verb or a preposition ("and closes at 21:00", "or on HIGH for 4 to 5
    hours"), or with its value ("is 45 minutes for ... and 90 minutes when ..."), so the words
    before the sentence's first value are said of it too."""
    first_at = min((v.span[0] for v in values), default=0)
    for v in values:
        lo, _ = clause_bounds(text, *v.span)
        words = re.findall(r"[A-Za-z]+", text[lo : v.span[0]])
        words = [w for w in words if w.lower() not in _CONJUNCTIONS]
        if not words:
            # "and 90 minutes when transferring ...", "and £150 on Fridays": the value and its
            # case, no subject of their own ("and seven of its nine tracks were ..." has one)
            # past the rate the value is per ("$9 per user per month when ...")
            after = re.match(
                r"\W*(?:(?:per|a|an|each)\s+[A-Za-z]+\W*)*([A-Za-z]+)", text[v.span[1] :]
            )
            word = after.group(1).lower() if after is not None else ""
            if v.span[0] > first_at and lo > 0 and word in _CASE_OPENERS:
                return True
            continue
        first, second = words[0].lower(), words[1].lower() if len(words) > 1 else ""
        # "kittens have 26": a subject and its verb; "closes at 21:00": a verb, no subject
        if first in PREPOSITIONS or (can_be_verb(first) and not can_be_verb(second)):
            return True
    return False


_CONJUNCTIONS = frozenset({"and", "or", "but", "while", "whilst", "whereas", "then", "also"})
#: A word that opens a value's case right after it ("£150 on Fridays", "90 minutes when ..."):
#: a preposition, but not the "of" of a part ("seven of its nine tracks").
_CASE_OPENERS = (PREPOSITIONS - {"of"}) | {"when", "if"}


#: A word names a value's case beside it: within this many content words before it or after.
_BESIDE_BEFORE = 4
_BESIDE_AFTER = 3


def _beside(text: str, v: StatedValue) -> set[str]:
    """The stems of the words beside ``v`` in its clause (counted cases marked)."""
    lo, hi = _reach(text, v)
    before = [s for w in re.findall(r"[\w'’.\-]+", text[lo : v.span[0]]) for s in _stems_of(w)]
    rest = text[v.span[1] : hi]
    rate = _RATE.match(rest)  # "per user per month": what the value is per, no case
    rest = rest[rate.end() :] if rate is not None else rest
    after = [s for w in re.findall(r"[\w'’.\-]+", rest) for s in _stems_of(w)]
    return set(before[-_BESIDE_BEFORE:]) | set(after[:_BESIDE_AFTER])


_RATE = re.compile(r"(?:\W*(?:per|a|an|each)\s+[A-Za-z]+)+")


def _stems_of(word: str) -> frozenset[str]:
    return clause_stems(word, 0, len(word))


def _topic(text: str, kin: Sequence[StatedValue]) -> set[str]:
    """The words of ``text``'s segment before the first of ``kin``: said of every value after
    them. They end at the segment's first value of any kind ("The card offers 0% on purchases
    for 20 months and 0% on balance transfers for 24 months": "purchases" is a case, not the
    topic). (Taking as many words off their end as another clause names its case with, "front
    2.3 bar, rear 2.1 bar", cost the blind units set 2 false supports: Session 52.)"""
    start = min(e.span[0] for e in kin)
    lo = max((m.end() for m in _SEGMENT_START.finditer(text, 0, start)), default=0)
    end = min((e.span[0] for e in stated_values(text) if lo <= e.span[0] < start), default=start)
    return set(content_words(text[lo:end]))


def _other_case(
    value: StatedValue, aligned: StatedValue, sentence: str, *, exact: bool
) -> OtherCase | None:
    """The value of ``sentence`` (another than ``aligned``, which agrees with ``value``) whose
    case ``value``'s words name while they name nothing of ``aligned``'s own; None when none.
    ``exact``: only a value of exactly ``value``'s kind (not any count) is a rival."""
    values = stated_values(sentence)
    kin = [e for e in values if _kin(value, e)]
    rivals = [
        e
        for e in kin
        if not agrees(value, e)
        and (exact_kind(value, e) or not exact)
        and not (e.quantity is not None and e.quantity.bound)
        and not (value.period and aligned.period == value.period != e.period)
        # the year of the claim's own date ("19 October 1998": "... both opened in 1998")
        and not (e.kind == "year" and value.date is not None and value.date[0] == e.year)
    ]
    if not rivals:
        return None
    text = normalised(sentence)
    noise = _topic(text, kin) if _elided(text, kin) else set()
    noise |= {w for e in kin for w in content_words(e.kind.partition(":")[2])}
    mine = {w for w, weight in value.attribute.items() if weight >= _CLAIM or w[0] == COUNT_MARK}
    # any word of the value's own case in the claim's sentence part keeps it ("Profits of
    # £40,000 fall under the small profits rate, so the company pays 19%")
    near = {w for w, weight in value.attribute.items() if weight >= _NEAR} | mine
    own = _clause_words(aligned, text, noise)
    for rival in rivals:
        theirs = _clause_words(rival, text, noise)
        said_own, said_other = (own - theirs) & near, (theirs - own) & mine & _beside(text, rival)
        shown = _clause_words(aligned, text, set()) - _clause_words(rival, text, set())
        # both cases named, the other one by a word beside its value ("on HIGH for 4 to 5 hours")
        if said_other and not said_own and shown:
            own_words = (shown - noise) or shown  # the topic said of both is no case of its own
            return OtherCase(
                aligned.text, rival.text, tuple(sorted(own_words)), tuple(sorted(said_other))
            )
    return None


def _own_case(value: StatedValue, aligned: StatedValue, sentence: str) -> bool:
    """``value``'s words name the case of ``aligned`` (which agrees with it) by a word beside
    it, and nothing that only the clause of another value of its kind in ``sentence`` says."""
    text = normalised(sentence)
    kin = [e for e in stated_values(text) if exact_kind(value, e)]
    rivals = [e for e in kin if not agrees(value, e) and not agrees(aligned, e)]
    if not rivals:
        return False
    noise = _topic(text, kin) if _elided(text, kin) else set()
    mine = {w for w, weight in value.attribute.items() if weight >= _CLAIM or w[0] == COUNT_MARK}
    near = {w for w, weight in value.attribute.items() if weight >= _NEAR} | mine
    own = _clause_words(aligned, text, noise)
    for rival in rivals:
        theirs = _clause_words(rival, text, noise)
        if (theirs - own) & near or not (own - theirs) & mine & _beside(text, aligned):
            return False
    return True


def own_case(value: StatedValue, evidence: Sequence[str]) -> bool:
    """Some evidence sentence states ``value`` in a clause that ``value``'s words name, beside
    values of its kind for other cases that they do not ("An hour and a half" for the "Schengen
    to non-Schengen" connection: "45 minutes for Schengen-to-Schengen transfers and 90 minutes
    between Schengen and non-Schengen flights"): the value is stated for its own case, however
    the other clause's words align with the rest of the claim."""
    if _CASE_WORD.fullmatch(value.text) or (value.quantity is not None and value.quantity.bound):
        return False
    return any(
        _own_case(value, e, sentence)
        for sentence in evidence
        for e in stated_values(normalised(sentence))
        if exact_kind(value, e) and agrees(value, e)
    )


def other_case(
    value: StatedValue,
    evidence: Sequence[str],
    others: Sequence[StatedValue] = (),
    *,
    exact: bool = False,
) -> OtherCase | None:
    """Where every evidence value that agrees with ``value`` (of exactly its kind) has a
    neighbour whose case the claim's words name instead, the first such (``sentence``: its
    evidence index); None otherwise. ``exact``: a neighbour of exactly ``value``'s kind."""
    if _CASE_WORD.fullmatch(value.text) or (value.quantity is not None and value.quantity.bound):
        return None  # "the two-year fix", "over 20 kg": a case named, not a value stated of one
    if others:
        # a claim of several values names several cases with its words: which word names which
        # value's is not read here (on the triage and polarity sets it held back 4 true claims
        # for none wrong, Session 50)
        return None
    found: OtherCase | None = None
    for k, sentence in enumerate(evidence):
        for e in stated_values(sentence):
            if not (_kin(value, e) and agrees(value, e)):
                continue
            hit = _other_case(value, e, sentence, exact=exact)
            if hit is None:
                return None
            found = found or replace(hit, sentence=k)
    return found


_PART = re.compile(r";|\s(?:while|whereas|but)\s")
_WH = frozenset({"who", "whom", "whose", "what", "which", "where", "when", "how"})


def _part_of(sentence: str, start: int, end: int) -> tuple[int, int]:
    cuts = [0, *(m.start() for m in _PART.finditer(sentence)), len(sentence)]
    return max(c for c in cuts if c <= start), min(c for c in cuts if c >= end)


def other_name(
    question: str, answer: str, rival: str, sentence: str, *, whole: bool = False
) -> tuple[str, ...]:
    """The words of ``question`` that ``sentence`` says of ``rival``'s part, where it names
    ``answer`` too and says none of them of ``answer``'s part ("Who designed the concert hall?"
    / "Paolo Ferrante": "The concert hall was designed by Ingrid Halse; its ceiling was designed
    by Paolo Ferrante"); () when none. The question's words are read twice: without the names
    it gives (what it asks of them: "Who painted the ceiling of the Lorne Chapel?"), then all.
    Parts are cut at semicolons, "while", "whereas", "but". ``whole``: only when the other
    name's part says every word the question asks of what it names."""
    a, r = sentence.find(answer), sentence.find(rival)
    if a < 0 or r < 0 or a == r:
        return ()
    spans = ((a, a + len(answer)), (r, r + len(rival)))
    parts = [_part_of(sentence, s, e) for s, e in spans]
    if parts[0] == parts[1]:
        return ()  # "Thomas Kerr and Edith Lowe founded it": one part, said of both
    names = set(content_words(f"{answer} {rival}"))
    own, theirs = (set(content_words(sentence[lo:hi])) - names for lo, hi in parts)
    asked = set(content_words(question)) - _WH - names
    # what the question asks of the thing it names ("painted the ceiling" of "the Lorne
    # Chapel"), or all its words ("designed" ... "the Vestergaard Concert Hall")
    named = {w for n in entity_spans(question) for w in content_words(n)}
    for words in (asked - named, asked):
        if not words or (own - theirs) & words:
            continue
        said = (theirs - own) & words
        if said and (said == words or not whole):
            return tuple(sorted(said))
        if whole:
            break
    return ()


#: Two sentences share at least this share of their words (beyond the names): one frame said
#: of two things ("Pip came from Edinburgh Zoo." / "Moss came from Chester Zoo.").
_PARALLEL = 0.5


def other_sentence_name(
    question: str, answer: str, rival: str, own: str, other: str
) -> tuple[str, ...]:
    """The words of ``question`` that sentence ``other`` says beside ``rival`` and sentence
    ``own`` does not say beside ``answer``, where the two sentences are one frame said of two
    things (a "respectively" pair read apart: :mod:`..text.respectively`) and ``own`` says no
    word of the question that ``other`` lacks; () otherwise."""
    names = set(content_words(f"{answer} {rival}"))
    mine, theirs = ({w for w in content_words(s) if w.isalpha()} - names for s in (own, other))
    if not mine or not theirs or len(mine & theirs) < _PARALLEL * len(mine | theirs):
        return ()
    asked = set(content_words(question)) - _WH - names
    if (mine - theirs) & asked:
        return ()
    return tuple(sorted((theirs - mine) & asked))
