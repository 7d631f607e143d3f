"""How often: "once daily", "twice a day", "three times a week", as one value per day.

Usage::

    [(start, end, per_day)] = frequency_spans("Adults take 10 mL once daily.")
    per_day   # 1.0

Dosage and schedule passages state how often with words the number parser reads apart, or not
at all: "once daily" is no number, "twice" alone a bare count, "three times a day" a count of
"times". Read as one value (times per day), "Twice a day" against "10 mL once daily" for adults
is one attribute with two values, compared like any other.
"""

from __future__ import annotations

import re

__all__ = ["frequency_spans"]

_TIMES = {"once": 1.0, "twice": 2.0, "thrice": 3.0}
_NUMBERS = {
    "one": 1.0, "two": 2.0, "three": 3.0, "four": 4.0, "five": 5.0, "six": 6.0,
    "seven": 7.0, "eight": 8.0, "nine": 9.0, "ten": 10.0, "twelve": 12.0,
}  # fmt: skip
#: Days in each period a frequency may be stated per.
_DAYS = {"hour": 1 / 24, "day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 30.4, "year": 365.0}
_ADVERBS = {"hourly": "hour", "daily": "day", "nightly": "day", "weekly": "week"}
_ADVERBS |= {"fortnightly": "fortnight", "monthly": "month", "yearly": "year", "annually": "year"}
_COUNT = (
    r"(?P<word>once|twice|thrice)"
    r"|(?P<n>\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+times"
)
_FREQUENCY = re.compile(
    rf"\b(?:{_COUNT})\s+(?:(?:a|an|per|each|every)\s+(?P<period>hour|day|night|week|fortnight|"
    rf"month|year)|(?P<adverb>hourly|daily|nightly|weekly|fortnightly|monthly|yearly|annually))\b",
    re.IGNORECASE,
)


def frequency_spans(text: str) -> list[tuple[int, int, float]]:
    """(start, end, times per day) of every frequency ``text`` states."""
    out: list[tuple[int, int, float]] = []
    for m in _FREQUENCY.finditer(text):
        if m.group("word"):
            times = _TIMES[m.group("word").lower()]
        else:
            n = m.group("n").lower()
            times = float(n) if n.isdigit() else _NUMBERS[n]
        period = m.group("period") or _ADVERBS[m.group("adverb").lower()]
        period = "day" if period.lower() == "night" else period.lower()
        out.append((m.start(), m.end(), times / _DAYS[period]))
    return out
