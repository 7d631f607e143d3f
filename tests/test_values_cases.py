"""A value or name the passages give another case, judged by every backend (issue 44, vc3):
parallel clauses (judges/values/parallel) and days of the week (judges/values/weekdays)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.checked import VALUES_VERSION
from tests.judged import LOCAL_BACKENDS, local_evaluator

LEADS = (
    "Site leads: for the Leeds depot, call Anna Berg (ext. 210); for the York depot, call Omar "
    "Haddad (ext. 245). Deliveries to both depots are booked through the central desk."
)
PERMITS = "A visitor parking permit costs £120 a year, while a resident permit is £45 a year."
BAR = (
    "The bar closes at 23:00 from Monday to Thursday and at 01:00 on Fridays and Saturdays; on "
    "Sundays it closes at 22:00."
)
SYRUP = (
    "Children 6 to 11 years: 5 mL every 6 to 8 hours. Adults and children 12 years and over: "
    "10 mL every 6 to 8 hours. Do not give to children under 6 years."
)
PASSES = "Day passes cost £12 for members and £20 for non-members; under-5s go free."
MARKET = "The farmers' market runs every Saturday; stalls open at 8:00, and on Saturdays in December they stay until 16:00."


@pytest.fixture(scope="module", params=LOCAL_BACKENDS)
def evaluator(request: pytest.FixtureRequest) -> Evaluator:
    return local_evaluator(request.param)


def _judged(evaluator: Evaluator, cases: list[tuple[str, str, str]]) -> list[list[str]]:
    traces = [
        RagTrace(trace_id=f"c{i}", question=q, contexts=[p], answer=a)
        for i, (q, p, a) in enumerate(cases)
    ]
    records = evaluator.evaluate_batch(traces)
    for record in records:
        assert record.metric_version.endswith(f"/{VALUES_VERSION}")
    return [[c.verdict for c in r.claims] for r in records]


def test_the_neighbouring_cases_name_or_value_is_contradicted(evaluator: Evaluator) -> None:
    cases = [
        ("Who is the site lead for the York depot?", LEADS, "Anna Berg"),
        ("How much is the parking permit for residents?", PERMITS, "£120"),
        ("What time does the bar close on Sundays?", BAR, "11 pm"),
        ("How much is a day pass for non-members?", PASSES, "£12"),
        ("How much cough syrup can my 8-year-old have?", SYRUP, "10 mL"),
    ]
    assert _judged(evaluator, cases) == [["contradicted"]] * 5
    traces = [RagTrace(trace_id="r", question=cases[0][0], contexts=[LEADS], answer="Anna Berg")]
    [claim] = evaluator.evaluate_batch(traces)[0].claims
    assert claim.conflict is not None
    assert (claim.conflict.claim, claim.conflict.evidence) == ("Anna Berg", "Omar Haddad")
    assert claim.reason is not None
    assert "York" in claim.reason


def test_the_asked_cases_own_name_or_value_stays_supported(evaluator: Evaluator) -> None:
    cases = [
        ("Who is the site lead for the York depot?", LEADS, "Omar Haddad"),
        ("How much is the parking permit for residents?", PERMITS, "£45 a year"),
        ("What time does the bar close on Sundays?", BAR, "10 pm"),
        ("When does the bar close on Wednesdays?", BAR, "At 23:00"),
        ("How much cough syrup can my 8-year-old have?", SYRUP, "5 mL"),
    ]
    assert _judged(evaluator, cases) == [["supported"]] * 5


def test_the_second_conjuncts_value_stays_supported(evaluator: Evaluator) -> None:
    """'£20 for non-members' aligned worse with the question than '£12 for members' (the shared
    subject 'Day passes cost' weighs most in the first conjunct) and was held back, a strict
    xfail since Session 46; since Session 52 a short answer's value whose own clause the
    question's words name, and not its rival's, is that clause's (``contrast.own_case``)."""
    cases = [("How much is a day pass for non-members?", PASSES, "£20")]
    assert _judged(evaluator, cases) == [["supported"]]


@pytest.mark.xfail(
    strict=True,
    reason="known limit: a month qualifying a day's value ('on Saturdays in December') is not "
    "read as a case; only days of the week are (written before the judge was run, Session 46)",
)
def test_a_value_for_other_months_only_is_never_supported(evaluator: Evaluator) -> None:
    cases = [("When do stalls close on a Saturday in June?", MARKET, "16:00")]
    [verdicts] = _judged(evaluator, cases)
    assert verdicts != ["supported"]


def test_a_sentence_giving_one_named_case_what_another_gets_is_never_supported(
    evaluator: Evaluator,
) -> None:
    passage = (
        "Gold members get free timed tickets to every exhibition; Silver members receive a 20% "
        "discount on tickets."
    )
    cases = [
        ("Do Silver members get in free?", passage, "Silver members get free timed tickets to every exhibition."),
        ("Do Gold members get in free?", passage, "Gold members get free timed tickets to every exhibition."),
    ]  # fmt: skip
    wrong, right = _judged(evaluator, cases)
    assert wrong != ["supported"]
    assert right == ["supported"]
