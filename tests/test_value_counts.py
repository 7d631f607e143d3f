"""A count of a noun against the one count of that noun the passages give ("two players"),
not a count of another noun that happens to agree ("3 batteries"). Written before the judge
was run on them (Session 53)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.alignment import SENTENCE_CONFLICT_SCORE, account_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

MONITOR = [
    "The Kelvin monitor fits cuffs of 22–42 cm, keeps 60 readings for each of two users, and "
    "runs on AA batteries for roughly 300 measurements."
]


def test_the_one_count_of_the_claims_noun_disputes_it() -> None:
    """However loosely the words around align, "two users" is what "four users" counts."""
    account = account_values(
        "The Kelvin remembers 60 results apiece for four users.",
        MONITOR,
        conflict_score=SENTENCE_CONFLICT_SCORE,
        strict=True,
    )
    assert [(d.claim.text, d.evidence.text) for d in account.disputed] == [
        ("four users", "two users")
    ]


KIT = ["The Starlight game kit comes with 3 batteries and supports two players at once."]
SCALE = [
    "The Nova bathroom scale stores 50 measurements for each of three users and runs on two "
    "AAA batteries."
]
FLAT = ["Each apartment has two bedrooms and three windows facing the park."]

WRONG: list[Case] = [
    (
        "How big are the apartments?",
        FLAT,
        "Each apartment has three bedrooms facing the park.",
        False,
    ),
    # the only count of the claim's noun, loosely aligned: held back (dev4 "four users")
    ("How many people can use the kit?", KIT, "Up to four players can use it.", False),
    (
        "How many users does the Nova scale remember?",
        SCALE,
        "The Nova stores 50 measurements each for up to two users.",
        False,
    ),
]
#: Limit: the claim's number said of another noun ("3 batteries") still agrees, as "54 storeys"
#: with "54 floors" must (skipping it beside a count of the claim's own noun cost held-out 4 a
#: true claim, Session 53).
OTHER_NOUN: list[Case] = [
    (
        "How many players can use the kit?",
        KIT,
        "The kit lets three players join in at once.",
        False,
    ),
]
RIGHT: list[Case] = [
    ("How many players can use the kit?", KIT, "Two players can use the kit at once.", True),
    ("How big are the apartments?", FLAT, "Every apartment has 2 bedrooms.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_nouns_count_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_nouns_own_count_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


@pytest.mark.xfail(reason="a count agrees with the same number of another noun", strict=True)
def test_another_nouns_count_beside_the_nouns_own() -> None:
    assert_right_and_wrong("verifier", OTHER_NOUN)


GARLIC = [
    "Plant the garlic cloves pointed end up to a depth of 2.5 cm in well-drained soil between "
    "October and December."
]


def test_the_one_measure_whose_clause_says_the_claims_word() -> None:
    """ "5 cm deep" against the passages' one length, "to a depth of 2.5 cm": the word says
    which attribute ("deep" is "depth"), however loosely the rest aligns (Session 53)."""
    account = account_values(
        "Put garlic in the ground from October to December, about 5 cm deep.",
        GARLIC,
        conflict_score=SENTENCE_CONFLICT_SCORE,
        strict=True,
    )
    assert [(d.claim.text, d.evidence.text) for d in account.disputed] == [("5 cm", "2.5 cm")]
