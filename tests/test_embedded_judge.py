"""The embedded judge end to end, on the real packaged embedding model."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import Judge, JudgeError, TraceJudgement
from groundwatch.judges.claims.target import spells
from groundwatch.judges.embedded import DEFAULT_RELEVANCE_THRESHOLD, EmbeddedJudge
from groundwatch.judges.embedding import CachedEmbedder, Vectors, build_embedder
from groundwatch.judges.rules.claim_rules import graded_support
from groundwatch.judges.rules.word_conflicts import negated_prefix
from groundwatch.sections.judging import EmbeddingSettings
from tests.builders import build_rag_trace


class CountingEmbedder:
    """Wraps an embedder and counts embed calls."""

    def __init__(self, inner: CachedEmbedder):
        self.inner = inner
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        return self.inner.embed(texts)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)


@pytest.fixture(scope="module")
def embedder() -> CachedEmbedder:
    return build_embedder(EmbeddingSettings())


@pytest.fixture(scope="module")
def judge(embedder: CachedEmbedder) -> EmbeddedJudge:
    j = EmbeddedJudge(embedder)
    j.load()
    return j


def _trace(question: str, contexts: Sequence[object], answer: str | None, **kw: object) -> RagTrace:
    return build_rag_trace(
        "t1", question=question, contexts=list(contexts), answer=answer, attributes={}, **kw
    )


def _judge_one(judge: EmbeddedJudge, trace: RagTrace) -> TraceJudgement:
    [result] = judge.judge_batch([trace])
    assert isinstance(result, TraceJudgement)
    return result


def test_protocol_and_version(judge: EmbeddedJudge) -> None:
    assert isinstance(judge, Judge)
    assert judge.backend == "embedded"
    assert judge.ready()
    assert judge.version.startswith("embedded/all-MiniLM-L6-v2@onnx-int8/rel")
    assert judge.version.endswith("/r7")
    assert f"rel{DEFAULT_RELEVANCE_THRESHOLD:.2f}" in judge.version
    judge.load()  # idempotent
    custom = EmbeddedJudge(judge._embedder, relevance_threshold=0.5)
    assert "/rel0.50/" in custom.version


def test_verdicts_with_evidence_and_reason(judge: EmbeddedJudge) -> None:
    trace = _trace(
        "What was revenue in 2023 and how many employees are there?",
        [
            {"id": "fin", "text": "Annual report. Revenue in 2023 was $18 million, up 12%."},
            {"id": "hr", "text": "The company has 140 employees in three offices."},
        ],
        "Revenue in 2023 was $12 million. The company has 140 employees. It also owns a yacht.",
    )
    result = _judge_one(judge, trace)
    verdicts = [c.verdict for c in result.claims]
    assert verdicts == ["contradicted", "supported", "not_found"]
    contra = result.claims[0]
    assert contra.evidence is not None
    assert contra.evidence.context_index == 0
    assert contra.evidence.context_id == "fin"
    assert contra.reason == "number mismatch: $12 million vs $18 million"
    assert result.claims[1].evidence is not None
    assert result.claims[1].evidence.context_id == "hr"
    for c in result.claims:
        assert 0.0 <= c.score <= 1.0


def test_near_duplicate_passage_is_never_support(judge: EmbeddedJudge) -> None:
    contexts = [
        "United States pricing: the Pro plan costs $12 per user per month.",
        "Canada pricing: the Pro plan costs CAD 18 per user per month.",
    ]
    result = _judge_one(
        judge, _trace("Pro plan price in Canada?", contexts, "In Canada the Pro plan costs $12.")
    )
    assert result.claims[0].verdict == "contradicted"
    only_us = _judge_one(
        judge,
        _trace("Pro plan price in Canada?", contexts[:1], "In Canada the Pro plan costs $12."),
    )
    assert only_us.claims[0].verdict == "not_found"


def test_negation_flip_is_contradicted(judge: EmbeddedJudge) -> None:
    result = _judge_one(
        judge,
        _trace(
            "Is the annual plan prorated?",
            ["Cancellations: the annual plan is not prorated, but monthly plans are prorated."],
            "The annual plan is prorated. Monthly plans are prorated.",
        ),
    )
    assert [c.verdict for c in result.claims] == ["contradicted", "supported"]
    assert result.claims[0].reason is not None
    assert result.claims[0].reason.startswith("negation mismatch")


def test_relevance_separates_passages(judge: EmbeddedJudge) -> None:
    result = _judge_one(
        judge,
        _trace(
            "How long is the refund window?",
            [
                "Refunds: customers may request a refund within 14 days of purchase.",
                "The Eiffel Tower was completed in 1889 for the World's Fair.",
            ],
            "14 days.",
        ),
    )
    rel, irrel = result.context_relevance
    assert rel >= result.relevance_threshold > irrel
    assert all(0.0 <= r <= 1.0 and not math.isnan(r) for r in result.context_relevance)


def test_refusal_and_answer_relevance(judge: EmbeddedJudge) -> None:
    contexts = ["Employees may work remotely up to two days per week."]
    refusal = _judge_one(
        judge,
        _trace("How many remote days?", contexts, "I'm sorry, the documents don't say."),
    )
    assert refusal.refusal
    assert refusal.claims == []
    assert refusal.answer_relevance is None
    answer = _judge_one(
        judge,
        _trace("How many remote days?", contexts, "Employees may work remotely two days a week."),
    )
    assert not answer.refusal
    assert answer.answer_relevance is not None
    off_topic = _judge_one(
        judge,
        _trace("How many remote days?", contexts, "Our cafeteria serves vegan lunches on Fridays."),
    )
    assert off_topic.answer_relevance is not None
    assert off_topic.answer_relevance < answer.answer_relevance


def test_context_tokens(judge: EmbeddedJudge, embedder: CachedEmbedder) -> None:
    contexts = ["Refunds within 14 days.", "Shipping takes 3-5 business days."]
    result = _judge_one(judge, _trace("q?", contexts, "Refunds within 14 days."))
    assert result.context_tokens == sum(embedder.count_tokens(contexts)) > 0


def test_citations_by_id_and_by_index(judge: EmbeddedJudge) -> None:
    contexts: list[object] = [
        {"id": "a", "text": "To rotate a token, run gw token rotate."},
        {"id": "b", "text": "Tokens can be scoped to read or write access."},
    ]
    cits = [
        {"sentence": "Run gw token rotate to rotate a token.", "context_ids": ["a"]},
        {"sentence": "Run gw token rotate to rotate a token.", "context_ids": ["b"]},
    ]
    result = _judge_one(
        judge, _trace("How to rotate?", contexts, "Run gw token rotate.", citations=cits)
    )
    assert result.citation_supported == [True, False]
    plain = ["To rotate a token, run gw token rotate.", "Tokens can be scoped."]
    by_index = [{"sentence": "Run gw token rotate to rotate a token.", "context_ids": [0]}]
    result = _judge_one(
        judge, _trace("How to rotate?", plain, "Run gw token rotate.", citations=by_index)
    )
    assert result.citation_supported == [True]


def test_edge_cases_never_nan(judge: EmbeddedJudge) -> None:
    traces = [
        _trace("q?", [], "The fee is $5."),
        _trace("q?", ["Some passage."], None),
        _trace("q?", ["Some passage."], "   "),
        _trace("", [""], "Hello!"),
    ]
    results = judge.judge_batch(traces)
    assert len(results) == 4
    for r in results:
        assert isinstance(r, TraceJudgement)
        assert all(not math.isnan(c.score) for c in r.claims)
        assert all(not math.isnan(x) for x in r.context_relevance)
    first, second = results[0], results[1]
    assert isinstance(first, TraceJudgement)
    assert isinstance(second, TraceJudgement)
    assert first.claims[0].verdict == "not_found"
    assert second.claims == []


def test_one_embed_call_per_batch(embedder: CachedEmbedder) -> None:
    counting = CountingEmbedder(embedder)
    judge = EmbeddedJudge(counting)
    traces = [
        _trace(f"Question {i}?", [f"Passage {i}. It has two sentences."], f"Answer {i}.")
        for i in range(5)
    ]
    results = judge.judge_batch(traces)
    assert counting.calls == 1
    assert all(not isinstance(r, JudgeError) for r in results)


def test_load_judges_one_warm_up_trace_once(embedder: CachedEmbedder) -> None:
    # what loads lazily is loaded by load(), not by the first real batch; a second load is free
    counting = CountingEmbedder(embedder)
    judge = EmbeddedJudge(counting)
    judge.load()
    assert counting.calls == 1
    judge.load()
    assert counting.calls == 1


def test_evaluator_builds_records(judge: EmbeddedJudge) -> None:
    trace = _trace(
        "How long is the refund window?",
        ["Refunds: customers may request a refund within two weeks of purchase."],
        "You can request a refund within 14 days.",
    )
    record = Evaluator(judge).evaluate(trace)
    assert record.status == "scored"
    assert record.faithfulness == 1.0
    assert record.metric_version == judge.version
    assert record.context_precision == 1.0


@pytest.mark.parametrize(
    ("answer", "refusal"),
    [
        ("I have no data on this topic.", True),
        ("Unfortunately I can't answer that from the given context.", True),
        ("Sorry, that is not something the sources cover.", True),
        ("The policy does not cover flood damage.", False),
        # A partial refusal is a refusal; its factual claims are still judged (issue 12).
        (
            "The handbook does not mention a stipend, but employees may work remotely two days "
            "a week.",
            True,
        ),
    ],
)
def test_refusal_detection(judge: EmbeddedJudge, answer: str, refusal: bool) -> None:
    contexts = ["Employees may work remotely up to two days per week."]
    result = _judge_one(judge, _trace("Is there a home office stipend?", contexts, answer))
    assert result.refusal is refusal


def test_graded_support_decision_rule() -> None:
    # Full soft coverage supports whatever the cosine.
    assert graded_support(0.9, 0.9, 0.1, 0, 0.85)
    # A missing soft word no longer vetoes: a close paraphrase needs part of its words ...
    assert graded_support(0.7, 0.65, 0.85, 0, 0.85)
    assert not graded_support(0.7, 0.5, 0.85, 0, 0.85)
    # ... and a sentence stating the claim's value needs half of them.
    assert graded_support(0.55, 0.55, 0.6, 1, 0.85)
    assert not graded_support(0.55, 0.55, 0.6, 0, 0.85)
    assert not graded_support(0.45, 0.45, 0.6, 1, 0.85)
    assert not graded_support(0.55, 0.55, 0.4, 1, 0.85)
    # After a better-aligned sentence contradicted the claim, only full coverage counts.
    assert not graded_support(0.7, 0.7, 0.9, 1, 0.85, graded=False)
    assert graded_support(0.9, 0.9, 0.9, 1, 0.85, graded=False)


def test_acronym_and_negative_prefix_helpers() -> None:
    assert spells("VAT", "Value Added Tax - rate schedule. Books are taxed at 6%.")
    assert not spells("VAT", "The value of added tax is 6%.")
    assert negated_prefix("The fee is refundable.", "Fees are non-refundable.") is not None
    assert negated_prefix("The fee is non-refundable.", "Fees are non-refundable.") is None
    assert negated_prefix("The fee is refundable.", "Fees are refundable.") is None


def test_soft_word_missing_is_still_supported(judge: EmbeddedJudge) -> None:
    trace = _trace(
        "What was inflation in March?",
        [
            "Flash estimate. Annual inflation in the euro area is expected to be 2.4% in "
            "March, down from 2.6% in February."
        ],
        "Inflation fell to 2.4% in March from 2.6% in February.",
    )
    [claim] = _judge_one(judge, trace).claims
    assert claim.verdict == "supported"


def test_negative_prefix_is_contradicted(judge: EmbeddedJudge) -> None:
    trace = _trace(
        "Is the registration fee refundable?",
        ["Registration. Registration fees are non-refundable, but places can be transferred."],
        "The registration fee is refundable.",
    )
    [claim] = _judge_one(judge, trace).claims
    assert claim.verdict == "contradicted"
    assert claim.reason is not None
    assert claim.reason.startswith("negation mismatch")


def test_value_in_wrong_scope_is_not_supported(judge: EmbeddedJudge) -> None:
    trace = _trace(
        "How heavy can my checked bag be in economy?",
        [
            "Economy passengers may check one bag of up to 23 kg. Business class passengers "
            "may check two bags of up to 32 kg each."
        ],
        "Economy passengers may check one bag of up to 32 kg.",
    )
    [claim] = _judge_one(judge, trace).claims
    assert claim.verdict == "contradicted"


def test_entity_swap_needs_same_kind_of_name() -> None:
    """r4: a designation with digits ("K4") is no rival for a place name ("Linz")."""
    from groundwatch.judges.claims.target import ClaimTarget
    from groundwatch.judges.rules.word_conflicts import entity_swap

    claim = "The comet was discovered near Linz."
    target = ClaimTarget.build(claim)
    evidence = "The comet K4 was discovered in May."
    assert entity_swap(target, ["linz"], evidence, "Who discovered the comet?") is None
    swap = entity_swap(target, ["linz"], evidence + " It was seen near Graz.", "Who?")
    assert swap is not None
    assert "Graz" in swap
