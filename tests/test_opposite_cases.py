"""A value stated for the opposite case: "unmetered" when "metered" is asked (values/opposite)."""

from __future__ import annotations

from groundwatch.judges.values.opposite import opposite_case
from groundwatch.judges.values.stated import stated_values

WATER = [
    "Metered customers are billed every six months, in March and September.",
    "Unmetered customers pay a fixed annual charge of £486 in 10 instalments.",
]
PASSES = ["Day passes cost £12 for members and £20 for non-members."]


def _hit(claim: str, answer: str, passage: list[str]):  # type: ignore[no-untyped-def]
    [value] = stated_values(answer)
    return opposite_case(value, f"{claim} {answer}", passage)


def test_the_value_of_the_negated_case_is_not_the_asked_cases() -> None:
    hit = _hit("What's the annual charge for metered customers?", "£486 a year", WATER)
    assert hit is not None
    assert (hit.said, hit.case, hit.stated) == ("£486", "Unmetered", None)


def test_either_way_round_with_the_asked_cases_value() -> None:
    hit = _hit("How much is a day pass for non-members?", "£12", PASSES)
    assert hit is not None
    assert (hit.said, hit.case, hit.stated) == ("£12", "members", "£20")
    hit = _hit("How much is a day pass for members?", "£20", PASSES)
    assert hit is not None
    assert (hit.said, hit.case, hit.stated) == ("£20", "non-members", "£12")


def test_the_asked_cases_own_value_is_no_opposite() -> None:
    assert _hit("How much is a day pass for members?", "£12", PASSES) is None
    assert _hit("How much is a day pass for non-members?", "£20", PASSES) is None
    assert _hit("What's the annual charge for unmetered customers?", "£486", WATER) is None


def test_words_that_merely_begin_with_un_name_no_case() -> None:
    # "unlimited" is no case of "limited"'s asked here, and "under" no negation at all
    passage = ["Children under 5 travel free; unlimited rides cost £30 a week."]
    assert _hit("How much are unlimited rides for a week?", "£30", passage) is None
    assert _hit("How much do children under 5 pay?", "£30", passage) is None
