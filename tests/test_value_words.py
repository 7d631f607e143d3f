"""Short answers that are one unit of time ("A week", "Roughly a day"), hedges ("a little
over"), and questions naming by an acronym what the passages spell out. Written before the
judge was run on them (Session 52)."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.short_answers import claim_values, one_unit
from groundwatch.judges.values.stated import stated_values
from groundwatch.judges.values.uncovered import unmentioned
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong


def test_one_unit_of_time_is_a_value() -> None:
    assert one_unit("A fortnight") == "14 days"
    assert one_unit("In about a week") == "about 1 week"
    assert one_unit("A week later") == "A week later"  # no whole answer of one unit
    [value] = claim_values("Roughly a day", "How long does it take?", short=True)
    assert value.quantity is not None
    assert value.quantity.kind == "time"


def test_an_acronym_the_passages_spell_out_is_mentioned() -> None:
    passages = ["The National Health Service budget for 2024 is £165 billion."]
    assert unmentioned("How much does the NHS spend?", passages) == []
    assert unmentioned("How much does the BBC spend?", passages) == ["BBC"]


GRACE = ["You have 14 days from delivery to return an item for a full refund."]
GLUE = ["The adhesive is touch-dry in 20 minutes and fully cures in about 24 hours."]
FLIGHT = ["The Edinburgh to London flight takes 1 hour 10 minutes and departs at 07:15."]

RIGHT: list[Case] = [
    ("How long do I have to return an item?", GRACE, "A fortnight", True),
    ("How long does the adhesive take to cure fully?", GLUE, "Roughly a day", True),
    ("How long is the flight to London?", FLIGHT, "A little over an hour", True),
]
WRONG: list[Case] = [
    ("How long do I have to return an item?", GRACE, "A month", False),
    ("How long does the adhesive take to cure fully?", GLUE, "About a week", False),
]


def test_one_unit_of_time_is_supported() -> None:
    assert_right_and_wrong("verifier", RIGHT, right_supported=True)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_unit_of_time_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


def test_a_single_number_word_is_one_number() -> None:
    """ "a single one-litre bag" is one litre, not "single" and "one" added (Session 53)."""
    [value] = stated_values("They all go in a single one-litre bag.")
    assert value.quantity is not None
    assert value.quantity.value == 1.0


LIQUIDS = [
    "Liquids must be in containers of at most 100 ml, all in one clear bag of up to 1 litre."
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_single_one_litre_bag_is_not_contradicted(backend: str) -> None:
    cases: list[Case] = [
        (
            "How do I carry liquids?",
            LIQUIDS,
            "Containers of up to 100 ml all go in a single one-litre bag.",
            True,
        )
    ]
    assert_right_and_wrong(backend, cases)


CHECK_IN = [
    "Check-in closes 60 minutes before departure for domestic flights and 90 minutes before "
    "departure for international flights."
]


def test_one_unit_of_time_before_an_event() -> None:
    """ "An hour before departure" is 60 minutes before it, as "an hour" alone is (Session 53)."""
    assert one_unit("An hour before departure") == "1 hour before departure"
    assert one_unit("A week later") == "A week later"


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_one_unit_before_an_event_is_read_as_its_case(backend: str) -> None:
    q = "When does check-in close for {} flights?"
    cases: list[Case] = [
        (q.format("international"), CHECK_IN, "An hour before departure", False),
        (q.format("domestic"), CHECK_IN, "An hour before departure", True),
    ]
    assert_right_and_wrong(backend, cases)
