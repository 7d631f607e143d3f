"""Values a backend compares across kinds or cases: a year of an era against an age, a month no
passage names, a difference the claim says it worked out, a range restated in a short answer,
a claim naming its value's case with another value. Written before the judge was run on them
(Session 52)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.stated import stated_values
from groundwatch.judges.values.when import other_time
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong


def test_a_year_of_an_era_is_a_year() -> None:
    values = stated_values("Augustus ruled from 27 BC until his death in AD 14, aged 75.")
    years = [(v.text, v.year) for v in values if v.kind == "year"]
    assert years == [("27 BC", -27), ("AD 14", 14)]
    # "in August 14 AD" is a year, not the date "August 14"
    assert [v.kind for v in stated_values("He died in August 14 AD.")] == ["year"]


def test_a_month_no_passage_names() -> None:
    passage = "Oslo's average July high is 22°C and its average July low is 13°C."
    [january] = [v for v in stated_values("Oslo's average January high is -2°C.") if v.quantity]
    july = next(v for v in stated_values(passage) if v.quantity)
    assert other_time(january, july, [passage])
    [also_july] = [v for v in stated_values("Oslo's average July high is 25°C.") if v.quantity]
    assert not other_time(also_july, july, [passage])


def test_a_temperature_below_zero_keeps_its_sign() -> None:
    [below] = stated_values("Overnight it falls to −3 °C.")
    assert below.quantity is not None
    assert below.quantity.value == -3.0
    [minus] = stated_values("Lows of minus 5 degrees.")
    assert minus.quantity is not None
    assert minus.quantity.value == -5.0
    [span] = stated_values("Lows of -5 to 2°C.")
    assert span.quantity is not None
    assert (span.quantity.value, span.quantity.high) == (-5.0, 2.0)
    # the dash of a range is no sign
    [rise] = stated_values("Expect a rise of 2-3°C.")
    assert rise.quantity is not None
    assert (rise.quantity.value, rise.quantity.high) == (2.0, 3.0)


OSLO = ["Oslo's forecast: a high of -3°C on Saturday and 4°C on Sunday."]
WRONG: list[Case] = [
    ("How cold will Oslo be on Saturday?", OSLO, "The high on Saturday will be 3°C.", False),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_temperature_without_its_minus_sign_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


ROME = ["Augustus ruled the Roman Empire from 27 BC until his death in AD 14 at Nola."]
LONDON = ["London's average July high is 24°C; the city gets about 600 mm of rain a year."]
PUMPS = [
    "The Aira 8 heat pump uses 2,150 kWh a year, compared with 3,400 kWh for the older Aira 6; "
    "both are rated for homes up to 120 m²."
]
FLOOD = [
    "A Flood Warning is in effect from 6 PM Tuesday to 11 AM Wednesday for the lower valley, "
    "with river levels of 3.1 to 3.4 m expected."
]
GAUGE = [
    "The weekend report: 14 mm of rain in the past 24 hours and 31 mm over 72 hours, with the "
    "reservoir at 88% of capacity."
]

RIGHT: list[Case] = [
    # an age is no year of the era beside it: not stated, not contradicted
    ("How old was Augustus when he died?", ROME, "He was 75 when he died in AD 14.", True),
    # a month the passages do not cover
    ("What is London's average January high?", LONDON, "About 8°C in January.", True),
    ("What is London's average January high?", LONDON,
     "London's average January high is around 8°C.", True),
    # a difference the claim says it worked out
    ("How much less does the Aira 8 use?", PUMPS,
     "The Aira 8 uses 1,250 kWh less a year than the Aira 6.", True),
    # a range restated in a short answer
    ("Is there a flood warning for the lower valley on Tuesday?", FLOOD,
     "Yes, from 6 pm Tuesday until 11 am Wednesday.", True),
    # the claim names its value's case with another value ("three days" for "72 hours")
    ("How much rain has fallen?", GAUGE,
     "There has been 31 mm over the past three days, 14 mm of it in the last 24 hours.", True),
]  # fmt: skip


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_values_of_other_kinds_and_cases_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
