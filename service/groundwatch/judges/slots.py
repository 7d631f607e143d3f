"""Slot agreement: does an evidence sentence agree with a claim on what the claim asserts?

Usage::

    check = compare_slots(parse_slots("The refund window is 14 days."),
                          parse_slots("Refunds are accepted within two weeks."))
    check.conflicts   # [] -> numbers agree (14 days == two weeks)

Slots are numbers with units (percentages, currencies, ranges, written-out numbers, durations,
lengths, masses, data sizes), years and dates, named entities (capitalised spans), negation,
modality (may / must) and comparatives (more / less, before / after, ...). Cosine similarity
cannot see any of these, so they are checked here, explicitly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from groundwatch.contract.record import Conflict
from groundwatch.judges.claims import STOPWORDS, content_words, stem

__all__ = [
    "Quantity",
    "SlotCheck",
    "Slots",
    "ValueConflict",
    "compare_slots",
    "parse_slots",
    "polarity_negated",
]

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "dozen": 12, "half": 0.5, "single": 1, "twice": 2,
    "double": 2, "triple": 3,
}  # fmt: skip
_SCALE = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9,
          "bn": 1e9, "b": 1e9, "trillion": 1e12, "hundred": 1e2}  # fmt: skip
# unit -> (kind, factor to the kind's base unit)
_UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1), "percent": ("percent", 1), "per cent": ("percent", 1),
    "percentage points": ("percent", 1), "pp": ("percent", 1),
    "second": ("time", 1 / 86400), "minute": ("time", 1 / 1440), "min": ("time", 1 / 1440),
    "hour": ("time", 1 / 24), "hr": ("time", 1 / 24), "day": ("time", 1), "week": ("time", 7),
    "fortnight": ("time", 14), "month": ("time", 30.44), "year": ("time", 365.25),
    "business day": ("bday", 1), "working day": ("bday", 1), "weekday": ("bday", 1),
    "mm": ("length", 0.001), "cm": ("length", 0.01), "m": ("length", 1), "meter": ("length", 1),
    "metre": ("length", 1), "km": ("length", 1000), "kilometer": ("length", 1000),
    "kilometre": ("length", 1000), "mile": ("length", 1609.34), "mi": ("length", 1609.34),
    "ft": ("length", 0.3048), "foot": ("length", 0.3048), "feet": ("length", 0.3048),
    "inch": ("length", 0.0254), "yard": ("length", 0.9144),
    "mg": ("mass", 1e-6), "g": ("mass", 1e-3), "gram": ("mass", 1e-3), "kg": ("mass", 1),
    "kilogram": ("mass", 1), "lb": ("mass", 0.4536), "pound": ("mass", 0.4536),
    "tonne": ("mass", 1000), "ton": ("mass", 1000), "mcg": ("mass", 1e-9), "µg": ("mass", 1e-9),
    "ml": ("volume", 0.001), "l": ("volume", 1), "liter": ("volume", 1), "litre": ("volume", 1),
    "kb": ("data", 1e-3), "mb": ("data", 1), "gb": ("data", 1e3), "tb": ("data", 1e6),
    "kilobyte": ("data", 1e-3), "megabyte": ("data", 1), "gigabyte": ("data", 1e3),
    "terabyte": ("data", 1e6),
    "°c": ("celsius", 1), "°f": ("fahrenheit", 1), "degree": ("degree", 1),
    "sq mi": ("area_mi", 1), "km2": ("area_km", 1), "acre": ("acre", 1), "hectare": ("ha", 1),
    # Spelled-out and abbreviated variants of the units above (general table).
    "sec": ("time", 1 / 86400), "yr": ("time", 365.25), "centimetre": ("length", 0.01),
    "centimeter": ("length", 0.01), "millimetre": ("length", 0.001),
    "millimeter": ("length", 0.001), "milligram": ("mass", 1e-6), "kilo": ("mass", 1),
    "millilitre": ("volume", 0.001), "milliliter": ("volume", 0.001),
    "oz": ("mass", 0.02835), "ounce": ("mass", 0.02835), "gallon": ("volume", 3.785),
    "km/h": ("speed", 1), "kph": ("speed", 1), "kmh": ("speed", 1),
    "kilometres per hour": ("speed", 1), "kilometers per hour": ("speed", 1),
    "mph": ("speed", 1.609), "miles per hour": ("speed", 1.609),
    "square mile": ("area_mi", 1), "sq km": ("area_km", 1), "square kilometre": ("area_km", 1),
    "square kilometer": ("area_km", 1),
}  # fmt: skip
_CURRENCY = {"$": "$", "us$": "usd", "usd": "usd", "dollar": "usd", "€": "eur", "eur": "eur",
             "euro": "eur", "£": "gbp", "gbp": "gbp", "¥": "jpy", "jpy": "jpy", "yen": "jpy",
             "inr": "inr", "₹": "inr", "rupee": "inr", "cad": "cad", "aud": "aud", "chf": "chf"}  # fmt: skip
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
_MONTHS.update({k[:3]: v for k, v in list(_MONTHS.items())})
_MONTHS["sept"] = 9

_UNIT_ALT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_NUMWORD = "|".join(sorted(_SMALL, key=len, reverse=True))
_NUM = (
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+|"
    rf"(?:{_NUMWORD})(?:[\s-](?:{_NUMWORD}))?)"
)
_NOT_MOD = "per|the|and|for|than|more|less|each|every|from|into|over|under|with|out|off"
_QUANTITY = re.compile(
    rf"(?<![\w.])(?<![A-Za-z]-)(?P<cur>US\$|[$€£¥₹]|(?:USD|EUR|GBP|INR|CAD|AUD|CHF)\s?)?"
    rf"(?P<a>{_NUM})"
    rf"(?:\s?(?:-|–|—|to|and)\s?(?:US\$|[$€£¥₹])?(?P<b>{_NUM}))?"
    rf"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|mn|k|m|b)\b)?"
    # "15 vacation days", "10 calendar days": one modifier word between value and unit.
    rf"(?:\s(?!(?:{_NOT_MOD})\b)(?P<mod>[a-z]{{3,}})(?![a-z])(?=[\s-]?(?:{_UNIT_ALT})(?:e?s)?(?![a-z])))?"
    rf"(?:[\s-]?(?P<unit>(?:{_UNIT_ALT})(?:e?s)?)(?![a-z]))?"
    rf"(?:\s(?P<cur2>dollars?|euros?|pounds sterling|yen|rupees?|usd|eur|gbp)\b)?"
    rf"(?:\s(?P<noun>[a-z][a-z\-]{{2,}}))?",
    re.I,
)
_ORDINALS = {
    w: i
    for i, w in enumerate(
        [
            "first",
            "second",
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
            "eighth",
            "ninth",
            "tenth",
            "eleventh",
            "twelfth",
        ],
        1,
    )
}
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
_YEAR = re.compile(r"(?<![\w$€£.,])(?P<y>1[0-9]{3}|20[0-9]{2}|21[0-9]{2})(?:s\b)?(?![\w%.,]\d)")
_DECADE = re.compile(r"\b(?P<y>1[0-9]{2}0|20[0-9]0)s\b")
_ENTITY = re.compile(
    r"(?:[A-Z][\w'’.\-]*[\w]|[A-Z])(?:\s+(?:of|de|du|la|van|von|&)?\s*[A-Z][\w'’.\-]*[\w])*"
)
_NEGATORS = frozenset(
    [
        "not",
        "no",
        "never",
        "none",
        "nobody",
        "nothing",
        "neither",
        "nor",
        "without",
        "cannot",
        "can't",
        "won't",
        "don't",
        "doesn't",
        "didn't",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "hadn't",
        "shouldn't",
        "wouldn't",
        "couldn't",
        "mustn't",
        "needn't",
    ]
)
_PERMISSIVE = frozenset(
    [
        "may",
        "can",
        "might",
        "could",
        "optional",
        "optionally",
        "allowed",
        "permitted",
        "can't",
        "cannot",
    ]
)
_OBLIGATORY = frozenset(
    ["must", "required", "mandatory", "shall", "obligatory", "needs", "need", "have", "has", "to"]
)
_OPPOSITES: list[tuple[frozenset[str], frozenset[str]]] = [
    (frozenset({"more", "greater", "higher", "larger", "bigger", "increase", "increased",
                "increases", "rise", "rose", "raised", "gain", "exceed", "exceeds", "above",
                "over", "plus", "longer", "faster", "older", "heavier", "stronger"}),
     frozenset({"less", "fewer", "lower", "smaller", "decrease", "decreased", "decreases",
                "reduce", "reduced", "reduces", "fall", "fell", "drop", "dropped", "loss",
                "below", "under", "minus", "shorter", "slower", "younger", "lighter",
                "weaker"})),
    (frozenset({"before", "earlier", "prior", "preceded", "precedes"}),
     frozenset({"after", "later", "following", "followed", "subsequent"})),
    (frozenset({"maximum", "max", "most", "up"}), frozenset({"minimum", "min", "least"})),
    (frozenset({"first", "earliest"}), frozenset({"last", "latest", "final"})),
    (frozenset({"north", "northern"}), frozenset({"south", "southern"})),
    (frozenset({"east", "eastern"}), frozenset({"west", "western"})),
    (frozenset({"include", "includes", "included", "including"}),
     frozenset({"exclude", "excludes", "excluded", "excluding"})),
    (frozenset({"allow", "allows", "allowed", "permit", "permits", "permitted"}),
     frozenset({"prohibit", "prohibits", "prohibited", "forbid", "forbids", "forbidden",
                "ban", "bans", "banned", "disallowed"})),
    (frozenset({"accept", "accepts", "accepted", "approve", "approved"}),
     frozenset({"reject", "rejects", "rejected", "deny", "denied", "decline", "declined"})),
    (frozenset({"open", "opened", "opens"}), frozenset({"closed", "close", "closes"})),
    (frozenset({"win", "won", "wins", "victory"}), frozenset({"lose", "lost", "loses", "defeat", "defeated"})),
    (frozenset({"paid"}), frozenset({"free", "unpaid"})),
    (frozenset({"always"}), frozenset({"never", "sometimes", "occasionally"})),
    (frozenset({"enabled", "on"}), frozenset({"disabled", "off"})),
    (frozenset({"daily"}), frozenset({"weekly", "monthly", "annually", "yearly"})),
    (frozenset({"weekly"}), frozenset({"daily", "monthly", "annually", "yearly"})),
    (frozenset({"monthly"}), frozenset({"daily", "weekly", "annually", "yearly", "quarterly"})),
    (frozenset({"annually", "yearly", "annual"}), frozenset({"monthly", "weekly", "daily", "quarterly"})),
]  # fmt: skip
_CLAUSE = re.compile(
    r"\s*(?:;|,\s*(?:but|while|whereas|although|though|however|and)\b|\s+and\s+(?=\w+\s+\w+)|\bbut\b|\bwhereas\b|\bwhile\b|\bhowever\b|\bunlike\b|\bexcept\b)\s*",
    re.I,
)
_BOUND_NEGATION = re.compile(
    r"\b(?:no|not|never)\s+(?:\w+\s+){0,2}?(?:more|less|fewer|later|earlier|longer|shorter|greater|higher|"
    r"lower|sooner)\s+than\b|\bnot\s+(?:to\s+)?exceed|\bnot only\b|\bno matter\b"
)
_PARENS = re.compile(r"\([^()]*\)")
_SENTENCE_START_COMMON = STOPWORDS | frozenset(
    [
        "yes",
        "no",
        "please",
        "note",
        "however",
        "also",
        "in",
        "on",
        "at",
        "for",
        "from",
        "after",
        "before",
        "during",
    ]
)


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
    #: Names earlier in its clause, or the label it follows ("Basic plan: 100"): whose value.
    scope: frozenset[str] = frozenset()
    #: Stated in parentheses ("€24 a month (€29 if billed monthly)"): an aside.
    aside: bool = False
    #: A comparison bound, not a value: "lower" ("after 2 p.m.", "more than 100", "over
    #: 60 °C"), "upper" ("before noon", "less than 5 %", "under 18"), "" otherwise.
    bound: str = ""

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


@dataclass(frozen=True)
class Slots:
    """Everything the agreement checks look at in one text."""

    quantities: tuple[Quantity, ...]
    years: frozenset[int]
    dates: tuple[tuple[int | None, int, int | None], ...]  # (year, month, day)
    entities: tuple[str, ...]
    negated: bool | None  # None: polarity unknown (not checked)
    modality: tuple[str, str] | None  # ("must" | "may", the verb it bears on or "adj")
    opposites: tuple[tuple[int, int, int], ...]  # (pair index, side, occurrences)
    words: frozenset[str]
    tokens: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValueConflict:
    """A claim value and the evidence value that disagrees with it, each as written
    (``"23 kg"`` vs ``"32 kg"``, ``"1934"`` vs ``"1932"``): data a caller can act on, such as
    restating the claim with the evidence's value."""

    kind: str  # "number" | "date" | "year"
    claim_text: str
    evidence_text: str


@dataclass
class SlotCheck:
    """Result of comparing a claim's slots with an evidence text."""

    conflicts: list[str] = field(default_factory=list)
    #: The number, date and year conflicts of ``conflicts`` as data, in the same order (a date
    #: conflict is here only when its years differ: the year is the part written alike).
    value_conflicts: list[ValueConflict] = field(default_factory=list)
    qualifier_conflicts: list[str] = field(default_factory=list)
    matched: int = 0
    values_matched: int = 0  # numbers, dates and years that agree
    missing: list[str] = field(default_factory=list)
    agreed: list[str] = field(default_factory=list)  # claim values this evidence states
    #: claim values on the side of a comparison bound this evidence states ("4 p.m." against
    #: "after 2 p.m."): consistent with it, though not stated
    within: list[str] = field(default_factory=list)
    #: Each reason of ``conflicts`` (and ``qualifier_conflicts``) -> the disagreeing words as
    #: written, as data: what a finding shows and the page marks.
    found: dict[str, Conflict] = field(default_factory=dict)

    def add(self, reason: str, conflict: Conflict | None, *, qualifier: bool = False) -> None:
        """Record one disagreement: its reason and, when the words are known, its data."""
        (self.qualifier_conflicts if qualifier else self.conflicts).append(reason)
        if conflict is not None:
            self.found.setdefault(reason, conflict)


def _to_number(text: str) -> float | None:
    t = text.lower().replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        pass
    parts = re.split(r"[\s-]+", t)
    if not parts or any(p not in _SMALL for p in parts):
        return None
    total = 0.0
    for p in parts:
        v = _SMALL[p]
        total = total * v if p == "hundred" and total else total + v
    return total


def _unit(raw: str | None) -> tuple[str, float] | None:
    if not raw:
        return None
    u = raw.lower()
    if u in _UNITS:
        return _UNITS[u]
    for cut in (1, 2):
        if u.endswith("s") and u[:-cut] in _UNITS:
            return _UNITS[u[:-cut]]
    return None


# Clock times: "7 pm", "7:30 a.m.", "19:00" (24-hour). Read as hours since midnight (kind
# "clock"), so "20:00" and "8 pm" agree and "9:30" is one value, not 9 and 30. Minutes are two
# digits ("16:9" is a ratio); a scale or list after them ("1:50,000") is no time.
_CLOCK_12 = re.compile(
    r"(?<![\w:.,])(?P<h>1[0-2]|0?[1-9])(?::(?P<m>[0-5]\d))?\s?(?P<ap>[ap])(?:\.\s?m\.|\s?m\b)", re.I
)
_CLOCK_24 = re.compile(r"(?<![\w:.,])(?P<h>[01]?\d|2[0-4]):(?P<m>[0-5]\d)(?![\d:]|[.,]\d)")


def _clock_times(masked: str, out: list[Quantity]) -> str:
    """Append every clock time of ``masked`` to ``out`` as a "clock" quantity; the text with
    those spans blanked (their digits are no other value)."""
    for rx in (_CLOCK_12, _CLOCK_24):
        for m in rx.finditer(masked):
            ap = (m.groupdict().get("ap") or "").lower()  # "" on the 24-hour clock
            hour = int(m.group("h")) % (12 if ap else 24) + (12 if ap == "p" else 0)
            value = hour + int(m.group("m") or 0) / 60
            bound = _bound_before(masked[max(0, m.start() - 40) : m.start()])
            context = _local_context(masked, m.start(), m.end())
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
                )
            )
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    return masked


@lru_cache(maxsize=65536)
def _parse_quantities(
    text: str,
) -> tuple[tuple[Quantity, ...], frozenset[int], tuple[tuple[int | None, int, int | None], ...]]:
    dates: list[tuple[int | None, int, int | None]] = []
    masked = _spell_out(text)
    for rx in (_DATE_ISO, _DATE_MDY, _DATE_DMY, _DATE_MY):
        for m in rx.finditer(masked):
            mon_raw = m.group("mon").lower().rstrip(".")
            mon = (
                int(mon_raw)
                if mon_raw.isdigit()
                else _MONTHS.get(mon_raw[:4] if mon_raw.startswith("sept") else mon_raw[:3])
            )
            if mon is None or not 1 <= mon <= 12:
                continue
            year = m.group("year")
            day = m.groupdict().get("day")
            if mon_raw == "may" and day is None:
                continue
            dates.append((int(year) if year else None, mon, int(day) if day else None))
            keep_year = f" {year} " if year else " "
            masked = (
                masked[: m.start()]
                + " " * (m.end() - m.start() - len(keep_year))
                + keep_year
                + masked[m.end() :]
            )
    years: set[int] = set()
    for m in _DECADE.finditer(masked):
        years.update(range(int(m.group("y")), int(m.group("y")) + 10))
    for m in re.finditer(
        r"(?<![\w$€£])(1[0-9]{3}|20[0-9]{2})\s?(?:-|–|to)\s?(1[0-9]{3}|20[0-9]{2}|[0-9]{2})\b",
        masked,
    ):
        y0, y1 = int(m.group(1)), m.group(2)
        bi = int(y1) if len(y1) == 4 else (y0 // 100) * 100 + int(y1)
        if y0 < bi <= y0 + 200:
            years.update({y0, bi})
            masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    for m in _YEAR.finditer(masked):
        tail = masked[m.end() : m.end() + 12].lower()
        if _unit(tail.strip().split(" ")[0].strip(".,;")) or tail.lstrip().startswith(
            ("%", "percent")
        ):
            continue
        years.add(int(m.group("y")))
        masked = masked[: m.start()] + " " * (m.end() - m.start()) + masked[m.end() :]
    masked = _fractions_as_digits(masked)
    out: list[Quantity] = []
    masked = _clock_times(masked, out)
    for m in _ORDINAL.finditer(masked):
        word = m.group(1).lower()
        value = float(_ORDINALS.get(word) or int(re.sub(r"\D", "", word)))
        # "first governor" and "first settlement" are different slots.
        noun = (m.group("noun") or "").lower()
        kind = "ord:" + (stem(noun) if noun and noun not in STOPWORDS else "")
        out.append(Quantity(value, value, kind, m.group(0), (value, value)))
        masked = masked[: m.start()] + " " * (m.end(1) - m.start()) + masked[m.end(1) :]
    for m in _QUANTITY.finditer(masked):
        a = _to_number(m.group("a"))
        if a is None:
            continue
        b = _to_number(m.group("b")) if m.group("b") else None
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
        scale = _SCALE.get(scale_raw, 1.0)
        cur = (m.group("cur") or m.group("cur2") or "").strip().lower().rstrip("s")
        # "4 business days": the modifier makes another unit (business days are not calendar
        # days); "15 vacation days" stays days.
        unit = (m.group("mod") and unit_raw and _unit(f"{m.group('mod')} {unit_raw}")) or _unit(
            unit_raw
        )
        if cur:
            kind, factor = "cur:" + _CURRENCY.get(cur, cur), 1.0
        elif unit:
            kind, factor = unit
        else:
            noun = (m.group("noun") or "").lower()
            kind = "n:" + stem(noun) if noun and noun not in STOPWORDS else "n:"
            factor = 1.0
        lo = a * scale * factor
        hi = (b * scale * factor) if b is not None else lo
        if b is not None and hi < lo:
            lo, hi = hi, lo
        if b is None and m.group("a").isdigit() and kind == "n:" and len(m.group("a")) > 6:
            continue  # phone numbers, ids
        raw = (a * scale, b * scale if b is not None else a * scale)
        # The following noun is part of the text only when it is the unit ("14 employees").
        ends = [m.end(g) for g in ("a", "b", "scale", "unit", "cur2") if m.group(g)]
        if kind.startswith("n:") and kind != "n:" and m.group("noun"):
            ends.append(m.end("noun"))
        text_q = masked[m.start() : max(ends)].strip()
        context = _local_context(masked, m.start(), max(ends))
        if m.group("mod") and unit:
            context = context | frozenset(content_words(m.group("mod")))
        raw_span = (min(raw), max(raw))
        scope = _scope(masked, m.start())
        aside = masked.count("(", 0, m.start()) > masked.count(")", 0, m.start())
        bound = ""
        if b is None and not _RELATIVE_AFTER.match(masked[max(ends) :]):
            bound = _bound_before(masked[max(0, m.start() - 40) : m.start()])
        out.append(
            Quantity(lo, hi, kind, text_q, raw_span, context, scope=scope, aside=aside, bound=bound)
        )
    out.extend(_proportions(masked))
    return tuple(out), frozenset(years), tuple(dates)


# Fractions written as words: "three-quarters", "a third", "two and a half hours", "half the
# seats". Read as digits before the number pattern sees them (it would read "three-quarters" as
# 3): a share ("three-quarters of the staff") as a percentage, a fraction of a unit or scale
# ("three quarters of a mile", "one and a half million") as that amount.
_DENOMINATORS = {"half": 2, "halve": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5,
                 "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10}  # fmt: skip
_NUMERATORS = {"a": 1, "an": 1} | {
    w: v for w, v in _SMALL.items() if isinstance(v, int) and 1 <= v <= 20 and w != "single"
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
    rf"(?:\s+of)?(?:\s+an?)?[\s-](?P<unit>(?:{_UNIT_ALT})(?:e?s)?)(?![a-z])", re.I
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
# "a week and a half", "two years and a half".
_UNIT_AND_A_HALF = re.compile(
    rf"(?<![\w-])(?P<n>{_NUMERATOR_ALT}|\d+)\s+(?P<unit>(?:{_UNIT_ALT})(?:e?s)?)\s+and\s+a\s+half\b",
    re.I,
)


def _fractions_as_digits(text: str) -> str:
    """``text`` with its fractions written as words replaced by digits (see ``_FRACTION``)."""
    text = _UNIT_AND_A_HALF.sub(lambda m: f"{_count(m.group('n')) + 0.5:g} {m.group('unit')}", text)
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


# The words before a value that make it a comparison bound ("no more than" before "more
# than"). Limits a policy states ("within 30 days", "up to $500", "at least 18") are not among
# them: "returns are accepted for 30 days" contradicts "within 45 days".
_BOUND_WORDS = (
    ("no more than", ""), ("not more than", ""), ("no less than", ""), ("not less than", ""),
    ("no fewer than", ""), ("no later than", ""), ("no earlier than", ""),
    ("more than", "lower"), ("greater than", "lower"), ("later than", "lower"),
    ("less than", "upper"), ("fewer than", "upper"), ("earlier than", "upper"),
    ("after", "lower"), ("over", "lower"), ("above", "lower"), ("beyond", "lower"),
    ("exceeding", "lower"), ("before", "upper"), ("under", "upper"), ("below", "upper"),
)  # fmt: skip
# "up to 48 hours before arrival": a bound on a time before or after something reads the other
# way round (cancelling 24 hours before is later than 48 hours before): no bound is read.
_RELATIVE_AFTER = re.compile(
    r"\s*(?:before|prior|ahead|in advance|earlier|later|after|ago|beforehand)\b", re.I
)


def _bound_before(before: str) -> str:
    """ "lower" / "upper" when the words just before a value make it a bound, else ""."""
    tail = " " + " ".join(re.findall(r"[a-z]+", before.lower())[-3:])
    for words, side in _BOUND_WORDS:
        if tail.endswith(" " + words):
            return side
    return ""


def _within_bound(value: Quantity, bound: Quantity) -> bool:
    """``value`` lies on the side ``bound`` allows ("4 p.m." and "after 2 p.m.")."""
    if bound.bound == "lower":
        return value.value >= bound.value
    if bound.bound == "upper":
        return value.high <= bound.high
    return False


def _bounds_compatible(q: Quantity, e: Quantity) -> bool:
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


def _count(word: str) -> float:
    return float(_NUMERATORS.get(word.lower(), 0) or _to_number(word) or 0)


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
    if before and (before[-1] in _HEDGES or " ".join(before[-2:]) in _HEDGES):
        return None  # "nearly half", "over a third", "more than half": no value to compare
    parts = _NUMERATORS[num_raw] if num_raw else 1
    if parts >= den:
        return None  # "two halves", "four quarters": a count of parts
    value = parts / den + (_count(whole_raw) if whole_raw else 0)
    rest = text[m.end() :]
    unit = _FRACTION_UNIT.match(rest)
    if unit and _unit(unit.group("unit")):
        return f"{value:g} {unit.group('unit')}", m.end() + unit.end()
    scale = _FRACTION_SCALE.match(rest)
    if scale:
        return f"{value:g} {scale.group('scale')}", m.end() + scale.end()
    if rest.startswith("-") or not _SHARE_NEXT.match(rest):
        return None  # "half-price", "a third party"
    if whole_raw:
        return f"{value:g}", m.end()  # "two and a half" of something
    return f"{value * 100:g} percent", m.end()


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
        context = _local_context(text, m.start(), m.end())
        out.append(Quantity(share, share, "percent", m.group(0), (share, share), context, True))
    return out


_CLAUSE_BREAK = re.compile(r"[,;:()]|\s(?:and|but|or|while|whereas|during|after|before|with)\s")


def _local_context(text: str, start: int, end: int, span: int = 3) -> frozenset[str]:
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
    words = [w for ent in _entities(before) for w in content_words(ent)]
    if len(parts) > 1 and not content_words(before) and text[:start].rstrip().endswith(":"):
        words += content_words(parts[-2])
    return frozenset(words)


# Spelled-out amounts that the number pattern cannot read, as digits and a unit.
_PHRASES = [
    (re.compile(r"\b(?:a|one)\s+and\s+a\s+half\s+hours?\b", re.I), "90 minutes"),
    (re.compile(r"\ban\s+hour\s+and\s+a\s+half\b", re.I), "90 minutes"),
    (re.compile(r"\bhalf\s+an?\s+hour\b|\bhalf-hour\b", re.I), "30 minutes"),
    (re.compile(r"\b(?:a\s+)?quarter\s+of\s+an\s+hour\b", re.I), "15 minutes"),
    (re.compile(r"\bhalf\s+a\s+day\b", re.I), "12 hours"),
    (re.compile(r"\bhalf\s+a\s+year\b", re.I), "6 months"),
    (re.compile(r"\b(?:a|one)\s+fortnight\b", re.I), "14 days"),
]


def _spell_out(text: str) -> str:
    for rx, repl in _PHRASES:
        text = rx.sub(repl, text)
    return text


def _entities(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for m in _ENTITY.finditer(text):
        span = m.group(0).strip(" .'’")
        first = span.split()[0].lower() if span else ""
        at_start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "?", "!", ":", '"'))
        if at_start and " " not in span and first in _SENTENCE_START_COMMON:
            continue
        if span.lower() in STOPWORDS or span.lower() in _MONTHS or len(span) < 2:
            continue
        if at_start and first in _SENTENCE_START_COMMON:
            span = span.split(" ", 1)[1] if " " in span else ""
        if span:
            out.append(span)
    return tuple(out)


def polarity_negated(text: str) -> bool:
    """True when ``text`` asserts a negation (an odd number of negators; "? No." answers)."""
    lowered = text.lower().replace("’", "'")
    tokens = re.findall(r"[a-z]+(?:'[a-z]+)?", lowered)
    count = sum(1 for t in tokens if t in _NEGATORS)
    count += len(re.findall(r"\bnon-?[a-z]", lowered))
    # "no more than 8", "not later than", "not to exceed": bounds, not negations.
    count -= len(_BOUND_NEGATION.findall(lowered))
    idx = lowered.rfind("? ")
    if idx >= 0:
        answer = lowered[idx + 2 :].strip(" .!")
        if answer in {"no", "nope", "false", "incorrect"}:
            count += 1
        lowered_q = lowered[:idx]
        count = sum(1 for t in re.findall(r"[a-z]+(?:'[a-z]+)?", lowered_q) if t in _NEGATORS) + (
            1 if answer in {"no", "nope", "false", "incorrect"} else 0
        )
    return count % 2 == 1


_MUST = re.compile(
    r"\b(?:(?P<adj>required|mandatory|obligatory)|must|shall|needs? to|ha(?:ve|s) to)\b"
    r"(?:\s+(?:not|also|only|always|be|first))*(?:\s+(?P<verb>[a-z]+))?"
)
_MAY = re.compile(
    r"\b(?:(?P<adj>optional|optionally)|may|might|can|could|(?:allowed|permitted) to)\b"
    r"(?:\s+(?:not|also|only|always|be|first))*(?:\s+(?P<verb>[a-z]+))?"
)


def _modality(tokens: list[str]) -> tuple[str, str] | None:
    """("must" | "may", what it bears on): "adj" for optional/required, else the next verb."""
    joined = " ".join(tokens)
    for kind, rx in (("must", _MUST), ("may", _MAY)):
        m = rx.search(joined)
        if m:
            return kind, "adj" if m.group("adj") else stem(m.group("verb") or "")
    return None


def _bound_tokens(tokens: list[str]) -> list[str]:
    """Tokens less superlatives that are no bound: "most recent" and "least busy" say nothing
    of a maximum or minimum ("at most", "at least" do), nor "up" without "to" ("up to")."""
    out: list[str] = []
    for k, t in enumerate(tokens):
        before = tokens[k - 1] if k else ""
        after = tokens[k + 1] if k + 1 < len(tokens) else ""
        if t in _SUPERLATIVE_BOUNDS and before != "at":
            continue
        if t == "up" and after != "to":
            continue
        out.append(t)
    return out


_SUPERLATIVE_BOUNDS = frozenset({"most", "least"})


@lru_cache(maxsize=65536)
def parse_slots(text: str) -> Slots:
    """Parse every slot of ``text`` (cached: passage sentences recur across traces)."""
    quantities, years, dates = _parse_quantities(text)
    tokens = re.findall(r"[a-z]+", text.lower())
    bound = _bound_tokens(tokens)
    bound_set = set(bound)
    opposites = tuple(
        (i, side, sum(1 for t in bound if t in words))
        for i, pair in enumerate(_OPPOSITES)
        for side, words in enumerate(pair)
        if bound_set & words
    )
    return Slots(
        quantities=quantities,
        years=years,
        dates=dates,
        entities=_entities(text),
        negated=polarity_negated(text),
        modality=_modality(tokens),
        opposites=opposites,
        words=frozenset(content_words(text)),
        tokens=tuple(tokens),
    )


_DOLLARS = frozenset({"cur:$", "cur:usd", "cur:cad", "cur:aud"})


def _same_unit(a: Quantity, b: Quantity) -> bool:
    if a.kind == b.kind:
        return True
    # "$" alone may be any dollar; a bare number may be any count or amount.
    if {a.kind, b.kind} <= _DOLLARS and "cur:$" in (a.kind, b.kind):
        return True
    return (a.kind == "n:") != (b.kind == "n:")


def _kinds_compatible(a: Quantity, b: Quantity) -> bool:
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


def _negated_words(tokens: tuple[str, ...]) -> set[str]:
    """Content words a negator bears on: the first content word within 3 tokens after it."""
    out: set[str] = set()
    for i, t in enumerate(tokens):
        if t not in _NEGATORS and t not in {"t", "n", "non"}:
            continue
        for nxt in tokens[i + 1 : i + 4]:
            words = content_words(nxt)
            if words and words[0] not in {"not", "no", "never"}:
                out.add(words[0])
                break
    return out


def _negation_in_scope(claim: Slots, evidence: Slots, sentence: Slots) -> bool:
    """A polarity clash counts only when the negated word is one the other side asserts:
    "is not prorated" vs "is prorated", not "if a payment is not received" vs "more than ten
    days late" (the evidence negates something the claim does not talk about)."""
    negative, positive = (claim, evidence) if claim.negated else (evidence, claim)
    scope = _negated_words(negative.tokens)
    if not scope:
        return True  # "no", "none", "nothing": the whole statement
    words = positive.words | (sentence.words if positive is evidence else frozenset())
    return any(_related(a, b) for a in scope for b in words)


_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?|non-?[A-Za-z]+", re.IGNORECASE)


def negator_written(text: str) -> str | None:
    """The first negator of ``text`` as written ("not", "Never", "isn't", "non-refundable"),
    leaving out bounds such as "no more than"; None when there is none."""
    bounds = [m.span() for m in _BOUND_NEGATION.finditer(text.lower())]
    for m in _WORD.finditer(text):
        word = m.group(0).lower().replace("’", "'")
        if any(a <= m.start() < b for a, b in bounds):
            continue
        if word in _NEGATORS or re.fullmatch(r"non-?[a-z]+", word):
            return m.group(0)
    return None


def _word_written(text: str, stems: set[str]) -> str | None:
    """The first word of ``text`` (as written) related to one of ``stems``."""
    for m in _WORD.finditer(text):
        words = content_words(m.group(0))
        if words and any(_related(words[0], s) for s in stems):
            return m.group(0)
    return None


def _negation_conflict(claim: Slots, clause: Slots, clause_text: str | None) -> Conflict | None:
    """The words of a polarity clash: the negator on the negative side; on the positive
    evidence side, the word the claim negates ("is not prorated" vs "is prorated")."""
    if clause_text is None:
        return None
    if clause.negated:
        return Conflict(kind="negation", claim=None, evidence=negator_written(clause_text))
    return Conflict(
        kind="negation",
        claim=None,
        evidence=_word_written(clause_text, _negated_words(claim.tokens)),
    )


_MODAL_HEAD = re.compile(r"needs? to|ha(?:ve|s) to|(?:allowed|permitted) to|[a-z]+")


def modal_written(text: str, kind: str) -> str | None:
    """The modal word of ``kind`` ("must" | "may") in ``text`` as written ("must", "Required",
    "can", "needs to"), without the verb it bears on; None when there is none."""
    lowered = text.lower()
    m = (_MUST if kind == "must" else _MAY).search(lowered)
    if m is None or len(lowered) != len(text):
        return None
    head = _MODAL_HEAD.match(lowered, m.start())
    return None if head is None else text[head.start() : head.end()]


def _related(a: str, b: str) -> bool:
    """Same stem, or one derivation of the other ("approval" / "approv", "refundable")."""
    if a == b:
        return True
    n = min(len(a), len(b))
    return n >= 4 and a[: max(4, n - 2)] == b[: max(4, n - 2)]


def _same_date(
    a: tuple[int | None, int, int | None], b: tuple[int | None, int, int | None]
) -> bool:
    (y, mon, day), (ey, em, ed) = a, b
    return (
        (y is None or ey is None or ey == y)
        and em == mon
        and (day is None or ed is None or ed == day)
    )


def _agree(q: Quantity, e: Quantity) -> bool:
    return _kinds_compatible(q, e) and q.overlaps(e) and _same_unit(q, e)


def _same_attribute(a: Quantity, b: Quantity) -> bool:
    """Two values that measure the same kind of thing (a disagreement is possible)."""
    if a.kind == "n:" or b.kind == "n:":
        # A bare number ("two", "fifteen") is attached to nothing the unit can tell: it is the
        # same attribute only when both are bare and their words say so.
        return a.kind == b.kind == "n:" and bool(a.context & b.context)
    return _kinds_compatible(a, b)


def _rival(q: Quantity, claim: Slots, evidence: Slots, taken: set[int]) -> Quantity | None:
    """The evidence value stating the same attribute as ``q`` with another value, if any."""
    rivals = [
        e
        for k, e in enumerate(evidence.quantities)
        if k not in taken and not e.derived and _same_attribute(q, e)
    ]
    if not rivals:
        return None
    peers = [c for c in claim.quantities if c is not q and _same_attribute(q, c)]
    if len(rivals) == 1 and not peers:
        best = rivals[0]
    else:
        # Several candidates: only one about the same thing (shared neighbouring words) counts.
        best = max(rivals, key=lambda e: len(e.context & q.context))
        if not best.context & q.context:
            return None
    # A value attached to another name than the claim's ("Premium plan: 1,000" for a claim
    # about the Basic plan) is that name's value, not a rival.
    if _other_names_value(best, claim, evidence):
        return None
    return best


def _names(claim: Slots, evidence: Slots) -> set[str]:
    """The words of the names the claim gives. A capitalised first word alone ("Inflation fell
    ...") is a name only if the evidence does not use it as a common word (lower case)."""
    out: set[str] = set()
    evidence_names = {w for ent in evidence.entities for w in content_words(ent)}
    for ent in claim.entities:
        words = content_words(ent)
        initial = " " not in ent and bool(claim.tokens) and claim.tokens[0] == ent.lower()
        if initial and all(w in evidence.words and w not in evidence_names for w in words):
            continue
        out.update(words)
    return out


def _other_names_value(e: Quantity, claim: Slots, evidence: Slots) -> bool:
    """``e`` is attached to another name than the ones the claim names ("Business class ...
    32 kg" for a claim about economy): it neither rivals nor agrees with the claim's value."""
    names = _names(claim, evidence)
    if not names:
        return False
    theirs = {w for ent in evidence.entities for w in content_words(ent)} - claim.words
    where = e.context | e.scope
    return bool(where & theirs) and not where & names


def _aside_words(evidence_text: str | None) -> frozenset[str]:
    """Words only the parenthesised asides of ``evidence_text`` use: the case they are about
    ("monthly" in "billed annually (€29 if billed monthly)")."""
    if not evidence_text or "(" not in evidence_text:
        return frozenset()
    words = set(re.findall(r"[a-z]+", evidence_text.lower()))
    main = set(re.findall(r"[a-z]+", _PARENS.sub(" ", evidence_text).lower()))
    return frozenset(w for w in words - main if w not in STOPWORDS and len(w) > 2)


def _aside_rival(
    q: Quantity,
    agreeing: list[Quantity],
    claim: Slots,
    evidence: Slots,
    taken: set[int],
    *,
    aside_words: frozenset[str],
) -> Quantity | None:
    """The value the evidence states for the claim's own name when it states the claim's value
    only in an aside about another case: "Pro: €24 per user, billed annually (€29 if billed
    monthly)" for a claim that the Pro plan costs €29 billed annually. A claim that names the
    aside's case ("if billed monthly") agrees with the aside."""
    if not agreeing or not all(e.aside for e in agreeing):
        return None
    if not aside_words or aside_words & set(claim.tokens):
        return None
    names = {w for ent in claim.entities for w in content_words(ent)}
    if not names or any((e.context | e.scope) & names for e in agreeing):
        return None
    rival = _rival(q, claim, evidence, taken)
    if rival is None or rival.aside or not (rival.context | rival.scope) & names:
        return None
    return rival


def _entity_present(entity: str, words: frozenset[str]) -> bool:
    parts = content_words(entity)
    return bool(parts) and all(p in words for p in parts)


def best_clause(claim_words: frozenset[str], evidence: str) -> str:
    """The clause of ``evidence`` that shares most content words with the claim."""
    clauses = [c for c in _CLAUSE.split(evidence) if c and c.strip()]
    if len(clauses) <= 1:
        return evidence
    return max(clauses, key=lambda c: len(claim_words & set(content_words(c))))


def compare_slots(
    claim: Slots, evidence: Slots, evidence_text: str | None = None, context: Slots | None = None
) -> SlotCheck:
    """Compare a claim with one evidence sentence (``context``: the rest of its passage)."""
    check = SlotCheck()
    ctx_words = evidence.words | (context.words if context else frozenset())
    # Numbers: each claim quantity must equal some evidence quantity of a compatible kind.
    # An evidence value that equals one claim value is that value's, not another's rival.
    taken = {
        k for k, e in enumerate(evidence.quantities) if any(_agree(q, e) for q in claim.quantities)
    }
    aside_words = _aside_words(evidence_text)
    for q in claim.quantities:
        if q.derived:
            continue  # the values it is read from are checked
        same_kind = [e for e in evidence.quantities if _kinds_compatible(q, e)]
        # The same value stated for another name ("Business class ... 32 kg" for a claim about
        # economy) is not agreement, as it is no rival either.
        agreeing = [
            e for e in same_kind if _agree(q, e) and not _other_names_value(e, claim, evidence)
        ]
        aside_rival = _aside_rival(q, agreeing, claim, evidence, taken, aside_words=aside_words)
        if aside_rival is not None:
            check.add(
                f"number mismatch: {q.text} vs {aside_rival.text}",
                Conflict(kind="number", claim=q.text, evidence=aside_rival.text),
            )
            check.value_conflicts.append(ValueConflict("number", q.text, aside_rival.text))
        elif agreeing:
            check.matched += 1
            check.agreed.append(q.text)
        elif q.kind == "n:" and q.value in evidence.years:
            check.matched += 1
        else:
            rival = _rival(q, claim, evidence, taken)
            # The passage states the claim's value elsewhere, about something closer to the
            # claim's wording than the rival is: the sentence is not the place to compare.
            in_passage = rival is not None and any(
                _agree(q, e) and len(e.context & q.context) > len(rival.context & q.context)
                for e in (context.quantities if context is not None else ())
            )
            if rival is not None and _bounds_compatible(q, rival):
                check.missing.append(q.text)  # within the bound: neither agreement nor rival
                check.within.append(q.text)
            elif rival is not None and not in_passage:
                check.add(
                    f"number mismatch: {q.text} vs {rival.text}",
                    Conflict(kind="number", claim=q.text, evidence=rival.text),
                )
                check.value_conflicts.append(ValueConflict("number", q.text, rival.text))
            else:
                check.missing.append(q.text)
    # Dates and years.
    ev_years = set(evidence.years) | {d[0] for d in evidence.dates if d[0] is not None}
    # Dates in parentheses are asides ("X (born 1975) joined in 2001"): they match, never clash.
    core = evidence
    if evidence_text is not None and "(" in evidence_text:
        core = parse_slots(_PARENS.sub(" ", evidence_text))
    core_years = set(core.years) | {d[0] for d in core.dates if d[0] is not None}
    # As with numbers, an evidence date equal to one claim date is no rival to another.
    date_rivals = [d for d in core.dates if not any(_same_date(c, d) for c in claim.dates)]
    for y, mon, day in claim.dates:
        if any(_same_date((y, mon, day), d) for d in evidence.dates):
            check.matched += 1
        elif date_rivals:
            ey, em, ed = date_rivals[0]
            years_differ = y is not None and ey is not None and y != ey
            check.add(
                f"date mismatch: {mon}/{day}/{y} vs {em}/{ed}/{ey}",
                Conflict(kind="date", claim=str(y), evidence=str(ey)) if years_differ else None,
            )
            if years_differ:
                check.value_conflicts.append(ValueConflict("date", str(y), str(ey)))
        else:
            check.missing.append(f"date {mon}/{day}")
    claim_years = set(claim.years) | {d[0] for d in claim.dates if d[0] is not None}
    ctx_years = ev_years | (set(context.years) if context else set())
    for y in claim_years:
        if y in ctx_years:
            check.matched += 1
        elif core_years:
            rival_year = min(core_years, key=lambda e: abs(e - y))
            if claim.quantities:
                check.add(
                    f"year mismatch: {y} vs {rival_year}",
                    Conflict(kind="year", claim=str(y), evidence=str(rival_year)),
                    qualifier=True,
                )
            else:
                check.add(
                    f"year mismatch: {y} vs {rival_year}",
                    Conflict(kind="year", claim=str(y), evidence=str(rival_year)),
                )
                check.value_conflicts.append(ValueConflict("year", str(y), str(rival_year)))
        else:
            check.missing.append(str(y))
    # Entities: every capitalised span of the claim must appear in the evidence or its passage.
    check.values_matched = check.matched
    # (Missing names are the caller's coverage check, not a slot disagreement.)
    check.matched += sum(1 for ent in claim.entities if _entity_present(ent, ctx_words))
    # Negation, modality, opposites: compare on the clause of the evidence about the claim.
    clause_slots = evidence
    clause = evidence_text
    if evidence_text is not None:
        clause = best_clause(claim.words, evidence_text)
        if clause != evidence_text:
            clause_slots = parse_slots(clause)
    if (
        claim.negated is not None
        and claim.negated != clause_slots.negated
        and _negation_in_scope(claim, clause_slots, evidence)
    ):
        check.add(
            "negation mismatch: claim is "
            + ("negative" if claim.negated else "positive")
            + ", evidence is "
            + ("negative" if clause_slots.negated else "positive"),
            _negation_conflict(claim, clause_slots, clause),
        )
    mine, theirs = claim.modality, clause_slots.modality
    # "may be taken" vs "must be taken", "optional" vs "required"; not "can request a refund
    # within 14 days" vs "requests must be made within 14 days" (another verb: a deadline).
    if (
        mine
        and theirs
        and mine[0] != theirs[0]
        and (mine[1] == theirs[1] or "adj" in (mine[1], theirs[1]))
    ):
        check.add(
            f"modality mismatch: {mine[0]} vs {theirs[0]}",
            Conflict(kind="modality", claim=None, evidence=modal_written(clause, theirs[0]))
            if clause is not None
            else None,
        )
    claim_tokens = set(claim.tokens)
    clause_tokens = set(clause_slots.tokens)
    ev_count = {(idx, side): n for idx, side, n in clause_slots.opposites}
    claim_count = {(idx, side): n for idx, side, n in claim.opposites}
    for (idx, side), n in claim_count.items():
        other = (idx, 1 - side)
        # The evidence says the opposite word where the claim says this one: "higher" vs
        # "lower" (counted, since "at higher altitudes the point is lower" has both).
        if ev_count.get(other, 0) > claim_count.get(other, 0) and n > ev_count.get((idx, side), 0):
            words = _OPPOSITES[idx]
            said = sorted(w for w in words[side] if w in claim_tokens) or sorted(words[side])
            found = sorted(w for w in words[1 - side] if w in clause_tokens) or sorted(
                words[1 - side]
            )
            check.add(
                f"comparative mismatch: {said[0]} vs {found[0]}",
                Conflict(kind="comparative", claim=said[0], evidence=found[0]),
            )
    return check
