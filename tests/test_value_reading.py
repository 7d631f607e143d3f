"""Values read as written, and told apart by what names them: "two dozen" is 24, "about four
and a half hours" is one duration, "check-in" is not "check-out", "Line 2" is not "Line 1",
and "six points clear of Brookfield" is a difference, no rival of Brookfield's points
(:mod:`groundwatch.judges.values.stated`, :mod:`~groundwatch.judges.values.alignment`).
Written before the judge was run on them (Session 55)."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.short_answers import claim_values
from groundwatch.judges.claims.split import split_conjunctions
from groundwatch.judges.values.alignment import labelled_apart
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong


def _read(text: str) -> list[tuple[str, str, float | None]]:
    return [
        (v.kind, v.text, v.quantity.value if v.quantity is not None else None)
        for v in stated_values(text)
    ]


def test_dozens_multiply() -> None:
    assert [q for _, _, q in _read("The tray holds two dozen eggs.")] == [24.0]
    assert [q for _, _, q in _read("Three dozen roses were delivered.")] == [36.0]


def test_a_hedged_whole_and_a_half_is_one_duration() -> None:
    [(kind, _, days)] = _read("The crossing takes about four and a half hours.")
    assert kind == "time"
    assert days is not None
    assert abs(days * 24 - 4.5) < 0.3  # "about" widens the low end
    # a hedged fraction alone is still no value
    assert _read("Nearly half the seats were empty.") == []
    # and "and a half" joins no two claims
    assert split_conjunctions("The walk takes about two and a half hours from the car park.") == [
        "The walk takes about two and a half hours from the car park."
    ]


def test_a_particle_tells_check_in_from_check_out() -> None:
    three, eleven = stated_values("Check-in is from 3 pm and check-out is by 11 am.")
    assert "checkin" in three.attribute
    assert "checkout" in eleven.attribute
    assert three.attribute["checkin"] > three.attribute.get("checkout", 0.0)


def test_a_numbered_name_is_one_word_of_the_attribute() -> None:
    first, second = (
        v
        for v in stated_values("Gate 12 closes at 10:40 and Gate 14 closes at 11:05.")
        if v.kind == "clock"
    )
    assert first.attribute.get("gate@12", 0.0) > first.attribute.get("gate@14", 0.0)
    assert second.attribute.get("gate@14", 0.0) > second.attribute.get("gate@12", 0.0)
    assert labelled_apart(second.attribute, first.attribute)
    assert not labelled_apart(first.attribute, first.attribute)
    # months, weekdays and clock times are no numbered names
    for text in ("It opens on March 3 at 9:00.", "Open Saturdays 9 am to 1 pm."):
        assert not any("@" in w for v in stated_values(text) for w in v.attribute)


def test_a_difference_is_marked() -> None:
    values = stated_values("Harton finished on 78 points, six points clear of Brookfield.")
    assert [(v.text, v.relative) for v in values] == [("78 points", False), ("six points", True)]


def test_a_short_answer_after_a_month_keeps_its_value() -> None:
    question = "What were the sales in March?"
    [value] = claim_values(f"{question} 42,000 units.", question)
    assert value.text == "42,000 units"
    question = "How many people sleep in Corrie Hut?"
    [value] = claim_values(f"{question} 14.", question)
    assert value.quantity is not None
    assert value.quantity.value == 14


SEAVIEW = ["At the Seaview Inn, check-in is from 3 pm and check-out is by 11 am."]
LEAGUE = ["Harton United won the league on 78 points, six points clear of Brookfield."]
TRAY = ["The catering tray holds two dozen eggs, and the family box holds ten."]
FERRY = ["The crossing from Oban takes about four and a half hours in calm weather."]

KILNS = [
    "Kiln 1 fired 240 pots in May at an average of 1,220 °C.",
    "Kiln 2 fired 180 pots in May, at 1,180 °C on average.",
]

BRIDGE = [
    "The Harlow Bridge opened to traffic on 4 May 1931; it was closed for repairs on 9 June 1987."
]

WINGS = [
    "The museum's east wing and west wing both opened in 1998: the east wing on 2 May and the "
    "west wing on 19 October."
]

WRONG: list[Case] = [
    ("What time is check-out at the Seaview Inn?", SEAVIEW, "3 pm", False),
    ("When can I check in at the Seaview Inn?", SEAVIEW, "From 11 am", False),
    ("How many pots did Kiln 2 fire in May?", KILNS, "240 pots", False),
    (
        "When was the Harlow Bridge closed for repairs?",
        BRIDGE,
        "It was closed on 4 May 1931.",
        False,
    ),
]
RIGHT: list[Case] = [
    ("When did the west wing open?", WINGS, "19 October 1998", True),
    ("What time is check-out at the Seaview Inn?", SEAVIEW, "11 am", True),
    ("How many eggs come in the catering tray?", TRAY, "24 eggs", True),
    ("How long does the ferry crossing take?", FERRY, "About 4.5 hours", True),
    # worked out from the difference: never contradicted by it
    ("How many points did Brookfield finish on?", LEAGUE, "72 points", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_value_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_values_read_right_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


# Session 56: written before the judge was run on them.


def test_a_pronoun_subject_reads_the_previous_segments_words() -> None:
    said_of = "The Harlow Bridge opened on 4 May 1931; it was closed for repairs on 9 June 1987."
    other = (
        "The Harlow Bridge opened on 4 May 1931; the road was closed for repairs on 9 June 1987."
    )
    _, closed = stated_values(said_of)
    _, road = stated_values(other)
    assert closed.attribute["bridg"] > road.attribute["bridg"]


def test_two_values_listed_with_and_share_their_words() -> None:
    twenty, forty = stated_values("On weekends the fares are £20 and £40.")
    assert dict(twenty.attribute) == dict(forty.attribute)
    # the two ends of "between ... and ..." are no list
    low, high = stated_values("It is kept between 17 % and 19 % of revenue.")
    assert (low.text, high.text) == ("17 %", "19 %")
