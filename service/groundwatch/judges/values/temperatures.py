"""A temperature in Fahrenheit read as Celsius, and a change of temperature left as written.

Usage::

    as_celsius("fahrenheit", 350.0, 350.0, "Bake at ", ".")        # (176.67, 176.67)
    as_celsius("fahrenheit", 1.5, 1.5, "It warmed by ", ".")       # None: a change

"Bake at 350 °F" and "bake at 180 °C" state one temperature; the scales are affine, so a
temperature converts as (F - 32) x 5/9. A change ("warmed by 1.5 °F", "a 3 °F rise", "5 °F
warmer") converts by 5/9 alone: read as a temperature it would be -16.9 °C, so it keeps its
unit and is compared with changes in Fahrenheit only. A temperature below zero ("-3°C",
"−2 °C", "minus 5 degrees") keeps its sign (:func:`signed`): read without it, it agreed with
the same value above zero.
"""

from __future__ import annotations

import re

__all__ = ["as_celsius", "signed"]

_CHANGE_BEFORE = re.compile(
    r"\b(?:by|rose|risen|fell|fallen|increased|decreased|warmed|cooled|dropped|climbed)\s*$", re.I
)
_CHANGE_AFTER = re.compile(
    r"^\s*(?:increase|rise|drop|fall|change|warmer|cooler|colder|hotter|higher|lower|more|less)",
    re.I,
)


def as_celsius(
    kind: str, lo: float, hi: float, before: str, after: str
) -> tuple[float, float] | None:
    """(lo, hi) in degrees Celsius for a Fahrenheit temperature written between ``before`` and
    ``after``; None for any other kind, or a change of temperature."""
    if kind != "fahrenheit" or _CHANGE_BEFORE.search(before) or _CHANGE_AFTER.match(after):
        return None
    return (lo - 32) * 5 / 9, (hi - 32) * 5 / 9


_TEMPERATURES = frozenset({"celsius", "fahrenheit", "degree"})
#: A minus sign (or the word) right before the number, not the dash of a range ("2-3°C").
_MINUS = re.compile(r"(?:^|[\s(:,~])(?:[-−–]|minus\s)\s?$", re.I)


def signed(kind: str, number: float, before: str) -> float:
    """``number`` below zero where a temperature is written with a minus sign before it."""
    if kind not in _TEMPERATURES or not _MINUS.search(before):
        return number
    return -number
