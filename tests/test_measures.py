"""Units read with pint (judges/values/measures.py) and what the value checks make of them."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.alignment import agrees
from groundwatch.judges.values.measures import measure_of
from groundwatch.judges.values.quantities import Quantity, kinds_compatible, parse_quantities
from groundwatch.judges.values.stated import stated_values


@pytest.mark.parametrize(
    ("token", "kind", "factor"),
    [
        ("kWh", "energy", 3.6e6),
        ("Wh", "energy", 3600.0),
        ("kilowatt-hours", "energy", 3.6e6),
        ("kcal", "energy", 4184.0),
        ("calories", "energy", 4184.0),  # food calories are kilocalories
        ("Calories", "energy", 4184.0),
        ("N·m", "torque", 1.0),  # the dimension of energy, another attribute
        ("mAh", "charge", 3.6),
        ("Ah", "charge", 3600.0),
        ("GHz", "frequency", 1e9),
        ("MPa", "pressure", 1e6),
        ("psi", "pressure", 6894.757),
        ("mmHg", "pressure", 133.322),
        ("kW", "power", 1000.0),
        ("horsepower", "power", 745.7),
        ("V", "voltage", 1.0),
        ("kΩ", "resistance", 1000.0),
        ("mg/dL", "concentration", 0.01),
        ("µg/m³", "concentration", 1e-9),
        ("mM", "molarity", 1.0),
        ("Gbps", "data_rate", 1000.0),
        ("Mbit/s", "data_rate", 1.0),
        ("TB", "data", 1e6),
        ("nmi", "length", 1852.0),  # the table's kinds keep the table's base units
        ("knots", "speed", 1.852),
        ("m/s", "speed", 3.6),
        ("mL", "volume", 0.001),
        ("hectares", "area", 1e4),
        ("ft²", "area", 0.0929),
        ("rpm", "rotation", 1.0),
    ],
)
def test_units_pint_reads(token: str, kind: str, factor: float) -> None:
    found = measure_of(token)
    assert found is not None, token
    assert found[0] == kind
    assert found[1] == pytest.approx(factor, rel=1e-3)


@pytest.mark.parametrize(
    "token",
    [
        # words pint reads as units that are not written as one: inches, attoseconds, thou,
        # picometres, hectares (a plural of a symbol), teravolts, micronits, technical atmospheres
        "in", "as", "th", "pm", "has", "TV", "units", "at", "cat", "exam", "app",
        # single letters that name grades and classes more often than units
        "C", "F", "M", "S", "T", "D", "G",
        # dimensionless or logarithmic
        "dB", "points", "turns", "counts",
        # regional: a US cup is 237 mL, a metric one 250 mL; pints and quarts differ by 20 %
        "cups", "pints", "quarts",
        # not units at all
        "people", "seats", "plans", "Nm",
    ],
)  # fmt: skip
def test_words_that_are_not_units(token: str) -> None:
    assert measure_of(token) is None


def _one(text: str) -> Quantity:
    quantities, _, _ = parse_quantities(text)
    assert len(quantities) == 1, quantities
    return quantities[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The pack stores 1.5 kWh.", "The pack stores 1,500 Wh."),
        ("The power bank holds 5,000 mAh.", "The power bank holds 5 Ah."),
        ("The processor runs at 2.4 GHz.", "The processor runs at 2,400 MHz."),
        ("The uplink carries 10 Gbps.", "The uplink carries 10,000 Mbps."),
        ("The tyre is inflated to 240 kPa.", "The tyre is inflated to 2.4 bar."),
        ("The trains are limited to 90 km/h.", "The trains are limited to 25 m/s."),
        ("The hull is rated to 1 nautical mile.", "The hull is rated to 1,852 m."),
        ("The site covers 2 hectares.", "The site covers 20,000 m²."),
    ],
)
def test_values_in_other_units_agree(a: str, b: str) -> None:
    qa, qb = _one(a), _one(b)
    assert kinds_compatible(qa, qb)
    assert qa.overlaps(qb), (qa, qb)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("The pack stores 1.5 kWh.", "The pack stores 1,200 Wh."),
        ("The processor runs at 2 GHz.", "The processor runs at 2,400 MHz."),
        ("The anchor holds 12 kN.", "The anchor holds 1,200 N."),
    ],
)
def test_values_in_other_units_differ(a: str, b: str) -> None:
    qa, qb = _one(a), _one(b)
    assert kinds_compatible(qa, qb)
    assert not qa.overlaps(qb), (qa, qb)


def test_other_dimensions_do_not_compare() -> None:
    # the same digits in units of other dimensions are other attributes, never a conflict
    assert not kinds_compatible(_one("It draws 65 W."), _one("It stores 65 Wh."))
    assert not kinds_compatible(_one("It runs at 2 GHz."), _one("It has 2 GB."))
    assert not kinds_compatible(_one("It spins at 60 rpm."), _one("It ticks at 60 Hz."))
    assert not kinds_compatible(_one("It delivers 60 N·m."), _one("It stores 60 Wh."))


def test_temperatures_are_not_converted() -> None:
    # "warmed by 1.5 °F" is a difference: read as a temperature it would be -16.9 °C
    assert not kinds_compatible(_one("It warmed by 1.5 °F."), _one("It warmed by 0.8 °C."))


def test_compound_unit_after_a_table_unit() -> None:
    # "m" and "mg" are in the table; "m/s" and "mg/dL" are speeds and concentrations
    assert _one("The wind reached 20 m/s.").kind == "speed"
    assert _one("Glucose was 126 mg/dL.").kind == "concentration"
    assert _one("The mast is 20 m tall.").kind == "length"


def test_unit_text_is_the_span() -> None:
    q = _one("Each anchor is rated at 12 kN in concrete.")
    assert q.text == "12 kN"
    assert q.value == pytest.approx(12_000.0)


def test_units_read_from_many_threads_at_once() -> None:
    # judge workers are threads; the cache is bypassed so that every call reads pint
    from concurrent.futures import ThreadPoolExecutor

    from groundwatch.judges.values.measures import _measure

    tokens = ["kWh", "mAh", "MPa", "mg/dL", "Gbps", "knots", "in", "has"] * 25
    expected = [_measure(t) for t in tokens]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(measure_of.__wrapped__, tokens)) == expected


def test_a_clock_time_may_be_written_with_a_dot() -> None:
    [v] = stated_values("The pool opens at 6.30 am.")
    assert (v.kind, v.text) == ("clock", "6.30 am")
    assert [w.kind for w in stated_values("A coffee costs £6.30 a month.")] == ["cur:gbp"]


def test_a_dose_per_body_weight_is_one_value_with_its_period() -> None:
    """ "25 mg/kg/day" was read as a frequency, and "25 mg/kg a day" as no value at all (its
    "mg" skipped as read only in part): a ratio of like units is its own kind (Session 47)."""
    assert measure_of("mg/kg") == ("ratio:mass/mass", pytest.approx(1e-6))
    assert measure_of("mg/kg/day") == ("ratio:mass/mass", pytest.approx(1e-6))
    assert measure_of("mL/kg") != measure_of("mg/kg")  # volume per mass: another kind
    [said] = stated_values("Give 25 mg/kg a day.")
    [usual] = stated_values("Usual dose: 25 mg/kg/day in two divided doses.")[:1]
    [severe] = stated_values("For severe infections, 45 mg/kg/day.")
    [weekly] = stated_values("No more than 175 mg/kg/week.")
    assert (said.kind, said.period, usual.period) == ("ratio:mass/mass", "day", "day")
    assert agrees(said, usual)
    assert not agrees(said, severe)
    assert weekly.period == "week"


def test_a_quantity_per_hundred_units_is_one_value() -> None:
    """ "4.2 L/100 km" was read as "4.2 L" and "100 km" (Session 48): fuel or energy use per
    100 of a distance is one value of its own kind; the two cases of a sentence stay apart."""
    [city, combined] = stated_values(
        "It uses 5.9 L/100 km in town and 4.8 litres per 100 km combined."
    )
    assert city.kind == combined.kind
    assert city.kind.startswith("per100:")
    assert (city.text, combined.text) == ("5.9 L/100 km", "4.8 litres per 100 km")
    assert not agrees(city, combined)
    [again] = stated_values("Urban consumption is 5.9 l/100km.")
    assert agrees(again, city)
    [ev] = stated_values("The EV uses 16.5 kWh/100 km.")
    assert ev.kind != city.kind
