"""Parallel clauses: one frame stated for two cases, and a claim that takes the other case's value.

Usage::

    hit = crossed_case(
        asked=content_words("Who is the HR contact for the Manchester office?"),
        answer="Priya Shah",
        evidence=["HR contacts: for the London office, speak to Priya Shah (ext. 4417); for the "
                  "Manchester office, speak to Tom Whitaker (ext. 4425)."],
    )
    hit.said, hit.stated, hit.asked, hit.other   # 'Priya Shah', 'Tom Whitaker', 'Manchester', 'London'

Passages list cases side by side in one frame: "$0.005 per 1,000 PUT requests and $0.0004 per
1,000 GET requests", "for the London office, speak to ...; for the Manchester office, speak to
...", "Usual dose: 25 mg/kg/day ...; for severe infections, 45 mg/kg/day ...". The commonest
wrong answer takes the value or name of the neighbouring case.

The passage sentences are cut into clauses (at semicolons, at "while", "whereas", "but", at
", and", and at "and" before a value). Two clauses are *parallel* when their words, read in order with every
value as one placeholder, line up (their longest common subsequence) on at least
``_FRAME_WORDS`` words and ``_FRAME_SHARE`` of the shorter clause. A claim has *crossed* into
the wrong case when:

* the clause that states its value (or name) and a parallel clause differ, at one place of the
  frame, in a word the claim or its question asks (``asked``: in the parallel clause only) and
  a word of its own (in the claim's clause only, asked by nothing): the two cases;
* the parallel clause states another value of exactly the same kind (or another name) and none
  that agrees with the claim's.

Then the evidence gives the asked case another value: the claim is contradicted. A clause
that only adds a qualifier (the heading "Adults and children aged 16 and over:" before "take
1 or 2 tablets", against "Do not take more than 8 tablets") has no case of its own to swap:
nothing is crossed.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from groundwatch.judges.text.words import as_written, content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.spelled import numbers_as_digits, spell_out
from groundwatch.judges.values.stated import StatedValue, stated_values
from groundwatch.judges.values.units import NUMBER_WORDS

__all__ = ["Crossed", "asked_words", "clauses", "crossed_case", "crossed_value"]

#: Two clauses share at least this many words of their frame (values count as one word)...
_FRAME_WORDS = 2
#: ... and at least this share of the shorter clause's words.
_FRAME_SHARE = 0.4
#: A case is named in a few words at one place of the frame ("PUT" / "GET", "London" /
#: "Manchester"), in about as many on each side.
_CASE_WORDS = 3
#: Parallel cases are listed together: in one passage, at most this many sentences apart.
_NEAR_SENTENCES = 2
_BREAK = re.compile(
    r";|,?\s+(?:while|whereas|but)\s+|,\s+and\s+|\s+and\s+(?=(?:\S+\s+){0,3}?[$€£¥]?\d)"
    r"|(?<![\d\s])\s+or\s+(?=[$€£¥]?\d)",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^([^:;]{1,80}?):(?!\d)\s*")
_NOT_CASES = frozenset({"not", "no", "never", "more", "less", "most", "least", "before", "after"})
_NON = re.compile(r"\bnon-(?=\w)", re.IGNORECASE)  # "non-refundable": not "refundable"
_COMPOUND = re.compile(r"\b([^\W\d_]+)-(?=([^\W\d_]+))")
_FRACTIONS = frozenset({"third", "quarter", "fifth", "tenth"})
_NUMBER = re.compile(r"[$€£¥]?\d[\d,.:/]*(?:\s?(?:%|percent))?")
_VALUE = "#"


@dataclass(frozen=True)
class Crossed:
    """A claim's value (or name) that the evidence gives another case, in a parallel clause."""

    said: str  # the claim's value or name, as the evidence writes it for the other case
    stated: str  # what the parallel clause states for the asked case
    asked: str  # the word of the asked case, as the parallel clause writes it
    other: str  # the word of the case the claim's value belongs to, as written
    sentence: int  # the evidence sentence of the parallel clause
    #: Both cases are written as names ("London" / "Manchester", "PUT" / "GET"): a closed set
    #: of things the passage lists, not words that may describe one thing two ways.
    named: bool = False


@lru_cache(maxsize=16384)
def clauses(sentence: str) -> tuple[str, ...]:
    """``sentence`` cut where a new case may begin (see the module's docstring). A heading
    before a colon ("HR contacts:", "Metformin 500 mg tablets:") is said of every piece, so
    it stays with each."""
    heading = _HEADING.match(sentence)
    rest = sentence[heading.end() :] if heading is not None else sentence
    pieces = _split(rest)
    if heading is not None and len(pieces) > 1:
        return tuple(f"{heading.group(1)}: {p}" for p in pieces)
    return tuple(pieces) if heading is None else (sentence.strip(" ,."),)


def _split(text: str) -> list[str]:
    """``text`` cut at every break; a bare "and" or "or" before a value cuts only between two
    conjuncts with values ("$0.005 per 1,000 PUT requests and $0.0004 ..."), not inside a case
    ("adults and children over 12, 10 mL once daily")."""
    pieces: list[str] = []
    start = 0
    for m in _BREAK.finditer(text):
        joins = m.group(0).strip(" ,").lower() in ("and", "or")
        if joins and not any(ch.isdigit() for ch in text[start : m.start()]):
            continue
        if text.count("(", 0, m.start()) > text.count(")", 0, m.start()):
            continue  # inside an aside: "concessions (students and over-65s) pay £11"
        pieces.append(text[start : m.start()])
        start = m.end()
    pieces.append(text[start:])
    return [p.strip(" ,.") for p in pieces if p and p.strip(" ,.")]


@lru_cache(maxsize=16384)
def _tokens(clause: str) -> tuple[str, ...]:
    """The clause's content words in order, each value one placeholder: a measure with its
    unit ("500 mg", "24 hours"), a count without its noun ("1,000 PUT" -> "# PUT"), a number
    word ("two halves" -> "# halves")."""
    text = numbers_as_digits(spell_out(clause))
    for v in stated_values(clause):
        if v.kind.startswith("n:") or v.text not in text:
            continue
        text = text.replace(v.text, " qqvalueqq ", 1)
    text = _NON.sub("non", _NUMBER.sub(" qqvalueqq ", text))
    text = _COMPOUND.sub(_joined, text)  # "off-peak" is not "peak", nor "part-time" "time"
    out: list[str] = []
    for w in content_words(text):
        out.append(_VALUE if w.startswith("qqvalueqq") or w in NUMBER_WORDS else w)
    return tuple(out)


def _joined(m: re.Match[str]) -> str:
    """A compound's first part, joined to the next one ("off-peak" -> "offpeak"), unless either
    is a number word ("one-third", "twenty-five", "two-thirds": values)."""
    first, second = m.group(1).lower(), m.group(2).lower()
    if first in NUMBER_WORDS or second.rstrip("s") in {*NUMBER_WORDS, *_FRACTIONS}:
        return m.group(0)
    return m.group(1)


def _common(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """The longest common subsequence of two word lists, as index pairs in order."""
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = (
                table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
            )
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return out


def _gaps(
    mine: tuple[str, ...],
    theirs: tuple[str, ...],
    *,
    lead: bool = True,
    joined: bool = False,
    bare: bool = False,
) -> tuple[float, list[tuple[tuple[str, ...], tuple[str, ...]]]] | None:
    """(how parallel, the gaps) when the two clauses are parallel, else None. How parallel: the
    share of the shorter clause's words in the frame (their longest common subsequence). The
    gaps: where one clause has words the other replaces; before the frame only the words next
    to it, after it only the first ones (a sentence's subject or a trailing remark is no case).
    Without ``lead``, none before the frame: there the words of a sentence's first clause
    ("For long-haul flights, desks close ... and gates close ...") may be said of the next
    ones too. ``joined``: an elided conjunct filled in with its first conjunct's frame
    (:func:`_filled`). ``bare``: a gap where only the other clause has words (a qualifier,
    "for a migraine attack") is kept too: the claim's clause states the usual case."""
    if not mine or not theirs:
        return None
    anchors = _common(mine, theirs)
    frame = len(anchors)
    if frame < _FRAME_WORDS or frame < _FRAME_SHARE * min(len(mine), len(theirs)):
        return None
    words = [
        (i, j)
        for i, j in anchors
        if mine[i] != _VALUE and not (i and j and mine[i - 1] == _VALUE == theirs[j - 1])
    ]
    if not words and not joined:
        # values and their nouns alone are no frame (unless the syntax joins the two): "4 g
        # in 24 hours" / "500 mg every 6 hours", "seven players on a pitch" / "three players
        # from each side"
        return None
    bounds = [(-1, -1), *anchors, (len(mine), len(theirs))]
    last = len(bounds) - 2
    gaps: list[tuple[tuple[str, ...], tuple[str, ...]]] = []  # the last one may be cut
    for n, ((i0, j0), (i1, j1)) in enumerate(pairwise(bounds)):
        mine_gap, their_gap = mine[i0 + 1 : i1], theirs[j0 + 1 : j1]
        if not their_gap or not (mine_gap or bare):
            continue  # one side only adds words here
        if n == 0 and not lead:
            continue
        if n == 0:  # read from the frame outwards
            mine_gap, their_gap = mine_gap[::-1][:_CASE_WORDS], their_gap[::-1][:_CASE_WORDS]
        elif n == last:
            mine_gap, their_gap = mine_gap[:_CASE_WORDS], their_gap[:_CASE_WORDS]
        elif len(mine_gap) > _CASE_WORDS or len(their_gap) > _CASE_WORDS:
            continue  # more words than one case's
        gaps.append((mine_gap, their_gap))
    return frame / min(len(mine), len(theirs)), gaps


def _case_of(
    gap: tuple[tuple[str, ...], tuple[str, ...]],
    mine: tuple[str, ...],
    theirs: tuple[str, ...],
    asked: Collection[str],
    *,
    free: Collection[str] = (),
    said: Collection[str] = (),
) -> tuple[str, str] | None:
    """(asked word, own word) when the gap is where the two clauses name their cases: the
    first word of the parallel clause's side that the claim's clause lacks, read from the frame,
    is asked ("third" / "second checked bag": "checked" only qualifies "second", the case).
    An asked word in ``free`` never names the asked case (a clause stating the claim's value
    says it too), nor a word of what is ``said`` (the answer's name) the other case."""
    wanted = next((w for w in gap[1] if w not in mine and _names_case(w)), None)
    if wanted is None or wanted not in asked or wanted in free:
        return None
    if not gap[0]:
        return wanted, ""  # the claim's clause is the unqualified, usual case
    own = [
        w for w in gap[0] if w not in asked and w not in said and w not in theirs and _names_case(w)
    ]
    return (wanted, own[0]) if own else None


def _names_case(word: str) -> bool:
    """A word that may name a case: no value, no negation or comparison ("no", "more")."""
    return word != _VALUE and word not in _NOT_CASES


def _cases(
    mine: tuple[str, ...],
    theirs: tuple[str, ...],
    asked: Collection[str],
    *,
    lead: bool = True,
    free: Collection[str] = (),
    said: Collection[str] = (),
    joined: bool = False,
    bare: bool = False,
) -> tuple[str, str, float] | None:
    """(asked word, own word, how parallel) where the two clauses are parallel and differ in
    their case (see :func:`_gaps`, :func:`_case_of`); own word "" where the claim's clause has
    none (``bare``)."""
    parallel = _gaps(mine, theirs, lead=lead, joined=joined, bare=bare)
    if parallel is None:
        return None
    for gap in parallel[1]:
        case = _case_of(gap, mine, theirs, asked, free=free, said=said)
        if case is not None:
            return case[0], case[1], parallel[0]
    return None


def _asks(clause: str, asked: Collection[str]) -> int:
    """How many of the asked words (not numbers) ``clause`` says."""
    return len({w for w in _tokens(clause) if w != _VALUE} & set(asked))


def _filled(
    mine: tuple[int, int, str], theirs: tuple[int, int, str]
) -> tuple[tuple[str, ...], tuple[str, ...], bool]:
    """The two clauses' words, the second of two conjuncts side by side that opens with its
    value given the first one's words before its last value: "$612 million goes to public
    safety and $298 million to parks" is read "... $298 million [goes] to parks" no more, but
    its frame is the first's ("of which # ... " / "of which # park"), and the two are parallel
    by their syntax (the flag), whatever words that frame has."""
    a, b = _tokens(mine[2]), _tokens(theirs[2])
    if mine[0] != theirs[0] or abs(mine[1] - theirs[1]) != 1:
        return a, b, False
    first, second = (a, b) if mine[1] < theirs[1] else (b, a)
    if second[:1] != (_VALUE,) or _VALUE not in first:
        return a, b, False
    last = len(first) - 1 - first[::-1].index(_VALUE)
    while last and first[last - 1] == _VALUE:  # "$0.005 per 1,000 PUT": one run of values
        last -= 1
    second = (*first[:last], *second)
    return (*((first, second) if mine[1] < theirs[1] else (second, first)), True)


def _says_more(mine: str, theirs: str, asked: Collection[str], *, mine_first: bool | None) -> bool:
    """Whether the clause stating the claim's value says more of what is asked than the other
    one. With ``mine_first`` (True or False: which comes first), the words before the frame of
    the first of them are said of both ("Oakdale Library's Rhyme Time is held on Mondays at
    9:30, and Toddler Time on Thursdays ...")."""
    a, b = _tokens(mine), _tokens(theirs)
    anchors = _common(a, b) if mine_first is not None else []
    if anchors and mine_first:
        b = (*b, *a[: anchors[0][0]])
    elif anchors:
        a = (*a, *b[: anchors[0][1]])
    wanted = set(asked) - {_VALUE}
    return len(set(a) & wanted) > len(set(b) & wanted)


def _rank(
    cases: tuple[str, str, float] | None, clause: str, asked: Collection[str]
) -> tuple[float, int]:
    """The most parallel clause first, then the one saying most of what is asked."""
    if cases is None:
        return (0.0, 0)
    return cases[2], _asks(clause, asked)


def _crossed(
    said: str,
    stated: str,
    cases: tuple[str, str, float],
    *,
    own: tuple[int, int, str],
    other: tuple[int, int, str],
) -> Crossed:
    asked = (as_written(other[2], [cases[0]]) or [cases[0]])[0]
    own_case = (as_written(own[2], [cases[1]]) or [cases[1]])[0] if cases[1] else ""
    named = bool(own_case) and _as_name(asked, other) and _as_name(own_case, own)
    return Crossed(said, stated, asked, own_case, other[0], named)


def _as_name(word: str, piece: tuple[int, int, str]) -> bool:
    """``word`` is capitalised where no sentence begins."""
    if not word[:1].isupper():
        return False
    return piece[1] > 0 or not piece[2].startswith(word)


def _pieces(evidence: Sequence[str]) -> list[tuple[int, int, str]]:
    """(sentence, place in it, clause) of every clause of ``evidence``."""
    return [(k, n, c) for k, s in enumerate(evidence) for n, c in enumerate(clauses(s))]


def _near(a: int, b: int, passage_of: Sequence[int] | None) -> bool:
    """Two sentences close enough for one list of cases: of one passage, a few apart."""
    if passage_of is not None and passage_of[a] != passage_of[b]:
        return False
    return abs(a - b) <= _NEAR_SENTENCES


def _lead(mine: tuple[int, int, str], theirs: tuple[int, int, str]) -> bool:
    """Whether the words before the frame of ``theirs`` may name its case: only when it comes
    after ``mine``. Opening words may be said of what follows ("For long-haul flights, desks
    close ... and gates close ...", "For healthy adults the usual dose is ... . The total dose
    must not exceed ...")."""
    return (theirs[0], theirs[1]) > (mine[0], mine[1])


def crossed_value(
    value: StatedValue,
    asked: Collection[str],
    evidence: Sequence[str],
    claimed: Sequence[StatedValue] = (),
    passage_of: Sequence[int] | None = None,
    *,
    fragment: bool = False,
    answered: Sequence[StatedValue] = (),
) -> Crossed | None:
    """The parallel clause that gives the asked case another value than ``value``, when the
    clause stating ``value`` is about another case; None otherwise. A clause stating one of
    the ``claimed`` values (the claim's others) is no other case's: the claim gives it too.
    ``passage_of``: the passage of each evidence sentence (cases pair only within one).
    ``fragment``: the claim is a fragment ("2 tablets") read with its question, which names
    the case: a clause without the qualifier the parallel one adds and ``asked`` names is the
    usual case's, not the asked one's; and a subject before the first clause's frame is said
    of both ("Oakdale Library's Rhyme Time is ..., and Toddler Time ..."). In a sentence the
    words before the frame are its own clause's. ``answered``: the values of the answer's other
    claims: a clause stating one of them beside ``value``, where the parallel clause does not,
    is the answer's own case ("The record is 56.7°C, set on 10 July 1913": "134°F (56.7°C),
    measured on July 10, 1913; its record low ... was set on January 8")."""
    if value.kind == "year":
        return None  # a year names the period of the values beside it, not a case's value
    if value.quantity is not None and value.quantity.bound:
        return None  # "no more than 4 g" holds of many values: no case's own
    pieces = _pieces(evidence)
    found = [(piece, stated_values(piece[2])) for piece in pieces]
    mine = [piece for piece, vals in found if any(_same(value, e) for e in vals)]
    if not mine:
        return None
    # the words of every clause that states the value (or holds it): the case they name is
    # one the value is stated for
    free = {
        w for piece, vals in found if any(agrees(value, e) for e in vals) for w in _tokens(piece[2])
    }
    best: tuple[tuple[float, int], Crossed] | None = None
    for piece, vals in found:
        k, _, c = piece
        if any(agrees(mine, e) for mine in (value, *claimed) for e in vals):
            continue  # a clause the claim takes a value from is no other case's
        # a bound ("bags over 32 kg") is a limit, not a case's value
        other = next(
            (
                e
                for e in vals
                if exact_kind(value, e)
                and e.kind != "year"
                and not (e.quantity is not None and e.quantity.bound)
            ),
            None,
        )
        if other is None:
            continue
        for place in mine:
            own = place[2]
            if _paired_here(value, (*claimed, *answered), stated_values(own), vals):
                continue  # the answer's other value is this clause's, the other's differs
            first = _lead(place, piece)
            if not _near(place[0], k, passage_of) or _says_more(
                own, c, asked, mine_first=first if fragment else None
            ):
                continue  # far apart, or the claim's clause says more of what is asked
            own_words, other_words, joined = _filled(place, piece)
            cases = _cases(
                own_words, other_words, asked, lead=first, free=free, joined=joined, bare=fragment
            )
            rank = _rank(cases, c, asked)
            if cases is not None and (best is None or rank > best[0]):
                said = next(e.text for e in stated_values(own) if _same(value, e))
                best = rank, _crossed(said, other.text, cases, own=place, other=piece)
    return best[1] if best is not None else None


def _paired_here(
    value: StatedValue,
    answered: Sequence[StatedValue],
    own: Sequence[StatedValue],
    other: Sequence[StatedValue],
) -> bool:
    """Another value of the answer is stated in ``value``'s clause (``own``), and the parallel
    clause (``other``) states a different value of its kind: the answer pairs the two as the
    own clause does ("56.7°C, set on 10 July 1913": "134°F (56.7°C), measured on July 10,
    1913; its record low of 15°F was set on January 8, 1913")."""
    for c in answered:
        if agrees(c, value) or agrees(value, c) or not any(agrees(c, e) for e in own):
            continue
        if any(exact_kind(c, e) and not agrees(c, e) for e in other):
            return True
    return False


def _same(value: StatedValue, e: StatedValue) -> bool:
    """``e`` states ``value`` itself: it agrees and is a point, not a range or a bound that
    merely holds it ("1,200 mg" is within "no more than 4 g")."""
    if not agrees(value, e):
        return False
    q = e.quantity
    return q is None or (not q.bound and q.raw[0] == q.raw[1])


def _name_words(name: str) -> frozenset[str]:
    return frozenset(content_words(name))


def crossed_case(
    asked: Collection[str],
    answer: str,
    evidence: Sequence[str],
    passage_of: Sequence[int] | None = None,
    *,
    question: bool = False,
) -> Crossed | None:
    """The parallel clause that names another thing for the asked case than ``answer`` (a
    name), when the clause naming ``answer`` is about another case; None otherwise.
    ``question``: ``asked`` are a question's words, and a clause naming the answer with as
    many of them gives it for the asked case."""
    mine_words = _name_words(answer)
    if not mine_words:
        return None
    asked = set(asked) - mine_words
    pieces = _pieces(evidence)
    mine = [piece for piece in pieces if mine_words <= set(content_words(piece[2]))]
    if not mine:
        return None
    free = {w for piece in mine for w in _tokens(piece[2])}
    # a clause naming the answer with as many of the question's words as the other clause
    # has gives the answer for the asked case (a claim's own words are always in the clause it
    # took its name from: the triage HR set lost a true hold, Session 50) ("Sydney, the largest city," against "Canberra was
    # selected as the capital ... between Sydney and Melbourne")
    said_best = max(len(asked & set(content_words(piece[2]))) for piece in mine) if question else -1
    best: tuple[tuple[float, int], Crossed] | None = None
    for piece in pieces:
        k, _, c = piece
        words = set(content_words(c))
        if mine_words & words or len(asked & words) <= said_best:
            continue
        names = [n for n in entity_spans(c) if _name_words(n) and not _name_words(n) & asked]
        if not names:
            continue
        for place in mine:
            own = place[2]
            first = _lead(place, piece)
            if not _near(place[0], k, passage_of) or _says_more(own, c, asked, mine_first=None):
                continue
            cases = _cases(
                _tokens(own), _tokens(c), asked, lead=first, free=free,
                said=mine_words,
            )  # fmt: skip
            rank = _rank(cases, c, asked)
            if cases is not None and (best is None or rank > best[0]):
                best = rank, _crossed(answer, names[-1], cases, own=place, other=piece)
    return best[1] if best is not None else None


def asked_words(text: str) -> frozenset[str]:
    """The words of ``text`` (a claim, a question) as the clauses are read: no values."""
    return frozenset(w for w in _tokens(text) if w != _VALUE)
