"""What a passage says of a name: its appositive ("Sydney, the largest city,") and its part of
the sentence (up to "while", "whereas", "but"), not the words said of the name beside it.
Written before the judge was run on them (Session 49)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.names import account_name

CITIES = [
    "Lisbon, Portugal's capital, hosts the opening summit, while Porto, the second city, hosts "
    "the fan zone and the final."
]
FIRMS = [
    "Harlow & Finch, the company's auditor, signed the 2024 accounts; Pryce Baxter advises the "
    "board on tax."
]


@pytest.mark.parametrize(
    ("question", "right", "wrong", "passage"),
    [
        # the appositive says what the name is
        ("Which city hosts the fan zone?", "Porto", "Lisbon", CITIES),
        # the part of the sentence the name is in, up to ";"
        ("Who audits the company?", "Harlow & Finch", "Pryce Baxter", FIRMS),
        ("Who advises the board on tax?", "Pryce Baxter", "Harlow & Finch", FIRMS),
    ],
)
def test_what_is_said_of_a_name(question: str, right: str, wrong: str, passage: list[str]) -> None:
    hit = account_name(question, right, passage)
    assert hit is not None
    assert hit.status == "agreed"
    hit = account_name(question, wrong, passage)
    assert hit is not None
    assert hit.status != "agreed"
