"""A count of a noun against the one count of that noun the passages give ("two players"),
not a count of another noun that happens to agree ("3 batteries"). Written before the judge
was run on them (Session 53)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

KIT = ["The Starlight game kit comes with 3 batteries and supports two players at once."]
FLAT = ["Each apartment has two bedrooms and three windows facing the park."]

WRONG: list[Case] = [
    (
        "How many players can use the kit?",
        KIT,
        "The kit lets three players join in at once.",
        False,
    ),
    (
        "How big are the apartments?",
        FLAT,
        "Each apartment has three bedrooms facing the park.",
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
