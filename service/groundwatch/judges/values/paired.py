"""Values that name a case, and a claim that pairs a case with another case's value.

Usage::

    [case, value] = stated_values("Spaying a dog over 20 kg costs £280.")
    hit = crossed_pair(value, [case], ["It costs £280 for dogs under 20 kg and £340 for dogs "
                                       "over 20 kg."])
    hit.said, hit.stated, hit.case, hit.other   # '£280', '£340', 'over 20 kg', 'under 20 kg'

A passage lists cases told apart by a value ("£280 for dogs under 20 kg and £340 for dogs over
20 kg", "the 100 m world record of 9.58 seconds ..., where he also ran 19.19 seconds in the
200 m"). A claim that states one case's value ("over 20 kg", or its question's "200 m") and
the other case's value of another kind ("£280") has paired them wrongly: the passage gives the
claim's case another value. Read piece by piece (the clauses of :mod:`.parallel`, cut again at
commas): the piece that states the claim's value names a case of the same kind as the claim's,
and another one; a piece of the same sentence names the claim's case, with exactly one value of
the claim's value's kind, another one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import StatedValue, normalised, stated_values

__all__ = [
    "CaseElsewhere",
    "CrossedPair",
    "case_confirmed",
    "crossed_pair",
    "stated_for_other_case",
    "stated_together",
]


@dataclass(frozen=True)
class CrossedPair:
    """The claim's value (``said``), stated in the passages for another case (``other``);
    the value they state for the claim's ``case`` (``stated``, in evidence ``sentence``)."""

    said: str
    stated: str
    case: str
    other: str
    sentence: int


@lru_cache(maxsize=16384)
def _pieces(sentence: str) -> tuple[tuple[StatedValue, ...], ...]:
    """The values of each piece of ``sentence``: its clauses, cut again at commas; a value
    after "up to" is a case's upper bound ("parcels up to 1 kg" / "parcels over 1 kg").
    Cached: every value and case of every claim reads the same passage sentences."""
    out = []
    for clause in clauses(sentence):
        for piece in re.split(r",\s+", clause):
            if piece.strip():
                text = normalised(piece)
                out.append(tuple(_up_to(text, v) for v in stated_values(piece)))
    return tuple(out)


def _up_to(text: str, v: StatedValue) -> StatedValue:
    q = v.quantity
    if q is None or q.bound or not _UP_TO.search(text[: v.span[0]]):
        return v
    return replace(v, quantity=replace(q, bound="upper"))


_UP_TO = re.compile(r"\bup\s+to\s*$", re.I)


def _named(case: StatedValue, values: Sequence[StatedValue]) -> list[StatedValue]:
    return [v for v in values if exact_kind(case, v)]


def _is_case(case: StatedValue, e: StatedValue) -> bool:
    """``e`` is the case ``case`` names: the same value, and not a bound facing the other way."""
    a = case.quantity.bound if case.quantity is not None else ""
    b = e.quantity.bound if e.quantity is not None else ""
    return agrees(case, e) and not (a and b and a != b)


def case_confirmed(
    value: StatedValue, cases: Sequence[StatedValue], evidence: Sequence[str]
) -> bool:
    """Some evidence piece states ``value`` beside a case that one of ``cases`` names (the
    question's "15 mph over": "£250 for more than 10 mph over"): the value is that case's, as
    the values say, whatever words the pieces share or drop."""
    for case in cases:
        if _pointless(case) or exact_kind(case, value):
            continue
        for sentence in evidence:
            for piece in _pieces(sentence):
                if any(agrees(value, e) for e in piece) and any(
                    _is_case(case, e) for e in _named(case, piece)
                ):
                    return True
    return False


def _pointless(v: StatedValue) -> bool:
    """A value that names no case of its own: a year or date (the period of the values
    beside it, read elsewhere), or a bound said of the value itself."""
    return v.kind in ("date", "year") or v.date is not None or v.year is not None


def _written(v: StatedValue) -> str:
    """``v`` as a case: with its bound ("over 20 kg")."""
    bound = v.quantity.bound if v.quantity is not None else ""
    return {"lower": f"over {v.text}", "upper": f"under {v.text}"}.get(bound, v.text)


def crossed_pair(
    value: StatedValue, cases: Sequence[StatedValue], evidence: Sequence[str]
) -> CrossedPair | None:
    """The first evidence sentence where ``value`` is stated beside a case of one of
    ``cases``' kinds that is not that case, while another piece states that case with another
    value of ``value``'s kind (the only one there); None when there is none."""
    if _pointless(value) or _bound(value):
        return None
    for case in cases:
        # a case of the value's own kind is told apart as a bound ("£5 for items worth £50
        # or more")
        if _pointless(case) or (exact_kind(case, value) and not _bound(case)):
            continue
        for k, sentence in enumerate(evidence):
            pieces = _pieces(sentence)
            mine = [p for p in pieces if any(agrees(value, e) and not _bound(e) for e in p)]
            if len(mine) != 1:
                continue  # stated nowhere, or in several pieces: no one case of its own
            others = _cases_in(case, mine[0])
            if len(others) != 1 or any(_is_case(c, others[0]) for c in cases):
                continue  # the piece names no case of the kind, several, or one the claim names
            for piece in pieces:
                named = _cases_in(case, piece)
                if piece is mine[0] or len(named) != 1 or not _is_case(case, named[0]):
                    continue
                rivals = [e for e in piece if exact_kind(value, e) and not _bound(e)]
                if len(rivals) == 1 and not agrees(value, rivals[0]):
                    return CrossedPair(
                        value.text, rivals[0].text, _written(case), _written(others[0]), k
                    )
    return None


@dataclass(frozen=True)
class CaseElsewhere:
    """The claim's value (``said``), stated in the passages only beside ``other``, a case of
    the kind of the claim's ``case`` that is not it (first in evidence ``sentence``)."""

    said: str
    case: str
    other: str
    sentence: int


def stated_for_other_case(
    value: StatedValue,
    asked: Sequence[StatedValue],
    evidence: Sequence[str],
    named: Sequence[StatedValue] = (),
) -> CaseElsewhere | None:
    """A short answer's ``value`` stated in the passages only in pieces that name another case
    of the kind of a value its question names (``asked``): "€399 for the 256 GB model" asked
    about the 512 GB one, "2.9 m at 400 mm centres" asked at 600 mm centres. The value is the
    other case's, not confirmed for the asked one, even where no piece states the asked case
    with a rival value (:func:`crossed_pair` contradicts where one does). None where a piece
    states the value without a case of that kind, beside the asked one, or beside one that the
    claim's other values (``named``) name. (A sentence's own values as its cases, "The 256 GB
    model costs €399", cost held-out 1 and 2 a true claim each: Session 56.)"""
    if _pointless(value):
        return None
    every = [*asked, *named]
    for case in asked:
        if _pointless(case):
            continue
        other = _only_beside_other(value, case, every, evidence)
        if other is not None:
            return CaseElsewhere(value.text, _written(case), _written(other[0]), other[1])
    return None


def _only_beside_other(
    value: StatedValue, case: StatedValue, cases: Sequence[StatedValue], evidence: Sequence[str]
) -> tuple[StatedValue, int] | None:
    """The other case of ``case``'s kind named in the first piece stating ``value``, when every
    piece stating it names one and none that ``cases`` name; else None."""
    other: tuple[StatedValue, int] | None = None
    for k, sentence in enumerate(evidence):
        for piece in _pieces(sentence):
            mine = next((e for e in piece if agrees(value, e)), None)
            if mine is None:
                continue
            named = [e for e in _cases_in(case, piece) if not agrees(value, e)]
            # the nearest first: it names what the value is of
            named.sort(key=lambda e: abs(e.span[0] - mine.span[0]))
            if any(_is_case(case, e) for e in named):
                return None  # stated beside the claim's case
            # (a case another of the claim's values names is no other case: "8 tablets in
            # 24 hours" for a claim with "every 4 hours" and "in 24 hours")
            unnamed = [e for e in named if not any(_is_case(c, e) for c in cases)]
            if not unnamed:
                return None  # stated without another case of the kind
            other = other or (unnamed[0], k)
    return other


def _bound(v: StatedValue) -> bool:
    return v.quantity is not None and bool(v.quantity.bound)


def _cases_in(case: StatedValue, piece: Sequence[StatedValue]) -> list[StatedValue]:
    """The values of ``piece`` that name a case of ``case``'s kind (bounds, for a bound)."""
    return [e for e in piece if exact_kind(case, e) and (_bound(e) or not _bound(case))]


def stated_together(values: Sequence[StatedValue], evidence: Sequence[str]) -> bool:
    """Two or more ``values``, every one stated in one evidence piece ("The 5 km costs $15"
    against "..., while the 5 km fun run costs $15"): the claim restates that piece's pairing,
    whichever value another piece's words align better with."""
    if len(values) < 2:
        return False
    return any(
        all(any(agrees(v, e) for e in piece) for v in values)
        for sentence in evidence
        for piece in _pieces(sentence)
    )
