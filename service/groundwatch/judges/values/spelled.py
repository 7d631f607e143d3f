"""Amounts written in words, rewritten as digits before the number pattern reads them.

Usage::

    spell_out("It takes half an hour.")                 # 'It takes 30 minutes.'
    numbers_as_digits("three hundred and fifty seats")  # '350 seats'
    fractions_as_digits("three-quarters of the staff")  # '75 percent of the staff'

Fractions ("a third", "two and a half hours", "half the seats") become a share as a percentage
or an amount of their unit or scale; fixed phrases ("an hour and a half", "a fortnight") become
digits and a unit. What is no value ("the second half", "a third party", "nearly half") stays.
"""

from __future__ import annotations

import re

from text_to_num import alpha2digit

from groundwatch.judges.values.units import NUMBER_WORDS, SCALES, UNIT_PATTERN, to_number, unit_of

__all__ = ["fractions_as_digits", "number_runs", "numbers_as_digits", "spell_out"]


# Fractions written as words: "three-quarters", "a third", "two and a half hours", "half the
# seats". Read as digits before the number pattern sees them (it would read "three-quarters" as
# 3): a share ("three-quarters of the staff") as a percentage, a fraction of a unit or scale
# ("three quarters of a mile", "one and a half million") as that amount.
_DENOMINATORS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
                 "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}  # fmt: skip
_NUMERATORS = {"a": 1, "an": 1} | {
    w: v for w, v in NUMBER_WORDS.items() if isinstance(v, int) and 1 <= v <= 20 and w != "single"
}
_NUMERATOR_ALT = "|".join(sorted(_NUMERATORS, key=len, reverse=True))
_FRACTION = re.compile(
    rf"(?<![\w-])(?:(?P<whole>{_NUMERATOR_ALT}|\d+)\s+and\s+)?"
    rf"(?:(?P<num>{_NUMERATOR_ALT})(?P<sep>[\s-]+))?"
    r"(?P<den>halves|half|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?"
    r"|tenths?)(?![\w])",
    re.I,
)
# What may follow a fraction: a unit (after "of a", "a" or a hyphen), a scale, or "of".
_FRACTION_UNIT = re.compile(
    rf"(?:\s+of)?(?:\s+an?)?[\s-](?P<unit>(?:{UNIT_PATTERN})(?:e?s)?)(?![a-z])", re.I
)
_FRACTION_SCALE = re.compile(r"(?:\s+an?)?\s+(?P<scale>thousand|million|billion|trillion)\b", re.I)
# A share ends its phrase, or goes on with "of", a determiner, a verb or a preposition; "a
# third party", "a quarter-final", "the second half", "the last two quarters" are no share.
_SHARE_NEXT = re.compile(
    r"\s*(?:$|[.,;:!?)]|(?:of|the|its|their|his|her|our|your|all|are|is|was|were|have|has|had|"
    r"say|said|will|would|can|could|do|did|in|at|on|by|from|to|than|more|less|fewer|since|as|"
    r"and|or)\b)",
    re.I,
)
_PERIOD_BEFORE = frozenset({"the", "first", "second", "last", "past", "next", "previous", "final",
                            "other", "latter", "former", "back", "each", "every", "this", "that",
                            "these", "those", "opening", "closing"})  # fmt: skip
_HEDGES = frozenset({"about", "around", "roughly", "approximately", "nearly", "almost", "over",
                     "under", "some", "just", "barely", "only", "more than", "less than",
                     "fewer than", "at least", "at most", "up to", "close to", "well over",
                     "a little", "a bit", "little over", "bit over", "little under",
                     "bit under", "than"})  # fmt: skip
# "a week and a half", "two years and a half", "an hour and a quarter", "an hour and three
# quarters".
_UNIT_AND_A_HALF = re.compile(
    rf"(?<![\w-])(?P<n>{_NUMERATOR_ALT}|\d+)\s+(?P<unit>(?:{UNIT_PATTERN})(?:e?s)?)\s+and\s+"
    r"(?P<part>a\s+half|a\s+quarter|three[\s-]+quarters)\b",
    re.I,
)
_PARTS = {"a half": 0.5, "a quarter": 0.25, "three quarters": 0.75}


def _unit_and_a_part(m: re.Match[str]) -> str:
    part = _PARTS[re.sub(r"[\s-]+", " ", m.group("part").lower())]
    return f"{_count(m.group('n')) + part:g} {m.group('unit')}"


def fractions_as_digits(text: str) -> str:
    """``text`` with its fractions written as words replaced by digits (see ``_FRACTION``)."""
    text = _UNIT_AND_A_HALF.sub(_unit_and_a_part, text)
    pieces: list[str] = []
    last = 0
    for m in _FRACTION.finditer(text):
        if m.start() < last:
            continue  # inside the unit or scale a fraction before took
        reading = _read_fraction(text, m)
        if reading is None:
            continue
        value, end = reading
        pieces.append(text[last : m.start()])
        pieces.append(value)
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def _count(word: str) -> float:
    return float(_NUMERATORS.get(word.lower(), 0) or to_number(word) or 0)


def _read_fraction(text: str, m: re.Match[str]) -> tuple[str, int] | None:
    """The digits a fraction match stands for and where they end, or None: no fraction."""
    den_raw = m.group("den").lower()
    den = _DENOMINATORS[den_raw.rstrip("s")] if den_raw != "halves" else 2
    num_raw, whole_raw = (m.group("num") or "").lower(), (m.group("whole") or "").lower()
    if not num_raw and den_raw != "half":
        return None  # "third", "quarter" alone are ordinals or periods
    if whole_raw and num_raw not in {"a", "an", "one"}:
        return None
    before = text[: m.start()].lower().split()
    if before and before[-1] in _PERIOD_BEFORE:
        return None  # "the second half", "the last two quarters"
    hedged = before and (before[-1] in _HEDGES or " ".join(before[-2:]) in _HEDGES)
    if hedged and not whole_raw:
        # "nearly half", "over a third", "more than half": no value to compare ("about four
        # and a half hours" is one: the hedge is the whole number's)
        return None
    parts = _NUMERATORS[num_raw] if num_raw else 1
    if parts >= den:
        return None  # "two halves", "four quarters": a count of parts
    value = parts / den + (_count(whole_raw) if whole_raw else 0)
    rest = text[m.end() :]
    unit = _FRACTION_UNIT.match(rest)
    if unit and unit_of(unit.group("unit")):
        return f"{value:g} {unit.group('unit')}", m.end() + unit.end()
    scale = _FRACTION_SCALE.match(rest)
    if scale:
        return f"{value:g} {scale.group('scale')}", m.end() + scale.end()
    if rest.startswith("-") or not _SHARE_NEXT.match(rest):
        return None  # "half-price", "a third party"
    if whole_raw:
        return f"{value:g}", m.end()  # "two and a half" of something
    return f"{value * 100:g} percent", m.end()


# Spelled-out amounts that the number pattern cannot read, as digits and a unit.
_PHRASES = [
    (re.compile(r"\b(?:a|one)\s+and\s+a\s+half\s+hours?\b", re.I), "90 minutes"),
    (re.compile(r"\ban\s+hour\s+and\s+a\s+half\b", re.I), "90 minutes"),
    (re.compile(r"\bhalf\s+an?\s+hour\b|\bhalf-hour\b", re.I), "30 minutes"),
    (re.compile(r"\b(?:a\s+)?quarter\s+of\s+an\s+hour\b", re.I), "15 minutes"),
    (re.compile(r"\bthree[\s-]+quarters\s+of\s+an\s+hour\b", re.I), "45 minutes"),
    (re.compile(r"\bhalf\s+a\s+day\b", re.I), "12 hours"),
    (re.compile(r"\bhalf\s+a\s+year\b", re.I), "6 months"),
    (re.compile(r"\b(?:a|one)\s+fortnight\b", re.I), "14 days"),
    (re.compile(r"\b(?:twelve\s+)?(?:noon|midday)\b", re.I), "12:00"),
    (re.compile(r"\b(?:twelve\s+)?midnight\b", re.I), "00:00"),
]


def spell_out(text: str) -> str:
    for rx, repl in _PHRASES:
        text = rx.sub(repl, text)
    return text


# Numbers of several words: "three hundred and fifty", "one thousand two hundred", "twenty one",
# "one point five". The number pattern reads at most two words and no "and", so these became a
# range ("three hundred and fifty" as 50-300) or a part ("one thousand two hundred" as 100).
# text2num (MIT) reads the words; a run is only rewritten when it reads as one number, and "and"
# joins only after hundred, thousand, million ... ("between two and five" is a range).
# Its words: the number table's cardinals ("dozen", "twice", "single" ... are no part of one)
# and its scales written out ("hundred", "thousand" ..., not "k" or "bn").
_CARDINALS = "|".join(
    w
    for w, v in sorted(NUMBER_WORDS.items(), key=lambda kv: -len(kv[0]))
    if isinstance(v, int) and v < 100 and w not in {"dozen", "single", "twice", "double", "triple"}
)
_MULTIPLIER_WORDS = [w for w, v in SCALES.items() if v >= 100 and len(w) > 2]
_MULTIPLIERS = "|".join(_MULTIPLIER_WORDS)
_AFTER_MULTIPLIER = "|".join(f"(?<={w})" for w in _MULTIPLIER_WORDS)  # fixed-width each
_NUMBER_RUN = re.compile(
    rf"(?<![\w.-])(?:{_CARDINALS}|{_MULTIPLIERS})"
    rf"(?:(?:[\s-]+|(?:{_AFTER_MULTIPLIER})\s+and\s+)(?:{_CARDINALS}|{_MULTIPLIERS}|point))*"
    r"(?![\w-])",
    re.I,
)
_A_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _as_digits(run: str) -> str | None:
    """The digits a run of number words stands for, or None: not one number."""
    if len(re.findall(r"[a-z]+", run, re.I)) < 2:
        return None
    read = alpha2digit(run.lower(), "en")
    if not _A_NUMBER.fullmatch(read):
        return None
    # "1,200 seats", not "1200 seats": four digits alone read as a year
    return f"{int(read):,}" if read.isdigit() else read


def numbers_as_digits(text: str) -> str:
    """``text`` with its numbers of several words ("three hundred and fifty") as digits."""
    return _NUMBER_RUN.sub(lambda m: _as_digits(m.group(0)) or m.group(0), text)


def number_runs(text: str) -> list[str]:
    """The numbers of several words in ``text`` that :func:`numbers_as_digits` rewrites, as
    written: their words are a value, not words the passages must contain."""
    return [m.group(0) for m in _NUMBER_RUN.finditer(text) if _as_digits(m.group(0))]
