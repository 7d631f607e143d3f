"""Numbers and units as written: number words, scales, units, currencies and month names.

Usage::

    to_number("twenty-one")   # 21.0
    unit_of("kilometres")     # ('length', 1000)
    re.search(NUMBER_PATTERN, "about fourteen days")

Each unit maps to its kind and the factor to the kind's base unit (days for durations, metres
for lengths, kilograms for masses, megabytes for data), so that values written in other units
compare. The tables are data; the value parsing is :mod:`groundwatch.judges.values.quantities`.
"""

from __future__ import annotations

import re

__all__ = [
    "CURRENCIES",
    "MONTHS",
    "NUMBER_PATTERN",
    "NUMBER_WORDS",
    "SCALES",
    "UNITS",
    "UNIT_PATTERN",
    "to_number",
    "unit_of",
]


NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90, "hundred": 100, "dozen": 12, "half": 0.5, "single": 1, "twice": 2,
    "double": 2, "triple": 3,
}  # fmt: skip
SCALES = {"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "billion": 1e9,
          "bn": 1e9, "b": 1e9, "trillion": 1e12, "hundred": 1e2}  # fmt: skip
# unit -> (kind, factor to the kind's base unit)
UNITS: dict[str, tuple[str, float]] = {
    "%": ("percent", 1), "percent": ("percent", 1), "per cent": ("percent", 1),
    # a change of a percentage is no percentage ("fell 0.22 points" is not "5.01 %")
    "percentage point": ("ppoint", 1), "pp": ("ppoint", 1), "basis point": ("ppoint", 0.01),
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
    "degrees celsius": ("celsius", 1), "degree celsius": ("celsius", 1),
    "degrees centigrade": ("celsius", 1), "degrees fahrenheit": ("fahrenheit", 1),
    "degree fahrenheit": ("fahrenheit", 1), "degrees c": ("celsius", 1),
    "degrees f": ("fahrenheit", 1), "imperial gallon": ("volume", 4.546),
    "uk gallon": ("volume", 4.546),
    "sq mi": ("area", 2.589988e6), "km2": ("area", 1e6), "acre": ("area", 4046.856),
    "hectare": ("area", 1e4),
    # Spelled-out and abbreviated variants of the units above (general table).
    "sec": ("time", 1 / 86400), "yr": ("time", 365.25), "centimetre": ("length", 0.01),
    "centimeter": ("length", 0.01), "millimetre": ("length", 0.001),
    "millimeter": ("length", 0.001), "milligram": ("mass", 1e-6), "kilo": ("mass", 1),
    "millilitre": ("volume", 0.001), "milliliter": ("volume", 0.001),
    "oz": ("mass", 0.02835), "ounce": ("mass", 0.02835), "gallon": ("volume", 3.785),
    "km/h": ("speed", 1), "kph": ("speed", 1), "kmh": ("speed", 1),
    "kilometres per hour": ("speed", 1), "kilometers per hour": ("speed", 1),
    "mph": ("speed", 1.609), "miles per hour": ("speed", 1.609),
    "square mile": ("area", 2.589988e6), "sq km": ("area", 1e6), "square kilometre": ("area", 1e6),
    "square kilometer": ("area", 1e6),
    # Sound levels (pint reads decibels as a logarithmic unit, which compares with nothing).
    "db": ("sound", 1), "dba": ("sound", 1), "db(a)": ("sound", 1), "decibel": ("sound", 1),
}  # fmt: skip
CURRENCIES = {"$": "$", "us$": "usd", "usd": "usd", "dollar": "usd", "€": "eur", "eur": "eur",
             "euro": "eur", "£": "gbp", "gbp": "gbp", "¥": "jpy", "jpy": "jpy", "yen": "jpy",
             "inr": "inr", "₹": "inr", "rupee": "inr", "cad": "cad", "aud": "aud", "chf": "chf"}  # fmt: skip
MONTHS = {
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
MONTHS.update({k[:3]: v for k, v in list(MONTHS.items())})
MONTHS["sept"] = 9

UNIT_PATTERN = "|".join(sorted((re.escape(u) for u in UNITS), key=len, reverse=True))
_NUMWORD = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
NUMBER_PATTERN = (
    r"(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+|"
    rf"(?:{_NUMWORD})(?:[\s-](?:{_NUMWORD}))?)"
)


def to_number(text: str) -> float | None:
    t = text.lower().replace(",", "").strip()
    try:
        return float(t)
    except ValueError:
        pass
    parts = re.split(r"[\s-]+", t)
    if len(parts) > 1 and parts[0] == "single":
        parts = parts[1:]  # "a single one-litre bag": one litre, not two
    if not parts or any(p not in NUMBER_WORDS for p in parts):
        return None
    total = 0.0
    for p in parts:
        v = NUMBER_WORDS[p]
        # "two dozen" is 24, as "two hundred" is 200
        total = total * v if p in ("hundred", "dozen") and total else total + v
    return total


def unit_of(raw: str | None) -> tuple[str, float] | None:
    if not raw:
        return None
    u = raw.lower()
    if u in UNITS:
        return UNITS[u]
    for cut in (1, 2):
        if u.endswith("s") and u[:-cut] in UNITS:
            return UNITS[u[:-cut]]
    return None
