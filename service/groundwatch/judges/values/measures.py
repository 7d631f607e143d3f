"""Units the hand-kept table of :mod:`groundwatch.judges.values.units` does not hold, read with pint.

Usage::

    measure_of("kWh")      # ('energy', 3600000.0): joules
    measure_of("mAh")      # ('charge', 3.6): coulombs
    measure_of("µg/m³")    # ('concentration', 1e-09): kilograms per cubic metre
    measure_of("nmi")      # ('length', 1852.0): the table's kind and base unit
    measure_of("has")      # None: a verb, not hectares

pint (https://pint.readthedocs.io) knows thousands of units, and reads many short English words
as one: "in" is inches, "as" attoseconds, "th" thou, "pm" picometres. So a word after a number is
a unit here only when pint reads it *and* it is written the way that unit is written:

- each part is the unit's symbol ("kWh", "MPa", "mg") or its name ("kilowatts", "hectares",
  "watt-hours"), singular or plural; a plural only on a name ("has" is not hectares);
- its base is a unit people write in documents (:data:`_PREFIXED` takes the everyday SI
  prefixes nano to giga, tera only on data, energy and frequency; :data:`_PLAIN` takes none);
- it is not a function word, and a single letter only as an SI symbol ("5 A", "12 V", "65 W").

A unit whose dimension is one of the table's kinds (length, mass, time, volume, speed, data)
gets that kind and the table's base unit, so "1 nautical mile" and "1,852 m" compare; any other
gets a kind named after its dimension (energy, power, pressure, charge ...) and SI base units, so
"1.5 kWh" and "1,500 Wh" compare and "2 GHz" and "2 GB" do not. Temperatures are the table's.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from functools import lru_cache
from typing import Any

from groundwatch.judges.text.words import STOPWORDS

__all__ = ["UNIT_TOKEN", "load_units", "measure_of"]

#: A word that may be a unit right after a number: letters, then symbols, exponents and
#: "/", "·" between parts ("kWh", "µg/m³", "N·m", "mg/dL", "m/s²"); a final full stop is not in it.
UNIT_TOKEN = re.compile(r"[A-Za-zµμΩ][A-Za-zµμΩ0-9²³·/^_-]*")

_PREFIXES = frozenset({"", "nano", "micro", "milli", "centi", "deci", "kilo", "mega", "giga"})
_TERA = frozenset({"bit", "byte", "watt", "watt_hour", "joule", "hertz", "gram", "baud"})
#: Bases that take the SI prefixes.
_PREFIXED = frozenset(
    {
        "meter", "gram", "liter", "second", "metric_ton", "watt", "watt_hour", "volt_ampere",
        "joule", "calorie", "hertz", "pascal", "ampere", "ampere_hour", "volt", "ohm", "newton",
        "bit", "byte", "baud", "lumen", "lux", "candela", "mole", "molar", "becquerel", "gray",
        "sievert", "tesla", "farad", "henry", "siemens", "coulomb", "bar", "meter_Hg",
    }
)  # fmt: skip
#: Bases written without a prefix.
_PLAIN = frozenset(
    {
        "minute", "hour", "day", "week", "month", "year",
        "pound_force_per_square_inch", "knot", "mile_per_hour", "kilometer_per_hour",
        "horsepower", "hectare", "acre", "teaspoon", "tablespoon", "gallon", "nautical_mile",
        "revolutions_per_minute", "mile", "foot", "inch", "yard", "pound", "ounce", "stone",
        "carat", "british_thermal_unit",
    }
)  # fmt: skip
# Dimensions the hand-kept table already has a kind and a base unit for: unit -> (kind, base).
_TABLE_KINDS = {
    "meter": ("length", "meter"),
    "gram": ("mass", "kilogram"),
    "second": ("time", "day"),
    "liter": ("volume", "liter"),
    "meter / second": ("speed", "kilometer / hour"),
}
# Other dimensions, named after a unit of theirs (values in SI base units).
_NAMED = {
    "meter ** 2": "area",
    "joule": "energy",
    "watt": "power",
    "pascal": "pressure",
    "newton": "force",
    "coulomb": "charge",
    "ampere": "current",
    "volt": "voltage",
    "ohm": "resistance",
    "hertz": "frequency",
    "lux": "illuminance",
    "gram / liter": "concentration",
    "mole / liter": "molarity",
}
#: Single letters that are units when alone: only these SI symbols ("5 A", "12 V", "65 W");
#: "C", "F", "M", "S" and "T" name grades, classes and sizes more often than coulombs, farads,
#: molar, siemens or teslas. In a compound ("m/s", "L/h", "N·m") any symbol counts.
_SINGLE = frozenset({"ampere", "volt", "watt", "joule", "newton", "second", "liter", "ohm"})
_EXPONENT = re.compile(r"(?<=[A-Za-zμµ])([23])(?![0-9])")


@lru_cache(maxsize=1)
def _registry() -> Any:
    import pint  # about 0.3 s, only when a text has a unit the table lacks

    return pint.UnitRegistry(cache_folder=None)


@lru_cache(maxsize=1)
def _dimensions() -> tuple[dict[Any, tuple[str, str]], dict[Any, str]]:
    ureg = _registry()
    table = {ureg.parse_units(u).dimensionality: kb for u, kb in _TABLE_KINDS.items()}
    named = {ureg.parse_units(u).dimensionality: kind for u, kind in _NAMED.items()}
    return table, named


def load_units() -> None:
    """Build pint's registry now (about 0.3 s), so the first trace does not pay for it."""
    with _PINT_LOCK:
        _dimensions()


def _spellings(definition: Any) -> set[str]:
    """A unit's or a prefix's symbol and aliases, as text reads after NFKC."""
    words = {getattr(definition, "symbol", "") or "", *getattr(definition, "aliases", ())}
    return {unicodedata.normalize("NFKC", w) for w in words}


def _written_as_unit(part: str, ureg: Any, alone: bool) -> bool:
    """``part`` (one factor, exponent stripped) is the symbol or the name of the unit pint
    reads in it, with a prefix and base this module accepts."""
    spelled = part.replace("-", "_")
    try:
        readings = ureg.parse_unit_name(spelled)
    except Exception:  # pint raises several kinds for text it cannot read
        return False
    for prefix, base, _suffix in readings:
        if prefix not in _PREFIXES and not (prefix == "tera" and base in _TERA):
            continue
        if base not in (_PREFIXED if prefix else _PREFIXED | _PLAIN):
            continue
        symbols = {
            p + b
            for p in _spellings(ureg._prefixes[prefix]) | {""}
            if bool(p) == bool(prefix)
            for b in _spellings(ureg._units[base])
        }
        if part in symbols and (len(part) > 1 or not alone or base in _SINGLE):
            return True
        name = (prefix + base).lower()
        british = spelled.lower().replace("metre", "meter").replace("litre", "liter")
        if len(part) >= 3 and british in {name, name + "s", name + "es"}:
            return True
    return False


def _unit_written(token: str, ureg: Any) -> Any:
    """pint's unit for ``token`` when every part of it is written as a unit, else None."""
    parts = [p for p in re.split(r"[/·*^]|(?<=[A-Za-zμµ])[0-9]+", token) if p]
    alone = parts == [token]
    if not parts or not all(_written_as_unit(p, ureg, alone) for p in parts):
        return None
    try:
        return ureg.parse_units(_EXPONENT.sub(r"**\1", token.replace("·", "*").replace("-", "_")))
    except Exception:  # pint raises several kinds for text it cannot read
        return None


# pint's registry is not documented as safe for concurrent parsing (its initialisation is not:
# hgrecco/pint#2039) and judge workers are threads: a cache miss reads it under this lock.
_PINT_LOCK = threading.Lock()


@lru_cache(maxsize=4096)
def measure_of(token: str) -> tuple[str, float] | None:
    """(kind, factor to the kind's base unit) of a unit written as ``token``, or None."""
    with _PINT_LOCK:
        return _measure(token)


def _measure(token: str) -> tuple[str, float] | None:
    token = unicodedata.normalize("NFKC", token.strip().rstrip("."))
    if not token or (token.islower() and token in STOPWORDS):
        return None
    if not UNIT_TOKEN.fullmatch(token):
        return None
    ureg = _registry()
    # As written, then a capitalised name in lower case ("Calories", "Watts").
    unit = _unit_written(token, ureg)
    if unit is None and token.istitle() and len(token) > 3:
        unit = _unit_written(token.lower(), ureg)
    if unit is None:
        return None
    names = set(unit._units)  # canonical names, prefixes included
    if any(n.endswith(("bit", "byte", "baud")) for n in names):
        # pint counts bits as dimensionless: data sizes and rates get their own kinds.
        per_time = "[time]" in str(unit.dimensionality)
        bits = float(ureg.Quantity(1, unit).to("bit" + (" / second" if per_time else "")).magnitude)
        return ("data_rate", bits / 1e6) if per_time else ("data", bits / 8e6)
    if any(n.endswith("calorie") for n in names) and not any(n == "kilocalorie" for n in names):
        # "200 calories" on a food label are kilocalories, as "200 kcal" are.
        unit = unit * ureg.parse_units("kilocalorie") / ureg.parse_units("calorie")
    if any("revolution" in n for n in names):
        # pint counts a revolution as 2π radians: 60 rpm would not be 1 Hz.
        return "rotation", float(ureg.Quantity(1, unit).to("revolutions_per_minute").magnitude)
    table, named = _dimensions()
    if not unit.dimensionality or _per_time(token, unit, ureg, table):
        return _ratio(token, ureg, table)
    if unit.dimensionality in table:
        kind, base = table[unit.dimensionality]
        return kind, float(ureg.Quantity(1, unit).to(base).magnitude)
    magnitude = float(ureg.Quantity(1, unit).to_base_units().magnitude)
    kind = named.get(unit.dimensionality, "dim:" + str(unit.dimensionality))
    if kind == "energy" and any("newton" in n or "force" in n for n in names):
        kind = "torque"  # N·m has the dimension of energy and is not one: 60 N·m is no 60 J
    return kind, magnitude


def _per_time(token: str, unit: Any, ureg: Any, table: dict[Any, tuple[str, str]]) -> bool:
    """``token`` is a ratio of like units per a time ("mg/kg/day"): the period is not the
    measure (:func:`groundwatch.judges.values.stated.stated_values` reads it as the period)."""
    parts = token.split("/")
    if len(parts) < 3:
        return False
    last = _unit_written(parts[-1], ureg)
    if last is None or table.get(last.dimensionality, ("",))[0] != "time":
        return False
    inner = _unit_written("/".join(parts[:-1]), ureg)
    return inner is not None and not inner.dimensionality


def _ratio(token: str, ureg: Any, table: dict[Any, tuple[str, str]]) -> tuple[str, float] | None:
    """A ratio of two like units ("mg/kg", a dose per body weight; "mg/kg/day" read without
    its period): its own kind, "ratio:mass/mass", never a bare number. None for anything else
    dimensionless."""
    parts = token.split("/")
    if len(parts) >= 3:
        parts = parts[:-1]  # the period (see _per_time)
    if len(parts) != 2:
        return None
    units = [_unit_written(p, ureg) for p in parts]
    if any(u is None for u in units):
        return None
    kinds = [table.get(u.dimensionality, (str(u.dimensionality),))[0] for u in units]
    if kinds[0] != kinds[1]:
        return None
    magnitude = float(ureg.Quantity(1, units[0]).to_base_units().magnitude)
    magnitude /= float(ureg.Quantity(1, units[1]).to_base_units().magnitude)
    return f"ratio:{kinds[0]}/{kinds[1]}", magnitude
