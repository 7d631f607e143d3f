"""A question that gives a value and asks for the name ("Which tier includes 50 GB?"): an answer
naming the thing the passage gives another value, beside a clause naming another thing with the
asked value, is contradicted (judges/values/valued_names). Written before the judge was run on
them (Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.valued_names import valued_name
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

TIERS = ["The Basic tier includes 10 GB of storage, while the Plus tier includes 50 GB."]
PHONES = [
    "The Vento X has a 5,000 mAh battery and the Vento Max has a 6,000 mAh battery. Both "
    "charge at 45 W."
]
ROUTES = ["Route 5 takes 40 minutes; Route 7 takes 55 minutes and Route 9 also takes 40 minutes."]


def test_the_name_stated_with_another_value_is_crossed() -> None:
    hit = valued_name("Which tier includes 50 GB of storage?", "Basic", TIERS)
    assert hit is not None
    assert (hit.said, hit.stated) == ("Basic", "Plus")
    assert "10 GB" in hit.said_value
    assert "50 GB" in hit.stated_value
    hit = valued_name("Which model has a 6,000 mAh battery?", "The Vento X", PHONES)
    assert hit is not None
    assert hit.stated == "Vento Max"


def test_the_name_with_the_asked_value_or_no_value_is_not() -> None:
    assert valued_name("Which tier includes 50 GB of storage?", "Plus", TIERS) is None
    assert valued_name("Which model has a 6,000 mAh battery?", "Vento Max", PHONES) is None
    # Route 9 is stated with the asked value too
    assert valued_name("Which route takes 40 minutes?", "Route 9", ROUTES) is None
    # no value in the question: nothing to compare
    assert valued_name("Which tier is the cheapest?", "Basic", TIERS) is None
    # a name the passage does not give
    assert valued_name("Which tier includes 50 GB of storage?", "Gold", TIERS) is None


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_name_given_another_value_is_contradicted(backend: str) -> None:
    cases: list[Case] = [
        ("Which tier includes 50 GB of storage?", TIERS, "Basic", False),
        ("Which tier includes 50 GB of storage?", TIERS, "The Plus tier", True),
        ("Which model has a 6,000 mAh battery?", PHONES, "Vento X", False),
        ("Which model has a 6,000 mAh battery?", PHONES, "The Vento Max", True),
    ]
    assert_right_and_wrong(backend, cases, wrong="contradicted")
