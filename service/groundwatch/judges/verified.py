"""The verifier judge (``GROUNDWATCH_JUDGE__BACKEND=verifier``): CPU, offline; sentence
embeddings find the evidence, groundwatch's trained claim verifier decides.

Opt-in beside the rules-based ``embedded`` judge until it beats it on every labelled set (see
README *Accuracy* and docs/verifier.md: it is better on blind paraphrases and on held-out set 2's
supported claims, worse on HaluEval QA and the in-house hard cases).

Usage::

    judge = VerifiedJudge(build_embedder(settings.embedding))
    judge.load()
    [judgement] = judge.judge_batch([trace])

Per trace: the answer is split into claims (:mod:`groundwatch.judges.claims.extract`); every passage
sentence, claim, the question and the answer are embedded in ONE call per batch (the embedder
caches by content hash, so recurring passages cost nothing). Each claim is aligned to passage
sentences by IDF-weighted content-word coverage and cosine similarity. For the best-aligned
passages an evidence window is cut (:mod:`groundwatch.judges.evidence_window`, the same cut as
in training) and the claim verifier (:mod:`groundwatch.judges.verifier`, a cross-encoder trained
by ``training/``) scores every (window, claim) pair of the trace in one call. The code-checked
value slots (numbers, units, dates, years; :mod:`groundwatch.judges.values.slots`) of the sentences
clearly about the same thing are features beside it; a disagreeing value is read again as a
minimal pair (the claim restated with the evidence's value, and the claim, on that sentence's
window), so the verifier's support scores, its strong side, tell a contradiction from a value
about something else; a claim one short span of words away from such a sentence is read the
same way with the evidence's span put back (the aligned swap, :mod:`groundwatch.judges.rules.swap`).
The two best-aligned sentences are also read alone (the verifier is surest on short premises).
Windows are cut only for passages aligned at least ``_WINDOW_SHARE`` as well as the best one.
The verdict comes from the calibrated model of :mod:`groundwatch.judges.verdict`; negation,
modality and comparative rules no longer decide anything alone.

A cascade skips the model for certain cases: a claim that is a passage's own words (4+ words,
verbatim after normalisation) is supported; a claim naming something (a capitalised name) that
no passage contains is not found; a claim whose words are all in the clause of its best-aligned
sentence about it, with the negation turned round, is contradicted (the negation twin,
:mod:`groundwatch.judges.rules.negation_twin`). With a calibration that fits a sentence cascade
(``VerdictModel.sentence_cascade``, c7), the sentences are read first, and a claim that one of
them alone supports at least that surely, with no disagreeing value and no aligned swap, is
supported without its windows (the long pairs) being read. ``stats`` counts each path
("verbatim", "name_absent", "negation_twin", "sentence", "model").

``score`` is the judge's confidence in the verdict it gives.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import Conflict
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.claims.preparation import PreparedTrace, cited_claims, evidence_at
from groundwatch.judges.claims.target import ClaimTarget, fuzzy_in, spells
from groundwatch.judges.embedded import (
    DEFAULT_RELEVANCE_THRESHOLD,
    DEFAULT_SUPPORT_THRESHOLD,
    EmbeddedJudge,
)
from groundwatch.judges.embedding import Embedder
from groundwatch.judges.evidence_window import evidence_window
from groundwatch.judges.rules.claim_rules import clip, judge_loose, missing_reason, prefilter
from groundwatch.judges.rules.negation_twin import negation_twin
from groundwatch.judges.rules.swap import aligned_swap
from groundwatch.judges.text.words import as_written
from groundwatch.judges.values.agreement import ValueConflict, compare_slots
from groundwatch.judges.values.slots import parse_slots
from groundwatch.judges.verdict import ClaimFeatures, VerdictModel
from groundwatch.judges.verifier import (
    CONTRADICTED,
    NOT_FOUND,
    SUPPORTED,
    ClaimVerifier,
    shipped_verifier,
)

__all__ = [
    "DEFAULT_RELEVANCE_THRESHOLD",
    "DEFAULT_SUPPORT_THRESHOLD",
    "RULES_VERSION",
    "VerifiedJudge",
]

RULES_VERSION = "v4"
#: A sentence is "clearly about the same thing" above this cosine / coverage: only then can a
#: disagreeing value in it become the value_conflict feature.
_CONTRA_COS = 0.55
_CONTRA_COVERAGE = 0.70
_CANDIDATES = 5
#: Evidence windows (best-aligned passages) scored by the verifier per claim.
_WINDOWS = 3
#: ... and only for passages aligned at least this share as well as the best one: a passage
#: far below the best seldom holds the evidence (c6: half the verifier pairs on the synthetic
#: workload, no loss on the labelled sets; docs/verifier.md, Session 9).
_WINDOW_SHARE = 0.7
#: Above this many passage sentences, a claim is scored only against the nearest ones.
_PREFILTER = 64
#: Best-aligned sentences read alone by the verifier (for a model that reads ``sentence_*``).
_SENTENCES = 2

Vectors = npt.NDArray[np.float32]
log = logging.getLogger(__name__)


class VerifiedJudge(EmbeddedJudge):
    """The embedded judge's preparation, relevance and refusals; claims decided by the trained
    verifier and the calibrated verdict model instead of the r4 rules.

    Usage: ``VerifiedJudge(build_embedder(settings.embedding)).judge_batch(traces)``.
    """

    def __init__(
        self,
        embedder: Embedder,
        relevance_threshold: float | None = None,
        support_threshold: float | None = None,
        verifier: ClaimVerifier | None = None,
        verdicts: VerdictModel | None = None,
    ):
        super().__init__(embedder, relevance_threshold, support_threshold)
        self._verifier = verifier if verifier is not None else shipped_verifier()
        self._verdicts = verdicts if verdicts is not None else VerdictModel.shipped()
        # The rules judge is asked only when the verdict model reads its verdict.
        self._reads_rules = any(f.startswith("rules_") for f in self._verdicts.read_features)
        # A value conflict is read again with the evidence's value only for a model that uses it.
        self._reads_restated = any(f.startswith("restated_") for f in self._verdicts.read_features)
        # A claim one word away from its evidence sentence is read again with that word put
        # back (the aligned swap), only for a model that uses it.
        self._reads_swap = any(f.startswith("swap_") for f in self._verdicts.read_features)
        # The best-aligned sentences read alone, only for a model that uses them.
        self._reads_sentences = any(f.startswith("sentence_") for f in self._verdicts.read_features)
        #: How claims were decided: "verbatim" (cascade, no model) or "model".
        self.stats: Counter[str] = Counter()

    def _after_warm_up(self) -> None:
        self.stats.clear()

    # ------------------------------------------------------------------ Judge protocol
    @property
    def version(self) -> str:
        return (
            f"verifier/{self._embedder.name}/{self._verifier.name}/cal-{self._verdicts.version}"
            f"/rel{self.relevance_threshold:.2f}/{RULES_VERSION}"
        )

    @property
    def backend(self) -> str:
        return "verifier"

    # ------------------------------------------------------------------ judging
    def _claims_and_citations(
        self,
        texts: Sequence[str],
        prep: PreparedTrace,
        matrix: Vectors,
        rows: dict[str, int],
        sent_vecs: Vectors,
    ) -> tuple[list[ClaimJudgement], list[bool] | None]:
        """Align every claim and cited sentence, verify all their windows in one call, decide."""
        aligned = [self._align(c, matrix[rows[c]], prep, sent_vecs) for c in texts]
        cited = self._align_citations(prep, sent_vecs, matrix, rows)
        every = aligned + [a for group in cited or [] for a in group]
        probs = self._verify(every)
        claims = [self._decide(a, p, prep) for a, p in zip(aligned, probs, strict=False)]
        rest = probs[len(aligned) :]
        if cited is None:
            return claims, None
        citation_supported = []
        for group in cited:
            verdicts = [self._decide(a, rest.pop(0), prep).verdict for a in group]
            citation_supported.append(bool(group) and all(v == "supported" for v in verdicts))
        return claims, citation_supported

    def _align_citations(
        self, prep: PreparedTrace, sent_vecs: Vectors, matrix: Vectors, rows: dict[str, int]
    ) -> list[list[_Alignment]] | None:
        """Each cited sentence's claims, aligned only to the passages it cites."""
        cited = cited_claims(prep)
        if cited is None:
            return None
        out: list[list[_Alignment]] = []
        for claims, allowed in cited:
            if not allowed:
                out.append([])
                continue
            out.append(
                [self._align(c, matrix[rows[c]], prep, sent_vecs, allowed=allowed) for c in claims]
            )
        return out or None

    def _verify(self, aligned: Sequence[_Alignment]) -> list[npt.NDArray[np.float32]]:
        """The verifier's probabilities for every pair of every claim: per claim its windows,
        its minimal pairs, then its sentences read alone. With a sentence cascade the sentences
        are read first, and a claim they already decide (``_Alignment.by_sentence``) gets only
        those rows: its windows and minimal pairs are never read."""
        cascade = self._verdicts.sentence_cascade
        early: dict[int, npt.NDArray[np.float32]] = {}
        if cascade is not None:
            first = [i for i, a in enumerate(aligned) if a.windows and a.sentences]
            pairs = [(s, aligned[i].claim) for i in first for s in aligned[i].sentences]
            probs = self._predict(pairs)
            k = 0
            for i in first:
                a = aligned[i]
                early[i] = probs[k : k + len(a.sentences)]
                k += len(a.sentences)
                minimal = a.restated is not None or a.swap is not None
                if not minimal and a.conflict is None:
                    a.by_sentence = float(early[i][:, SUPPORTED].max()) >= cascade
        pairs = []
        for i, a in enumerate(aligned):
            if a.by_sentence:
                continue
            pairs += [(window, a.claim) for _, window in a.windows]
            for minimal_pair in (a.restated, a.swap):
                if minimal_pair is not None and a.windows:
                    # the minimal pair: the same window read with either value / word
                    pairs += [minimal_pair, (minimal_pair[0], a.claim)]
            if a.windows and i not in early:
                pairs += [(s, a.claim) for s in a.sentences]
        probs = self._predict(pairs)
        out: list[npt.NDArray[np.float32]] = []
        k = 0
        for i, a in enumerate(aligned):
            n = 0
            if a.windows and not a.by_sentence:
                n = len(a.windows) + 2 * ((a.restated is not None) + (a.swap is not None))
                n += 0 if i in early else len(a.sentences)
            rows = probs[k : k + n]
            k += n
            out.append(np.concatenate([rows, early[i]]) if i in early else rows)
        return out

    def _predict(self, pairs: list[tuple[str, str]]) -> npt.NDArray[np.float32]:
        if not pairs:
            return np.zeros((0, 3), dtype=np.float32)
        return self._verifier.predict(pairs)

    # ------------------------------------------------------------------ one claim
    def _align(
        self,
        claim: str,
        claim_vec: Vectors,
        prep: PreparedTrace,
        sent_vecs: Vectors,
        *,
        allowed: set[int] | None = None,
    ) -> _Alignment:
        """Where a claim's evidence is: aligned sentences, windows for the verifier, slots."""
        cands = [i for i, s in enumerate(prep.sentences) if allowed is None or s.ctx in allowed]
        out = _Alignment(claim)
        if not cands:
            out.reason = "no passage to check against"
            return out
        target = ClaimTarget.build(claim)
        weights = dict(zip(target.key, self._weights(target.key, prep), strict=True))
        if target.loose:
            out.loose = judge_loose(claim, prep, allowed, weights, sum(weights.values()) or 1.0)
            return out
        if _verbatim(claim, prep, allowed):
            out.verbatim = True
        absent = _names_absent(target, prep, allowed)
        if absent:
            # A name the claim asserts appears in no passage it may lean on: nothing there can
            # support it, whatever the wording (cascade; the model is not asked).
            out.absent = absent
            return out
        align_w = weights
        if not weights and target.topic:
            # "How deep is X? 1,942 metres": align on the question's words.
            align_w = dict(zip(target.topic, self._weights(target.topic, prep), strict=True))
        align_total = sum(align_w.values()) or 1.0
        cos = sent_vecs[cands] @ claim_vec
        if len(cands) > _PREFILTER:
            cands, cos = prefilter(cands, cos, align_w, prep)
        scored: list[tuple[float, int, float, float]] = []  # align, sentence, cos, coverage
        for j, i in enumerate(cands):
            sent = prep.sentences[i]
            cov = sum(w for word, w in align_w.items() if fuzzy_in(word, sent.window)) / align_total
            scored.append((0.5 * float(cos[j]) + 0.5 * cov, i, float(cos[j]), cov))
        scored.sort(reverse=True)
        align, best, out.cosine, out.coverage = scored[0]
        out.best_sentence = best
        swap: tuple[int, str] | None = None  # (sentence, the claim with its span put back)
        # Code-checked values (numbers, units, dates, years) of the sentences clearly about
        # the same thing: features beside the verifier, never a verdict alone.
        for _, i, c, cov in scored[:_CANDIDATES]:
            sent = prep.sentences[i]
            check = compare_slots(
                target.slots, parse_slots(sent.text), sent.text, prep.passages[sent.ctx].slots
            )
            about_same = (c >= _CONTRA_COS and cov >= 0.5) or cov >= _CONTRA_COVERAGE
            values = [x for x in check.conflicts if x.startswith(_VALUE_CONFLICTS)]
            if about_same and values and out.conflict is None:
                out.conflict = (i, values[0])
                out.conflict_data = check.found.get(values[0])
                if self._reads_restated:
                    out.restated = _restated(claim, check.value_conflicts, prep, i)
            if c >= _CONTRA_COS and (check.values_matched or check.within):
                # the claim's value is stated, or kept within a bound, in a sentence about
                # the same thing: a disagreeing value elsewhere is likely another case
                out.value_agreed = True
            if self._reads_swap and about_same and swap is None and not values:
                found = aligned_swap(claim, sent.text)
                swap = (i, found.restated) if found is not None else None
        if out.verbatim and out.conflict is None:
            return out  # the cascade decides: no window, no model call
        out.twin = negation_twin(claim, prep.sentences[best].text, _before(prep, best))
        if out.twin is not None:
            return out  # its evidence clause with the negation turned round: contradicted
        if swap is not None and out.restated is None:  # a value conflict has its own pair
            out.swap = _sentence_window(prep, swap[0], swap[1]), swap[1]
        if self._reads_rules:
            # The rules judge's reading of the same claim: features beside the verifier.
            out.rules = self._judge_claim(claim, claim_vec, prep, sent_vecs, allowed=allowed)
        # One window per passage, for the best-aligned passages: the sentences the alignment
        # ranks highest, in passage order (the same cut as in training).
        by_passage: dict[int, dict[int, float]] = {}
        for align, i, _, _ in scored:
            by_passage.setdefault(prep.sentences[i].ctx, {})[i] = align
        best_of = {p: max(v.values()) for p, v in by_passage.items()}
        ranked = sorted(by_passage, key=lambda p: -best_of[p])
        # a passage aligned far worse than the best one seldom holds the evidence: no window
        ranked = [p for p in ranked if best_of[p] >= _WINDOW_SHARE * best_of[ranked[0]]]
        for ctx in ranked[:_WINDOWS]:
            idxs = prep.passages[ctx].sentences
            scores = [by_passage[ctx].get(i, 0.0) for i in idxs]
            texts = [prep.sentences[i].text for i in idxs]
            top = max(by_passage[ctx], key=lambda i: by_passage[ctx][i])
            out.windows.append((top, evidence_window(texts, claim, scores=scores)))
        if self._reads_sentences:
            for _, i, _, _ in scored:
                if prep.sentences[i].text not in out.sentences:
                    out.sentences.append(prep.sentences[i].text)
                    out.sentence_ids.append(i)
                if len(out.sentences) == _SENTENCES:
                    break
        return out

    def _decide(
        self, al: _Alignment, probs: npt.NDArray[np.float32], prep: PreparedTrace
    ) -> ClaimJudgement:
        """The verdict of one claim, from its alignment and its windows' verifier scores."""
        claim = al.claim
        if al.loose is not None:
            return al.loose
        if al.verbatim and al.conflict is None:
            self.stats["verbatim"] += 1
            return ClaimJudgement(
                claim, "supported", 1.0, evidence_at(prep, al.best_sentence), "verbatim"
            )
        if al.absent:
            self.stats["name_absent"] += 1
            return ClaimJudgement(
                claim,
                "not_found",
                1.0,
                None,
                "not in the passages: " + ", ".join(as_written(claim, al.absent[:4])),
            )
        if al.twin is not None:
            self.stats["negation_twin"] += 1
            reason, conflict = al.twin
            return ClaimJudgement(
                claim,
                "contradicted",
                1.0,
                evidence_at(prep, al.best_sentence),
                reason,
                conflict,
            )
        if not al.windows:
            return ClaimJudgement(claim, "not_found", 1.0, None, al.reason or "no evidence")
        if al.by_sentence:
            # the sentence cascade: a best-aligned sentence alone already supports the claim
            self.stats["sentence"] += 1
            alone = probs[:, SUPPORTED]
            where = al.sentence_ids[int(np.argmax(alone))]
            return ClaimJudgement(
                claim, "supported", clip(float(alone.max())), evidence_at(prep, where)
            )
        self.stats["model"] += 1
        restated_supported = restated_gain = swap_supported = swap_gain = 0.0
        k = len(al.windows)
        if al.restated is not None:
            restated_supported = float(probs[k, SUPPORTED])
            restated_gain = restated_supported - float(probs[k + 1, SUPPORTED])
            k += 2
        if al.swap is not None:
            swap_supported = float(probs[k, SUPPORTED])
            swap_gain = swap_supported - float(probs[k + 1, SUPPORTED])
            k += 2
        alone = probs[k : k + len(al.sentences)]
        sentence_supported = float(alone[:, SUPPORTED].max()) if len(alone) else 0.0
        sentence_contradicted = float(alone[0, CONTRADICTED]) if len(alone) else 0.0
        probs = probs[: len(al.windows)]
        sup_w = int(np.argmax(probs[:, SUPPORTED]))
        con_w = int(np.argmax(probs[:, CONTRADICTED]))
        features = ClaimFeatures(
            p_supported=float(probs[sup_w, SUPPORTED]),
            p_contradicted=float(probs[con_w, CONTRADICTED]),
            p_not_found=float(probs[:, NOT_FOUND].min()),
            coverage=al.coverage,
            cosine=al.cosine,
            value_conflict=al.conflict is not None,
            value_agreed=al.value_agreed,
            restated_supported=restated_supported,
            restated_gain=restated_gain,
            swap_supported=swap_supported,
            swap_gain=swap_gain,
            sentence_supported=sentence_supported,
            sentence_contradicted=sentence_contradicted,
            rules_verdict=al.rules.verdict if al.rules is not None else "",
            rules_strength=_rules_strength(al.rules),
            rules_negation=al.rules is not None
            and (al.rules.reason or "").startswith("negation mismatch"),
            claim=claim,
        )
        decision = self._verdicts.decide(features)
        if decision.verdict == "supported":
            return ClaimJudgement(
                claim, "supported", clip(decision.score), evidence_at(prep, al.windows[sup_w][0])
            )
        if decision.verdict == "contradicted":
            conflict = None
            if al.conflict is not None:
                (where, reason), conflict = al.conflict, al.conflict_data
            else:
                where, reason = al.windows[con_w][0], "the evidence states otherwise"
            return ClaimJudgement(
                claim,
                "contradicted",
                clip(decision.score),
                evidence_at(prep, where),
                reason,
                conflict,
            )
        best = al.best_sentence
        target = ClaimTarget.build(claim)
        reason = missing_reason(claim, target, prep.passages[prep.sentences[best].ctx], prep.df)
        evidence = evidence_at(prep, best) if al.cosine >= 0.3 else None
        return ClaimJudgement(claim, "not_found", clip(decision.score), evidence, reason)


@dataclass
class _Alignment:
    """One claim against the passages: what the verifier reads and what the slots found."""

    #: The claim as the verifier reads it: a short answer stays "<question>? <answer>.", the
    #: form the verifier was trained on. Read as one declarative sentence instead (as the nli,
    #: tei and openai backends read it), held-out 1 fell 0.769 -> 0.749, held-out 2 0.744 ->
    #: 0.720, the hard cases 0.832 -> 0.811 (docs/accuracy.md, Session 45): not until the
    #: verifier is trained on that form.
    claim: str
    windows: list[tuple[int, str]] = field(default_factory=list)  # (best sentence, window)
    best_sentence: int = 0
    cosine: float = 0.0
    coverage: float = 0.0
    conflict: tuple[int, str] | None = None  # (sentence, "number mismatch: ...")
    conflict_data: Conflict | None = None  # the words of ``conflict``, as data
    value_agreed: bool = False
    #: (evidence window, the claim restated with the conflicting evidence value): when the
    #: verifier finds that restatement supported, the evidence says the same thing with another
    #: value, which is what a contradiction is; when not, the value is about something else.
    restated: tuple[str, str] | None = None
    #: (evidence window, the claim with the one differing span of its evidence sentence put
    #: back: :mod:`groundwatch.judges.rules.swap`): the same reading for words other than values.
    swap: tuple[str, str] | None = None
    verbatim: bool = False
    #: (reason, conflict) when the claim is its best sentence's clause with the negation
    #: turned round (:mod:`groundwatch.judges.rules.negation_twin`): contradicted, no model call.
    twin: tuple[str, Conflict | None] | None = None
    absent: list[str] = field(default_factory=list)  # names found in no passage
    loose: ClaimJudgement | None = None
    reason: str | None = None
    rules: ClaimJudgement | None = None  # the rules judge's verdict (a feature)
    #: The best-aligned sentences, read alone against the claim (no neighbours, no heading).
    sentences: list[str] = field(default_factory=list)
    sentence_ids: list[int] = field(default_factory=list)  # their indices in prep.sentences
    #: Decided by the sentence cascade: a sentence alone supports the claim surely enough.
    by_sentence: bool = False


def _rules_strength(rules: ClaimJudgement | None) -> float:
    """How strongly the rules judge found the claim stated: its score when supported, one minus
    its score when not found (the best support it saw), 0 when contradicted or not asked."""
    if rules is None or rules.verdict == "contradicted":
        return 0.0
    return rules.score if rules.verdict == "supported" else 1.0 - rules.score


def _names_absent(target: ClaimTarget, prep: PreparedTrace, allowed: set[int] | None) -> list[str]:
    """The claim's name words (as written) that no allowed passage contains, even spelled out
    as an acronym ("VAT" = "Value Added Tax") or with a one-letter ending change."""
    passages = [p for p in prep.passages if allowed is None or p.index in allowed]
    words = frozenset().union(*(p.words for p in passages)) if passages else frozenset()
    missing = []
    for w in sorted(target.hard):
        if fuzzy_in(w, words):
            continue
        acronym = next((a for k, a in target.acronyms.items() if k == w), None)
        if acronym and any(spells(acronym, prep.trace.contexts[p.index].text) for p in passages):
            continue
        missing.append(w)
    return missing


_VALUE_CONFLICTS = ("number mismatch", "date mismatch", "year mismatch")


def _restated(
    claim: str, conflicts: Sequence[ValueConflict], prep: PreparedTrace, sentence: int
) -> tuple[str, str] | None:
    """The conflict sentence's window and the claim with its value replaced by the evidence's
    (the first conflict whose claim value is written out in the claim); None when none is."""
    for c in conflicts:
        m = re.search(re.escape(c.claim_text), claim, flags=re.IGNORECASE)
        if m is None:
            continue
        restated = claim[: m.start()] + c.evidence_text + claim[m.end() :]
        return _sentence_window(prep, sentence, restated), restated
    return None


def _before(prep: PreparedTrace, sentence: int) -> str:
    """The text of ``sentence``'s passage before it."""
    at = prep.sentences[sentence]
    return " ".join(
        s.text for s in prep.sentences[:sentence] if s.ctx == at.ctx and s.position < at.position
    )


def _sentence_window(prep: PreparedTrace, sentence: int, claim: str) -> str:
    """The evidence window around one passage sentence (the same cut as in training)."""
    ctx = prep.sentences[sentence].ctx
    idxs = prep.passages[ctx].sentences
    texts = [prep.sentences[i].text for i in idxs]
    scores = [1.0 if i == sentence else 0.0 for i in idxs]
    return evidence_window(texts, claim, scores=scores)


_NORM = re.compile(r"[^a-z0-9]+")


def _normalised(text: str) -> str:
    return _NORM.sub(" ", text.lower()).strip()


def _verbatim(claim: str, prep: PreparedTrace, allowed: set[int] | None) -> bool:
    """The claim (of 4+ words) is a passage's own words: supported without the model."""
    want = _normalised(claim)
    if len(want.split()) < 4:
        return False
    return any(
        f" {want} " in f" {_normalised(ctx.text)} "
        for i, ctx in enumerate(prep.trace.contexts)
        if allowed is None or i in allowed
    )
