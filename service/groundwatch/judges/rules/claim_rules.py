"""The rules judge's verdict on one claim: align it to passage sentences, check, then decide.

Usage::

    verdict = judge_claim(claim, claim_vec, prep, sent_vecs, support_threshold=0.85)
    verdict.verdict, verdict.reason   # 'contradicted', 'number mismatch: 14 days vs 30 days'

The claim is aligned to the trace's sentences by IDF-weighted word coverage and cosine; the best
candidates are compared slot by slot (:mod:`groundwatch.judges.values.agreement`) and word by word
(:mod:`groundwatch.judges.rules.word_conflicts`). ``supported`` needs the claim's hard content (names,
numbers, dates) and enough of its weighted words in one sentence and its window
(:func:`graded_support`); ``contradicted`` needs a sentence clearly about the same thing that
disagrees; anything else is ``not_found``, with the words the passages lack as its reason.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import Conflict
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.claims.preparation import (
    PreparedPassage,
    PreparedTrace,
    evidence_at,
    word_weights,
)
from groundwatch.judges.claims.target import ClaimTarget, fuzzy_in, spells
from groundwatch.judges.rules.word_conflicts import (
    entity_phrases_ok,
    entity_rival,
    is_qualifier,
    negated_prefix_pair,
)
from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.words import as_written, stem
from groundwatch.judges.values.agreement import compare_slots
from groundwatch.judges.values.slots import parse_slots

__all__ = [
    "clip",
    "graded_support",
    "judge_claim",
    "judge_loose",
    "missing_reason",
    "prefilter",
]


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


_CANDIDATES = 5
#: Above this many passage sentences, a claim is scored only against the nearest ones.
_PREFILTER = 64

Vectors = npt.NDArray[np.float32]
log = logging.getLogger("groundwatch.judges.embedded")  # the rules judge's debug lines


def clip(x: float) -> float:
    if math.isnan(x):
        return 0.0
    return min(1.0, max(0.0, x))


def judge_claim(
    claim: str,
    claim_vec: Vectors,
    prep: PreparedTrace,
    sent_vecs: Vectors,
    *,
    support_threshold: float,
    allowed: set[int] | None = None,
) -> ClaimJudgement:
    """The verdict on one claim against the trace's sentences (``allowed``: only those of these
    passages, for a cited sentence); see the module for the rules."""
    cands = [i for i, s in enumerate(prep.sentences) if allowed is None or s.ctx in allowed]
    if not cands:
        return ClaimJudgement(claim, "not_found", 1.0, None, "no passage to check against")
    target = ClaimTarget.build(claim)
    weights = dict(zip(target.key, word_weights(target.key, prep), strict=True))
    total = sum(weights.values())
    if total <= 0.0:
        total = 1.0
        weights = {}
    if target.loose:
        return judge_loose(claim, prep, allowed, weights, total)
    cos = sent_vecs[cands] @ claim_vec
    scored: list[tuple[float, int, float, float]] = []  # align, sentence, cos, coverage
    align_w = weights
    if not weights and target.topic:
        # "How deep is X? 1,942 metres": align on the question's words.
        align_w = dict(zip(target.topic, word_weights(target.topic, prep), strict=True))
    align_total = sum(align_w.values()) or 1.0
    if len(cands) > _PREFILTER:
        cands, cos = prefilter(cands, cos, align_w, prep)
    for j, i in enumerate(cands):
        sent = prep.sentences[i]
        cov = sum(w for word, w in align_w.items() if fuzzy_in(word, sent.words)) / align_total
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
        flipped = negated_prefix_pair(claim, sent.text)
        if flipped is not None and not target.slots.negated:
            reason = f"negation mismatch: {flipped[0]} vs {flipped[1]}"
            check.conflicts = [reason, *check.conflicts]
            check.found[reason] = Conflict(kind="negation", claim=flipped[0], evidence=flipped[1])
        in_window = [w for w in target.key if fuzzy_in(w, sent.window)]
        in_window += [
            w
            for w in target.key
            if w in target.acronyms
            and w not in in_window
            and spells(target.acronyms[w], prep.trace.contexts[sent.ctx].text)
        ]
        covered = set(in_window)
        # A name may be stated by the sentence next to the evidence ("The Harbour Bridge ...
        # Construction began ..."): hard content may come from an adjacent sentence.
        hard_missing = [w for w in target.hard if w not in covered]
        hard_far = [w for w in hard_missing if not fuzzy_in(w, sent.near)]
        if not hard_missing and not entity_phrases_ok(target.phrases, sent.window_text):
            hard_missing = ["(name split)"]
        anchor = sum(weights[w] for w in in_window) / total if weights else 1.0
        soft = sum(weights[w] for w in covered) / total if weights else 1.0
        rescue = clip((c - _RESCUE_FROM) / _RESCUE_SPAN) if not hard_missing else 0.0
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
                support_threshold,
                graded=contradiction is None,
            ):
                return ClaimJudgement(
                    claim, "supported", clip(strength), evidence_at(prep, i), None
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
            if len(foreign) == len(hard_missing) and c >= _SWAP_COS and anchor >= _SWAP_COVERAGE:
                rival = entity_rival(target, foreign, sent.text, prep.trace.question)
                swap = (
                    None if rival is None else f"entity mismatch: {rival.claim} vs {rival.evidence}"
                )
                if swap is not None and (
                    check.values_matched == 0 or not is_qualifier(target, foreign, claim)
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
            clip(0.5 + 0.5 * align),
            evidence_at(prep, i),
            reason,
            conflict,
        )
    align, i, c, _ = scored[0]
    reason = qualifier_note or missing_reason(
        claim, target, prep.passages[prep.sentences[i].ctx], prep.df
    )
    return ClaimJudgement(
        claim,
        "not_found",
        clip(1.0 - best_strength),
        evidence_at(prep, i) if align >= 0.3 else None,
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


def prefilter(
    cands: list[int], cos: Vectors, weights: dict[str, float], prep: PreparedTrace
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


def judge_loose(
    claim: str,
    prep: PreparedTrace,
    allowed: set[int] | None,
    weights: dict[str, float],
    total: float,
) -> ClaimJudgement:
    """A yes/no answer to a comparison: supported when the passages address the question."""
    words: set[str] = set()
    for p in prep.passages:
        if allowed is None or p.index in allowed:
            words |= p.words
    cov = sum(w for word, w in weights.items() if fuzzy_in(word, frozenset(words))) / total
    if not weights or cov >= 0.6 or prep.relevant:
        return ClaimJudgement(claim, "supported", clip(cov), None, "comparison not checkable")
    return ClaimJudgement(claim, "not_found", clip(1.0 - cov), None, "passages do not cover it")


def _value_stated(contradiction: tuple[float, int, str], agreed: dict[str, float]) -> bool:
    """The contradicted value is stated as such by a sentence at least as well aligned."""
    align, _, reason = contradiction
    m = re.match(r"number mismatch: (.+) vs ", reason)
    return m is not None and agreed.get(m.group(1), -1.0) >= align - 0.05


#: Most words a not-found reason lists.
_MISSING_LISTED = 8
#: Quantifiers: in a not-found reason, as unspecific as light words ("Every ... phone").
_QUANTIFIERS = frozenset(
    stem(w) for w in ("every", "each", "all", "any", "some", "many", "several")
)


def missing_reason(
    claim: str, target: ClaimTarget, passage: PreparedPassage, df: Mapping[str, int] | None = None
) -> str:
    """The claim's content words the best passage lacks, the most specific first: words no
    passage of the trace has (what the answer invented: "phone") before words another passage
    has, and names and nouns before light words (verbs, "every"); claim order otherwise.
    ``df``: in how many of the trace's sentences each word occurs."""
    missing = [w for w in target.key if not fuzzy_in(w, passage.words)]
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
