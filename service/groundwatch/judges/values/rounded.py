"""A rounded value stands for the values it rounds: "about 1.3" for any of 1.25 to 1.35.

Usage::

    rounded_range("revenue was roughly ", "1.3", 1.3e9, 1e9)   # (1.25e9, 1.35e9)
    rounded_range("it takes nearly ", "3", 10800.0, 3600.0)     # (7200.0, 10800.0)

A passage writes "$48.2 million", an answer "about 48 million dollars": the same value, said
to its last written digit. A hedge before the number ("about", "around", "roughly",
"approximately", "some", "circa") makes it half a unit of that digit either side ("about 270":
265 to 275); "nearly", "almost", "just under" a whole unit below. Without a hedge a value is
the value written.
"""

from __future__ import annotations

import re

__all__ = ["rounded_range"]

#: A rounded value: "about 48 million", "roughly £1.3bn", "nearly 3 hours".
_HEDGE = re.compile(
    r"\b(?:(?P<both>about|around|roughly|approximately|approx\.?|some|circa)"
    r"|(?P<below>nearly|almost|just\s+under))\s*$",
    re.I,
)
_DIGITS = re.compile(r"\d+(?:\.(?P<dec>\d+))?")


def rounded_range(before: str, written: str, value: float, unit: float) -> tuple[float, float]:
    """The values a rounded number stands for: "about 1.3" any of 1.25 to 1.35, "about 270"
    265 to 275, "nearly 3" 2 to 3 (``unit``: what one of its written units is worth); the
    value alone when nothing before it says it is rounded."""
    hedge = _HEDGE.search(before)
    digits = _DIGITS.fullmatch(written.replace(",", ""))
    if hedge is None or digits is None:
        return value, value
    whole = digits.group(0).split(".")[0]
    if digits.group("dec"):
        step = 10.0 ** -len(digits.group("dec"))
    else:
        zeros = len(whole) - len(whole.rstrip("0"))
        step = 10.0**zeros if zeros < len(whole) else 1.0
    step *= unit
    if hedge.group("below"):
        return value - step, value
    return value - step / 2, value + step / 2
