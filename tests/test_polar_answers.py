"""A "Yes, ..." / "No, ..." answer says its yes or no as a claim of its own, and a negated clause
whose subject is a pronoun ("He did not attend the ceremony") is read with the sentence before
it. Written before the judge was run on them (Session 54)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.claims.extract import extract_claims, judged_text
from groundwatch.judges.rules.negation_twin import negation_twin
from tests.judged import LOCAL_BACKENDS, Case, assert_right_and_wrong, local_evaluator

PHONE = [
    "The Corvin X2 has a 6.1-inch screen and a 4,000 mAh battery. It does not support wireless "
    "charging, but it reaches 50% in 30 minutes over USB-C."
]
PHONE_YES = [
    "The Corvin X2 has a 6.1-inch screen and a 4,000 mAh battery. It supports wireless charging "
    "at 15 W, and it reaches 50% in 30 minutes over USB-C."
]
ENVOY = [
    "Marie Laurent led the French delegation at the 1951 talks in Geneva. She did not sign the "
    "treaty, and the foreign minister signed it in her place."
]


def test_the_yes_of_a_longer_answer_is_a_claim() -> None:
    q = "Can I wear earbuds in the race?"
    assert extract_claims(q, "Yes, any headphones are allowed.") == [
        "Can I wear earbuds in the race? Yes.",
        "Any headphones are allowed.",
    ]
    [first, _] = extract_claims(q, "No, only bone-conduction headphones are allowed.")
    assert judged_text(first) == "I cannot wear earbuds in the race."
    # a short answer keeps its yes: "I can use it, with a 28-day withdrawal"
    [only] = extract_claims("Can I use it on dairy cows?", "Yes, with a 28-day withdrawal.")
    assert judged_text(only).startswith("I can use it on dairy cows")


def test_no_yes_claim_where_none_was_asked() -> None:
    # not a yes/no question, or no yes/no word: no claim is added
    assert extract_claims("What is the fee?", "No, the fee is $5.") == ["The fee is $5."]
    assert extract_claims("Is it free?", "Not for adults, who pay $5.")[0] != "Is it free? No."
    # "True Detective" is a name, not "true"
    claims = extract_claims("Is True Detective on HBO?", "True Detective airs on HBO.")
    assert claims == ["Is True Detective on HBO? True Detective airs on HBO."]


def test_a_pronoun_after_a_polar_question_is_its_subject() -> None:
    claims = extract_claims("Did Marie Laurent sign the treaty?", "Yes, she signed it in Geneva.")
    assert claims[1] == "Marie Laurent signed it in Geneva."


def test_a_negated_clause_with_a_pronoun_subject_reads_the_sentence_before() -> None:
    before, sentence = ENVOY[0].split(". ", 1)
    assert negation_twin("Marie Laurent signed the treaty.", sentence, before) is not None
    # without the sentence before, the claim's name is not in the clause: no twin
    assert negation_twin("Marie Laurent signed the treaty.", sentence) is None
    # the clause must state the relation itself, not only share the name
    assert negation_twin("Marie Laurent led the talks.", sentence, before) is None


WRONG: list[Case] = [
    ("Does the Corvin X2 support wireless charging?", PHONE, "Yes, it does, at up to 15 W.", False),
    ("Did Marie Laurent sign the treaty?", ENVOY, "Yes, she signed it in Geneva.", False),
    ("Does the Corvin X2 support wireless charging?", PHONE_YES, "No, only USB-C.", False),
]
RIGHT: list[Case] = [
    ("Does the Corvin X2 support wireless charging?", PHONE_YES, "Yes, at 15 W.", True),
    ("Does the Corvin X2 support wireless charging?", PHONE, "No, only USB-C charging.", True),
    ("Did Marie Laurent sign the treaty?", ENVOY, "No, the foreign minister signed it.", True),
]


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_wrong_yes_or_no_is_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, [WRONG[0], WRONG[2]])
    traces = [
        RagTrace(trace_id=str(i), question=q, contexts=list(ctx), answer=a)
        for i, (q, ctx, a, _) in enumerate(WRONG)
    ]
    for record in local_evaluator(backend).evaluate_batch(traces):
        assert record.claims[0].verdict == "contradicted", record.claims


@pytest.mark.xfail(
    strict=True,
    reason="what the yes adds is judged alone: 'Marie Laurent signed it in Geneva' is read as "
    "supported (the model finds 'signed it' in the sentence about the minister)",
)
@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_what_a_wrong_yes_adds_is_not_supported(backend: str) -> None:
    assert_right_and_wrong(backend, [WRONG[1]])


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_right_yes_or_no_is_not_contradicted(backend: str) -> None:
    assert_right_and_wrong(backend, RIGHT)


@pytest.mark.parametrize("backend", LOCAL_BACKENDS)
def test_a_sentence_against_a_negated_clause_with_a_pronoun_subject(backend: str) -> None:
    # every backend reads the negation twin (judges/negated.py), not only the verifier
    trace = RagTrace(
        trace_id="t",
        question="Which phones support wireless charging?",
        contexts=PHONE,
        answer="The Corvin X2 supports wireless charging.",
    )
    [record] = local_evaluator(backend).evaluate_batch([trace])
    assert [c.verdict for c in record.claims] == ["contradicted"], record.claims
