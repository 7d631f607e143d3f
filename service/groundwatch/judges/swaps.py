"""Two values of one answer stated the other way round: each where the passages put the other.

Usage::

    claims = swapped(claims, question, sentences, trace)
    [c.verdict for c in claims]   # ['contradicted', 'contradicted']

One value read as another case's may be a loose reading of a plain word, so alone it is held
back; two that mirror each other are the two cases swapped, whatever words name them:

* :func:`swapped`: two claims, each crossing into the parallel clause that states the other's
  value ("The Cascade 3 tows 750 kg braked" / "2,000 kg unbraked" against "2,000 kg braked and
  750 kg unbraked"), or each disputed by the value the other states (:func:`mirrored`);
* a value held back as disputed by the value that another claim, contradicted, gives its own
  for ("Children pay £12" contradicted by £6, "adults pay £6" disputed by £12);
* :func:`mirrored`: two disputed values (:mod:`.values.alignment`), of one claim or two, each
  aligned best with an evidence value of one sentence that agrees with the other ("A three-day
  pass costs $45, while a day ticket is $110" against "Day tickets are $45 and a three-day pass
  is $110").
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.cases import KINDS, contradicted, crossed
from groundwatch.judges.claims.short_answers import claim_values
from groundwatch.judges.values.alignment import (
    SENTENCE_CONFLICT_SCORE,
    AlignedValue,
    account_values,
    agrees,
)
from groundwatch.judges.values.parallel import Crossed, asked_words, crossed_value
from groundwatch.judges.values.stated import stated_values
from groundwatch.judges.values.topics import passage_topics

__all__ = ["mirrored", "mirrored_claim", "swapped"]

#: The confidence of a swap read in code.
_SWAP_SCORE = 0.9


def mirrored(
    mine: Sequence[AlignedValue], theirs: Sequence[AlignedValue] = ()
) -> tuple[AlignedValue, AlignedValue] | None:
    """Two disputed values (both of ``mine``, or one of each), each aligned best with a value
    of one evidence sentence that agrees with the other one; None when none are."""
    pairs = (
        [(a, b) for i, a in enumerate(mine) for b in mine[i + 1 :]]
        if not theirs
        else [(a, b) for a in mine for b in theirs]
    )
    for a, b in pairs:
        if (
            a.claim is not b.claim
            and a.sentence == b.sentence
            and agrees(a.evidence, b.claim)
            and agrees(b.evidence, a.claim)
            and not agrees(a.claim, b.claim)
        ):
            return a, b
    return None


def mirrored_claim(
    claim: ClaimJudgement,
    pair: tuple[AlignedValue, AlignedValue],
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> ClaimJudgement:
    """``claim`` contradicted by the first of a mirrored ``pair`` (:func:`mirrored`)."""
    a, b = pair
    return contradicted(
        claim, kind=KINDS.get(a.evidence.kind, "number"), said=a.claim.text,
        stated=a.evidence.text, score=_SWAP_SCORE, sentence=sentences[a.sentence], trace=trace,
        why=f"{a.claim.text} and {b.claim.text} are stated the other way round",
    )  # fmt: skip


def _disputed(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]]
) -> list[AlignedValue]:
    """The values of ``claim`` (a sentence) that a better aligned evidence value disputes."""
    values = claim_values(claim.text, question)
    if not values:
        return []
    account = account_values(
        claim.text,
        [s for _, s in sentences],
        values=values,
        conflict_score=SENTENCE_CONFLICT_SCORE,
        strict=True,
        topics=passage_topics(sentences),
    )
    return list(account.disputed)


def swapped(
    claims: Sequence[ClaimJudgement],
    question: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> list[ClaimJudgement]:
    """``claims`` (of one answer), where two that give a value another case's hold each
    other's ("The Cascade 3 tows 750 kg braked" / "2,000 kg unbraked" against "2,000 kg braked
    and 750 kg unbraked"), or two not found each hold a value the other's words align with
    (:func:`mirrored`): both contradicted. One crossing alone may be a loose reading of a
    plain word (held back); two that mirror each other are the two cases swapped."""
    return _held_swaps(
        _crossed_swaps(claims, question, sentences, trace), question, sentences, trace
    )


def _crossed_swaps(
    claims: Sequence[ClaimJudgement],
    question: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> list[ClaimJudgement]:
    out = list(claims)
    hits: dict[int, Crossed] = {}
    if sum(c.verdict != "contradicted" for c in claims) < 2:
        return out
    for i, claim in enumerate(claims):
        if claim.verdict != "contradicted":
            hit = _hit(claim, question, sentences)
            if hit is not None:
                hits[i] = hit
    for i, a in hits.items():
        for j, b in hits.items():
            if i < j and a.sentence == b.sentence and (a.said, a.stated) == (b.stated, b.said):
                for k, hit in ((i, a), (j, b)):
                    out[k] = (
                        crossed(claims[k], hit, "number", sentences, trace, terse=True) or out[k]
                    )
    return out


def _held_swaps(
    claims: Sequence[ClaimJudgement],
    question: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> list[ClaimJudgement]:
    out = list(claims)
    held = [i for i, c in enumerate(out) if c.verdict == "not_found"]
    conflicts = any(c.verdict == "contradicted" and c.conflict is not None for c in out)
    if not held or (len(held) < 2 and not conflicts):
        return out  # nothing a held value could mirror: no account read again
    disputed = {i: _disputed(claims[i], question, sentences) for i in held}
    for n, i in enumerate(held):
        for j in held[n + 1 :]:
            pair = mirrored(disputed[i], disputed[j])
            if pair is not None and out[i].verdict == out[j].verdict == "not_found":
                out[i] = mirrored_claim(claims[i], pair, sentences, trace)
                out[j] = mirrored_claim(claims[j], pair[::-1], sentences, trace)
    for i in held:
        if out[i].verdict != "not_found":
            continue
        for other in out:
            d = _mirror_of(disputed[i], other)
            if d is not None:
                out[i] = contradicted(
                    claims[i], kind=KINDS.get(d.evidence.kind, "number"), said=d.claim.text,
                    stated=d.evidence.text, score=_SWAP_SCORE, sentence=sentences[d.sentence],
                    trace=trace, why=f"{d.claim.text} and {d.evidence.text} are stated the other "
                    "way round",
                )  # fmt: skip
                break
    return out


def _mirror_of(disputed: Sequence[AlignedValue], other: ClaimJudgement) -> AlignedValue | None:
    """The disputed value (claim X, evidence Y) that a contradicted claim's value conflict
    mirrors (said Y, stated X): the answer holds the two values the other way round."""
    c = other.conflict
    if other.verdict != "contradicted" or c is None or c.claim is None or c.evidence is None:
        return None
    said, stated = stated_values(c.claim), stated_values(c.evidence)
    if len(said) != 1 or len(stated) != 1:
        return None
    for d in disputed:
        if agrees(d.evidence, said[0]) and agrees(d.claim, stated[0]):
            return d
    return None


def _hit(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]]
) -> Crossed | None:
    values = claim_values(claim.text, question)
    evidence = [s for _, s in sentences]
    passage_of = [ctx for ctx, _ in sentences]
    asked = asked_words(claim.text)
    for value in values:
        hit = crossed_value(value, asked, evidence, values, passage_of)
        if hit is not None:
            return hit
    return None
