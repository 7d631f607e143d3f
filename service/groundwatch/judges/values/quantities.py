"""Values a text states: numbers with units, clock times, ordinals, shares, dates and years.

Usage::

    quantities, years, dates = parse_quantities("Refunds take 14 days (from March 3, 2024).")
    quantities[0].kind, quantities[0].value   # ('time', 14.0)
    years, dates                               # frozenset({2024}), ((2024, 3, 3),)

A :class:`Quantity` keeps its value converted to its kind's base unit, the words around it (what
it is attached to), whose value it is, whether it is an aside in parentheses and whether it is a
comparison bound ("more than 100"). :func:`kinds_compatible`, :func:`same_unit` and
:func:`bounds_compatible` say when two values can agree or disagree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from groundwatch.judges.text.grammar import AUXILIARIES, is_verb
from groundwatch.judges.text.words import STOPWORDS, content_words, stem, word_set
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.holidays import holiday_spans
from groundwatch.judges.values.measures import UNIT_TOKEN, measure_of
from groundwatch.judges.values.rounded import rounded_range
from groundwatch.judges.values.spelled import fractions_as_digits, numbers_as_digits, spell_out
from groundwatch.judges.values.temperatures import as_celsius, signed
from groundwatch.judges.values.units import (
    CURRENCIES,
    MONTHS,
    NUMBER_PATTERN,
    SCALES,
    UNIT_PATTERN,
    to_number,
    unit_of,
)

__all__ = [
    "Quantity",
    "bounds_compatible",
    "date_spans",
    "kinds_compatible",
    "local_context",
    "parse_quantities",
    "same_unit",
]


_NOT_MOD = "per|the|and|for|than|more|less|each|every|from|into|over|under|with|out|off"
_QUANTITY = re.compile(
    # "and" joins a range's ends only after "between" ("between 10 and 25 °C"; "4.2% on
    # balances up to £10,000 and 2.5% on ..." is two values)
    rf"(?<![\w.])(?<![A-Za-z]-)(?P<btw>(?<=between\s))?"
    rf"(?P<cur>US\$|[$€£¥₹]|(?:USD|EUR|GBP|INR|CAD|AUD|CHF)\s?)?"
    rf"(?P<a>{NUMBER_PATTERN})"
    rf"(?:\s?(?:-|–|—|to|(?(btw)and|(?!)))\s?(?:US\$|[$€£¥₹])?(?P<b>{NUMBER_PATTERN}))?"
    rf"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|k|m|b)\b)?"
    # "15 vacation days", "10 calendar days": one modifier word between value and unit.
    rf"(?:\s(?!(?:{_NOT_MOD})\b)(?P<mod>[a-z]{{3,}})(?![a-z])(?=[\s-]?(?:{UNIT_PATTERN})(?:e?s)?(?![a-z])))?"
    rf"(?:[\s-]?(?P<unit>(?:{UNIT_PATTERN})(?:e?s)?)(?![a-z]))?"
    rf"(?:\s(?P<cur2>dollars?|euros?|pounds sterling|yen|rupees?|usd|eur|gbp)\b)?"
    rf"(?:\s(?P<noun>[a-z][a-z\-]{{2,}}))?",
    re.I,
)
# fmt: off
_ORDINAL_WORDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                  "ninth", "tenth", "eleventh", "twelfth")
# fmt: on
_ORDINALS = {w: i for i, w in enumerate(_ORDINAL_WORDS, 1)}
_ORDINAL = re.compile(
    rf"\b({'|'.join(_ORDINALS)}|\d+(?:st|nd|rd|th))\b(?:[\s-]+(?P<noun>[A-Za-z][a-z]{{2,}}))?", re.I
)
_DATE_MDY = re.compile(
    r"\b(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+(?P<day>\d{1,2})"
    r"(?:st|nd|rd|th)?(?:,?\s+(?P<year>\d{4}))?\b",
    re.I,
)
_DATE_DMY = re.compile(
    r"\b(?P<day>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|"
    r"apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|"
    r"dec(?:ember)?)\b\.?(?:,?\s+(?P<year>\d{4}))?",
    re.I,
)
_DATE_MY = re.compile(
    r"\b(?P<mon>january|february|march|april|june|july|august|september|october|november|"
    r"december)\s+(?P<year>\d{4})\b",
    re.I,
)
_DATE_ISO = re.compile(r"\b(?P<year>\d{4})-(?P<mon>\d{2})-(?P<day>\d{2})\b")
#: A month named alone, as written ("in March", "the January payroll"): not a name ("April
#: Smith", "August Wilson"), and "May" only after one of :data:`_BEFORE_MAY` ("in May", not
#: "May we").
_DATE_M = re.compile(
    r"\b(?P<mon>January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b(?!\s+[A-Z])(?![\w-])"
)
_BEFORE_MAY = word_set(
    """
    in by from until till to since of and or before after early late mid last next this every
    each between through during
    """
)
_YEAR = re.compile(r"(?<![\w$€£.,])(?P<y>1[0-9]{3}|20[0-9]{2}|21[0-9]{2})(?:s\b)?(?![\w%.,]\d)")
_DECADE = re.compile(r"\b(?P<y>1[0-9]{2}0|20[0-9]0)s\b")


@dataclass(frozen=True)
class Quantity:
    """A number with its unit kind: ``value`` (low end) and ``high`` (same unless a range)."""

    value: float
    high: float
    kind: str
    text: str
    raw: tuple[float, float] = (0.0, 0.0)  # as written, before unit conversion
    #: Content words around the value in its clause: what the value is attached to.
    context: frozenset[str] = frozenset()
    #: Read from other values ("9 of the 12 seats" is 75 %): it may agree, never be a rival,
    #: and a claim's derived value is not checked (the values it comes from are).
    derived: bool = False
    #: A difference from another value, not a value of its own ("four points ahead of Kelford
    #: City", "£2 more than the standard fare"): compared with differences only.
    relative: bool = False
    #: Names earlier in its clause, or the label it follows ("Basic plan: 100"): whose value.
    scope: frozenset[str] = frozenset()
    #: Stated in parentheses ("€24 a month (€29 if billed monthly)"): an aside.
    aside: bool = False
    #: A comparison bound, not a value: "lower" ("after 2 p.m.", "more than 100", "over
    #: 60 °C"), "upper" ("before noon", "less than 5 %", "under 18"), "" otherwise.
    bound: str = ""
    #: The bound is what its clause says of something ("runs at under 30 dB", "is over 300 m
    #: long"), not a qualifier of a noun ("children over 12", "orders over $50").
    asserted: bool = False

    def overlaps(self, other: Quantity) -> bool:
        lo, hi = self.value, self.high
        olo, ohi = other.value, other.high
        if (self.kind == "n:") != (other.kind == "n:"):
            # A bare number against one with a unit: compare as written ("30" vs "30 years").
            (lo, hi), (olo, ohi) = self.raw, other.raw
        tol = max(abs(hi), abs(ohi), 1e-9) * 0.02
        if self.kind == "time" or other.kind == "time":
            tol = max(hi, ohi) * 0.04  # months are 28-31 days
        return lo <= ohi + tol and olo <= hi + tol and _same_shape(self, other, tol)


def _same_shape(a: Quantity, b: Quantity, tol: float) -> bool:
    # A point inside a range agrees; two ranges must coincide.
    a_range = a.high - a.value > tol
    b_range = b.high - b.value > tol
    if a_range and b_range:
        return abs(a.value - b.value) <= tol and abs(a.high - b.high) <= tol
    return True


# Clock times: "7 pm", "7:30 a.m.", "19:00" (24-hour). Read as hours since midnight (kind
# "clock"), so "20:00" and "8 pm" agree and "9:30" is one value, not 9 and 30. Minutes are two
# digits ("16:9" is a ratio); a scale or list after them ("1:50,000") is no time.
_CLOCK_12 = re.compile(
    r"(?<![\w:.,])(?P<h>1[0-2]|0?[1-9])(?:[:.](?P<m>[0-5]\d))?\s?(?P<ap>[ap])(?:\.\s?m\.|\s?m\b)",
    re.I,
)
_CLOCK_24 = re.compile(r"(?<![\w:.,])(?P<h>[01]?\d|2[0-4]):(?P<m>[0-5]\d)(?![\d:]|[.,]\d)")


# "4.2 L/100 km", "4.8 litres per 100 km", "16.5 kWh/100km": a use per 100 of a distance.
_PER_HUNDRED = re.compile(
    r"(?<![\w.,])(?P<n>\d+(?:\.\d+)?)\s?(?P<u>[A-Za-z]+)\s?(?:/|per)\s?100\s?(?P<d>[A-Za-z]+)\b"
)


def _unit_kind(token: str) -> str | None:
    """The kind of a unit as written ("L", "litres", "kWh", "km"), None if it is none."""
    found = unit_of(token) or measure_of(token)
    return found[0] if found else None


def _per_hundred(masked: str, out: list[Quantity]) -> str:
    """Append every use per 100 of a unit ("4.2 L/100 km") to ``out``, of kind
    "per100:<kind>/<kind>"; the text with those spans blanked."""
    for m in _PER_HUNDRED.finditer(masked):
        used, per = _unit_kind(m.group("u")), _unit_kind(m.group("d"))
        if used is None or per is None:
            continue
        value = float(m.group("n"))
        factor = (unit_of(m.group("u")) or measure_of(m.group("u")) or ("", 1.0))[1]
        value *= factor / (unit_of(m.group("d")) or measure_of(m.group("d")) or ("", 1.0))[1]
        context = local_context(masked, m.start(), m.end())
        kind = f"per100:{used}/{per}"
        raw = (float(m.group("n")), float(m.group("n")))
        out.append(
            Quantity(value, value, kind, m.group(0), raw, context, scope=_scope(masked, m.start()))
        )
        masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    return masked


def _clock_times(masked: str, out: list[Quantity]) -> str:
    """Append every clock time of ``masked`` to ``out`` as a "clock" quantity; the text with
    those spans blanked (their digits are no other value)."""
    for rx in (_CLOCK_12, _CLOCK_24):
        for m in rx.finditer(masked):
            ap = (m.groupdict().get("ap") or "").lower()  # "" on the 24-hour clock
            hour = int(m.group("h")) % (12 if ap else 24) + (12 if ap == "p" else 0)
            value = hour + int(m.group("m") or 0) / 60
            before = masked[max(0, m.start() - 40) : m.start()]
            bound = _bound_before(before) or _bound_after(masked[m.end() :])
            context = local_context(masked, m.start(), m.end())
            out.append(
                Quantity(
                    value,
                    value,
                    "clock",
                    m.group(0).strip(),
                    (value, value),
                    context,
                    scope=_scope(masked, m.start()),
                    bound=bound,
                    asserted=bool(bound) and _asserted(before),
                )
            )
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    return masked


DateSpan = tuple[int, int, tuple[int | None, int, int | None]]


def _dates(masked: str, *, months: bool = False) -> tuple[list[DateSpan], str]:
    """Every calendar date of ``masked`` as (start, end, (year, month, day)), and the text with
    each date blanked but its year kept (the year is then read as a year too); with
    ``months``, a month named alone too."""
    spans: list[DateSpan] = []
    for rx in (_DATE_ISO, _DATE_MDY, _DATE_DMY, _DATE_MY, *((_DATE_M,) if months else ())):
        for m in rx.finditer(masked):
            mon_raw = m.group("mon").lower().rstrip(".")
            mon = (
                int(mon_raw)
                if mon_raw.isdigit()
                else MONTHS.get(mon_raw[:4] if mon_raw.startswith("sept") else mon_raw[:3])
            )
            if mon is None or not 1 <= mon <= 12:
                continue
            year = m.groupdict().get("year")
            day = m.groupdict().get("day")
            if mon_raw == "may" and day is None:
                before = masked[: m.start()].split()[-1:]
                if rx is not _DATE_M or not before or before[0].lower() not in _BEFORE_MAY:
                    continue
            spans.append(
                (m.start(), m.end(), (int(year) if year else None, mon, int(day) if day else None))
            )
            keep_year = f" {year} " if year else " "
            masked = (
                masked[: m.start()]
                + " " * (m.end() - m.start() - len(keep_year))
                + keep_year
                + masked[m.end() :]
            )
    return spans, masked


def date_spans(text: str) -> list[DateSpan]:
    """The calendar dates of ``text`` (already normalised: number words as digits) with their
    positions: ``[(start, end, (year, month, day))]``, a month named alone included (the
    values check reads it; :func:`parse_quantities`, for the rules' slots that compare any two
    dates of a claim and a sentence, does not: there it cost the blind polarity set two false
    contradictions, Session 48)."""
    spans = _dates(text, months=True)[0]
    taken = [(a, b) for a, b, _ in spans]
    for start, end, date in holiday_spans(text):
        if not any(a < end and start < b for a, b in taken):
            spans.append((start, end, date))
    return sorted(spans)


@lru_cache(maxsize=65536)
def parse_quantities(
    text: str,
) -> tuple[tuple[Quantity, ...], frozenset[int], tuple[tuple[int | None, int, int | None], ...]]:
    masked = numbers_as_digits(spell_out(text))
    spans, masked = _dates(masked)
    dates = [date for _, _, date in spans]
    years: set[int] = set()
    for m in _DECADE.finditer(masked):
        years.update(range(int(m.group("y")), int(m.group("y")) + 10))
    for m in re.finditer(
        r"(?<![\w$€£])(1[0-9]{3}|20[0-9]{2})\s?(?:-|–|to)\s?(1[0-9]{3}|20[0-9]{2}|[0-9]{2})\b(?![.,]\d|\s?%)",
        masked,
    ):
        y0, y1 = int(m.group(1)), m.group(2)
        bi = int(y1) if len(y1) == 4 else (y0 // 100) * 100 + int(y1)
        if y0 < bi <= y0 + 200:
            years.update({y0, bi})
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    for m in _YEAR.finditer(masked):
        tail = masked[m.end() : m.end() + 12].lower()
        if unit_of(tail.strip().split(" ")[0].strip(".,;")) or tail.lstrip().startswith(
            ("%", "percent")
        ):
            continue
        years.add(int(m.group("y")))
        masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    masked = fractions_as_digits(masked)
    out: list[Quantity] = []
    masked = _clock_times(masked, out)
    masked = _per_hundred(masked, out)
    for m in _ORDINAL.finditer(masked):
        word = m.group(1).lower()
        value = float(_ORDINALS.get(word) or int(re.sub(r"\D", "", word)))
        # "first governor" and "first settlement" are different slots.
        noun = (m.group("noun") or "").lower()
        kind = "ord:" + (stem(noun) if noun and noun not in STOPWORDS else "")
        out.append(Quantity(value, value, kind, m.group(0), (value, value)))
        masked = masked[: m.start()] + " " * (m.end(1) - m.start()) + masked[m.end(1) :]
    for m in _QUANTITY.finditer(masked):
        a = to_number(m.group("a"))
        if a is None:
            continue
        b = to_number(m.group("b")) if m.group("b") else None
        raw_a = m.group("a").lower()
        if raw_a in {"one", "single", "half"} and not (m.group("unit") or m.group("cur")):
            continue  # "one of the", "a single", "half of" are rarely quantities
        scale_raw = (m.group("scale") or "").lower()
        unit_raw = m.group("unit")
        if scale_raw in {"m", "b", "k"} and not (m.group("cur") or m.group("cur2")):
            # "5 m" is metres unless money.
            if scale_raw == "m":
                unit_raw, scale_raw = "m", ""
            elif not m.group(0).strip().lower().endswith(scale_raw):
                scale_raw = ""
        scale = SCALES.get(scale_raw, 1.0)
        cur = (m.group("cur") or m.group("cur2") or "").strip().lower().rstrip("s")
        # "4 business days": the modifier makes another unit (business days are not calendar
        # days); "15 vacation days" stays days.
        unit = (
            m.group("mod")
            and unit_raw
            and (
                unit_of(f"{m.group('mod')} {unit_raw}")
                or measure_of(f"{m.group('mod')}_{unit_raw}")
            )
        ) or unit_of(unit_raw)
        # A unit the table lacks ("kWh", "mAh", "MPa"), or a compound one it reads only the start
        # of ("m" of "m/s", "mg" of "mg/dL"): pint's reading, where it is written as a unit.
        number_end = max(m.end(g) for g in ("a", "b") if m.group(g))
        if scale_raw:
            number_end = m.end("scale")
        measured = None if cur else _measure_after(masked, number_end, compound_only=bool(unit))
        if cur:
            kind, factor = "cur:" + CURRENCIES.get(cur, cur), 1.0
        elif measured:
            (kind, factor), measured_end = measured
        elif unit:
            kind, factor = unit
        else:
            noun = (m.group("noun") or "").lower()
            kind = "n:" + stem(noun) if noun and noun not in STOPWORDS else "n:"
            factor = 1.0
        a = signed(kind, a, masked[max(0, m.start() - 40) : m.start()])
        lo = a * scale * factor
        hi = (b * scale * factor) if b is not None else lo
        if b is not None and hi < lo:
            lo, hi = hi, lo
        if b is None and m.group("a").isdigit() and kind == "n:" and len(m.group("a")) > 6:
            continue  # phone numbers, ids
        raw = (a * scale, b * scale if b is not None else a * scale)
        # The following noun is part of the text only when it is the unit ("14 employees").
        ends = [m.end(g) for g in ("a", "b", "scale", "unit", "cur2") if m.group(g)]
        if measured:
            ends = [e for e in ends if e <= number_end] + [measured_end]
        if kind.startswith("n:") and kind != "n:" and m.group("noun"):
            ends.append(m.end("noun"))
        text_q = masked[m.start() : max(ends)].strip()
        context = local_context(masked, m.start(), max(ends))
        if m.group("mod") and unit:
            context = context | frozenset(content_words(m.group("mod")))
        raw_span = (min(raw), max(raw))
        scope = _scope(masked, m.start())
        aside = masked.count("(", 0, m.start()) > masked.count(")", 0, m.start())
        bound = ""
        before = masked[max(0, m.start() - 40) : m.start()]
        if b is None and not _RELATIVE_AFTER.match(masked[max(ends) :]):
            bound = _bound_before(before) or _bound_after(masked[max(ends) :])
        if kind == "time" and _MARK.search(before):
            bound = ""  # "after 60 days" is the 60-day mark, not any time over 60 days
        celsius = as_celsius(kind, lo, hi, before, masked[max(ends) :])
        if celsius is not None:
            (lo, hi), kind = celsius, "celsius"
        elif b is None and not bound:
            lo, hi = rounded_range(before, m.group("a"), lo, scale * factor)
        out.append(
            Quantity(
                lo,
                hi,
                kind,
                text_q,
                raw_span,
                context,
                scope=scope,
                aside=aside,
                bound=bound,
                asserted=bool(bound) and _asserted(before),
                relative=_DIFFERENCE_AFTER.match(masked, max(ends)) is not None,
            )
        )
    out.extend(_proportions(masked))
    return tuple(out), frozenset(years), tuple(dates)


_UNIT_AFTER = re.compile(rf"[\s-]?({UNIT_TOKEN.pattern})")
_COMPOUND = re.compile(r"/|(?<=[A-Za-z])[23²³]$")  # "m/s", "mg/dL", "m2", "ft²"


def _measure_after(
    text: str, pos: int, *, compound_only: bool
) -> tuple[tuple[str, float], int] | None:
    """The unit written right after a number ending at ``pos``, read by pint, and its end;
    with ``compound_only`` (the table read a unit there) only a compound one ("m/s", "m2")."""
    m = _UNIT_AFTER.match(text, pos)
    if not m:
        return None
    token = m.group(1).rstrip("-_/^")
    if compound_only and not _COMPOUND.search(token):
        return None
    found = measure_of(token)
    return (found, m.start(1) + len(token)) if found else None


# The words before a value that make it a comparison bound ("no more than" before "more
# than"). Limits a policy states ("within 30 days", "up to $500", "at least 18") are not among
# them: "returns are accepted for 30 days" contradicts "within 45 days".
_BOUND_WORDS = (
    ("no more than", ""), ("not more than", ""), ("no less than", ""), ("not less than", ""),
    ("no fewer than", ""), ("no later than", ""), ("no earlier than", ""),
    ("more than", "lower"), ("greater than", "lower"), ("later than", "lower"),
    ("less than", "upper"), ("fewer than", "upper"), ("earlier than", "upper"),
    ("longer than", "lower"), ("older than", "lower"), ("wider than", "lower"),
    ("taller than", "lower"), ("heavier than", "lower"), ("bigger than", "lower"),
    ("larger than", "lower"), ("higher than", "lower"), ("shorter than", "upper"),
    ("younger than", "upper"), ("narrower than", "upper"), ("lighter than", "upper"),
    ("smaller than", "upper"), ("lower than", "upper"),
    ("after", "lower"), ("over", "lower"), ("above", "lower"), ("beyond", "lower"),
    ("exceeding", "lower"), ("before", "upper"), ("under", "upper"), ("below", "upper"),
)  # fmt: skip
# "up to 48 hours before arrival": a bound on a time before or after something reads the other
# way round (cancelling 24 hours before is later than 48 hours before): no bound is read.
_RELATIVE_AFTER = re.compile(
    r"\s*(?:before|prior|ahead|in advance|earlier|later|after|ago|beforehand)\b", re.I
)


_DIFFERENCE_AFTER = re.compile(
    r"\s+(?:(?:ahead|clear)\s+of|behind|(?:more|fewer|less|higher|lower|longer|shorter|cheaper|"
    r"dearer|earlier|later|faster|slower|older|younger|bigger|smaller|heavier|lighter|greater)"
    r"\s+than)\b",
    re.I,
)
#: "after" / "before" right before a duration: a point in time, not a bound.
_MARK = re.compile(r"\b(?:after|before)\s*$", re.I)


def _bound_before(before: str) -> str:
    """ "lower" / "upper" when the words just before a value make it a bound, else ""."""
    tail = " " + " ".join(re.findall(r"[a-z]+", before.lower())[-3:])
    for words, side in _BOUND_WORDS:
        if tail.endswith(" " + words):
            return side
    return ""


#: "£50,000 or less", "aged 12 and over", "7 pm or later": a bound written after its value.
_BOUND_AFTER = re.compile(
    r"(?:\s+(?:wide|long|tall|high|old|deep|heavy))?\s*(?:or|and)\s+"
    r"(?:(?P<upper>less|fewer|under|below|younger|earlier|lower|smaller|shorter|narrower|lighter)"
    r"|(?P<lower>more|over|above|older|later|higher|greater|upwards?|wider|longer|taller|larger"
    r"|bigger|heavier|deeper))\b(?!\s+than)",
    re.I,
)


def _bound_after(after: str) -> str:
    """ "lower" / "upper" when the words right after a value make it a bound, else ""."""
    m = _BOUND_AFTER.match(after)
    if not m:
        return ""
    return "upper" if m.group("upper") else "lower"


def _asserted(before: str) -> bool:
    """The bound phrase ending ``before`` follows a verb or "at" ("runs at under", "is over"):
    it is what the clause asserts, not a noun's qualifier ("children over")."""
    words = re.findall(r"[a-z]+", before.lower())
    tail = " ".join(words)
    for phrase, _side in _BOUND_WORDS:
        if tail.endswith(phrase):
            words = words[: len(words) - len(phrase.split())]
            break
    if not words:
        return False
    return words[-1] == "at" or words[-1] in AUXILIARIES or is_verb(words[-1])


def _within_bound(value: Quantity, bound: Quantity) -> bool:
    """``value`` lies on the side ``bound`` allows ("4 p.m." and "after 2 p.m.")."""
    if bound.bound == "lower":
        return value.value >= bound.value
    if bound.bound == "upper":
        return value.high <= bound.high
    return False


def bounds_compatible(q: Quantity, e: Quantity) -> bool:
    """Two values that are no contradiction because one is a comparison bound the other keeps
    ("4 p.m." against "after 2 p.m.", "120 employees" against "more than 100"). Two bounds
    state two limits: "over 30" against "over 50" still disagree."""
    if q.bound and e.bound:
        return False
    if e.bound:
        return _within_bound(q, e)
    if q.bound:
        return _within_bound(e, q)
    return False


# "9 of the 12 seats", "12 out of 16": a share, read as a percentage (derived: it agrees with a
# claim's share, never rivals one).
_RATIO = re.compile(
    r"(?<![\w.,$€£¥₹])(?P<x>\d+)\s+(?:out\s+)?of\s+(?:(?:the|her|his|their|its|our|your|all)\s+)?"
    r"(?P<y>\d+)(?![\d.,%])"
)


def _proportions(text: str) -> list[Quantity]:
    out: list[Quantity] = []
    for m in _RATIO.finditer(text):
        x, y = int(m.group("x")), int(m.group("y"))
        if not 0 < x <= y:
            continue
        share = 100.0 * x / y
        context = local_context(text, m.start(), m.end())
        out.append(Quantity(share, share, "percent", m.group(0), (share, share), context, True))
    return out


_CLAUSE_BREAK = re.compile(r"[,;:()]|\s(?:and|but|or|while|whereas|during|after|before|with)\s")


def local_context(text: str, start: int, end: int, span: int = 3) -> frozenset[str]:
    """Up to ``span`` content words either side of a value, within its clause."""
    before = _CLAUSE_BREAK.split(text[max(0, start - 80) : start])[-1]
    after = _CLAUSE_BREAK.split(text[end : end + 80])[0]
    left = [w for w in content_words(before) if not any(ch.isdigit() for ch in w)]
    right = [w for w in content_words(after) if not any(ch.isdigit() for ch in w)]
    return frozenset(left[-span:] + right[:span])


def _scope(text: str, start: int) -> frozenset[str]:
    """Whose value starts at ``start``: the names earlier in its clause ("The Vega model has a
    range of"), or the label of a clause it opens ("Basic plan: 100 requests")."""
    parts = _CLAUSE_BREAK.split(text[max(0, start - 80) : start])
    before = parts[-1]
    words = [w for ent in entity_spans(before) for w in content_words(ent)]
    if len(parts) > 1 and not content_words(before) and text[:start].rstrip().endswith(":"):
        words += content_words(parts[-2])
    return frozenset(words)


_DOLLARS = frozenset({"cur:$", "cur:usd", "cur:cad", "cur:aud"})


def same_unit(a: Quantity, b: Quantity) -> bool:
    if a.kind == b.kind:
        return True
    # "$" alone may be any dollar; a bare number may be any count or amount.
    if {a.kind, b.kind} <= _DOLLARS and "cur:$" in (a.kind, b.kind):
        return True
    return (a.kind == "n:") != (b.kind == "n:")


def kinds_compatible(a: Quantity, b: Quantity) -> bool:
    if a.kind == b.kind:
        return True
    if a.kind.startswith("ord:") or b.kind.startswith("ord:"):
        return (
            a.kind.startswith("ord:") and b.kind.startswith("ord:") and "ord:" in (a.kind, b.kind)
        )
    if a.kind.startswith("cur:") and b.kind.startswith("cur:"):
        return True  # another currency is another amount
    # A bare number ("14") may stand for any count or amount; nouns must agree otherwise.
    if a.kind == "n:" or b.kind == "n:":
        return not (
            a.kind.startswith(("cur:", "percent")) or b.kind.startswith(("cur:", "percent"))
        )
    return False
