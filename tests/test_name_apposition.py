"""What a passage says of a name: its appositive ("Sydney, the largest city,") and its part of
the sentence (up to "while", "whereas", "but"), not the words said of the name beside it.
Written before the judge was run on them (Session 49)."""

from __future__ import annotations

from groundwatch.judges.values.names import account_name

CITIES = [
    "Lisbon, Portugal's capital, hosts the opening summit, while Porto, the second city, hosts "
    "the fan zone and the final."
]
FIRMS = [
    "Harlow & Finch, the company's auditor, signed the 2024 accounts; Pryce Baxter advises the "
    "board on tax."
]


def test_an_appositive_says_what_its_name_is() -> None:
    hit = account_name("Which city hosts the fan zone?", "Porto", CITIES)
    assert hit is not None
    assert hit.status == "agreed"
    hit = account_name("Which city hosts the fan zone?", "Lisbon", CITIES)
    assert hit is not None
    assert hit.status != "agreed"


def test_the_part_of_the_sentence_a_name_is_in() -> None:
    hit = account_name("Who audits the company?", "Harlow & Finch", FIRMS)
    assert hit is not None
    assert hit.status == "agreed"
    hit = account_name("Who advises the board on tax?", "Harlow & Finch", FIRMS)
    assert hit is not None
    assert hit.status != "agreed"
