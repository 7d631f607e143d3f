"""Two values of one answer swapped between their cases are contradicted, whatever plain words
name the cases; one crossing alone in a sentence is only held back (judges/cases.swapped).
Judged by both backends; written before the judge was run on them (Session 47)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from tests.judged import LOCAL_BACKENDS, local_evaluator

HITCH = "The Kestrel tow hitch is rated for 1,500 kg braked and 600 kg unbraked."
FARES = "Peak fares are £9.40 and off-peak fares £6.10; a weekly pass costs £38."


@pytest.fixture(scope="module", params=LOCAL_BACKENDS)
def evaluator(request: pytest.FixtureRequest) -> Evaluator:
    return local_evaluator(request.param)


def _claims(evaluator: Evaluator, question: str, passage: str, answer: str) -> list[str]:
    trace = RagTrace(trace_id="s", question=question, contexts=[passage], answer=answer)
    return [c.verdict for c in evaluator.evaluate_batch([trace])[0].claims]


def test_two_values_swapped_between_their_cases_are_contradicted(evaluator: Evaluator) -> None:
    verdicts = _claims(
        evaluator,
        "What can the Kestrel hitch tow?",
        HITCH,
        "It is rated for 600 kg braked and 1,500 kg unbraked.",
    )
    assert verdicts, verdicts
    assert set(verdicts) == {"contradicted"}, verdicts


def test_the_values_in_their_own_cases_are_not_contradicted(evaluator: Evaluator) -> None:
    verdicts = _claims(
        evaluator,
        "What can the Kestrel hitch tow?",
        HITCH,
        "It is rated for 1,500 kg braked and 600 kg unbraked.",
    )
    assert "contradicted" not in verdicts, verdicts


def test_one_crossing_alone_is_held_back_not_contradicted(evaluator: Evaluator) -> None:
    verdicts = _claims(
        evaluator,
        "How much are fares?",
        FARES,
        "Peak fares are £6.10, and a weekly pass costs £38.",
    )
    assert verdicts[0] == "not_found", verdicts
    assert "contradicted" not in verdicts, verdicts
