"""The verifier judge (embedded alignment + the trained claim verifier) end to end."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.base import ClaimJudgement, Judge, JudgeError, TraceJudgement
from groundwatch.judges.embedding import CachedEmbedder, Vectors, build_embedder
from groundwatch.judges.verdict import FEATURES, ClaimFeatures, Decision, VerdictModel
from groundwatch.judges.verified import (
    DEFAULT_RELEVANCE_THRESHOLD,
    RULES_VERSION,
)
from groundwatch.judges.verified import VerifiedJudge as EmbeddedJudge
from groundwatch.judges.verifier import VERIFIER_SHA256, ClaimVerifier, shipped_verifier
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
    assert judge.backend == "verifier"
    assert judge.ready()
    assert judge.version.startswith("verifier/all-MiniLM-L6-v2@onnx-int8/verifier-minilm@")
    assert f"@{VERIFIER_SHA256[:12]}/" in judge.version  # the model hash names the scores
    assert judge.version.endswith(f"/{RULES_VERSION}")
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
    # The verifier backend calls a contradiction only at P >= 0.98 (precision first): a wrong
    # value is never supported, it may come out not found (docs/verifier.md, known limits).
    assert verdicts[0] in ("contradicted", "not_found")
    assert verdicts[1:] == ["supported", "not_found"]
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
    assert result.claims[0].verdict in ("contradicted", "not_found")
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
    assert result.claims[0].verdict in ("contradicted", "not_found")
    assert result.claims[1].verdict == "supported"


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


@pytest.mark.xfail(
    strict=True,
    reason="verifier v1 supports 'Run gw token rotate' from a passage about token scopes (docs/verifier.md, known limits)",
)
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
    """The verifier v1 reads 'refundable' as supported by 'non-refundable'; the negation twin
    (the same words, the polarity turned round) calls it contradicted."""
    trace = _trace(
        "Is the registration fee refundable?",
        ["Registration. Registration fees are non-refundable, but places can be transferred."],
        "The registration fee is refundable.",
    )
    [claim] = _judge_one(judge, trace).claims
    assert claim.verdict in ("contradicted", "not_found")


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
    assert claim.verdict in ("contradicted", "not_found")


class CountingVerifier(ClaimVerifier):
    """The shipped verifier, counting its calls and pairs and recording their premises."""

    def __init__(self) -> None:  # share the loaded session instead of loading again
        self.__dict__.update(shipped_verifier().__dict__)
        self.calls = 0
        self.pairs = 0
        self.premises: list[str] = []

    def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        self.calls += 1
        self.pairs += len(pairs)
        self.premises += [p for p, _ in pairs]
        return self.answer(pairs)

    def answer(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
        """The probabilities returned (the shipped model's unless a test says otherwise)."""
        return super().predict(pairs)


class RecordingVerdicts(VerdictModel):
    """A verdict model reading ``names`` (all weights 0), recording the features it is asked."""

    def __init__(self, names: tuple[str, ...]) -> None:
        super().__init__(np.zeros((3, len(names))), np.zeros(3), 0.9, 0.5, features=names)
        self.seen: list[ClaimFeatures] = []

    def decide(self, features: ClaimFeatures) -> Decision:
        self.seen.append(features)
        return super().decide(features)


def test_load_warms_the_verifier_and_leaves_no_counts(embedder: CachedEmbedder) -> None:
    counting = CountingVerifier()
    judge = EmbeddedJudge(embedder, verifier=counting)
    judge.load()
    assert counting.calls >= 1  # the warm-up trace ran the model once
    assert not judge.stats  # and is not counted among the claims judged


def test_two_verifier_calls_per_batch_and_verbatim_skips_them(embedder: CachedEmbedder) -> None:
    """The sentences first (the sentence cascade), then the windows of the claims they leave
    undecided: two calls, whatever the number of claims."""
    counting = CountingVerifier()
    judge = EmbeddedJudge(embedder, verifier=counting)
    passage = "Refunds: annual plans can be refunded within 30 days of purchase."
    trace = _trace(
        "Refund window?",
        [passage, "Monthly plans renew on the first day of each month."],
        "Annual plans can be refunded within 30 days of purchase. Monthly plans cost $9.",
    )
    result = _judge_one(judge, trace)
    assert counting.calls == 2
    assert judge.stats["verbatim"] == 1  # the first claim is the passage's own words
    assert judge.stats["model"] == 1
    assert result.claims[0].verdict == "supported"
    assert result.claims[0].reason == "verbatim"
    # for the one modelled claim: at most one window per passage, and its two best-aligned
    # sentences read alone
    assert counting.pairs <= 4


def test_slot_rules_alone_never_contradict(embedder: CachedEmbedder) -> None:
    """A verifier that sees support wins over a negation/comparative wording difference."""

    class SupportingVerifier(CountingVerifier):
        def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
            return np.tile(np.array([[0.97, 0.01, 0.02]], dtype=np.float32), (len(pairs), 1))

    judge = EmbeddedJudge(embedder, verifier=SupportingVerifier())
    trace = _trace(
        "Can I cancel for free?",
        ["Reservations may be cancelled free of charge up to 48 hours before the arrival date."],
        "You will not be charged if you cancel 48 hours or more before arrival.",
    )
    [claim] = _judge_one(judge, trace).claims
    assert claim.verdict == "supported"


def test_partial_refusal_keeps_its_claims_judged(judge: EmbeddedJudge) -> None:
    contexts = ["Employees may work remotely up to two days per week."]
    answer = "Employees may work remotely up to two days per week. I couldn't find a stipend."
    result = _judge_one(judge, _trace("Remote days and stipend?", contexts, answer))
    assert result.refusal
    assert [c.verdict for c in result.claims] == ["supported"]


def test_rules_verdict_is_a_feature_only_when_the_model_reads_it(
    embedder: CachedEmbedder,
) -> None:
    """The rules judge is asked for a claim's verdict only by a verdict model that reads it."""
    trace = _trace(
        "How long is the refund window?",
        ["Annual plans can be refunded within 30 days of purchase, monthly plans cannot."],
        "Annual plans can be refunded within 90 days of purchase.",
    )
    with_rules = RecordingVerdicts(FEATURES)
    _judge_one(EmbeddedJudge(embedder, verdicts=with_rules), trace)
    [seen] = with_rules.seen
    assert seen.rules_verdict == "contradicted"  # the rules judge's number mismatch
    assert seen.values()["rules_contradicted"] == 1.0
    without = RecordingVerdicts(tuple(f for f in FEATURES if not f.startswith("rules_")))
    _judge_one(EmbeddedJudge(embedder, verdicts=without), trace)
    [seen] = without.seen
    assert seen.rules_verdict == ""


def test_a_value_conflict_is_read_again_with_the_evidence_value(
    embedder: CachedEmbedder,
) -> None:
    """A disagreeing value is checked by the verifier as a minimal pair: the conflict sentence's
    window against the claim restated with the evidence's value and against the claim itself.
    The restatement's support and its gain over the claim are features of the verdict model."""

    class Recording(VerdictModel):
        def __init__(self) -> None:
            super().__init__(np.zeros((3, len(FEATURES))), np.zeros(3), 0.9, 0.5)
            self.seen: list[ClaimFeatures] = []

        def decide(self, features: ClaimFeatures) -> Decision:
            self.seen.append(features)
            return super().decide(features)

    class ValueReader(CountingVerifier):
        """Supports a claim only when it states the passage's value."""

        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, str]] = []

        def predict(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
            self.seen += pairs
            rows = [[0.9, 0.05, 0.05] if "30 days" in c else [0.2, 0.3, 0.5] for _, c in pairs]
            return np.array(rows, dtype=np.float32)

    passage = "Refunds. Annual plans can be refunded within 30 days of purchase, monthly plans not."
    trace = _trace("Refund window?", [passage], "Annual plans can be refunded within 90 days.")
    reader, verdicts = ValueReader(), Recording()
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), trace)
    claims = [c for _, c in reader.seen]
    assert "Annual plans can be refunded within 30 days." in claims
    # the window, the minimal pair, and the passage's two sentences read alone
    assert claims.count("Annual plans can be refunded within 90 days.") == 4
    [seen] = verdicts.seen
    assert seen.value_conflict
    assert seen.restated_supported == pytest.approx(0.9, abs=1e-6)
    assert seen.restated_gain == pytest.approx(0.7, abs=1e-6)

    # No conflicting value: nothing is restated, both features are 0.
    reader, verdicts = ValueReader(), Recording()
    agree = _trace("Refund window?", [passage], "Annual plans can be refunded within 30 days.")
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), agree)
    assert all(s.restated_supported == 0.0 and s.restated_gain == 0.0 for s in verdicts.seen)

    # A verdict model that does not read the restated features costs no extra pairs.
    class WithoutRestated(Recording):
        def __init__(self) -> None:
            names = tuple(f for f in FEATURES if not f.startswith("restated_"))
            VerdictModel.__init__(self, np.zeros((3, len(names))), np.zeros(3), 0.9, 0.5,
                                  features=names)  # fmt: skip
            self.seen = []

    reader, verdicts = ValueReader(), WithoutRestated()
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), trace)
    assert "Annual plans can be refunded within 30 days." not in [c for _, c in reader.seen]
    assert verdicts.seen[0].restated_supported == 0.0


class _FeatureSpy:
    """A verdict model that records the features it is asked about (the shipped one decides)."""

    def __init__(self) -> None:
        from groundwatch.judges.verdict import VerdictModel

        self.inner = VerdictModel.shipped()
        self.features = self.inner.features
        self.read_features = self.inner.read_features
        self.version = self.inner.version
        self.sentence_cascade = self.inner.sentence_cascade
        self.seen: list[object] = []

    def decide(self, features: object) -> object:
        self.seen.append(features)
        return self.inner.decide(features)  # type: ignore[arg-type]


def _swap_features(embedder: CachedEmbedder) -> tuple[object, TraceJudgement]:
    spy = _FeatureSpy()
    assert "swap_gain" in spy.features
    judge = EmbeddedJudge(embedder, verdicts=spy)  # type: ignore[arg-type]
    trace = _trace(
        "Is the Harbour Street branch open on Saturdays?",
        ["Branch hours. The Harbour Street branch is closed on Saturdays and public holidays."],
        "The Harbour Street branch is open on Saturdays.",
    )
    [judgement] = judge.judge_batch([trace])
    [features] = spy.seen
    return features, judgement


def test_the_shipped_calibration_reads_the_aligned_swap(embedder: CachedEmbedder) -> None:
    """A claim one word away from its evidence sentence is read again with the evidence's word
    put back (the aligned swap): the verifier is asked about the restated claim."""
    features, _ = _swap_features(embedder)
    assert features.swap_supported > 0.0  # type: ignore[attr-defined]


@pytest.mark.xfail(
    strict=True,
    reason="verifier v1 reads 'closed on Saturdays' as contradicted by 'closed on Saturdays and "
    "public holidays' (P(contradicted) 0.63), so the swap gains nothing and 'open on Saturdays' "
    "comes out supported: entailment by deletion (docs/verifier.md, known limits)",
)
def test_the_restated_claim_is_more_supported_than_the_swapped_one(
    embedder: CachedEmbedder,
) -> None:
    features, judgement = _swap_features(embedder)
    assert features.swap_gain > 0.0  # type: ignore[attr-defined]
    assert judgement.claims[0].verdict != "supported"


def test_no_swap_for_a_claim_that_differs_in_several_places(embedder: CachedEmbedder) -> None:
    spy = _FeatureSpy()
    judge = EmbeddedJudge(embedder, verdicts=spy)  # type: ignore[arg-type]
    trace = _trace(
        "Can I buy tickets online?",
        ["Tickets. Tickets can be purchased online or at the box office until noon."],
        "You are able to get your tickets on the website.",
    )
    judge.judge_batch([trace])
    assert all(f.swap_supported == 0.0 for f in spy.seen)  # type: ignore[attr-defined]


def test_the_best_aligned_sentences_are_read_alone(embedder: CachedEmbedder) -> None:
    """A verdict model that reads ``sentence_*`` gets the verifier's reading of the claim against
    its best-aligned sentences alone (no neighbours, no heading); one that does not costs no
    extra pairs."""
    sentence = "Annual plans can be refunded within 30 days of purchase."
    passage = f"Refunds. {sentence} Monthly plans renew on the first day of each month."

    class SentenceReader(CountingVerifier):
        """Contradicted by the sentence read alone, unsure about anything longer."""

        def answer(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
            rows = [[0.1, 0.8, 0.1] if p == sentence else [0.4, 0.2, 0.4] for p, _ in pairs]
            return np.array(rows, dtype=np.float32)

    trace = _trace("Refund window?", [passage], "Annual plans cannot be refunded after a week.")
    reader, verdicts = SentenceReader(), RecordingVerdicts(FEATURES)
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), trace)
    assert sentence in reader.premises
    [seen] = verdicts.seen
    assert seen.sentence_contradicted == pytest.approx(0.8, abs=1e-6)
    assert seen.p_contradicted == pytest.approx(0.2, abs=1e-6)  # the window read as before

    names = tuple(f for f in FEATURES if not f.startswith("sentence_"))
    reader, verdicts = SentenceReader(), RecordingVerdicts(names)
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), trace)
    assert sentence not in reader.premises
    assert verdicts.seen[0].sentence_contradicted == 0.0


def test_a_sentence_that_surely_supports_the_claim_spares_its_windows(
    embedder: CachedEmbedder,
) -> None:
    """With a sentence cascade, a claim that one of its best-aligned sentences alone supports at
    least the bar is supported without its windows being read or the verdict model asked; below
    the bar, or with a value that disagrees, the claim is read in full."""
    sentence = "Annual plans can be refunded within 30 days of purchase."
    other = "Monthly plans renew on the first day of each month."
    passage = f"Refunds. {sentence} {other}"

    class SentenceSure(CountingVerifier):
        """Sure of the refund sentence read alone, unsure about anything longer."""

        def answer(self, pairs: Sequence[tuple[str, str]]) -> npt.NDArray[np.float32]:
            rows = [[0.9, 0.05, 0.05] if p == sentence else [0.4, 0.2, 0.4] for p, _ in pairs]
            return np.array(rows, dtype=np.float32)

    def run(
        answer: str, bar: float | None
    ) -> tuple[SentenceSure, RecordingVerdicts, EmbeddedJudge, ClaimJudgement]:
        reader, verdicts = SentenceSure(), RecordingVerdicts(FEATURES)
        verdicts.sentence_cascade = bar
        judge = EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts)
        [claim] = _judge_one(judge, _trace("Refund window?", [passage], answer)).claims
        return reader, verdicts, judge, claim

    sentences_only = {sentence, other, "Refunds."}
    paraphrase = "You can get your money back on an annual plan for a month after buying it."
    reader, verdicts, judge, claim = run(paraphrase, 0.8)
    assert set(reader.premises) <= sentences_only  # no window read
    assert verdicts.seen == []
    assert judge.stats["sentence"] == 1
    assert claim.verdict == "supported"
    assert claim.evidence is not None
    assert sentence in claim.evidence.text

    reader, verdicts, judge, claim = run(paraphrase, 0.95)  # the sentence is not sure enough
    assert len(verdicts.seen) == 1
    assert not set(reader.premises) <= sentences_only  # a window was read
    assert judge.stats["sentence"] == 0

    reader, verdicts, judge, claim = run(
        "Annual plans can be refunded within 60 days of purchase.", 0.8
    )
    assert len(verdicts.seen) == 1  # a disagreeing value: the full reading, never the cascade
    assert verdicts.seen[0].value_conflict
    assert judge.stats["sentence"] == 0


def test_no_window_for_a_passage_aligned_far_below_the_best(embedder: CachedEmbedder) -> None:
    """A passage about something else gets no evidence window (it seldom holds the evidence and
    costs a verifier pair per claim); a second passage about the same thing still does."""

    refunds = "Refunds. Annual plans can be refunded within 30 days of purchase."
    refunds_too = "Billing FAQ. A refund of an annual plan is possible for 30 days after buying it."
    parking = "Parking. Visitors may park in the north garage on weekdays after 6 p.m."
    trace = _trace(
        "Refund window?",
        [parking, refunds, refunds_too],
        "Annual plans are refundable for 30 days.",
    )
    reader, verdicts = CountingVerifier(), VerdictModel.shipped()
    verdicts.sentence_cascade = None  # the windows are read whatever the sentences say
    _judge_one(EmbeddedJudge(embedder, verifier=reader, verdicts=verdicts), trace)
    assert not any("garage" in p for p in reader.premises)
    assert any("Billing FAQ" in p for p in reader.premises)
    assert any("Refunds." in p for p in reader.premises)
