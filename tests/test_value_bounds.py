"""Limits ("up to 10 kg", "at least 21", "7.0 mmol/L or above") told apart by their case, and a
limit restated with another value. Written before the judge was run on them (Session 53)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

FARE = ["The Flex fare includes a cabin bag of up to 10 kg and a checked bag of up to 25 kg."]
JOISTS = [
    "Ceiling joists of 38 × 89 mm can span up to 2.4 m at 400 mm spacing, or 2.1 m at 600 mm "
    "spacing."
]
GLUCOSE = [
    "A fasting glucose of 7.0 mmol/L or above indicates diabetes, while 5.6–6.9 mmol/L "
    "indicates prediabetes."
]
HIRE = ["Drivers must be at least 21 years old to hire a car, and 25 or over to hire a van."]

WRONG: list[Case] = [
    ("What's the weight limit for the checked bag on the Flex fare?", FARE, "10 kg", False),
    ("How heavy can my checked bag be on Flex?", FARE, "Up to 10 kg", False),
    (
        "What glucose level means diabetes?",
        GLUCOSE,
        "A fasting glucose of 5.6 mmol/L or above indicates diabetes.",
        False,
    ),
    ("How old must I be to hire a van?", HIRE, "You must be at least 21 to hire a van.", False),
]

#: Limit: a case the question names by a value of the answer's own kind ("at 600 mm spacing",
#: a length like the span) is not told apart from the answer's value; it is supported.
SAME_KIND_CASE: list[Case] = [
    ("How far can the joists span at 600 mm spacing?", JOISTS, "Up to 2.4 m", False),
]

RIGHT: list[Case] = [
    ("What's the weight limit for the checked bag on the Flex fare?", FARE, "25 kg", True),
    ("How heavy can my cabin bag be on Flex?", FARE, "Up to 10 kg", True),
    ("How far can the joists span at 600 mm spacing?", JOISTS, "Up to 2.1 metres", True),
    ("How far can the joists span at 400 mm spacing?", JOISTS, "2.4 m", True),
    (
        "What glucose level means diabetes?",
        GLUCOSE,
        "Diabetes is indicated by a fasting glucose of at least 7 mmol/L.",
        True,
    ),
    ("How old must I be to hire a car?", HIRE, "You need to be 21 or older.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_limit_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_cases_own_limit_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


def test_another_cases_limit_is_contradicted_by_the_verifier() -> None:
    assert_right_and_wrong("verifier", WRONG[:2], wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_case_named_by_a_value_of_the_answers_kind(backend: str) -> None:
    # "2.4 m at 400 mm spacing" asked at 600 mm: another case's (Session 56)
    assert_right_and_wrong(backend, SAME_KIND_CASE)
