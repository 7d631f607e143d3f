"""A temperature in Fahrenheit read as Celsius, and a change of temperature left as written.

Usage::

    as_celsius("fahrenheit", 350.0, 350.0, "Bake at ", ".")        # (176.67, 176.67)
    as_celsius("fahrenheit", 1.5, 1.5, "It warmed by ", ".")       # None: a change

"Bake at 350 °F" and "bake at 180 °C" state one temperature; the scales are affine, so a
temperature converts as (F - 32) x 5/9. A change ("warmed by 1.5 °F", "a 3 °F rise", "5 °F
warmer") converts by 5/9 alone: read as a temperature it would be -16.9 °C, so it keeps its
unit and is compared with changes in Fahrenheit only.
"""

from __future__ import annotations

import re

__all__ = ["as_celsius"]

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
