"""Whether a word is found among others, allowing the forms spelling varies by.

Usage::

    fuzzy_in("travel", frozenset({"travell"}))                 # True: "travelling"
    spells("VAT", "charged at the Value Added Tax rate")       # True

A word is found when it is there, or one of the two is the other plus one letter, both of five
letters or more ("lankan" / "lanka", "travel" / "travell"); an acronym is found where
consecutive capitalised words have its initials.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["fuzzy_in", "spells"]


def spells(acronym: str, text: str) -> bool:
    """ "VAT" is "Value Added Tax": consecutive capitalised words with these initials."""
    words = re.findall(r"[A-Za-z][\w'-]*", text)
    n = len(acronym)
    initials = "".join(w[0] if w[0].isupper() else "_" for w in words)
    return acronym.upper() in [initials[k : k + n] for k in range(len(initials) - n + 1)]


@lru_cache(maxsize=65536)
def _chopped(words: frozenset[str]) -> frozenset[str]:
    """Each word of 6+ letters minus its last letter (for :func:`fuzzy_in`)."""
    return frozenset(x[:-1] for x in words if len(x) >= 6)


def fuzzy_in(word: str, words: frozenset[str]) -> bool:
    if word in words:
        return True
    if len(word) < 5:
        return False
    # "lankan" ~ "lanka", "american" ~ "america": one word a prefix of the other, one letter
    # apart, both of 5+ letters. Two set lookups instead of a scan of every word.
    if len(word) >= 6 and word[:-1] in words:
        return True
    return word in _chopped(words)
