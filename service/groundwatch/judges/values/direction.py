"""The direction a value changes in: "fell 4%" (-1), "up 9%" (+1), "a 12% increase" (+1).

Usage::

    [value] = stated_values("Revenue fell 4% to £2.1bn.")
    direction(normalised("Revenue fell 4% to £2.1bn."), value)    # -1

A claim that restates the passages' change with its value right and its direction wrong
("revenue rose 4%" against "revenue fell 4%") states the opposite fact; the values agree, so
the direction words are read beside each: "up" or "down" right before the value, a verb or an
adjective up to three words before it ("rose", "dropped by") or two after it ("3% lower", "a
12% increase"), no other value between. "Up to" is a bound, not a direction; a date, a year, a
time or a duration is no amount of change.
"""

from __future__ import annotations

import re

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.stated import StatedValue

__all__ = ["direction", "opposite_directions"]

_UP = frozenset(
    content_words(
        "rise rises rose risen rising increase increased increases grew grow grown grows "
        "gain gained higher climb climbed jump jumped"
    )
)
_DOWN = frozenset(
    content_words(
        "fall falls fell fallen falling decrease decreased decreases drop dropped drops "
        "decline declined lower cut reduced shrank shrink slipped"
    )
)
#: "up 6%", "down by 4%": only right before the value ("picked up 12 inches in 48 hours").
_RIGHT_BEFORE = re.compile(r"\b(?P<d>up|down)(?:\s+by)?\s*$", re.I)
#: Kinds that are no amount of change: a date, a year, a time of day, a duration, a frequency.
_NO_CHANGE = frozenset({"date", "year", "clock", "time", "freq"})
_WORD = re.compile(r"[A-Za-z]+")
_BOUND = re.compile(r"\bup\s+to\s*$", re.I)
#: How many words before a value (and after it) may say its direction.
_BEFORE, _AFTER = 3, 2


def _sign(words: list[str]) -> int:
    stems = [s for w in words for s in content_words(w)]
    up = any(s in _UP for s in stems)
    down = any(s in _DOWN for s in stems)
    return 0 if up == down else (1 if up else -1)


def direction(text: str, value: StatedValue) -> int:
    """+1 when the words beside ``value`` (in ``text``, the normalised sentence it was read
    from) say it went up, -1 down, 0 when they say neither or both."""
    if value.kind in _NO_CHANGE or value.date is not None or value.year is not None:
        return 0
    start, end = value.span
    before_text = text[:start]
    if _BOUND.search(before_text):
        return 0
    right = _RIGHT_BEFORE.search(before_text)
    if right is not None:
        return 1 if right.group("d").lower() == "up" else -1
    # the words since the last punctuation or digit (another value's) before, up to the next
    # after
    before = _WORD.findall(re.split(r"[,;:\d]", before_text)[-1])[-_BEFORE:]
    after = _WORD.findall(re.split(r"[,;:\d]", text[end:])[0])[:_AFTER]
    return _sign(before) or _sign(after)


def opposite_directions(claim: str, mine: StatedValue, sentence: str, theirs: StatedValue) -> bool:
    """``mine`` (of ``claim``) and ``theirs`` (of evidence ``sentence``), both normalised
    texts, changed in opposite directions as their words say."""
    a, b = direction(claim, mine), direction(sentence, theirs)
    return a * b < 0
