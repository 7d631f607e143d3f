"""A short answer is about the case its question asks, also where the passage elides the
frame of the second case ("... and £350,000 [goes] to youth services"), writes the case as a
compound ("off-peak"), shares one subject across cases, names the days only in the question,
or tells the cases apart by year. Judged by both backends; written before the judge was run
on them (Session 47)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from tests.judged import LOCAL_BACKENDS, local_evaluator

FAN = "The Breeze 2 desk fan runs for 14 hours on its low setting or 5 hours on its high setting."
GRANT = (
    "Of the £2.4 million grant, £900,000 goes to housing repairs and £350,000 to youth services."
)
BUSES = "Buses on route 7 run every 10 minutes at peak times and every 20 minutes off-peak."
SWIMS = (
    "Riverside Pool's lane swim session costs £4.50 on weekdays, and the family swim session "
    "£7 at weekends."
)
MUSEUM = "The museum is open Monday to Friday 9:00 to 17:00 and Saturday to Sunday 10:00 to 16:00."
FUND = "The Harbour Growth fund returned 6.2 % in 2024, compared with 3.9 % in 2023."

WRONG = [
    ("How long does the Breeze 2 run on its high setting?", FAN, "14 hours"),
    ("How much of the grant goes to youth services?", GRANT, "£900,000"),
    ("How often do route 7 buses run off-peak?", BUSES, "Every 10 minutes"),
    ("How much is the family swim session at Riverside Pool?", SWIMS, "£4.50"),
    ("What time does the museum open on Sundays?", MUSEUM, "9 am"),
    ("What did the Harbour Growth fund return in 2023?", FUND, "6.2 %"),
]
RIGHT = [
    ("How long does the Breeze 2 run on its high setting?", FAN, "5 hours"),
    ("How much of the grant goes to youth services?", GRANT, "£350,000"),
    ("How often do route 7 buses run off-peak?", BUSES, "Every 20 minutes"),
    ("How much is the family swim session at Riverside Pool?", SWIMS, "£7"),
    ("What time does the museum open on Sundays?", MUSEUM, "10 am"),
    ("What did the Harbour Growth fund return in 2023?", FUND, "3.9 %"),
]


@pytest.fixture(scope="module", params=LOCAL_BACKENDS)
def evaluator(request: pytest.FixtureRequest) -> Evaluator:
    return local_evaluator(request.param)


def _verdicts(evaluator: Evaluator, cases: list[tuple[str, str, str]]) -> list[str]:
    traces = [
        RagTrace(trace_id=f"e{i}", question=q, contexts=[p], answer=a)
        for i, (q, p, a) in enumerate(cases)
    ]
    out = []
    for record in evaluator.evaluate_batch(traces):
        [claim] = record.claims
        out.append(claim.verdict)
    return out


def test_the_other_cases_value_is_contradicted(evaluator: Evaluator) -> None:
    assert _verdicts(evaluator, WRONG) == ["contradicted"] * len(WRONG)


def test_the_asked_cases_value_is_not_contradicted(evaluator: Evaluator) -> None:
    verdicts = _verdicts(evaluator, RIGHT)
    assert "contradicted" not in verdicts, verdicts


def test_the_reason_names_both_values(evaluator: Evaluator) -> None:
    traces = [RagTrace(trace_id="r", question=WRONG[1][0], contexts=[GRANT], answer="£900,000")]
    [claim] = evaluator.evaluate_batch(traces)[0].claims
    assert claim.conflict is not None
    assert (claim.conflict.claim, claim.conflict.evidence) == ("£900,000", "£350,000")


DOSE = (
    "Usual dose for adults: 2 tablets every 6 hours; for a migraine attack, 3 tablets at the "
    "first sign of symptoms."
)
DELIVERY = "Delivery costs £4.95 per order, or £9.95 per order to Highland addresses."


def test_the_usual_value_is_not_the_qualified_cases() -> None:
    """The question asks the case a qualifier names ("for a migraine attack"); the answer gives
    the value stated without it (the usual one): contradicted by the qualified value."""
    for backend in LOCAL_BACKENDS:
        evaluator = local_evaluator(backend)
        wrong = [
            ("How many tablets should adults take for a migraine attack?", DOSE, "2 tablets"),
            ("How much is delivery to a Highland address?", DELIVERY, "£4.95"),
        ]
        right = [
            ("How many tablets should adults take for a migraine attack?", DOSE, "3 tablets"),
            ("How much is delivery to a Highland address?", DELIVERY, "£9.95 per order"),
            ("How many tablets do adults usually take?", DOSE, "2 tablets"),
        ]
        assert _verdicts(evaluator, wrong) == ["contradicted"] * 2, backend
        assert "contradicted" not in _verdicts(evaluator, right), backend
