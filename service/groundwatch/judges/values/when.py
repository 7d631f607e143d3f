"""A value said of a month or weekday that no passage names, against one said of another.

Usage::

    [value] = stated_values("Furnace Creek averages a January high of about 67°F.")
    [july, *_] = stated_values("Furnace Creek's average July high is 116.5°F.")
    other_time(value, july, ["Furnace Creek's average July high is 116.5°F."])   # True

A claim's value for January, compared with the passages' value for July, is not contradicted
by it: the passages state another case (the month or day it is of), not the claim's another
way. Only full month and weekday names are read, in the words of each value's attribute.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.stated import StatedValue

__all__ = ["other_time"]

_MONTHS = frozenset(
    content_words(
        "January February March April May June July August September October November December"
    )
)
_DAYS = frozenset(content_words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday"))
#: A word names the value's time when it weighs at least this much in its attribute.
_NAMES = 0.5


def _times(value: StatedValue, names: frozenset[str]) -> set[str]:
    return {w for w, weight in value.attribute.items() if weight >= _NAMES and w in names}


def other_time(mine: StatedValue, theirs: StatedValue, evidence: Sequence[str]) -> bool:
    """``mine`` is said of a month (or weekday) that no ``evidence`` sentence names, and
    ``theirs`` of another one: the passages lack the claim's case."""
    seen = {w for s in evidence for w in content_words(s)}
    for names in (_MONTHS, _DAYS):
        said = _times(mine, names)
        if said and not said & seen and _times(theirs, names) - said:
            return True
    return False
