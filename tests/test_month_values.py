"""A month named alone ("in March", "the January payroll") is a date value: a claim naming
another month for the same thing is never supported. Written before the judge was run on them
(Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.judges.values.quantities import date_spans
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong


def _dates(text: str) -> list[tuple[int | None, int, int | None]]:
    return [d for _, _, d in date_spans(text)]


def test_a_month_alone_is_a_date() -> None:
    assert _dates("Bills are sent in March and September.") == [(None, 3, None), (None, 9, None)]
    assert _dates("Claims are paid in the January payroll.") == [(None, 1, None)]
    assert _dates("The festival returns in May.") == [(None, 5, None)]
    # a full date stays one date
    assert _dates("It opens on 3 March 2026.") == [(2026, 3, 3)]


def test_names_and_verbs_are_no_months() -> None:
    assert _dates("April Smith chairs the board.") == []
    assert _dates("You may apply online. May we help?") == []
    assert _dates("August Wilson wrote Fences.") == []


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_another_month_is_not_supported(backend: str) -> None:
    bills = ["Council tax bills are sent in March, and the discount scheme closes in June."]
    payroll = ["Annual bonuses are paid in the June payroll each year."]
    cases: list[Case] = [
        ("When are council tax bills sent?", bills, "In June", False),
        ("When are council tax bills sent?", bills, "In March", True),
        ("When are bonuses paid?", payroll, "Annual bonuses are paid in the July payroll.", False),
        ("When are bonuses paid?", payroll, "Annual bonuses are paid in the June payroll.", True),
    ]
    assert_right_and_wrong(backend, cases)
