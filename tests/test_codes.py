"""Codes as short answers: grades, bands and designations (:mod:`groundwatch.judges.values.codes`).
Written before the judge was run on them (Session 50)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.codes import account_code, is_code
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

HOUSE = ["Flat 3, Mill Lane: Council Tax band B, energy rating E, leasehold with 96 years left."]
PHONE = ["The Arlo 7 is rated IP68 for water resistance, while its charging dock is only IP54."]
COURSE = ["Entry needs grade B in A-level Maths and grade C in Physics."]


def test_what_a_code_is() -> None:
    assert is_code("E") == "E"
    assert is_code("Band B.") == "B"
    assert is_code("5W-30") == "5W-30"
    assert is_code("IP68") == "IP68"
    assert is_code("B+") == "B+"
    # an acronym is a name; a number is a value; a sentence is no code
    assert is_code("NASA") is None
    assert is_code("42") is None
    assert is_code("It is rated E for energy.") is None


def test_the_code_given_for_what_is_asked() -> None:
    hit = account_code("What is the energy rating of Flat 3?", "B", HOUSE)
    assert hit is not None
    assert (hit.status, hit.stated) == ("conflict", "E")
    hit = account_code("What is the energy rating of Flat 3?", "E", HOUSE)
    assert hit is not None
    assert hit.status == "agreed"
    # no candidate aligned with the question: nothing to conflict with
    hit = account_code("What grade do I need in Chemistry?", "A", COURSE)
    assert hit is not None
    assert hit.status == "unaccounted"


@pytest.mark.xfail(
    strict=True,
    reason="known limit: 'rating' (near IP68: 'rated') and 'dock' (near IP54) each align one "
    "code with the question; a tie is left agreed, as nothing tells the thing from its attribute",
)
def test_the_thing_asked_tells_codes_apart() -> None:
    hit = account_code("What IP rating does the charging dock have?", "IP68", PHONE)
    assert hit is not None
    assert (hit.status, hit.stated) == ("conflict", "IP54")


WRONG: list[Case] = [
    ("What is the energy rating of Flat 3?", HOUSE, "B", False),
    ("What IP rating does the charging dock have?", PHONE, "IP68", False),
    ("What grade do I need in Physics?", COURSE, "Grade B", False),
]

RIGHT: list[Case] = [
    ("What is the energy rating of Flat 3?", HOUSE, "E", True),
    ("What Council Tax band is Flat 3?", HOUSE, "Band B", True),
    ("How water-resistant is the Arlo 7?", PHONE, "IP68", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_wrong_code_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_right_code_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
