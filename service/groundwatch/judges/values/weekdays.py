"""The days of the week a text is about: "on Saturdays", "Monday to Friday", "weekends", "daily".

Usage::

    days_named("Open Monday to Friday from 7:30 to 19:00")    # frozenset({0, 1, 2, 3, 4})
    days_named("On weekends it opens at 9:00")                 # frozenset({5, 6})
    days_named("Open every day from 9 am")                     # every day: ALL_DAYS
    days_named("The pool opens at 7:00")                       # frozenset(): says no day

Schedules state a value per day ("on Friday and Saturday the final act finishes at 23:00"); a
value given for one day and claimed for another ("11 pm on Sunday") is the commonest wrong
answer about opening hours. Days are a closed class, so two sets of days that do not meet are
two cases for certain, unlike words in general (:mod:`.parallel`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = ["ALL_DAYS", "OtherDays", "days_named", "other_days"]

ALL_DAYS = frozenset(range(7))
_NAMES = {
    "mon": 0, "monday": 0, "tue": 1, "tues": 1, "tuesday": 1, "wed": 2, "wednesday": 2,
    "thu": 3, "thur": 3, "thurs": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5,
    "saturday": 5, "sun": 6, "sunday": 6,
}  # fmt: skip
_DAY = (
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)s?\b"
)
_FULL = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?"
_RANGE = re.compile(
    rf"\b({_DAY})\.?\s*(?:-|–|—|to|through|thru|until|till)\s*({_DAY})\.?", re.IGNORECASE
)
# Abbreviations alone ("Sat", "Sun", "Wed") are common words too: only full names stand alone.
_ONE = re.compile(rf"\b({_FULL})\b", re.IGNORECASE)
_WEEKDAYS = re.compile(r"\bweek\s?days?\b|\bworking days?\b", re.IGNORECASE)
_WEEKEND = re.compile(r"\bweek\s?ends?\b", re.IGNORECASE)
_WRITTEN = re.compile(
    rf"\b{_DAY}\.?(?:\s*(?:-|–|—|to|through|thru|until|till|and|&)\s*{_DAY})?"
    r"|\bweek\s?(?:days?|ends?)\b",
    re.IGNORECASE,
)
_EVERY = re.compile(
    r"\b(?:daily|every day|each day|7 days a week|seven days a week|all week)\b", re.IGNORECASE
)


def _day(word: str) -> int:
    w = word.lower().rstrip(".")
    w = w[:-1] if w.endswith("s") and w[:-1] in _NAMES else w
    return _NAMES[w] if w in _NAMES else _NAMES[w[:3]]


@lru_cache(maxsize=16384)
def days_named(text: str) -> frozenset[int]:
    """The days of the week (Monday 0 ... Sunday 6) ``text`` names; empty when it names none."""
    if _EVERY.search(text):
        return ALL_DAYS
    days: set[int] = set()
    rest = text
    for m in _RANGE.finditer(text):
        a, b = _day(m.group(1)), _day(m.group(2))
        days.update(range(a, b + 1) if a <= b else [*range(a, 7), *range(b + 1)])
        rest = rest.replace(m.group(0), " ")
    days.update(_day(m.group(1)) for m in _ONE.finditer(rest))
    if _WEEKDAYS.search(rest):
        days.update(range(5))
    if _WEEKEND.search(rest):
        days.update((5, 6))
    return frozenset(days)


def _day_pieces(clause: str) -> list[str]:
    """``clause`` cut at its commas where it lists days with their values ("Monday–Friday
    06:30–18:00, Saturday 07:00–16:00, closed Sunday"), a piece naming no day joined to the
    one before it; else ``clause`` whole."""
    pieces: list[str] = []
    for part in re.split(r",\s+", clause):
        if pieces and not days_named(part):
            pieces[-1] = f"{pieces[-1]}, {part}"
        else:
            pieces.append(part)
    named = [p for p in pieces if days_named(p)]
    return pieces if len(named) >= 2 else [clause]


@dataclass(frozen=True)
class OtherDays:
    """A claim value the evidence states only for other days than the claim's."""

    said: str  # the value as the evidence writes it
    days: str  # the days it is stated for, as written there
    stated: str | None  # the value stated for the claim's days, if any
    sentence: int | None  # the evidence sentence stating that value


def other_days(
    value: StatedValue,
    claim_days: frozenset[int],
    evidence: Sequence[str],
    claimed: Sequence[StatedValue] = (),
    passage_of: Sequence[int] | None = None,
) -> OtherDays | None:
    """The days ``value`` is stated for, when every clause stating it names days and none of
    ``claim_days``; with the value a clause about the claim's days states instead (same kind,
    agreeing with none of the ``claimed`` values), if one does. None otherwise."""
    if not claim_days or claim_days == ALL_DAYS or value.kind in ("date", "year"):
        return None
    pieces = [(k, p) for k, s in enumerate(evidence) for c in clauses(s) for p in _day_pieces(c)]
    stating = [(k, c) for k, c in pieces if any(agrees(value, e) for e in stated_values(c))]
    if not stating:
        return None
    for _, c in stating:
        days = days_named(c)
        if not days or days & claim_days:
            return None  # stated for no day in particular, or for one the claim names
    k0, c0 = stating[0]
    said = next(e.text for e in stated_values(c0) if agrees(value, e))
    written = ", ".join(m.group(0) for m in _WRITTEN.finditer(c0)) or "other days"
    for k, c in pieces:
        named = days_named(c)
        if not named & claim_days or named == ALL_DAYS:
            continue  # about other days, or every day: no value of the claim's days alone
        if passage_of is not None and passage_of[k] != passage_of[k0]:
            continue
        for e in stated_values(c):
            if exact_kind(value, e) and not any(agrees(v, e) for v in (value, *claimed)):
                return OtherDays(said, written, e.text, k)
    return OtherDays(said, written, None, None)
