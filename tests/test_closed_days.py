"""Open on a day the passages say it is closed (:mod:`groundwatch.judges.values.closed_days`).
Written before the judge was run on them (Session 50)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.closed_days import closed_on
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong

LIDO = [
    "The Harbour Lido opens 7 am to 7 pm Tuesday to Sunday and is closed on Mondays for cleaning."
]
SURGERIES = [
    "The Mill Street surgery opens on Saturdays from 9 to 12; the Kirk Lane surgery is closed at "
    "weekends."
]
GALLERY = ["The Fenwick Gallery opens 10 am to 5 pm Monday to Saturday; it is closed on Sundays."]
HOLIDAY = [
    "The Fenwick Gallery is closed on Mondays, but on bank holiday Mondays it opens 11 to 4."
]
CAFE = ["The Quay Café is closed on Sundays except in August, when it opens from 10 am to 4 pm."]


def test_open_on_a_day_it_is_closed() -> None:
    hit = closed_on("The Harbour Lido is open on Mondays.", LIDO)
    assert hit is not None
    assert hit.said == "open on Mondays"
    assert closed_on("The Kirk Lane surgery opens on Saturdays.", SURGERIES) is not None


def test_what_is_no_closing_of_the_day_asked() -> None:
    # another day, another surgery, an exception, a negated statement
    assert closed_on("The Harbour Lido is open on Sundays.", LIDO) is None
    assert closed_on("The Mill Street surgery opens on Saturdays.", SURGERIES) is None
    assert closed_on("The Quay Café is open on Sundays in August.", CAFE) is None
    assert closed_on("The Harbour Lido is not open on Mondays.", LIDO) is None


WRONG: list[Case] = [
    ("Is the Harbour Lido open on Mondays?", LIDO, "Yes, from 7 am.", False),
    ("Does the Kirk Lane surgery open on Saturdays?", SURGERIES, "Yes, from 9 to 12.", False),
    ("Is the Fenwick Gallery open on Mondays?", GALLERY, "No, it's closed on Mondays.", False),
]

RIGHT: list[Case] = [
    ("Is the Harbour Lido open on Sundays?", LIDO, "Yes, from 7 am to 7 pm.", True),
    ("Does the Mill Street surgery open on Saturdays?", SURGERIES, "Yes, from 9 to 12.", True),
    ("Is the Quay Café open on Sundays in August?", CAFE, "Yes, from 10 am to 4 pm.", True),
    ("Is the Fenwick Gallery open on Sundays?", GALLERY, "No.", True),
    ("Is the Fenwick Gallery open on Mondays?", HOLIDAY, "No, it is closed on Mondays.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_wrong_yes_or_no_about_a_day_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, WRONG, wrong="contradicted")


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_right_yes_or_no_about_a_day_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)
