"""A range the claim states against the range the passages state for its attribute.

Usage::

    hit = crossed_range("The pool is kept between 26 °C and 30 °C.",
                        ["The outdoor pool is heated to between 26 °C and 28 °C."])
    hit.said, hit.stated    # '26 °C to 30 °C', '26 °C to 28 °C'

A range is two values of one kind joined as its ends ("between 26 °C and 28 °C", "from 3 March
to 28 April", "08:00–20:00", "from 5 °C up to 30 °C"), or one value written as a range
("130–170 g/L"). A claim's range that shares one end with a range of the passages and not the
other misstates that range: "from 1 October to 31 January" against "from 15 October to 31
January". Each end alone may agree with some value of the passages (a range's end is often
another range's: "men 130–170 g/L, women 120–155 g/L" against "120 to 170 g/L"), so the ends are
read together. A range the passages state whole, or whose two ends one piece of them states
together, is never contradicted; of several ranges sharing an end with the claim's, the one
whose words align with the claim's clearly better decides, else none does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from groundwatch.judges.values.alignment import (
    CLAUSE_WORD,
    MARGIN,
    agrees,
    attribute_score,
    exact_kind,
    rarity,
)
from groundwatch.judges.values.stated import StatedValue, normalised, stated_values

__all__ = ["CrossedRange", "Range", "crossed_range", "ranges_in"]


@dataclass(frozen=True)
class Range:
    """A range as written (``text``), its two ends as values."""

    lo: StatedValue
    hi: StatedValue
    text: str


@dataclass(frozen=True)
class CrossedRange:
    """The claim's range (``said``) against the passages' (``stated``, in evidence
    ``sentence``), one end of them the same."""

    said: str
    stated: str
    sentence: int


#: What joins a range's two ends: "to", "-", "until", "up to (a maximum of)", "and" (after
#: "between").
_JOIN = re.compile(
    r"\s*(?:-|–|—|to|till|until|through|up\s+to(?:\s+(?:a\s+)?(?:maximum|max)\s+of)?"
    r"|and(?:\s+up\s+to)?)\s*",
    re.I,
)
_BETWEEN = re.compile(r"\bbetween\s+$", re.I)


def _point(v: StatedValue, *, high: bool) -> StatedValue:
    q = v.quantity
    assert q is not None
    end = q.high if high else q.value
    return replace(v, quantity=replace(q, value=end, high=end))


def _written_range(v: StatedValue) -> bool:
    q = v.quantity
    return q is not None and not q.bound and q.raw[0] != q.raw[1] and q.high > q.value


def _joined(text: str, a: StatedValue, b: StatedValue) -> bool:
    between = text[a.span[1] : b.span[0]]
    m = _JOIN.fullmatch(between)
    if m is None:
        return False
    # "£5 and £9": two values, unless "between £5 and £9"
    return not between.strip().lower().startswith("and") or bool(_BETWEEN.search(text[: a.span[0]]))


def _same_kind(a: StatedValue, b: StatedValue) -> bool:
    if a.date is not None or b.date is not None:
        return a.date is not None and b.date is not None
    return exact_kind(a, b) or (a.kind == b.kind and a.quantity is not None)


@lru_cache(maxsize=16384)
def ranges_in(sentence: str) -> tuple[Range, ...]:
    """The ranges ``sentence`` states, in order. Cached: every claim reads the same passage
    sentences."""
    text = normalised(sentence)
    values = sorted(stated_values(sentence), key=lambda v: v.span)
    out: list[Range] = []
    used: set[int] = set()
    for k, v in enumerate(values):
        if _written_range(v):
            out.append(Range(_point(v, high=False), _point(v, high=True), v.text))
            continue
        if k + 1 >= len(values) or k in used:
            continue
        w = values[k + 1]
        bounded = any(x.quantity is not None and x.quantity.bound == "lower" for x in (v, w))
        if bounded or _written_range(w) or not _same_kind(v, w) or not _joined(text, v, w):
            continue
        used.add(k + 1)
        out.append(Range(v, w, f"{v.text.rstrip('. ')} to {w.text.rstrip('. ')}"))
    return tuple(out)


def _ends(claim: Range, theirs: Range) -> tuple[bool, bool]:
    return _same_end(claim.lo, theirs.lo, low=True), _same_end(claim.hi, theirs.hi, low=False)


def _same_end(mine: StatedValue, theirs: StatedValue, *, low: bool) -> bool:
    """The same end, or the passages' end rounded to the claim's unit as written ("three to
    four weeks" for "22–27 days")."""
    if agrees(mine, theirs):
        return True
    q, e = mine.quantity, theirs.quantity
    if q is None or e is None or not exact_kind(mine, theirs):
        return False
    written = q.raw[0] if low else q.raw[1]
    if not written or not q.value:
        return False
    factor = (q.value if low else q.high) / written
    half = 0.5 if float(written).is_integer() else 0.05
    return abs(e.value / factor - written) <= half + 1e-9


def _attribute(r: Range) -> dict[str, float]:
    merged = dict(r.lo.attribute)
    for s, w in r.hi.attribute.items():
        merged[s] = max(w, merged.get(s, 0.0))
    return merged


def crossed_range(claim: str, evidence: Sequence[str]) -> CrossedRange | None:
    """The first range of ``claim`` that shares exactly one end with the range of
    ``evidence`` its words align with (clearly, where several share an end), while no range
    or piece there states both its ends; None when there is none."""
    theirs = [(k, r) for k, sentence in enumerate(evidence) for r in ranges_in(sentence)]
    if not theirs:
        return None
    for mine in ranges_in(claim):
        alike = [(k, r) for k, r in theirs if _same_kind(mine.lo, r.lo)]
        if any(all(_ends(mine, r)) for _, r in alike):
            continue  # stated whole
        if _together(mine, evidence):
            continue
        half = [(k, r) for k, r in alike if sum(_ends(mine, r)) == 1]
        if not half:
            continue
        weights = rarity([_attribute(r) for _, r in alike])
        own = _attribute(mine)
        scored = sorted(
            ((attribute_score(own, _attribute(r), weights), k, r) for k, r in half),
            key=lambda t: -t[0],
        )
        best = scored[0]
        named = [(k, r) for k, r in alike if _names_case(own, r, [x for _, x in alike])]
        if len(named) == 1:
            # the claim says a word of one range's own clause only ("For adult men ...":
            # "men 130–170 g/L, women 120–155 g/L"): that range is the claim's
            k, r = named[0]
            if sum(_ends(mine, r)) == 1:
                return CrossedRange(mine.text, r.text, k)
            continue
        rivals = [
            attribute_score(own, _attribute(r), weights) for _, r in alike if r is not best[2]
        ]
        if rivals and best[0] - max(rivals) < MARGIN:
            continue  # another range aligns about as well: not told apart
        return CrossedRange(mine.text, best[2].text, best[1])
    return None


def _names_case(own: dict[str, float], r: Range, alike: Sequence[Range]) -> bool:
    """``own`` (the claim range's words) says a word of ``r``'s own clause that is no other
    range's clause word."""
    theirs = {w for w, x in _attribute(r).items() if x >= CLAUSE_WORD}
    others = {w for o in alike if o is not r for w, x in _attribute(o).items() if x >= CLAUSE_WORD}
    return bool(set(own) & (theirs - others))


def _together(mine: Range, evidence: Sequence[str]) -> bool:
    """Both ends of ``mine`` stated in one sentence of ``evidence``, neither as a range's end
    there ("open 9 am and closing at 5 pm")."""
    for sentence in evidence:
        values = stated_values(sentence)
        if any(agrees(mine.lo, v) for v in values) and any(agrees(mine.hi, v) for v in values):
            spans = ranges_in(sentence)
            if not any(agrees(mine.lo, r.lo) or agrees(mine.hi, r.hi) for r in spans):
                return True
    return False
