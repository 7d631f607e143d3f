"""A "Yes" to a value the passages bar (:mod:`groundwatch.judges.values.barred`). Written
before the judge was run on them (Session 51)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.barred import barred
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

COASTER = [
    "Riders under 12 years are not permitted on the Vortex coaster; the Log Flume is open to all "
    "ages."
]
CABIN = ["Cabin bags over 10 kg are not accepted at the gate and must be checked in for a fee."]
RECEIPTS = ["Expenses above £50 are not reimbursed without a receipt."]


def test_a_value_inside_a_barred_bound() -> None:
    hit = barred("Can I bring a 12 kg suitcase into the cabin?", CABIN)
    assert hit is not None
    assert hit.asked == "12 kg"
    assert barred("Can my 10-year-old ride the Vortex coaster?", COASTER) is not None
    # outside the bound, another ride, no refusal
    assert barred("Can I bring an 8 kg suitcase into the cabin?", CABIN) is None
    assert barred("Can my 14-year-old ride the Vortex coaster?", COASTER) is None
    assert barred("Can my 10-year-old ride the Log Flume?", COASTER) is None
    assert barred("Can I bring a 12 kg bag?", ["Bags over 10 kg cost £20 extra."]) is None


WRONG: list[Case] = [
    ("Can I bring a 12 kg suitcase into the cabin?", CABIN, "Yes, if it fits the locker.", False),
    ("Can my 10-year-old ride the Vortex coaster?", COASTER, "Yes, with an adult.", False),
    ("Can I claim a taxi fare of £80 without a receipt?", RECEIPTS, "Yes.", False),
]

RIGHT: list[Case] = [
    ("Can I bring an 8 kg suitcase into the cabin?", CABIN, "Yes.", True),
    ("Can I bring a 12 kg suitcase into the cabin?", CABIN, "No, it must be checked in.", True),
    ("Can my 14-year-old ride the Vortex coaster?", COASTER, "Yes.", True),
    ("Can my 10-year-old ride the Log Flume?", COASTER, "Yes, it is open to all ages.", True),
    ("Can I claim a taxi fare of £30 without a receipt?", RECEIPTS, "Yes.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_yes_to_a_barred_value_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_what_the_rule_allows_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
