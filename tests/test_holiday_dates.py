"""A holiday of fixed date ("Christmas Eve", "New Year's Day") is that date: it agrees with
"24 December" and is no name missing from the passages. Written before the judge was run on
them (Session 48)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.values.quantities import date_spans
from tests.judged import LOCAL_BACKENDS, local_evaluator


def _dates(text: str) -> list[tuple[int | None, int, int | None]]:
    return [d for _, _, d in date_spans(text)]


def test_fixed_holidays_are_dates() -> None:
    assert _dates("The office closes at noon on Christmas Eve.") == [(None, 12, 24)]
    assert _dates("Collections on New Year's Day move to Friday.") == [(None, 1, 1)]
    assert _dates("Boxing Day and New Year’s Eve are half days.") == [
        (None, 12, 26),
        (None, 12, 31),
    ]
    # a holiday of no fixed date, or a name that only sounds like one, is none
    assert _dates("The shop is closed on Easter Monday.") == []
    assert _dates("Christmas shopping starts early.") == []


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_holiday_agrees_with_its_date(backend: str) -> None:
    evaluator = local_evaluator(backend)
    office = ["The office closes at 1 pm on 24 December and reopens on 2 January."]
    q = "When does the office close early?"
    traces = [
        RagTrace(trace_id="r", question=q, contexts=office, answer="At 1 pm on Christmas Eve."),
        RagTrace(trace_id="w", question=q, contexts=office, answer="At 1 pm on New Year's Eve."),
    ]
    [right], [wrong] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert right.verdict != "contradicted"
    assert "Christmas" not in (right.reason or "")
    assert wrong.verdict != "supported"
    if backend == "verifier":
        assert right.verdict == "supported"


def test_a_holiday_with_its_year_is_one_date() -> None:
    """ "Christmas Day 2021" is 25 December 2021, one value (Session 53)."""
    assert _dates("It launched on Christmas Day 2021.") == [(2021, 12, 25)]
    assert _dates("We close on Christmas Eve, 2024.") == [(2024, 12, 24)]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_holiday_of_another_event_is_not_supported(backend: str) -> None:
    """The short answer's one date is read as the question's case: the launch's, not the
    arrival asked."""
    ship = [
        "The Tern probe launched on 25 December 2024 and reached lunar orbit on 3 March 2025; its "
        "first images were sent on 20 April 2025."
    ]
    traces = [
        RagTrace(
            trace_id="w", question="When did Tern reach lunar orbit?", contexts=ship,
            answer="Christmas Day 2024",
        ),
        RagTrace(
            trace_id="r", question="When did Tern launch?", contexts=ship,
            answer="Christmas Day 2024",
        ),
    ]  # fmt: skip
    [wrong], [right] = (r.claims for r in local_evaluator(backend).evaluate_batch(traces))
    assert wrong.verdict != "supported"
    assert right.verdict != "contradicted"
