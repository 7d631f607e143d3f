"""Holidays of a fixed date, read as that date: "Christmas Eve" is 24 December.

Usage::

    holiday_spans("We close early on Christmas Eve.")   # [(17, 30, (None, 12, 24))]
    holiday_spans("Christmas Day 2021")                  # [(0, 18, (2021, 12, 25))]
    holiday_words("Christmas Eve at 1 pm")              # ('christma', 'eve'): a date's words

Only holidays whose date is the same every year (in the calendar most passages use); one that
moves (Easter, Thanksgiving) is a name, not a date. Apostrophes may be straight or curly.
"""

from __future__ import annotations

import re

from groundwatch.judges.text.words import content_words

__all__ = ["holiday_spans", "holiday_words"]

_A = "['’]"
#: name (as a pattern) -> (month, day)
_FIXED: dict[str, tuple[int, int]] = {
    r"Christmas Eve": (12, 24),
    r"Christmas Day": (12, 25),
    r"Boxing Day": (12, 26),
    rf"New Year{_A}s Eve": (12, 31),
    rf"New Year{_A}s Day": (1, 1),
    rf"Valentine{_A}s Day": (2, 14),
    rf"St\.? Patrick{_A}s Day|Saint Patrick{_A}s Day": (3, 17),
    r"Halloween|Hallowe{_A}en": (10, 31),
    r"Bonfire Night|Guy Fawkes Night": (11, 5),
}
_HOLIDAY = re.compile(
    "(?:" + "|".join(f"(?P<h{i}>\\b(?:{p})\\b)" for i, p in enumerate(_FIXED)) + ")"
    r"(?:,?\s+(?P<year>(?:1[5-9]|20)\d\d)\b)?"
)
_DATES = list(_FIXED.values())


def holiday_spans(text: str) -> list[tuple[int, int, tuple[int | None, int, int]]]:
    """Every fixed holiday of ``text`` as ``(start, end, (year, month, day))``: the year when
    one follows ("Christmas Day 2021"), else None."""
    out: list[tuple[int, int, tuple[int | None, int, int]]] = []
    for m in _HOLIDAY.finditer(text):
        which = next(i for i in range(len(_DATES)) if m.group(f"h{i}"))
        month, day = _DATES[which]
        year = int(m.group("year")) if m.group("year") else None
        out.append((m.start(), m.end(), (year, month, day)))
    return out


def holiday_words(text: str) -> tuple[str, ...]:
    """The content words of the fixed holidays ``text`` names: a date's, not a name's."""
    return tuple(w for start, end, _ in holiday_spans(text) for w in content_words(text[start:end]))
