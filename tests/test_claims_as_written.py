"""Records quote the answer and the claim as written: no question folded in, no stems (issue 13)."""

from __future__ import annotations

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.claims.extract import as_written, claim_as_written, extract_claims
from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import build_embedder
from groundwatch.sections.judging import EmbeddingSettings


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    judge = EmbeddedJudge(build_embedder(EmbeddingSettings()))
    judge.load()
    return Evaluator(judge)


def _record_claims(evaluator: Evaluator, question: str, passage: str, answer: str) -> list[str]:
    trace = RagTrace.model_validate(
        {"trace_id": "t", "question": question, "contexts": [passage], "answer": answer}
    )
    return [c.text for c in evaluator.evaluate(trace).claims]


@pytest.mark.parametrize(
    ("question", "answer", "shown"),
    [
        ("Is the registration fee refundable?", "No.", "No"),
        ("How long is the free cancellation window?", "48 hours.", "48 hours"),
        ("Which plan includes SSO", "The Enterprise plan", "The Enterprise plan"),
        ("ما هي مدة الاسترداد؟", "30 يومًا", "30 يومًا"),
    ],
)
def test_a_terse_answer_is_shown_without_the_question(
    evaluator: Evaluator, question: str, answer: str, shown: str
) -> None:
    passage = "Registration fees are non-refundable. Free cancellation is possible up to 48 hours."
    claims = _record_claims(evaluator, question, passage, answer)
    assert claims == [shown]
    assert all(question.rstrip("?؟") not in c for c in claims)


def test_the_judge_still_reads_a_terse_answer_with_its_question() -> None:
    # What the judge checks keeps the question (so "No." can be judged); only the record drops it.
    [judged] = extract_claims("Is the fee refundable؟", "No.")
    assert judged == "Is the fee refundable؟ No."
    assert "؟?" not in judged
    assert claim_as_written(judged, "Is the fee refundable؟") == "No"


def test_full_sentence_claims_are_untouched() -> None:
    claim = "Refunds are issued within 30 days? No, within 14 days."
    assert claim_as_written(claim, "When are refunds issued?") == claim


def test_reason_quotes_the_claim_words_not_their_stems(evaluator: Evaluator) -> None:
    trace = RagTrace.model_validate(
        {
            "trace_id": "t",
            "question": "How are invoices handled?",
            "contexts": ["Invoices are sent by email at the start of each month."],
            "answer": "Customers always paid their invoices by cheque.",
        }
    )
    [claim] = evaluator.evaluate(trace).claims
    assert claim.verdict == "not_found"
    assert claim.reason is not None
    assert claim.reason.startswith("not in the passages: ")
    quoted = claim.reason.removeprefix("not in the passages: ").split(", ")
    words = set(trace.answer.rstrip(".").split()) if trace.answer else set()
    assert quoted
    assert all(w in words for w in quoted), quoted


def test_as_written_maps_stems_back_to_surface_words() -> None:
    assert as_written("Customers always paid by cheque.", ["alway", "cheque"]) == [
        "always",
        "cheque",
    ]
    assert as_written("Non-refundable fees", ["refundable"]) == ["refundable"]
    assert as_written("nothing here", ["zzz"]) == ["zzz"]
