"""The embedded judge: CPU, offline, sentence embeddings plus explicit agreement checks.

Usage::

    judge = EmbeddedJudge(build_embedder(settings.embedding))
    judge.load()
    [judgement] = judge.judge_batch([trace])

Per trace: the answer is split into claims (:mod:`groundwatch.judges.claims.extract`); every passage
sentence, claim, the question and the answer are embedded in ONE call per batch (the embedder
caches by content hash, so recurring passages cost nothing). Each claim is aligned to passage
sentences by IDF-weighted content-word coverage and cosine similarity; the best candidates are
compared slot by slot (:mod:`groundwatch.judges.values.agreement`). Verdicts
(:mod:`groundwatch.judges.rules.claim_rules`; a trace is prepared by
:mod:`groundwatch.judges.claims.preparation`):

* ``supported``: the claim's words are covered by a passage (or it is a close paraphrase of one
  of its sentences) and no slot disagrees; every number, date and year the claim states is there;
* ``contradicted``: a sentence clearly about the same thing (high alignment) disagrees on a slot
  (number, date, negation, modality, comparative, or an entity swapped in place);
* ``not_found``: anything else. A value taken from a passage about another country, tier or year
  is never supported: the claim's words (names above all) must be in the evidence sentence, in
  the passage's heading or in the sentence its pronoun refers to, and a word the passages use
  elsewhere cannot be excused as a paraphrase.

``score`` is the judge's confidence in the verdict it gives.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.judges.claims.extract import is_terse
from groundwatch.judges.claims.preparation import (
    PreparedTrace,
    cited_claims,
    prepare_trace,
    texts_to_embed,
    word_weights,
)
from groundwatch.judges.embedding import Embedder
from groundwatch.judges.refusal import REFUSAL_EXEMPLARS, RefusalDetector
from groundwatch.judges.rules.claim_rules import Vectors, clip, judge_claim
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.measures import load_units

__all__ = [
    "DEFAULT_RELEVANCE_THRESHOLD",
    "DEFAULT_SUPPORT_THRESHOLD",
    "RULES_VERSION",
    "EmbeddedJudge",
]


RULES_VERSION = "r7"
# Judged once by load(): a question, a passage and an answer whose claims go through every
# stage (claim splitting with verbs, values with units, alignment, the verdict).
_WARM_UP = RagTrace(
    trace_id="groundwatch-warm-up",
    question="How long is the refund window for annual plans?",
    contexts=[
        "Annual plans can be refunded within 30 days of purchase. Monthly plans renew "
        "automatically and the 2 TB storage add-on costs $4.99 a month."
    ],
    answer="You can get your money back on an annual plan for a month after buying it, and "
    "two terabytes of extra storage cost $4.99 per month.",
)
#: Passage relevance threshold (relevance = 0.6 * max cosine of question vs passage sentences
#: + 0.4 * IDF-weighted share of question words in the passage). Calibrated with
#: ``benchmarks/accuracy.py FILE --calibrate``: on HaluEval dev, a question's own passage vs
#: another question's passage separate with AUROC 1.00 (at 0.33: 97.0% of own passages relevant,
#: 99.3% of others not); on the hand-labeled in-domain passages of tests/hard_cases.jsonl
#: off-topic passages score <= 0.32 and on-topic ones >= 0.35.
DEFAULT_RELEVANCE_THRESHOLD = 0.33
#: Support strength (IDF-weighted coverage of the claim's words by a sentence and its window,
#: raised by paraphrase similarity) above which a claim is supported. Swept with
#: ``--calibrate``: HaluEval dev balanced accuracy 0.95 at 0.75-0.80, 0.96 at 0.85-0.95; hard-case
#: claim accuracy flat up to 0.85, lower above (paraphrases start to fail).
DEFAULT_SUPPORT_THRESHOLD = 0.85


class EmbeddedJudge:
    """Faithfulness, relevance and refusal judge on sentence embeddings and slot checks (CPU).

    Usage: ``EmbeddedJudge(build_embedder(settings.embedding)).judge_batch(traces)``.
    """

    def __init__(
        self,
        embedder: Embedder,
        relevance_threshold: float | None = None,
        support_threshold: float | None = None,
    ):
        self._embedder = embedder
        self.relevance_threshold = (
            DEFAULT_RELEVANCE_THRESHOLD if relevance_threshold is None else relevance_threshold
        )
        self.support_threshold = (
            DEFAULT_SUPPORT_THRESHOLD if support_threshold is None else support_threshold
        )
        self._refusals = RefusalDetector()
        self._loaded = False
        self._closed = False

    # ------------------------------------------------------------------ Judge protocol
    @property
    def version(self) -> str:
        return (
            f"embedded/{self._embedder.name}/rel{self.relevance_threshold:.2f}"
            f"/sup{self.support_threshold:.2f}/{RULES_VERSION}"
        )

    @property
    def embedder(self) -> Embedder:
        """The embedder (the runtime registers its cache metrics through this attribute)."""
        return self._embedder

    @property
    def backend(self) -> str:
        return "embedded"

    def load(self) -> None:
        """The embedder comes in constructed and loaded. What loads lazily (pint's unit registry,
        the lemma lexicon, the ONNX sessions' first run) is loaded here by judging one small
        trace, not by the first real batch: measured on a cold start (2 cores, verifier), the
        first 4-trace batch took 1.02 s against 0.80 s for the slowest of the 49 after it, and
        so was the p99. Idempotent."""
        if self._loaded:
            return
        load_units()
        self._judge_traces([_WARM_UP], claims_only=False)
        self._after_warm_up()
        self._loaded = True

    def _after_warm_up(self) -> None:
        """Forget what the warm-up trace left (counters a subclass keeps)."""

    def ready(self) -> bool:
        return not self._closed

    def close(self) -> None:
        self._closed = True

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        return self._judge_traces(traces, claims_only=False)

    def judge_claims(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        """The claim verdicts ``judge_batch`` gives, without relevance, refusal or tokens."""
        return self._judge_traces(traces, claims_only=True)

    def _judge_traces(
        self, traces: Sequence[RagTrace], *, claims_only: bool
    ) -> list[TraceJudgement | JudgeError]:
        prepared: list[PreparedTrace | JudgeError] = []
        texts: dict[str, int] = {}

        def want(text: str) -> None:
            if text not in texts:
                texts[text] = len(texts)

        for ex in REFUSAL_EXEMPLARS:
            want(ex)
        for trace in traces:
            try:
                prep = prepare_trace(trace)
            except Exception as exc:  # one bad trace must not sink the batch
                prepared.append(JudgeError("internal_error", f"prepare: {type(exc).__name__}"))
                continue
            prepared.append(prep)
            for text in texts_to_embed(prep, claims_only):
                want(text)
        try:
            matrix = self._embedder.embed(list(texts))
        except Exception as exc:
            raise JudgeError("judge_error", f"embedding failed: {type(exc).__name__}") from exc
        exemplars = matrix[[texts[e] for e in REFUSAL_EXEMPLARS]]
        judge = self._judge_claims_only if claims_only else self._judge
        results: list[TraceJudgement | JudgeError] = []
        for item in prepared:
            if isinstance(item, JudgeError):
                results.append(item)
                continue
            try:
                results.append(judge(item, matrix, texts, exemplars))
            except Exception as exc:
                results.append(JudgeError("internal_error", f"judge: {type(exc).__name__}"))
        return results

    # ------------------------------------------------------------------ judging
    def _claim_texts(
        self, prep: PreparedTrace, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
    ) -> list[str]:
        # A claim that reads like a refusal ("nothing about that in the knowledge base") is
        # not a fact about the world: drop it (the patterns already dropped the obvious ones).
        return [
            c
            for c in prep.claims
            if float((exemplars @ matrix[rows[c]]).max()) < self._refusals.threshold
        ]

    @staticmethod
    def _sentence_vectors(prep: PreparedTrace, matrix: Vectors, rows: dict[str, int]) -> Vectors:
        if not prep.sentences:
            return np.zeros((0, matrix.shape[1]), dtype=np.float32)
        return matrix[[rows[s.text] for s in prep.sentences]]

    def _judge_claims_only(
        self, prep: PreparedTrace, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
    ) -> TraceJudgement:
        sent_vecs = self._sentence_vectors(prep, matrix, rows)
        # Relevance stays: a claim's verdict depends on whether any passage is relevant.
        relevance = self._relevance(prep, matrix[rows[prep.trace.question]], sent_vecs)
        prep.relevant = any(r >= self.relevance_threshold for r in relevance)
        texts = self._claim_texts(prep, matrix, rows, exemplars)
        claims, _ = self._claims_and_citations(texts, prep, matrix, rows, sent_vecs)
        return TraceJudgement(
            claims=claims,
            context_relevance=[],
            relevance_threshold=self.relevance_threshold,
            answer_relevance=None,
            refusal=False,
            context_tokens=0,
        )

    def _judge(
        self, prep: PreparedTrace, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
    ) -> TraceJudgement:
        trace = prep.trace
        sent_vecs = self._sentence_vectors(prep, matrix, rows)
        q_vec = matrix[rows[trace.question]]
        relevance = self._relevance(prep, q_vec, sent_vecs)
        prep.relevant = any(r >= self.relevance_threshold for r in relevance)
        texts = self._claim_texts(prep, matrix, rows, exemplars)
        claims, citation_supported = self._claims_and_citations(
            texts, prep, matrix, rows, sent_vecs
        )
        answer = (trace.answer or "").strip()
        refusal = False
        if prep.answer_sentences:
            vecs = matrix[[rows[s] for s in prep.answer_sentences]]
            refusal = self._refusals.is_refusal(
                prep.answer_sentences, vecs, exemplars, claims_left=len(claims)
            )
        answer_relevance = None
        if answer and not refusal:
            answer_relevance = self._answer_relevance(answer, q_vec, matrix, rows)
        tokens = self._embedder.count_tokens([c.text for c in trace.contexts])
        return TraceJudgement(
            claims=claims,
            context_relevance=relevance,
            relevance_threshold=self.relevance_threshold,
            answer_relevance=answer_relevance,
            refusal=refusal,
            context_tokens=int(sum(tokens)),
            citation_supported=citation_supported,
        )

    def _claims_and_citations(
        self,
        texts: Sequence[str],
        prep: PreparedTrace,
        matrix: Vectors,
        rows: dict[str, int],
        sent_vecs: Vectors,
    ) -> tuple[list[ClaimJudgement], list[bool] | None]:
        """The verdict of every claim and of every cited sentence (the part subclasses change)."""
        claims = [self._judge_claim(c, matrix[rows[c]], prep, sent_vecs) for c in texts]
        return claims, self._citations(prep, sent_vecs, matrix, rows)

    def _weights(self, words: Sequence[str], prep: PreparedTrace) -> list[float]:
        return word_weights(words, prep)

    def _relevance(self, prep: PreparedTrace, q_vec: Vectors, sent_vecs: Vectors) -> list[float]:
        q_words = list(dict.fromkeys(content_words(prep.trace.question)))
        weights = self._weights(q_words, prep)
        total = sum(weights) or 1.0
        sims = sent_vecs @ q_vec if len(sent_vecs) else np.zeros(0, dtype=np.float32)
        out: list[float] = []
        for p in prep.passages:
            cos = float(sims[p.sentences].max()) if p.sentences else 0.0
            lex = sum(w for word, w in zip(q_words, weights, strict=True) if word in p.words)
            out.append(clip(0.6 * clip(cos) + 0.4 * lex / total))
        return out

    def _answer_relevance(
        self, answer: str, q_vec: Vectors, matrix: Vectors, rows: dict[str, int]
    ) -> float:
        cos = float(matrix[rows[answer]] @ q_vec)
        if is_terse(answer):
            # A phrase rarely resembles its question; judge it as an answer of the right shape.
            return clip(0.6 + 0.4 * clip(cos / 0.5))
        return clip((cos - 0.1) / 0.55)

    def _citations(
        self, prep: PreparedTrace, sent_vecs: Vectors, matrix: Vectors, rows: dict[str, int]
    ) -> list[bool] | None:
        cited = cited_claims(prep)
        if cited is None:
            return None
        out: list[bool] = []
        for claims, allowed in cited:
            if not allowed:
                out.append(False)
                continue
            verdicts = [
                self._judge_claim(c, matrix[rows[c]], prep, sent_vecs, allowed=allowed)
                for c in claims
            ]
            out.append(all(v.verdict == "supported" for v in verdicts))
        return out or None

    # ------------------------------------------------------------------ one claim
    def _judge_claim(
        self,
        claim: str,
        claim_vec: Vectors,
        prep: PreparedTrace,
        sent_vecs: Vectors,
        *,
        allowed: set[int] | None = None,
    ) -> ClaimJudgement:
        return judge_claim(
            claim,
            claim_vec,
            prep,
            sent_vecs,
            support_threshold=self.support_threshold,
            allowed=allowed,
        )
