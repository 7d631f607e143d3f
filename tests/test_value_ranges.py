"""A range the claim states against the range the passages state for its attribute
(:mod:`groundwatch.judges.values.ranges`). Written before the judge was run on them (Session 53).
"""

from __future__ import annotations

import pytest

from groundwatch.judges.values.ranges import crossed_range, ranges_in
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

POOL = ["The outdoor pool is heated to between 26 °C and 28 °C from May to September."]
HEART = [
    "A normal resting heart rate for adults is 60–100 beats per minute; well-trained athletes "
    "may have a resting rate of 40–60."
]
CONSULTATION = [
    "The consultation runs from 3 March to 28 April 2025, and the results will be published on "
    "30 June 2025."
]
HOURS = ["The library is open 08:00–20:00 on weekdays and 09:00–17:00 at weekends."]
SODIUM = [
    "Serum sodium reference range: 135–145 mmol/L. Potassium reference range: 3.5–5.1 mmol/L."
]
FERRITIN = ["Ferritin reference ranges: men 30–400 µg/L, women 15–150 µg/L."]
GARDEN = [
    "The walled garden is closed to visitors from 20 December to 2 January, and the café closes "
    "on 24 December."
]
GLUE = ["Use the adhesive at 10 °C to 25 °C and store it below 30 °C."]


def test_the_ranges_a_sentence_states() -> None:
    spans = [(s.lo.text, s.hi.text) for s in ranges_in(POOL[0])]
    assert ("26 °C", "28 °C") in spans
    assert [(s.lo.text, s.hi.text) for s in ranges_in("Apply from 5 °C up to 30 °C.")] == [
        ("5 °C", "30 °C")
    ]
    # two values of different kinds are no range
    assert ranges_in("It costs £5 to 9 pm.") == ()


def test_one_end_agrees_the_other_does_not() -> None:
    hit = crossed_range("The pool is kept between 26 °C and 30 °C.", POOL)
    assert hit is not None
    assert (hit.sentence, "30" in hit.said, "28" in hit.stated) == (0, True, True)
    # each end is one case's: the claim's words say whose range it gives (Session 53)
    hit = crossed_range("For men, a ferritin of 15 to 400 µg/L is normal.", FERRITIN)
    assert hit is not None
    assert "30" in hit.stated
    # the range as stated, in other units: no conflict
    assert crossed_range("The pool is heated to 26-28 degrees Celsius.", POOL) is None


WRONG: list[Case] = [
    ("How warm is the outdoor pool?", POOL, "The pool is kept between 26 °C and 30 °C.", False),
    (
        "What is a normal resting heart rate?",
        HEART,
        "For adults, a normal resting heart rate is 50 to 100 beats per minute.",
        False,
    ),
    (
        "When can I respond to the consultation?",
        CONSULTATION,
        "The consultation is open from 3 March to 30 April 2025.",
        False,
    ),
    ("What are the weekend opening hours?", HOURS, "At weekends it opens 9 am to 8 pm.", False),
    ("What is the normal range for sodium?", SODIUM, "135 to 155 mmol/L", False),
    # the wrong end is a value the passage states for something else
    (
        "When is the garden closed to visitors?",
        GARDEN,
        "The garden is closed from 24 December to 2 January.",
        False,
    ),
    (
        "What temperature can the adhesive be used at?",
        GLUE,
        "Use it from 10 °C up to a maximum of 30 °C.",
        False,
    ),
]

RIGHT: list[Case] = [
    ("How warm is the outdoor pool?", POOL, "It is heated to 26-28 °C.", True),
    ("What are the weekday opening hours?", HOURS, "On weekdays it opens 8 am to 8 pm.", True),
    ("What are the weekend opening hours?", HOURS, "From 9 am until 5 pm at weekends.", True),
    ("What is the normal range for potassium?", SODIUM, "3.5 to 5.1 mmol/L", True),
    (
        "What is a normal resting heart rate for athletes?",
        HEART,
        "Athletes can have a resting rate of 40 to 60 beats per minute.",
        True,
    ),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_range_with_a_wrong_end_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_range_restated_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


def test_a_range_with_a_wrong_end_is_contradicted_by_the_verifier() -> None:
    assert_right_and_wrong("verifier", [*WRONG[:3], *WRONG[-2:]], wrong="contradicted")
