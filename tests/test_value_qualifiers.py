"""Values told apart by a qualifier of one noun ("a cabin bag of up to 10 kg and a checked bag
of up to 25 kg"): :mod:`groundwatch.judges.values.qualifiers`. Written before the judge was run
on them (Session 53)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.qualifiers import qualified_pairs, qualified_rival
from groundwatch.judges.values.stated import stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

SHUTTLE = [
    "The airport shuttle leaves every 20 minutes for domestic terminals and every 30 minutes "
    "for international terminals."
]
LICENCE = ["A standard licence costs $45 and a premium licence costs $80, both billed yearly."]
FARE = ["The Flex fare includes a cabin bag of up to 10 kg and a checked bag of up to 25 kg."]


def test_the_qualified_nouns_of_a_text() -> None:
    assert ("check", "bag", "checked bag") in qualified_pairs("a checked bag of up to 25 kg")
    assert ("long-haul", "flight", "long-haul flights") in qualified_pairs("long-haul flights")
    # a word between breaks the pair
    assert qualified_pairs("cabin, bag") == []


def test_the_value_of_the_other_qualifier() -> None:
    [value] = stated_values("10 kg")
    hit = qualified_rival(value, {("check", "bag")}, FARE)
    assert hit is not None
    assert (hit.stated, hit.asked, hit.own, hit.sentence) == (
        "25 kg",
        "checked bag",
        "cabin bag",
        0,
    )
    # the qualifiers after their values
    [value] = stated_values("20 minutes")
    hit = qualified_rival(value, {("international", "terminal")}, SHUTTLE)
    assert hit is not None
    assert hit.stated == "30 minutes"
    # the value's own qualifier asked
    assert qualified_rival(value, {("domestic", "terminal")}, SHUTTLE) is None


WRONG: list[Case] = [
    (
        "How often does the shuttle run to the international terminals?",
        SHUTTLE,
        "Every 20 minutes",
        False,
    ),
    ("What does a premium licence cost?", LICENCE, "$45", False),
    (
        "How often does the shuttle run?",
        SHUTTLE,
        "The shuttle to the international terminals runs every 20 minutes.",
        False,
    ),
]
RIGHT: list[Case] = [
    (
        "How often does the shuttle run to the international terminals?",
        SHUTTLE,
        "Every half an hour",
        True,
    ),
    ("What does a premium licence cost?", LICENCE, "$80", True),
    ("How much is the standard licence?", LICENCE, "$45 a year", True),
    (
        "How often does the shuttle run?",
        SHUTTLE,
        "Shuttles to domestic terminals leave every 20 minutes.",
        True,
    ),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_qualifiers_value_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_qualifiers_own_value_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


TEAM = [
    "Cloudnote Team costs $15 per user per month when billed monthly, or $11 per user per month "
    "when billed yearly."
]
BILLING: list[Case] = [
    (
        "What does Cloudnote Team cost?",
        TEAM,
        "Cloudnote Team is $15 per user per month if you pay yearly.",
        False,
    ),
    (
        "What does Cloudnote Team cost?",
        TEAM,
        "Paying monthly, Cloudnote Team is $15 per user per month.",
        True,
    ),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_rate_of_the_other_billing_period_is_not_supported(backend: str) -> None:
    """The case after the rate ("per user per month when billed yearly") names the clause's
    case, the rate does not (Session 53)."""
    assert_right_and_wrong(backend, BILLING)
