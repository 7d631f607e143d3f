"""Numbers of several words read with text2num (judges/values/spelled.py: numbers_as_digits)."""

from __future__ import annotations

import pytest

from groundwatch.judges.claims.target import ClaimTarget
from groundwatch.judges.values.alignment import agrees
from groundwatch.judges.values.quantities import parse_quantities
from groundwatch.judges.values.spelled import number_runs, numbers_as_digits
from groundwatch.judges.values.stated import stated_values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("three hundred and fifty seats", "350 seats"),
        ("one thousand two hundred seats", "1,200 seats"),  # a comma: "1200" alone is a year
        ("Nine hundred and ninety-nine", "999"),
        ("twenty one days", "21 days"),
        ("one point five kilograms", "1.5 kilograms"),
        ("two hundred thousand dollars", "200,000 dollars"),
        ("Fifteen hundred people", "1,500 people"),
    ],
)
def test_numbers_of_several_words_become_digits(text: str, expected: str) -> None:
    assert numbers_as_digits(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "between two and five days",  # a range: "and" joins a number only after hundred ...
        "one or two days",
        "a dozen eggs",
        "two and a half hours",  # a fraction, read by fractions_as_digits
        "1.5 million dollars",  # digits and a scale, read by the number pattern
        "one two three",  # a list, not one number
        "the point is one",
        "one-off fee",
        "no one",
    ],
)
def test_what_is_not_one_number_stays(text: str) -> None:
    assert numbers_as_digits(text) == text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # before: a range 50-300, a value of 100, a range 99-900, 300 with "fifty" as its noun
        ("It costs three hundred and fifty dollars.", 350.0),
        ("It has one thousand two hundred seats.", 1200.0),
        ("The hall has nine hundred and ninety-nine seats.", 999.0),
        ("It seats three hundred fifty.", 350.0),
        ("It weighs one point five kilograms.", 1.5),
    ],
)
def test_values_written_in_words(text: str, value: float) -> None:
    [q], years, _ = parse_quantities(text)
    assert (q.value, q.high) == (value, value)
    assert not years


def test_number_words_are_a_value_not_words_to_find() -> None:
    # the passage says "2,000 GB": "two" and "thousand" need not be in it, the value is checked
    assert number_runs("It gives two thousand gigabytes in one plan.") == ["two thousand"]
    key = ClaimTarget.build("The Plus tier gives you two thousand gigabytes of storage.").key
    assert "thousand" not in key
    assert "two" not in key
    assert "storag" in key


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        # before: "a quarter" read as 25 percent, the hour dropped
        ("The tour lasts about an hour and a quarter.", 75.0),
        ("The climb takes two hours and three quarters.", 165.0),
        ("Allow three-quarters of an hour for the walk.", 45.0),
        ("It lasts an hour and a half.", 90.0),
    ],
)
def test_parts_of_an_hour_written_in_words(text: str, minutes: float) -> None:
    [v] = stated_values(text)
    [m] = stated_values(f"It lasts {minutes:g} minutes.")
    assert agrees(v, m), (v.text, m.text)
