"""Cases told apart by a value. A short answer's value that the passages state only beside
another case of its question's value ("€399 for the 256 GB model", asked about the 512 GB one)
is never supported (:func:`groundwatch.judges.values.paired.stated_for_other_case`). And the
asked case's value is not contradicted: "and" joins a range's ends only after "between"
("up to £10,000 and 2.5%" is two values), the question's "GB" of "256 GB" names no "128 GB
version".
Written before the judge was run on them (Session 56)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.paired import stated_for_other_case
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

ROUTER = ["The Orbis router costs $129 with 4 antennas, or $99 with 2 antennas."]
PHONE = [
    "The Lumo X phone has a 6.1-inch screen and 256 GB of storage.",
    "It costs $799, or $699 for the 128 GB version.",
]
SAVER = ["The Harbour Saver pays 4.2% on balances up to £10,000 and 2.5% on any amount above that."]
VOLTRA = [
    "The Voltra hatchback comes with two batteries.",
    "It has a range of 410 km with the 77 kWh battery, or 320 km with the 58 kWh battery.",
]


def test_a_value_beside_another_case_is_that_cases() -> None:
    asked = stated_values("How much is the Orbis router with 4 antennas?")
    [price] = stated_values("$99")
    hit = stated_for_other_case(price, asked, ROUTER)
    assert hit is not None
    assert (hit.said, hit.case, hit.other) == ("$99", "4 antennas", "2 antennas")
    # the asked case's own value is not another's
    [right] = stated_values("$129")
    assert stated_for_other_case(right, asked, ROUTER) is None


def test_a_bound_facing_the_other_way_is_another_case() -> None:
    asked = stated_values("What rate does the Harbour Saver pay on balances over £10,000?")
    [rate] = stated_values("4.2%")
    hit = stated_for_other_case(rate, asked, SAVER)
    assert hit is not None
    assert (hit.case, hit.other) == ("over £10,000", "under £10,000")


def test_a_value_stated_without_a_case_too_is_no_other_cases() -> None:
    evidence = ["The Orbis router costs $99.", *ROUTER]
    asked = stated_values("How much is the Orbis router with 4 antennas?")
    [price] = stated_values("$99")
    assert stated_for_other_case(price, asked, evidence) is None


def test_a_case_the_claim_names_too_is_no_other_case() -> None:
    asked = stated_values("How much is the Orbis router with 4 antennas?")
    price, two = stated_values("$99 with 2 antennas")
    assert stated_for_other_case(price, asked, ROUTER, named=[two]) is None


def test_and_joins_a_range_only_after_between() -> None:
    read = [(v.text, v.kind) for v in stated_values(SAVER[0])]
    assert read == [("4.2%", "percent"), ("£10,000", "cur:gbp"), ("2.5%", "percent")]
    [both] = stated_values("Store it between 10 and 25 °C.")
    assert both.quantity is not None
    assert (both.quantity.value, both.quantity.high) == (10.0, 25.0)


WRONG: list[Case] = [
    # the asked case is named in another sentence, with no rival value beside it
    ("How much is the 256 GB Lumo X?", PHONE, "$699", False),
    ("What does the Lumo X cost?", PHONE, "The 256 GB Lumo X costs $699.", False),
    ("What rate does the Harbour Saver pay on balances over £10,000?", SAVER, "4.2%", False),
    ("How much is the Orbis router with 4 antennas?", ROUTER, "$99", False),
    ("How far can the Voltra go on the 58 kWh battery?", VOLTRA, "410 km", False),
    (
        "What range does the Voltra have?",
        VOLTRA,
        "With the 58 kWh battery the Voltra has a range of 410 km.",
        False,
    ),
]
RIGHT: list[Case] = [
    ("How much is the 256 GB Lumo X?", PHONE, "$799", True),
    ("What rate does the Harbour Saver pay on balances over £10,000?", SAVER, "2.5%", True),
    ("How much is the Orbis router with 4 antennas?", ROUTER, "$129", True),
    ("How far can the Voltra go on the 58 kWh battery?", VOLTRA, "320 km", True),
    (
        "What range does the Voltra have?",
        VOLTRA,
        "With the 77 kWh battery the Voltra has a range of 410 km.",
        True,
    ),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_cases_value_is_never_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_asked_cases_value_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


_SPEC_IN_ANOTHER_SENTENCE = pytest.mark.xfail(
    reason="the rules judge aligns the claim's case value with the product's own spec in "
    "another sentence (128 GB vs 256 GB of storage); restating one piece's pairing as a guard "
    "cost the triage sets 4 true contradictions (Session 56)",
    strict=True,
)


@pytest.mark.parametrize(
    "backend", ["verifier", pytest.param("embedded", marks=_SPEC_IN_ANOTHER_SENTENCE)]
)
def test_a_case_restated_from_its_own_piece_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(
        backend, [("What does the Lumo X cost?", PHONE, "The 128 GB Lumo X costs $699.", True)]
    )
