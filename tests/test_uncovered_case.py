"""A case the question asks that no passage states, while the answer's value is stated for
another (judges/values/uncovered): never supported. Written before the judge was run on them
(Session 47)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.values.uncovered import uncovered_case
from tests.judged import LOCAL_BACKENDS, local_evaluator

CLASSES = ["Weekend pottery classes cost £12 per session, materials included."]


def test_a_qualifier_no_passage_has_is_another_case() -> None:
    hit = uncovered_case("How much do evening pottery classes cost?", ["£12"], CLASSES)
    assert hit is not None
    assert (hit.asked, hit.stated) == ("evening pottery", "Weekend pottery")


def test_no_other_case_where_the_qualifier_is_stated_or_the_value_elsewhere() -> None:
    assert uncovered_case("How much do weekend pottery classes cost?", ["£12"], CLASSES) is None
    assert uncovered_case("How much do evening pottery classes cost?", ["£15"], CLASSES) is None
    # the noun itself absent: nothing to compare
    assert uncovered_case("How much is an evening workshop?", ["£12"], CLASSES) is None


def test_numbers_punctuation_names_and_the_answer_itself_qualify_nothing() -> None:
    third = ["The third edition was published in 2019."]
    assert uncovered_case("When was the 3rd edition published?", ["2019"], third) is None
    tragedy = ["It is a tragedy by Shakespeare, believed to have been written in 1603."]
    assert uncovered_case("When was the novel believed written?", ["1603"], tragedy) is None
    act = ["The service is bound by the Security Service Act 1989."]
    answer = "Security Service Act 1989"
    assert uncovered_case("Which UK service act binds it?", ["1989"], act, answer) is None


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_the_answer_for_an_unstated_case_is_not_supported(backend: str) -> None:
    evaluator = local_evaluator(backend)
    traces = [
        RagTrace(trace_id="a", question=q, contexts=CLASSES, answer="£12 per session")
        for q in (
            "How much do evening pottery classes cost?",
            "How much do weekend pottery classes cost?",
        )
    ]
    [asked_other], [asked_same] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert asked_other.verdict == "not_found"
    assert asked_other.reason is not None
    assert "Weekend pottery" in asked_other.reason
    assert asked_same.verdict != "contradicted"
    assert "another case" not in (asked_same.reason or "")


def test_a_purpose_no_passage_states_is_another_case() -> None:
    """ "for eczema" asked, the value stated "for nappy rash" (Session 48)."""
    cream = ["Apply the cream twice a day for 7 days for nappy rash."]
    hit = uncovered_case("How long should I use the cream for eczema?", ["7 days"], cream)
    assert hit is not None
    assert (hit.asked, hit.stated) == ("eczema", "nappy rash")
    # the purpose asked is stated, or the value's sentence states none
    assert (
        uncovered_case("How long should I use the cream for nappy rash?", ["7 days"], cream) is None
    )
    plain = ["Apply the cream twice a day for 7 days."]
    assert uncovered_case("How long should I use the cream for eczema?", ["7 days"], plain) is None
    # an answer stating the passage's purpose itself (the question's is the user's framing)
    bank = ["Bank transfer is available for annual plans over $1,000."]
    answer = "Bank transfer is available for annual plans over $1,000."
    assert (
        uncovered_case("Is bank transfer available for payment?", ["$1,000"], bank, answer) is None
    )
    warranty = ["The warranty for the Pro model lasts 3 years."]
    assert (
        uncovered_case("How long is the warranty for the Pro model?", ["3 years"], warranty) is None
    )


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_question_about_something_no_passage_mentions_is_not_answered(backend: str) -> None:
    """The passages never mention the raffle: a time they give for the auction is no answer
    (Session 48)."""
    evaluator = local_evaluator(backend)
    doors = ["Doors open at 6 pm and the auction starts at 7.30 pm."]
    traces = [
        RagTrace(trace_id="r", question="When is the raffle drawn?", contexts=doors, answer="At 7.30 pm"),
        RagTrace(trace_id="a", question="When does the auction start?", contexts=doors, answer="At 7.30 pm"),
    ]  # fmt: skip
    [raffle], [auction] = (r.claims for r in evaluator.evaluate_batch(traces))
    assert raffle.verdict == "not_found"
    assert raffle.reason is not None
    assert "raffle" in raffle.reason
    assert auction.verdict != "contradicted"
    assert "raffle" not in (auction.reason or "")
