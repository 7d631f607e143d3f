"""A case named by a value, and a claim that pairs it with another case's value
(:mod:`groundwatch.judges.values.paired`). Written before the judge was run on them (Session 51)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.paired import crossed_pair
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

FINES = ["Fines are £100 for up to 10 mph over the limit and £250 for more than 10 mph over."]
PARCELS = ["Parcels up to 1 kg cost £3.20, and parcels over 1 kg cost £5.80."]
ROOMS = [
    "Rooms cost $180 a night for stays under 3 nights and $150 a night for stays of 3 nights "
    "or more."
]
DELIVERY = ["Delivery costs £4.99 on orders under £40 and is £2 on orders of £40 or more."]
RACES = ["Entry costs $25 for the 10 km race, while the 5 km fun run costs $15."]


def test_a_value_stated_for_the_other_case() -> None:
    case, value = stated_values("A parcel over 1 kg costs £3.20.")
    hit = crossed_pair(value, [case], PARCELS)
    assert hit is not None
    assert (hit.said, hit.stated, hit.case, hit.other) == (
        "£3.20",
        "£5.80",
        "over 1 kg",
        "under 1 kg",
    )
    # the case the value is stated for: nothing crossed
    case, value = stated_values("A parcel over 1 kg costs £5.80.")
    assert crossed_pair(value, [case], PARCELS) is None
    # a value that names no case (a year) pairs nothing
    year, value = stated_values("In 2024 a parcel costs £3.20.")
    assert crossed_pair(value, [year], PARCELS) is None


WRONG: list[Case] = [
    ("How much is the fine for going 15 mph over the limit?", FINES, "£100", False),
    ("What does a 2 kg parcel cost to send?", PARCELS, "£3.20", False),
    ("How much is a 4-night stay?", ROOMS, "A stay of 4 nights costs $180 a night.", False),
    ("What is the 5 km entry fee?", RACES, "$25", False),
    # a case of the value's own kind, told apart as a bound
    ("How much is delivery on a £30 order?", DELIVERY, "£2 for orders under £40.", False),
]

RIGHT: list[Case] = [
    ("How much is the fine for going 15 mph over the limit?", FINES, "£250", True),
    ("What does a 2 kg parcel cost to send?", PARCELS, "£5.80", True),
    ("How much is a 4-night stay?", ROOMS, "A stay of 4 nights costs $150 a night.", True),
    ("What is the 5 km entry fee?", RACES, "$15", True),
    ("How much is delivery on a £30 order?", DELIVERY, "£4.99 for orders under £40.", True),
    ("What do the races cost?", RACES, "The 5 km costs $15 and the 10 km $25.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_value_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_cases_own_value_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


DROPS = [
    "Cetirizine drops: children aged 2 to 6 years, 5 drops twice daily; children aged 6 to 12 "
    "years, 10 drops twice daily; adults, 20 drops once daily."
]
#: An age no band holds: the case is one the passages lack (not found), whatever the pairing.
UNCOVERED: list[Case] = [
    ("Can my 9-month-old have the cetirizine drops?", DROPS, "Yes, 5 drops once a day.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_an_age_no_band_holds_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, UNCOVERED)
