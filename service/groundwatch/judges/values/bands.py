"""Age bands as cases: "Children aged 10 to 15: ... no more than 4 tablets" for a 12-year-old.

Usage::

    claim_age("How many tablets can my 12-year-old have?")          # 12.0
    age_band("Children aged 10 to 15: take 1 tablet every 4 hours")  # (10.0, 15.0)
    hit = other_band(value, 12.0, passage_sentences)                 # the band's value instead

Dosage tables, fares and fees state a value per age band; the commonest wrong answer gives the
value of another band ("up to 8 tablets" for a 12-year-old, from the adults' line). A claim (or
its question) that names one age ("my 12-year-old", "aged 8") selects the band that contains it:
a value every clause stating it gives for bands without that age is another band's, and a
value the selected band states instead contradicts it. Only where the passages state a band
that holds the age: a passage about "children under 5" says nothing of a 30-year-old.

A clause names its band in its own words or in its sentence's heading ("Children aged 10 to
15: ..."); a sentence naming none continues the band of the sentence before it in the same
passage ("Adults and children aged 16 and over: take 1 or 2 tablets ... . Do not take more
than 8 tablets in any 24-hour period.").
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from groundwatch.judges.values.alignment import agrees, attribute_score, exact_kind
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = ["Band", "OtherBand", "age_band", "claim_age", "other_band", "uncovered_age"]

Band = tuple[float, float]  # (youngest, oldest) age, inclusive

_AGE = re.compile(
    r"\b(\d{1,3})[\s-]?(?:years?|yrs?)[\s-]?olds?\b|\baged\s+(\d{1,3})\b(?!\s*(?:-|–|to|and|or|\+))",
    re.IGNORECASE,
)
_RANGE = re.compile(
    r"\b(?:aged\s+|ages\s+)?(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})\s*(?:years?\b|yrs?\b)?",
    re.IGNORECASE,
)
_FROM = re.compile(
    r"\b(?:aged\s+)?(\d{1,3})\s*(?:years?\s+|yrs?\s+)?(?:and|or)\s+(?:over|older|above)\b"
    r"|\b(?:aged\s+)?(\d{1,3})\s*\+",
    re.IGNORECASE,
)
_OVER = re.compile(r"\b(?:over|older than)\s+(\d{1,3})\s*(?:years?|yrs?)\b", re.IGNORECASE)
_UNDER = re.compile(
    r"\b(?:under|younger than|below)\s+(?:the\s+age\s+of\s+)?(\d{1,3})(?:\s*(?:years?|yrs?))?\b",
    re.IGNORECASE,
)
#: A band is about ages only where the clause says so: these words, or years written with it.
_AGE_WORDS = re.compile(r"\b(?:aged?|ages|years?|yrs?|child(?:ren)?|adults?|kids?|teen)", re.I)


def claim_age(text: str) -> float | None:
    """The one age ``text`` names ("my 12-year-old", "aged 8", "my 18-month-old": 1.5);
    None for none or several."""
    ages = {float(a or b) for a, b in _AGE.findall(text)}
    ages |= {int(m) / 12 for m in _MONTHS_OLD.findall(text)}
    return ages.pop() if len(ages) == 1 else None


def uncovered_age(text: str, evidence: Sequence[str]) -> bool:
    """``text`` names one age, the ``evidence`` states age bands and none of them holds it
    ("my 18-month-old" against doses for ages 2 to 6 and 6 to 12): a case they lack."""
    age = claim_age(text)
    if age is None:
        return False
    bands = [b for s in evidence for c in clauses(s) if (b := age_band(c)) is not None]
    return bool(bands) and not any(lo <= age <= hi for lo, hi in bands)


_MONTHS_OLD = re.compile(r"\b(\d{1,2})[\s-]?months?[\s-]?olds?\b", re.IGNORECASE)


@lru_cache(maxsize=16384)
def age_band(text: str) -> Band | None:
    """The age band ``text`` names; None when it names none (or no ages at all)."""
    if not _AGE_WORDS.search(text):
        return None
    if m := _FROM.search(text):
        return float(m.group(1) or m.group(2)), math.inf
    if m := _RANGE.search(text):
        lo, hi = float(m.group(1)), float(m.group(2))
        return (lo, hi) if lo < hi <= 120 else None
    if m := _OVER.search(text):
        return float(m.group(1)) + 1, math.inf
    if m := _UNDER.search(text):
        return 0.0, float(m.group(1)) - 1
    return None


@dataclass(frozen=True)
class OtherBand:
    """A claim value the evidence states only for age bands without the claim's age."""

    said: str  # the value as the evidence writes it
    band: str  # the band it is stated for, as written
    stated: str | None  # the value the claim's band states instead, if any
    sentence: int | None  # the evidence sentence stating it


def _written(band: Band) -> str:
    lo, hi = band
    if hi == math.inf:
        return f"ages {lo:g} and over"
    return f"ages {lo:g} to {hi:g}" if lo > 0 else f"under {hi + 1:g}"


def _banded(
    evidence: Sequence[str], passage_of: Sequence[int] | None
) -> list[tuple[int, str, Band | None]]:
    """Every clause with its band: its own, else its sentence's (heading included), else the
    band of the sentence before it in the same passage."""
    out: list[tuple[int, str, Band | None]] = []
    carried: Band | None = None
    for k, sentence in enumerate(evidence):
        if k and passage_of is not None and passage_of[k] != passage_of[k - 1]:
            carried = None
        own = age_band(sentence)
        for clause in clauses(sentence):
            out.append((k, clause, age_band(clause) or own or carried))
        carried = own or carried
    return out


def other_band(
    value: StatedValue,
    age: float | None,
    evidence: Sequence[str],
    claimed: Sequence[StatedValue] = (),
    passage_of: Sequence[int] | None = None,
) -> OtherBand | None:
    """Where every clause stating ``value`` has a band without ``age``: the value is another
    band's; with the value of the same kind a clause of ``age``'s band states instead (the one
    whose words match those around the value where it is stated), if one does. None
    otherwise."""
    if age is None or value.kind in ("date", "year"):
        return None
    clauses_ = _banded(evidence, passage_of)
    stating = [(k, c, b) for k, c, b in clauses_ if any(agrees(value, e) for e in stated_values(c))]
    if not stating or any(b is None or b[0] <= age <= b[1] for _, _, b in stating):
        return None
    if not any(b is not None and b[0] <= age <= b[1] for b in map(age_band, evidence)):
        return None  # no band the passages state holds the age: they do not cover it
    k0, c0, b0 = stating[0]
    assert b0 is not None
    ref = next(e for e in stated_values(c0) if agrees(value, e))
    said = ref.text
    best: tuple[float, str, int] | None = None
    for k, c, b in clauses_:
        if b is None or not b[0] <= age <= b[1]:
            continue
        if passage_of is not None and passage_of[k] != passage_of[k0]:
            continue
        for e in stated_values(c):
            if exact_kind(value, e) and not any(agrees(v, e) for v in (value, *claimed)):
                # the same slot in the other band: aligned with the value as stated there
                score = attribute_score(ref.attribute, e.attribute)
                if best is None or score > best[0]:
                    best = score, e.text, k
    if best is None:
        return OtherBand(said, _written(b0), None, None)
    return OtherBand(said, _written(b0), best[1], best[2])
