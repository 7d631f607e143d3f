"""The values a sentence states, each with the words that say what it is the value of.

Usage::

    [dose] = [v for v in stated_values("For adults the daily dose is 20 mg.") if v.kind == "mass"]
    dose.text, sorted(dose.attribute)   # '20 mg', ['adult', 'daili', 'dose', ...]

A value is a number with its unit kind (:func:`groundwatch.judges.values.quantities.parse_quantities`:
money, percentages, measures, durations, clock times, counts), a calendar date or a year. Its
*attribute* is a weight per content-word stem of its sentence: words of its own clause weigh
most, the nearer the more; words of its segment (up to a semicolon or colon) less; the rest of
the sentence least. Two values state the same attribute when their attributes overlap: "$8 per
seat billed yearly" and "$10 billed monthly" share "billed" and differ on "yearly"/"monthly".
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.frequency import frequency_spans
from groundwatch.judges.values.quantities import Quantity, date_spans, parse_quantities
from groundwatch.judges.values.spelled import fractions_as_digits, numbers_as_digits, spell_out
from groundwatch.judges.values.units import MONTHS, NUMBER_WORDS, UNIT_PATTERN

__all__ = [
    "COUNT_MARK",
    "LABEL_MARK",
    "Date",
    "StatedValue",
    "attribute_at",
    "case_periods",
    "clause_bounds",
    "clause_stems",
    "labels",
    "normalised",
    "stated_values",
]

Date = tuple[int | None, int, int | None]  # (year, month, day)

#: Weights of the words around a value: its clause (decaying with distance), its segment, its
#: sentence.
_CLAUSE_WEIGHT = 1.0
_DECAY = 0.12
_SEGMENT_WEIGHT = 0.55
_SENTENCE_WEIGHT = 0.3

_SEGMENT_BREAK = re.compile(r";|:(?!\d)|\s[–—-]\s")
_CLAUSE_BREAK = re.compile(
    r",\s|\s(?:and|but|or|while|whilst|whereas|although|though|except|unless)\s", re.I
)
_ERA = re.compile(r"\b(?:(AD|CE)\s+(\d{1,4})|(\d{1,4})\s*(BCE|BC|AD|CE))\b")
_YEAR = re.compile(r"(?<![\w$€£.,])(?:1[5-9]|20|21)\d\d(?![\w%]|[.,]\d)")
#: A capitalised word (not opening the sentence) right before a bare number: a model or place
#: name that the number belongs to.
_NAME_BEFORE = re.compile(r"(?<=[\w,;] )[A-Z][\w\-]*\s$")
_PERIOD = re.compile(
    r"(?:hour(?:ly)?|day|daily|night|week(?:ly)?|month(?:ly)?|year(?:ly)?|annual(?:ly)?|annum|yr|mo|wk"
    r"|pcm|pw)s?",
    re.I,
)
_PERIODS = {"hourly": "hour", "daily": "day", "night": "day", "weekly": "week", "wk": "week"}
_PERIODS |= {"monthly": "month", "mo": "month", "yearly": "year", "annual": "year"}
_PERIODS |= {"annually": "year", "annum": "year", "yr": "year"}
_PERIODS |= {"fortnightly": "fortnight", "quarterly": "quarter"}
_PERIODS |= {"pcm": "month", "pw": "week"}  # a let's rent: per calendar month, per week
#: Day ranges that name the weekdays or the weekend: their words count as "weekday(s)" /
#: "weekend(s)" too.
_WEEKDAYS = re.compile(r"\b(mon(?:day)?)s?\s?(?:-|–|—|to|through|until)\s?fri(?:day)?s?\b", re.I)
_WEEKEND = re.compile(r"\b(sat(?:urday)?)s?\s?(?:-|–|—|to|and|&)\s?sun(?:day)?s?\b", re.I)
_PER_IN_UNIT = re.compile(r"/(day|week|month|year|hour)s?$", re.I)
_AGE_AFTER = re.compile(r"[\s-]?olds?\b", re.I)
_NO_PERIOD = frozenset({"time", "clock"})
_WORD = re.compile(r"[^\W_][\w'’\-.]*[^\W_]|[^\W_]", re.U)


@dataclass(frozen=True)
class StatedValue:
    """One value of a sentence: what it is (``kind``, ``quantity`` or ``date``), as written
    (``text``), and what it is the value of (``attribute``: stem -> weight)."""

    kind: str  # a quantity kind ("mass", "cur:$", "clock", "n:tablet", ...) or "date"
    text: str
    attribute: Mapping[str, float]
    quantity: Quantity | None = None
    date: Date | None = None
    year: int | None = None
    #: The period a rate is stated per ("$12 per month", "£5,400 a year", "twice daily"): "day",
    #: "week", "month", "year", "hour", or "" when none follows the value.
    period: str = ""
    #: The years that qualify the value: stated in its clause ("2.61 % in 2022").
    years: frozenset[int] = frozenset()
    #: Where the value is written in its sentence (with number words as digits: :func:`normalised`).
    span: tuple[int, int] = (0, 0)
    #: A difference from another value, not a value of its own: "four points ahead of Kelford
    #: City", "£2 more than the standard fare", "3 minutes faster than last year".
    relative: bool = False


def _bounds(text: str, rx: re.Pattern[str], start: int, end: int) -> tuple[int, int]:
    """The span between the last break of ``rx`` before ``start`` and the first after ``end``."""
    lo = max((m.end() for m in rx.finditer(text, 0, start)), default=0)
    nxt = rx.search(text, end)
    return lo, nxt.start() if nxt is not None else len(text)


def attribute_at(text: str, start: int, end: int) -> dict[str, float]:
    """The attribute of the value written at ``text[start:end]``: stem -> weight."""
    seg = _bounds(text, _SEGMENT_BREAK, start, end)
    clause = _bounds(text[seg[0] : seg[1]], _CLAUSE_BREAK, start - seg[0], end - seg[0])
    clause = (clause[0] + seg[0], clause[1] + seg[0])
    out: dict[str, float] = {}
    words = [m for m in _WORD.finditer(text) if _letters(m.group(0))]
    before = [m for m in words if m.end() <= start]
    after = [m for m in words if m.start() >= end]
    numbered = labels(text)
    # a segment whose subject is a pronoun ("...; it was recorded on 11 February") is said
    # of the previous segment's subject: that segment's words weigh as its own segment's
    said_of = _antecedent(text, seg)
    for side in (list(reversed(before)), after):
        distance = 0
        for m in side:
            stems = _stems(m.group(0))
            if not stems:
                continue
            if m.start() in numbered:
                stems = (*stems, numbered[m.start()])
            if clause[0] <= m.start() < clause[1]:
                weight = _CLAUSE_WEIGHT / (1.0 + _DECAY * distance)
                distance += 1
            elif seg[0] <= m.start() < seg[1] or said_of[0] <= m.start() < said_of[1]:
                weight = _SEGMENT_WEIGHT
            else:
                weight = _SENTENCE_WEIGHT
            for s in stems:
                w = _COUNT_WEIGHT if s.startswith(COUNT_MARK) else weight
                out[s] = max(out.get(s, 0.0), w)
    for span, word in ((_WEEKDAYS, "weekday"), (_WEEKEND, "weekend")):
        for m in span.finditer(text):
            if m.group(0) and m.start() < seg[1] and m.end() > seg[0]:
                near = max(out.get(s, 0.0) for s in content_words(m.group(1)) or ("",))
                out[word] = max(out.get(word, 0.0), near)
    return out


#: A segment opening with a pronoun subject: said of the previous segment's subject.
_PRONOUN_SUBJECT = re.compile(
    r"\s*(?:it|they|he|she)\s+(?!is\s+(?:not\s+)?(?:possible|likely))", re.I
)


def _antecedent(text: str, seg: tuple[int, int]) -> tuple[int, int]:
    """The span of the segment before ``seg`` when ``seg`` opens with a pronoun subject;
    else an empty span."""
    if seg[0] == 0 or not _PRONOUN_SUBJECT.match(text, seg[0]):
        return (0, 0)
    before = seg[0] - 1
    lo = max((m.end() for m in _SEGMENT_BREAK.finditer(text, 0, before)), default=0)
    return lo, before


def clause_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Where the clause of the value written at ``text[start:end]`` starts and ends (after a
    clause break: ", ", "and", "or", "while", ...)."""
    seg = _bounds(text, _SEGMENT_BREAK, start, end)
    lo, hi = _bounds(text[seg[0] : seg[1]], _CLAUSE_BREAK, start - seg[0], end - seg[0])
    return seg[0] + lo, seg[0] + hi


def clause_stems(text: str, start: int, end: int) -> frozenset[str]:
    """The stems of the clause of the value written at ``text[start:end]`` (counted cases
    marked: "the 5-year fix" gives "#5year")."""
    lo, hi = clause_bounds(text, start, end)
    return frozenset(s for m in _WORD.finditer(text[lo:hi]) for s in _stems(m.group(0)))


def _stems(token: str) -> tuple[str, ...]:
    """A token's stems for an attribute; "non-members" is another case than "members"; "the
    5-year fix" (or "five-year") is another case than "the 2-year fix": its count is a stem too."""
    case = _COUNTED.fullmatch(token.lower())
    if case is not None:
        unit = content_words(case.group(2))
        n = case.group(1)
        count = n if n[0].isdigit() else str(NUMBER_WORDS[n])
        return (*unit, f"{COUNT_MARK}{count}{unit[0]}") if len(unit) == 1 else unit
    if token.lower() in _ABBREVIATED:
        return content_words(_ABBREVIATED[token.lower()])
    stems = content_words(_letters(token))
    if token[:4].lower() == "non-" and stems:
        return tuple(f"non{s}" for s in stems)
    compound = _PARTICLE_COMPOUND.fullmatch(token.lower())
    if compound is not None and stems:
        # "check-in" / "check-out", "drop-off" / "pick-up": the particle tells them apart
        return (*stems, compound.group(1) + compound.group(2))
    return stems


#: A thing named by a word and its number ("Line 3", "Voyager 1", "Stage 7", "Terminal 2"): the
#: number tells it from its namesakes ("Line 4"), so the pair is a word of the attribute too,
#: marked: it tells values apart (:func:`.alignment.labelled_apart`), but weighs nothing in
#: alignment (as the only word, "Route" no longer matched "Route 66": HaluEval QA lost a true
#: support; as one more, a name said once weighed twice: the values dev set lost one).
_LABEL = re.compile(
    rf"\b([A-Z][a-z]{{2,}})\s+(\d{{1,3}})\b(?![.,:]\d|\s*(?:%|(?i:[ap]\.?m\b|{UNIT_PATTERN})(?:e?s)?\b))"
)
_NOT_LABELS = frozenset(MONTHS) | frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "under", "over",
     "from", "until", "after", "before", "since", "between", "about", "around")
)  # fmt: skip


def labels(text: str) -> dict[int, str]:
    """Where each label's word starts in ``text`` -> the label as a stem ("line@3")."""
    return dict(_labels(text))


@lru_cache(maxsize=8192)
def _labels(text: str) -> tuple[tuple[int, str], ...]:
    out: dict[int, str] = {}
    for m in _LABEL.finditer(text):
        word = m.group(1).lower()
        stems = content_words(word)
        if word not in _NOT_LABELS and word.removesuffix("s") not in _NOT_LABELS and stems:
            out[m.start()] = f"{stems[0]}{LABEL_MARK}{m.group(2)}"
    return tuple(out.items())


#: A verb and its particle written as one noun ("check-in", "check-out", "sign-up", "drop-off"; with
#: "-over", "-back" ... too the triage HR set lost a true contradiction, Session 55).
_PARTICLE_COMPOUND = re.compile(r"([a-z]{3,})-(in|out|off|on|up)")


#: Periods written short: "£1,150 pcm" is a rent per month.
_ABBREVIATED = {"pcm": "month", "pw": "week"}


#: A counted case ("the 24-month contract") is a word of the attribute, marked: it tells the
#: case apart (:func:`.alignment.missing_case`) but weighs next to nothing in alignment (full
#: weight cost the blind sets 2 true contradictions for 1 false support, Session 49).
COUNT_MARK = "#"
#: Between a label's word and its number ("line@3").
LABEL_MARK = "@"
_COUNT_WEIGHT = 0.01
_COUNTED = re.compile(
    r"(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)-([a-z]+)"
)


def period_after(text: str, end: int) -> str:
    """The period a rate is stated per, within three words after ``end`` in the same clause."""
    tail = _CLAUSE_BREAK.split(_SEGMENT_BREAK.split(text[end : end + 60])[0])[0]
    words: list[str] = [w for w in re.split(r"[^a-z]+", tail.lower()) if w]
    for word in words[:4]:
        if _PERIOD.fullmatch(word):
            p = word[:-1] if word.endswith("s") else word
            break
    else:
        return ""
    return _PERIODS.get(p, p)


#: A period that names the case a price or a figure is for: "weekly", "per month", "a year",
#: "day pass" (a ticket's period).
_CASE_PERIOD = re.compile(
    r"\b(?:(hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annual|annually)"
    r"|(?:per|a|an|one|each|every)\s+(hour|day|week|fortnight|month|quarter|year)"
    r"|(day|week|month|year)[\s-](?:pass|ticket|travelcard|card|rover|return|membership))\b",
    re.I,
)


def case_periods(text: str) -> frozenset[str]:
    """The periods ``text`` names for what it prices or counts ("a weekly travelcard", "£12 per
    month", "a day pass"): "hour", "day", "week", "fortnight", "month", "quarter", "year"."""
    out = set()
    for m in _CASE_PERIOD.finditer(text):
        word = next(g for g in m.groups() if g).lower()
        out.add(_PERIODS.get(word, word))
    return frozenset(out)


def _letters(token: str) -> str:
    """A token's words without digits: "24-hour" -> "hour", "3rd" -> ""."""
    if not any(ch.isdigit() for ch in token):
        return token
    return " ".join(p for p in re.split(r"[-–/]", token) if p and not any(c.isdigit() for c in p))


def normalised(text: str) -> str:
    """The text the quantities are parsed from (number words as digits), so positions agree."""
    return fractions_as_digits(numbers_as_digits(spell_out(text)))


@lru_cache(maxsize=65536)
def stated_values(sentence: str) -> tuple[StatedValue, ...]:
    """Every value ``sentence`` states, with its attribute (cached: passages recur)."""
    text = normalised(sentence)
    out: list[StatedValue] = []
    taken: list[tuple[int, int]] = []
    spans: list[tuple[int, int]] = []  # of each value of ``out``
    for m in _ERA.finditer(text):
        # "51 BC", "AD 79": a year of an era, not a count ("in August 30 BC" is no date)
        at = (m.start(), m.end())
        n = int(m.group(2) or m.group(3))
        year = -n if (m.group(4) or "").upper().startswith("B") else n
        taken.append(at)
        spans.append(at)
        attribute = MappingProxyType(attribute_at(text, *at))
        out.append(StatedValue("year", m.group(0), attribute, year=year, span=at))
    for start, end, date in date_spans(text):
        if any(a < end and start < b for a, b in taken):
            continue
        taken.append((start, end))
        spans.append((start, end))
        out.append(
            StatedValue(
                "date",
                text[start:end],
                MappingProxyType(attribute_at(text, start, end)),
                date=date,
                span=(start, end),
            )
        )
    for start, end, per_day in frequency_spans(text):
        if any(a < end and start < b for a, b in taken):
            continue
        taken.append((start, end))
        spans.append((start, end))
        written = text[start:end]
        quantity = Quantity(per_day, per_day, "freq", written, raw=(per_day, per_day))
        attribute = MappingProxyType(attribute_at(text, start, end))
        out.append(StatedValue("freq", written, attribute, quantity=quantity, span=(start, end)))
    quantities, years, _ = parse_quantities(sentence)
    for m in _YEAR.finditer(text):
        at = (m.start(), m.end())
        if int(m.group(0)) not in years or any(a < at[1] and at[0] < b for a, b in taken):
            continue
        taken.append(at)
        spans.append(at)
        attribute = MappingProxyType(attribute_at(text, *at))
        out.append(StatedValue("year", m.group(0), attribute, year=int(m.group(0)), span=at))
    for q in quantities:
        if q.derived or q.kind.startswith("ord:"):
            continue
        span = _find(text, q.text, taken)
        if span is None:
            continue
        if q.kind.startswith("n:") and _NAME_BEFORE.search(text, 0, span[0]):
            taken.append(span)
            continue  # "Terminal 2", "Lumen Pro 14": part of a name, no value
        if text[span[1] : span[1] + 1] == "/" or _AGE_AFTER.match(text, span[1]):
            taken.append(span)
            continue  # "0.15 mg/kg" read only in part; "12-year-old" is an age, not a duration
        taken.append(span)
        spans.append(span)
        attribute = MappingProxyType(attribute_at(text, *span))
        period = "" if q.kind in _NO_PERIOD else period_after(text, span[1])
        if q.kind.startswith("ratio:"):  # "25 mg/kg/day": the period is written in the unit
            within = _PER_IN_UNIT.search(q.text)
            period = (
                _PERIODS.get(within.group(1).lower(), within.group(1).lower()) if within else period
            )
        out.append(
            StatedValue(
                q.kind, q.text, attribute, quantity=q, period=period, span=span, relative=q.relative
            )
        )
    return tuple(_with_years(text, _joined(text, out, spans), spans))


#: Between two alternatives written side by side ("128 GB or 256 GB"), or two values of a list
#: ("the prices are $25 and $59": without "between" no range, :mod:`.quantities`).
_OR = re.compile(r"\s*(?:or|and)\s*", re.I)


def _joined(
    text: str, values: list[StatedValue], spans: list[tuple[int, int]]
) -> list[StatedValue]:
    """The values, two alternatives written side by side ("128 GB or 256 GB", "$25 and $59")
    with one attribute, the two merged: neither is more the value of what their clause says
    (not the two ends of "between 17 % and 19 %"). Dates are
    left alone. The two ends of a span ("open 8 am to 6 pm", "17 January 1892 – 15 February
    1930") keep their own: they are two times or events (merged, or the second end read as the
    closing time, a true "The café shuts at 4 pm" was contradicted by the centre's 4:30 pm
    closing on the values dev set, Session 48)."""
    out = list(values)
    order = sorted(range(len(values)), key=lambda i: spans[i])
    for i, j in itertools.pairwise(order):
        a, b = out[i], out[j]
        if a.kind != b.kind or a.kind in ("date", "year"):
            continue
        between = text[: spans[i][0]].rstrip().lower().endswith("between")
        if _OR.fullmatch(text[spans[i][1] : spans[j][0]]) and not between:
            merged = dict(a.attribute)
            for w, weight in b.attribute.items():
                merged[w] = max(merged.get(w, 0.0), weight)
            shared = MappingProxyType(merged)
            out[i], out[j] = replace(a, attribute=shared), replace(b, attribute=shared)
    return out


def _with_years(
    text: str, values: list[StatedValue], spans: list[tuple[int, int]]
) -> list[StatedValue]:
    """Each value with the years that qualify it (:attr:`StatedValue.years`)."""
    dated = [
        (span, v.year if v.year is not None else v.date[0] if v.date is not None else None)
        for v, span in zip(values, spans, strict=True)
    ]
    out = []
    for v, (start, end) in zip(values, spans, strict=True):
        if v.kind in ("year", "date"):
            out.append(v)
            continue
        seg = _bounds(text, _SEGMENT_BREAK, start, end)
        lo, hi = _bounds(text[seg[0] : seg[1]], _CLAUSE_BREAK, start - seg[0], end - seg[0])
        clause = {
            y for (a, b), y in dated if y is not None and seg[0] + lo <= a and b <= seg[0] + hi
        }
        out.append(replace(v, years=frozenset(clause)) if clause else v)
    return out


def _find(text: str, needle: str, taken: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The first occurrence of ``needle`` in ``text`` that overlaps no span already taken."""
    if not needle:
        return None
    pos = text.find(needle)
    while pos >= 0:
        end = pos + len(needle)
        if not any(pos < b and a < end for a, b in taken):
            return pos, end
        pos = text.find(needle, pos + 1)
    return None
