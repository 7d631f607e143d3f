"""Days of the week in schedules, and values stated for other days (judges/values/weekdays)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.stated import stated_values
from groundwatch.judges.values.weekdays import ALL_DAYS, days_named, other_days


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("Open Monday to Friday from 7:30 to 19:00", {0, 1, 2, 3, 4}),
        ("Tuesday - Thursday only", {1, 2, 3}),
        ("Mon-Fri 9-5", {0, 1, 2, 3, 4}),
        ("Fri–Mon", {4, 5, 6, 0}),
        ("On weekends it opens at 9:00", {5, 6}),
        ("weekdays only", {0, 1, 2, 3, 4}),
        ("on Friday and Saturday the final act finishes at 23:00", {4, 5}),
        ("Sundays and bank holidays", {6}),
        ("The pool opens at 7:00", set()),
        # an abbreviation alone is a common word too
        ("Set the sat nav before you go", set()),
    ],
)
def test_days_named(text: str, days: set[int]) -> None:
    assert days_named(text) == frozenset(days)


def test_every_day_is_all_days() -> None:
    assert days_named("Open every day from 9 am") == ALL_DAYS
    assert days_named("Lifts run daily until 22:00") == ALL_DAYS


def _other(claim: str, passage: list[str]):  # type: ignore[no-untyped-def]
    values = stated_values(claim)
    hits = [other_days(v, days_named(claim), passage, values) for v in values]
    return [h for h in hits if h is not None]


def test_a_time_stated_for_other_days_is_found_with_the_asked_days_time() -> None:
    passage = [
        "The surgery opens Monday to Friday from 7:30 to 19:00 and on Saturdays from 8:30 to 12:30."
    ]
    [hit] = _other("On Saturdays it is open from 8:30 to 19:00.", passage)
    assert (hit.said, hit.days, hit.stated) == ("19:00", "Monday to Friday", "12:30")
    assert _other("On Saturdays it is open from 8:30 to 12:30.", passage) == []
    assert _other("On Wednesdays it closes at 19:00.", passage) == []


def test_a_time_stated_for_other_days_only_is_not_the_asked_days() -> None:
    passage = [
        "Gates open at 11:00 each day, and on Friday and Saturday the final act finishes at 23:00."
    ]
    [hit] = _other("On Sunday the final act finishes at 23:00.", passage)
    # the each-day gate time is no value of Sunday alone
    assert (hit.said, hit.days, hit.stated) == ("23:00", "Friday and Saturday", None)


def test_no_days_in_the_evidence_decides_nothing() -> None:
    assert _other("On Sundays the pool opens at 7:00.", ["The pool opens at 7:00."]) == []
    # a claim naming every day, or none, is no day's case
    assert _other("The pool opens at 7:00.", ["On weekdays the pool opens at 7:00."]) == []
