"""A change stated the other way ("rose 4%" against "fell 4%"): the same value, the opposite
direction (:mod:`groundwatch.judges.values.direction`). Written before the judge was run on them
(Session 53)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.direction import direction
from groundwatch.judges.values.stated import normalised, stated_values
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

REVENUE = ["Group revenue fell 4% to £2.1bn in 2024, while operating profit rose 9%."]
MEMBERS = ["Membership grew by 12% last year, to 5,400 members."]


def _direction(text: str) -> int:
    """The direction of the sentence's first value that is no year."""
    value = next(v for v in stated_values(text) if v.kind != "year")
    return direction(normalised(text), value)


def test_the_direction_a_value_changes() -> None:
    assert _direction("Revenue fell 4% to £2.1bn.") == -1
    assert _direction("Profit was up 9% on the year.") == 1
    assert _direction("Sales were 3% lower than in 2023.") == -1
    assert _direction("a 12% increase in members") == 1
    # a bound is no direction
    assert _direction("Discounts of up to 4% apply.") == 0
    assert _direction("The fee is 4%.") == 0


WRONG: list[Case] = [
    ("How did revenue change in 2024?", REVENUE, "Group revenue rose 4% in 2024.", False),
    ("How did membership change?", MEMBERS, "Membership dropped 12% last year.", False),
    ("How did operating profit change?", REVENUE, "Operating profit was down 9%.", False),
]
RIGHT: list[Case] = [
    ("How did revenue change in 2024?", REVENUE, "Revenue was down 4% at £2.1bn in 2024.", True),
    ("How did membership change?", MEMBERS, "Membership increased 12% last year.", True),
    ("How did operating profit change?", REVENUE, "Operating profit went up by 9%.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_change_the_other_way_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_change_the_same_way_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
