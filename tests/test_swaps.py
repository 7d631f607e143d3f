"""Two values of one answer stated the other way round (:mod:`groundwatch.judges.swaps`).
Written before the judge was run on them (Session 52)."""

from __future__ import annotations

import pytest

from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

PARCELS = [
    "Standard parcels take 3–5 working days and cost €6.50; express parcels take 1–2 working "
    "days and cost €14."
]
MUSEUM = ["The museum opens at 10:00 on weekdays and at 09:00 at weekends."]
TICKETS = ["Adults pay £12 for the tour and children pay £6."]

WRONG: list[Case] = [
    ("What do the parcel services cost?", PARCELS, "Express costs €6.50 and standard costs €14.",
     False),
    ("When does the museum open?", MUSEUM, "It opens at 9:00 on weekdays and at 10:00 at weekends.",
     False),
    ("How much is the tour?", TICKETS, "Children pay £12 for the tour, and adults pay £6.", False),
]  # fmt: skip

RIGHT: list[Case] = [
    ("What do the parcel services cost?", PARCELS, "Standard costs €6.50 and express costs €14.",
     True),
    ("When does the museum open?", MUSEUM, "It opens at 10 am on weekdays and 9 am at weekends.",
     True),
]  # fmt: skip

#: Limit: the words the first clause says of both cases ("for the tour") are read as its own
#: case, and the backend's contradiction of the other case's value stands (Session 52).
ELIDED: list[Case] = [
    ("How much is the tour?", TICKETS, "Children pay £6 for the tour, while adults pay £12.", True),
]


@pytest.mark.xfail(reason="words said of both clauses read as the first one's case", strict=True)
def test_a_value_with_the_words_of_the_first_clause() -> None:
    assert_right_and_wrong("verifier", ELIDED)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_values_the_other_way_round_are_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_values_the_right_way_round_are_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


def test_values_the_other_way_round_are_contradicted() -> None:
    assert_right_and_wrong("verifier", WRONG, wrong="contradicted")
