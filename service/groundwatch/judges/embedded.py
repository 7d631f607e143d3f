"""The embedded judge: CPU, offline, sentence embeddings plus explicit agreement checks.

Usage::

    judge = EmbeddedJudge(build_embedder(settings.embedding))
    judge.load()
    [judgement] = judge.judge_batch([trace])

Per trace: the answer is split into claims (:mod:`groundwatch.judges.claims`); every passage
sentence, claim, the question and the answer are embedded in ONE call per batch (the embedder
caches by content hash, so recurring passages cost nothing). Each claim is aligned to passage
sentences by IDF-weighted content-word coverage and cosine similarity; the best candidates are
compared slot by slot (:mod:`groundwatch.judges.slots`). Verdicts:

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

import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import Conflict, Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement, JudgeError, TraceJudgement
from groundwatch.judges.claim_target import ClaimTarget as _ClaimTarget
from groundwatch.judges.claim_target import fuzzy_in as _fuzzy_in
from groundwatch.judges.claim_target import spells as _spells
from groundwatch.judges.claims import (
    LIGHT_WORDS,
    as_written,
    content_words,
    extract_claims,
    has_verb,
    is_terse,
    split_sentences,
    stem,
)
from groundwatch.judges.embedding import Embedder
from groundwatch.judges.refusal import REFUSAL_EXEMPLARS, RefusalDetector
from groundwatch.judges.slots import Slots, compare_slots, parse_slots

__all__ = [
    "DEFAULT_RELEVANCE_THRESHOLD",
    "DEFAULT_SUPPORT_THRESHOLD",
    "RULES_VERSION",
    "EmbeddedJudge",
    "graded_support",
]

RULES_VERSION = "r5"
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
#: A sentence is "clearly about the same thing" above this cosine / coverage (contradictions).
_CONTRA_COS = 0.55
_CONTRA_COVERAGE = 0.70
_CONTRA_COS_ALONE = 0.72
#: However similar, a sentence sharing under half the claim's weighted content is only loosely
#: about it: a slot it disagrees on may belong to another attribute (not_found, not contradicted).
_CONTRA_MIN_COVERAGE = 0.5
_SWAP_COS = 0.5
#: Paraphrase rescue: cosine above _RESCUE_FROM covers missing words the passages never use,
#: fully at +_RESCUE_SPAN.
_RESCUE_FROM = 0.7
_RESCUE_SPAN = 0.25
_SWAP_COVERAGE = 0.6
#: Graded support (r3). The claim's hard content (names, numbers, dates, negation) must all be
#: matched; its soft words, weighted by IDF, then need coverage >= the support threshold, or
#: >= _PARA_SOFT for a close paraphrase (cosine >= _PARA_COS), or >= _VALUE_SOFT when the
#: sentence states the claim's value (a number, date or year agreeing, cosine >= _VALUE_COS).
_PARA_COS = 0.8
_PARA_SOFT = 0.6
_VALUE_COS = 0.5
_VALUE_SOFT = 0.5
#: Weight of a verb or common word relative to a name, number or noun of the same rarity.
_LIGHT_WEIGHT = 0.3
_CANDIDATES = 5
#: Above this many passage sentences, a claim is scored only against the nearest ones.
_PREFILTER = 64

Vectors = npt.NDArray[np.float32]
log = logging.getLogger(__name__)


@dataclass
class _Passage:
    index: int
    id: str | None
    sentences: list[int]  # indexes into _Prepared.sentences
    words: frozenset[str]
    slots: Slots


@dataclass
class _Sentence:
    ctx: int
    position: int
    text: str
    words: frozenset[str]
    window_text: str = ""
    window: frozenset[str] = frozenset()
    #: The sentence with its neighbours in the same passage: a compound claim may state the
    #: values of two adjacent sentences.
    near_text: str = ""
    near: frozenset[str] = frozenset()


@dataclass
class _Prepared:
    trace: RagTrace
    passages: list[_Passage]
    sentences: list[_Sentence]
    claims: list[str]
    answer_sentences: list[str]
    citation_claims: list[list[str]]
    df: dict[str, int]
    postings: dict[str, list[int]]  # word -> sentences containing it
    relevant: bool = False  # some passage is relevant to the question


def _texts_to_embed(prep: _Prepared, claims_only: bool = False) -> list[str]:
    """Every text of a trace the judge compares: all go into the batch's one embed call.
    ``claims_only``: not the answer and its sentences (answer relevance and refusal only)."""
    trace = prep.trace
    out = [trace.question]
    if not claims_only and trace.answer and trace.answer.strip():
        out.append(trace.answer.strip())
    out.extend(s.text for s in prep.sentences)
    out.extend(prep.claims)
    if not claims_only:
        out.extend(prep.answer_sentences)
    out.extend(c for claims in prep.citation_claims for c in claims)
    return out


def _clip(x: float) -> float:
    if math.isnan(x):
        return 0.0
    return min(1.0, max(0.0, x))


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
        # The embedder comes in constructed and loaded: nothing to do (and idempotent).
        self._loaded = True

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
        prepared: list[_Prepared | JudgeError] = []
        texts: dict[str, int] = {}

        def want(text: str) -> None:
            if text not in texts:
                texts[text] = len(texts)

        for ex in REFUSAL_EXEMPLARS:
            want(ex)
        for trace in traces:
            try:
                prep = self._prepare(trace)
            except Exception as exc:  # one bad trace must not sink the batch
                prepared.append(JudgeError("internal_error", f"prepare: {type(exc).__name__}"))
                continue
            prepared.append(prep)
            for text in _texts_to_embed(prep, claims_only):
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

    # ------------------------------------------------------------------ preparation
    def _prepare(self, trace: RagTrace) -> _Prepared:
        passages: list[_Passage] = []
        sentences: list[_Sentence] = []
        df: dict[str, int] = {}
        postings: dict[str, list[int]] = {}
        for i, ctx in enumerate(trace.contexts):
            idxs: list[int] = []
            texts = list(_passage_sentences(ctx.text))
            heading = texts[0] if texts and _is_heading(texts[0]) else None
            for pos, sent in enumerate(texts):
                words = frozenset(content_words(sent))
                for w in words:
                    df[w] = df.get(w, 0) + 1
                    postings.setdefault(w, []).append(len(sentences))
                # What a sentence can lean on: a heading, and the sentence its pronoun refers to.
                extra = [t for t in (heading,) if t is not None and t != sent]
                if pos > 0 and _ANAPHOR.match(sent) and texts[pos - 1] != heading:
                    extra.append(texts[pos - 1])
                window_text = " ".join([*extra, sent])
                idxs.append(len(sentences))
                sentences.append(
                    _Sentence(
                        i, pos, sent, words, window_text, frozenset(content_words(window_text))
                    )
                )
            for k in idxs:
                lo, hi = max(0, k - 1), k + 2
                near = [sentences[j].text for j in range(lo, hi) if j in idxs]
                sentences[k].near_text = " ".join(near)
                sentences[k].near = frozenset(content_words(sentences[k].near_text))
            passages.append(
                _Passage(
                    i,
                    ctx.id,
                    idxs,
                    frozenset(content_words(ctx.text)),
                    parse_slots(ctx.text),
                )
            )
        answer = (trace.answer or "").strip()
        claims = extract_claims(trace.question, answer) if answer else []
        citation_claims = [
            extract_claims(trace.question, c.sentence) for c in (trace.citations or [])
        ]
        return _Prepared(
            trace=trace,
            passages=passages,
            sentences=sentences,
            claims=claims,
            answer_sentences=split_sentences(answer) if answer else [],
            citation_claims=citation_claims,
            df=df,
            postings=postings,
        )

    # ------------------------------------------------------------------ judging
    def _claim_texts(
        self, prep: _Prepared, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
    ) -> list[str]:
        # A claim that reads like a refusal ("nothing about that in the knowledge base") is
        # not a fact about the world: drop it (the patterns already dropped the obvious ones).
        return [
            c
            for c in prep.claims
            if float((exemplars @ matrix[rows[c]]).max()) < self._refusals.threshold
        ]

    @staticmethod
    def _sentence_vectors(prep: _Prepared, matrix: Vectors, rows: dict[str, int]) -> Vectors:
        if not prep.sentences:
            return np.zeros((0, matrix.shape[1]), dtype=np.float32)
        return matrix[[rows[s.text] for s in prep.sentences]]

    def _judge_claims_only(
        self, prep: _Prepared, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
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
        self, prep: _Prepared, matrix: Vectors, rows: dict[str, int], exemplars: Vectors
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
        prep: _Prepared,
        matrix: Vectors,
        rows: dict[str, int],
        sent_vecs: Vectors,
    ) -> tuple[list[ClaimJudgement], list[bool] | None]:
        """The verdict of every claim and of every cited sentence (the part subclasses change)."""
        claims = [self._judge_claim(c, matrix[rows[c]], prep, sent_vecs) for c in texts]
        return claims, self._citations(prep, sent_vecs, matrix, rows)

    def _weights(self, words: Sequence[str], prep: _Prepared) -> list[float]:
        # What a claim asserts is in its names, numbers and nouns; verbs and common words are
        # paraphrased freely ("costs" / "is priced at"), so they weigh little.
        n = max(1, len(prep.sentences))
        return [
            math.log(1.0 + (n + 1) / (prep.df.get(w, 0) + 0.5))
            * (_LIGHT_WEIGHT if w in LIGHT_WORDS else 1.0)
            for w in words
        ]

    def _relevance(self, prep: _Prepared, q_vec: Vectors, sent_vecs: Vectors) -> list[float]:
        q_words = list(dict.fromkeys(content_words(prep.trace.question)))
        weights = self._weights(q_words, prep)
        total = sum(weights) or 1.0
        sims = sent_vecs @ q_vec if len(sent_vecs) else np.zeros(0, dtype=np.float32)
        out: list[float] = []
        for p in prep.passages:
            cos = float(sims[p.sentences].max()) if p.sentences else 0.0
            lex = sum(w for word, w in zip(q_words, weights, strict=True) if word in p.words)
            out.append(_clip(0.6 * _clip(cos) + 0.4 * lex / total))
        return out

    def _answer_relevance(
        self, answer: str, q_vec: Vectors, matrix: Vectors, rows: dict[str, int]
    ) -> float:
        cos = float(matrix[rows[answer]] @ q_vec)
        if is_terse(answer):
            # A phrase rarely resembles its question; judge it as an answer of the right shape.
            return _clip(0.6 + 0.4 * _clip(cos / 0.5))
        return _clip((cos - 0.1) / 0.55)

    def _citations(
        self, prep: _Prepared, sent_vecs: Vectors, matrix: Vectors, rows: dict[str, int]
    ) -> list[bool] | None:
        citations = prep.trace.citations
        if not citations:
            return None
        by_id = {p.id: p.index for p in prep.passages if p.id is not None}
        out: list[bool] = []
        for citation, claims in zip(citations, prep.citation_claims, strict=True):
            allowed: set[int] = set()
            for cid in citation.context_ids:
                if cid in by_id:
                    allowed.add(by_id[cid])
                elif cid.isdigit() and int(cid) < len(prep.passages):
                    allowed.add(int(cid))
            if not claims:
                continue
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
        prep: _Prepared,
        sent_vecs: Vectors,
        *,
        allowed: set[int] | None = None,
    ) -> ClaimJudgement:
        cands = [i for i, s in enumerate(prep.sentences) if allowed is None or s.ctx in allowed]
        if not cands:
            return ClaimJudgement(claim, "not_found", 1.0, None, "no passage to check against")
        target = _ClaimTarget.build(claim)
        weights = dict(zip(target.key, self._weights(target.key, prep), strict=True))
        total = sum(weights.values())
        if total <= 0.0:
            total = 1.0
            weights = {}
        if target.loose:
            return _judge_loose(claim, prep, allowed, weights, total)
        cos = sent_vecs[cands] @ claim_vec
        scored: list[tuple[float, int, float, float]] = []  # align, sentence, cos, coverage
        align_w = weights
        if not weights and target.topic:
            # "How deep is X? 1,942 metres": align on the question's words.
            align_w = dict(zip(target.topic, self._weights(target.topic, prep), strict=True))
        align_total = sum(align_w.values()) or 1.0
        if len(cands) > _PREFILTER:
            cands, cos = _prefilter(cands, cos, align_w, prep)
        for j, i in enumerate(cands):
            sent = prep.sentences[i]
            cov = sum(w for word, w in align_w.items() if _fuzzy_in(word, sent.words)) / align_total
            c = float(cos[j])
            scored.append((0.5 * c + 0.5 * cov, i, c, cov))
        scored.sort(reverse=True)
        best_strength = 0.0
        contradiction: tuple[float, int, str] | None = None
        conflict: Conflict | None = None  # the words of ``contradiction``'s reason, as data
        qualifier_note: str | None = None
        agreed: dict[str, float] = {}  # claim value -> alignment of a sentence stating it
        for align, i, c, sent_cov in scored[:_CANDIDATES]:
            sent = prep.sentences[i]
            passage = prep.passages[sent.ctx]
            check = compare_slots(target.slots, parse_slots(sent.text), sent.text, passage.slots)
            if check.missing and sent.window_text != sent.text:
                wide = compare_slots(target.slots, parse_slots(sent.window_text), None, None)
                if not wide.conflicts and not wide.missing:
                    check.missing = []
            if check.missing and not check.conflicts and sent.near_text != sent.text:
                near = compare_slots(target.slots, parse_slots(sent.near_text), None, None)
                if not near.conflicts and not near.missing:
                    check.missing = []
            flipped = _negated_prefix_pair(claim, sent.text)
            if flipped is not None and not target.slots.negated:
                reason = f"negation mismatch: {flipped[0]} vs {flipped[1]}"
                check.conflicts = [reason, *check.conflicts]
                check.found[reason] = Conflict(
                    kind="negation", claim=flipped[0], evidence=flipped[1]
                )
            in_window = [w for w in target.key if _fuzzy_in(w, sent.window)]
            in_window += [
                w
                for w in target.key
                if w in target.acronyms
                and w not in in_window
                and _spells(target.acronyms[w], prep.trace.contexts[sent.ctx].text)
            ]
            covered = set(in_window)
            # A name may be stated by the sentence next to the evidence ("The Harbour Bridge ...
            # Construction began ..."): hard content may come from an adjacent sentence.
            hard_missing = [w for w in target.hard if w not in covered]
            hard_far = [w for w in hard_missing if not _fuzzy_in(w, sent.near)]
            if not hard_missing and not _entity_phrases_ok(target.phrases, sent.window_text):
                hard_missing = ["(name split)"]
            anchor = sum(weights[w] for w in in_window) / total if weights else 1.0
            soft = sum(weights[w] for w in covered) / total if weights else 1.0
            rescue = _clip((c - _RESCUE_FROM) / _RESCUE_SPAN) if not hard_missing else 0.0
            # A paraphrase may replace words the passages never use; a word the passages use
            # elsewhere but not here ("economy" vs this "business class" sentence) means the
            # sentence is about something else, and no similarity makes up for it.
            foreign_missing = sum(
                weights[w]
                for w in target.key
                if w not in covered and (prep.df.get(w, 0) == 0 or w in LIGHT_WORDS)
            )
            strength = soft + rescue * foreign_missing / total if weights else soft
            if anchor < 0.5 and rescue < 0.5:
                strength = min(strength, anchor)
            slots_ok = not (check.conflicts or check.qualifier_conflicts or check.missing)
            if log.isEnabledFor(logging.DEBUG):
                log.debug(
                    "candidate cos=%.2f cov=%.2f soft=%.2f anchor=%.2f strength=%.2f hard=%s %s | %s",
                    c, sent_cov, soft, anchor, strength, hard_missing, check, sent.text[:80],
                )  # fmt: skip
            if c >= _CONTRA_COS and not hard_missing:
                for value in check.agreed:
                    agreed.setdefault(value, align)
            if slots_ok and not hard_missing:
                best_strength = max(best_strength, strength)
                # A better-aligned sentence already contradicts: only full coverage supports.
                if graded_support(
                    strength,
                    soft,
                    c,
                    check.values_matched,
                    self.support_threshold,
                    graded=contradiction is None,
                ):
                    return ClaimJudgement(
                        claim, "supported", _clip(strength), _evidence(prep, i), None
                    )
            about_same = (
                (c >= _CONTRA_COS and sent_cov >= 0.5)
                or sent_cov >= _CONTRA_COVERAGE
                or c >= _CONTRA_COS_ALONE
            ) and max(sent_cov, soft) >= _CONTRA_MIN_COVERAGE
            if check.conflicts and about_same and not hard_far and contradiction is None:
                contradiction = (align, i, check.conflicts[0])
                conflict = check.found.get(check.conflicts[0])
            elif check.qualifier_conflicts and qualifier_note is None:
                qualifier_note = (
                    "evidence is about another qualifier: " + (check.qualifier_conflicts[0])
                )
            if contradiction is None and hard_missing and not check.conflicts:
                # A name nowhere in the passages, where a sentence about the same thing
                # names another: "Germany won the 2018 World Cup" vs "France won ...".
                foreign = [w for w in hard_missing if prep.df.get(w, 0) == 0]
                if (
                    len(foreign) == len(hard_missing)
                    and c >= _SWAP_COS
                    and anchor >= _SWAP_COVERAGE
                ):
                    rival = _entity_rival(target, foreign, sent.text, prep.trace.question)
                    swap = (
                        None
                        if rival is None
                        else f"entity mismatch: {rival.claim} vs {rival.evidence}"
                    )
                    if swap is not None and (
                        check.values_matched == 0 or not _is_qualifier(target, foreign, claim)
                    ):
                        contradiction = (align, i, swap)
                        conflict = rival
                    elif swap is not None and qualifier_note is None:
                        # Same value, other name: the evidence is about something else.
                        qualifier_note = "evidence is about another " + swap.split(": ", 1)[1]
        if contradiction is not None and _value_stated(contradiction, agreed):
            # Another sentence about the claim states this very value: the rival value is
            # about something else, and the claim is not contradicted (at most unsupported).
            qualifier_note = qualifier_note or "value stated elsewhere: " + contradiction[2]
            contradiction = None
        if contradiction is not None:
            align, i, reason = contradiction
            return ClaimJudgement(
                claim,
                "contradicted",
                _clip(0.5 + 0.5 * align),
                _evidence(prep, i),
                reason,
                conflict,
            )
        align, i, c, _ = scored[0]
        reason = qualifier_note or _missing_reason(
            claim, target, prep.passages[prep.sentences[i].ctx], prep.df
        )
        return ClaimJudgement(
            claim,
            "not_found",
            _clip(1.0 - best_strength),
            _evidence(prep, i) if align >= 0.3 else None,
            reason,
        )


def graded_support(
    strength: float,
    soft: float,
    cos: float,
    values_matched: int,
    threshold: float,
    *,
    graded: bool = True,
) -> bool:
    """The r3 support decision for a sentence whose hard content and slots already agree.

    ``strength`` is the IDF-weighted soft coverage raised by paraphrase rescue, ``soft`` the plain
    weighted coverage, ``cos`` the claim/sentence cosine, ``values_matched`` how many of the
    claim's numbers, dates and years the sentence states. A missing soft word no longer vetoes:
    full coverage (``strength >= threshold``) supports; so does partial coverage of a close
    paraphrase, or of a sentence that states the claim's value. ``graded=False`` keeps only the
    first rule.
    """
    if strength >= threshold:
        return True
    if not graded:
        return False
    if cos >= _PARA_COS and soft >= _PARA_SOFT:
        return True
    return values_matched >= 1 and cos >= _VALUE_COS and soft >= _VALUE_SOFT


def _is_heading(text: str) -> bool:
    if len(text.split()) > 10:
        return False
    if text.endswith(":") or not text.endswith((".", "!", "?")):
        return True
    # "Driving in Spain." / "HX-200 Maintenance.": a short title without a verb.
    return len(text.split()) <= 6 and not has_verb(text.rstrip("."))


# A sentence leaning on the previous one: "It ...", "Today it holds ...", "The latter ...".
_ANAPHOR = re.compile(
    r"^(?:this|these|both|each|the latter|the former|(?:\w+,?\s+){0,2}(?:it|he|she|they|its|his|her|their))\b",
    re.I,
)


@lru_cache(maxsize=8192)
def _passage_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a passage; cached, because popular passages recur across traces."""
    return tuple(split_sentences(text))


def _prefilter(
    cands: list[int], cos: Vectors, weights: dict[str, float], prep: _Prepared
) -> tuple[list[int], Vectors]:
    """Long contexts: keep the sentences nearest by cosine and by exact word overlap."""
    half = _PREFILTER // 2
    by_cos = np.argsort(-cos)[:half].tolist()
    position = {i: j for j, i in enumerate(cands)}
    lexical: dict[int, float] = {}
    for word, w in weights.items():
        for i in prep.postings.get(word, ()):
            if i in position:
                lexical[position[i]] = lexical.get(position[i], 0.0) + w
    by_lex = sorted(lexical, key=lambda j: -lexical[j])[:half]
    keep = sorted(set(by_cos) | set(by_lex))
    return [cands[j] for j in keep], cos[keep]


def _judge_loose(
    claim: str,
    prep: _Prepared,
    allowed: set[int] | None,
    weights: dict[str, float],
    total: float,
) -> ClaimJudgement:
    """A yes/no answer to a comparison: supported when the passages address the question."""
    words: set[str] = set()
    for p in prep.passages:
        if allowed is None or p.index in allowed:
            words |= p.words
    cov = sum(w for word, w in weights.items() if _fuzzy_in(word, frozenset(words))) / total
    if not weights or cov >= 0.6 or prep.relevant:
        return ClaimJudgement(claim, "supported", _clip(cov), None, "comparison not checkable")
    return ClaimJudgement(claim, "not_found", _clip(1.0 - cov), None, "passages do not cover it")


def _entity_phrases_ok(entities: Sequence[str], text: str) -> bool:
    """Multi-word names must appear as such: "Great Plains Aquifer" is not "Great Plains"."""
    seq = content_words(text)
    for ent in entities:
        parts = content_words(ent)
        if len(parts) < 2:
            continue
        n = len(parts)
        if not any(
            all(
                seq[k + j] == parts[j] or _fuzzy_in(parts[j], frozenset((seq[k + j],)))
                for j in range(n)
            )
            for k in range(len(seq) - n + 1)
        ):
            return False
    return True


_NEG_PREFIX = re.compile(r"\bnon-?([a-z]{4,})\b", re.I)


def _negated_prefix(claim: str, evidence: str) -> str | None:
    """The claim says "refundable" where the evidence says "non-refundable" (or vice versa)."""
    pair = _negated_prefix_pair(claim, evidence)
    return None if pair is None else f"{pair[0]} vs {pair[1]}"


def _negated_prefix_pair(claim: str, evidence: str) -> tuple[str, str] | None:
    """(the claim's word, the evidence's word) of :func:`_negated_prefix`."""
    claim_l, evidence_l = claim.lower(), evidence.lower()
    for text, other in ((evidence_l, claim_l), (claim_l, evidence_l)):
        for m in _NEG_PREFIX.finditer(text):
            word = m.group(1)
            if re.search(rf"(?<![\w-]){re.escape(word)}\b", other) and not re.search(
                rf"\bnon-?{re.escape(word)}\b", other
            ):
                return (word, m.group(0)) if text is evidence_l else (m.group(0), word)
    return None


def _evidence(prep: _Prepared, sentence: int) -> Evidence:
    s = prep.sentences[sentence]
    return Evidence(context_index=s.ctx, context_id=prep.passages[s.ctx].id, text=s.text)


def _entity_swap(
    target: _ClaimTarget,
    hard_missing: list[str],
    evidence: str,
    question: str,
) -> str | None:
    """The claim names X where a sentence about the same thing names Y instead."""
    rival = _entity_rival(target, hard_missing, evidence, question)
    return None if rival is None else f"entity mismatch: {rival.claim} vs {rival.evidence}"


def _entity_rival(
    target: _ClaimTarget,
    hard_missing: list[str],
    evidence: str,
    question: str,
) -> Conflict | None:
    """The names of :func:`_entity_swap`, as data."""
    missing = set(hard_missing)
    claim_ents = [e for e in target.entities if set(content_words(e)) & missing]
    if not claim_ents:
        return None
    known = set(target.key) | set(content_words(question))
    # A rival must be the same kind of name: a code or designation ("K4", "C/2019") is no
    # rival for a word name ("Linz"), and the other way round.
    coded = _has_digit(claim_ents[0])
    others = [
        e
        for e in parse_slots(evidence).entities
        if not set(content_words(e)) <= known and _has_digit(e) == coded
    ]
    if not others:
        return None
    ent_words = set(content_words(claim_ents[0]))
    others.sort(key=lambda e: -len(set(content_words(e)) & ent_words))
    return Conflict(kind="entity", claim=claim_ents[0], evidence=others[0])


def _has_digit(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _value_stated(contradiction: tuple[float, int, str], agreed: dict[str, float]) -> bool:
    """The contradicted value is stated as such by a sentence at least as well aligned."""
    align, _, reason = contradiction
    m = re.match(r"number mismatch: (.+) vs ", reason)
    return m is not None and agreed.get(m.group(1), -1.0) >= align - 0.05


def _is_qualifier(target: _ClaimTarget, missing: list[str], claim: str) -> bool:
    """ "In Canada, ..." / "for the Team plan": a name that scopes the claim, not its value."""
    for ent in target.entities:
        if not set(content_words(ent)) & set(missing):
            continue
        m = re.search(rf"(\w+)\s+(?:the\s+)?{re.escape(ent)}", claim)
        if m and m.group(1).lower() in _QUALIFIER_PREPS:
            return True
    return False


_QUALIFIER_PREPS = frozenset(
    ["in", "for", "at", "on", "within", "across", "during", "under", "per", "throughout"]
)


#: Most words a not-found reason lists.
_MISSING_LISTED = 8
#: Quantifiers: in a not-found reason, as unspecific as light words ("Every ... phone").
_QUANTIFIERS = frozenset(
    stem(w) for w in ("every", "each", "all", "any", "some", "many", "several")
)


def _missing_reason(
    claim: str, target: _ClaimTarget, passage: _Passage, df: Mapping[str, int] | None = None
) -> str:
    """The claim's content words the best passage lacks, the most specific first: words no
    passage of the trace has (what the answer invented: "phone") before words another passage
    has, and names and nouns before light words (verbs, "every"); claim order otherwise.
    ``df``: in how many of the trace's sentences each word occurs."""
    missing = [w for w in target.key if not _fuzzy_in(w, passage.words)]
    if not missing:
        return "no passage sentence supports the claim"
    counts = df or {}
    ranked = sorted(
        range(len(missing)),
        key=lambda k: (
            counts.get(missing[k], 0) > 0,
            missing[k] in LIGHT_WORDS or missing[k] in _QUANTIFIERS,
            k,
        ),
    )
    words = [missing[k] for k in ranked][:_MISSING_LISTED]
    return "not in the passages: " + ", ".join(as_written(claim, words))
