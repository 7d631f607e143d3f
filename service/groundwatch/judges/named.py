"""A short answer that names something or gives a code, against what the passages name.

Usage::

    checked = check_name(claim, "Who designed the Sydney Opera House?", sentences, trace)
    checked.verdict, checked.reason   # 'contradicted', 'entity mismatch: Frank Gehry vs Jørn Utzon'

Part of the values check (:mod:`.checked`): a name answer is read in the parallel clauses of the
passages (:mod:`.values.parallel`), beside a value (:mod:`.values.valued_names`), in its role
(:mod:`.values.roles`), aligned with the question like a value (:mod:`.values.names`), beside
another name the question's words are said of (:mod:`.values.contrast`); a code ("D",
"0W-30") against the code the passages give (:mod:`.values.codes`); plain words against the
words the passages use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.cases import (
    absent_words,
    as_not_found,
    check_sentence_names,
    contradicted,
    crossed,
)
from groundwatch.judges.claims.short_answers import terse_parts
from groundwatch.judges.text.words import as_written, content_words
from groundwatch.judges.values.codes import account_code
from groundwatch.judges.values.contrast import other_name, other_sentence_name
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.gapped import gapped_rival
from groundwatch.judges.values.names import account_name
from groundwatch.judges.values.parallel import asked_words, crossed_case
from groundwatch.judges.values.roles import crossed_role
from groundwatch.judges.values.valued_names import valued_name
from groundwatch.judges.yes_no import YES_NO

__all__ = ["check_code", "check_name"]

#: The score of a short answer's name given another role in its sentence (:mod:`.values.roles`).
_ROLE_SCORE = 0.9


def check_name(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement:
    """A short answer that names something, against the name the evidence gives."""
    parts = terse_parts(claim.text, question)
    if parts is None:
        return check_sentence_names(claim, sentences, trace)
    answer = YES_NO.sub("", parts[1]).strip().rstrip(".")
    if answer and claim.verdict != "contradicted":
        asked = asked_words(parts[0]) | asked_words(answer)
        for name in _answer_names(parts[0], answer):
            other = crossed_case(
                asked,
                name,
                [s for _, s in sentences],
                [ctx for ctx, _ in sentences],
                question=True,
            )
            checked = crossed(claim, other, "entity", sentences, trace, terse=True)
            if checked is not None:
                return checked
        valued = valued_name(parts[0], answer, [s for _, s in sentences])
        if valued is not None:
            return contradicted(
                claim, kind="entity", said=valued.said, stated=valued.stated,
                score=_ROLE_SCORE, sentence=sentences[valued.sentence], trace=trace,
                why=f"{valued.said} is stated with {valued.said_value}, {valued.stated} with "
                f"{valued.stated_value}",
            )  # fmt: skip
        role = crossed_role(parts[0], answer, [s for _, s in sentences])
        if role is not None:
            return contradicted(
                claim, kind="entity", said=role.said, stated=role.stated, score=_ROLE_SCORE,
                sentence=sentences[role.sentence], trace=trace,
                why=f"{role.said} is named for '{role.role}', {role.stated} for '{role.asked}'",
            )  # fmt: skip
        gapped = gapped_rival(parts[0], answer, [s for _, s in sentences])
        if gapped is not None:
            texts = [s for _, s in sentences]
            if absent_words(question, texts):
                return as_not_found(claim, f"stated for another name: {gapped.stated}")
            return contradicted(
                claim, kind="entity", said=answer, stated=gapped.stated, score=_ROLE_SCORE,
                sentence=sentences[gapped.sentence], trace=trace,
                why=f"what is asked ({', '.join(gapped.asked)}) is said of {gapped.stated}",
            )  # fmt: skip
    hit = account_name(parts[0], answer, [s for _, s in sentences]) if answer else None
    if hit is None:
        return _check_words(claim, answer, parts[0], sentences)
    seen = {w for _, s in sentences for w in content_words(s)}
    absent = not set(content_words(hit.answer)) & seen
    # Only an answer naming what no passage names contradicts the name they give; an answer
    # naming something the passages give for another relation is left to the backend.
    if (
        hit.status == "conflict"
        and absent
        and hit.evidence is not None
        and hit.sentence is not None
    ):
        return contradicted(
            claim, kind="entity", said=hit.answer, stated=hit.evidence, score=hit.score,
            sentence=sentences[hit.sentence], trace=trace,
        )  # fmt: skip
    if claim.verdict == "supported":
        # the answer's name and one aligned better with the question, in one sentence: the
        # question's words are said of the other name only
        rival, at = (
            (hit.evidence, hit.sentence)
            if hit.status == "conflict"
            else (hit.leader, hit.leader_sentence)
        )
        whole = hit.status != "conflict"  # a name aligned less clearly: every word asked
        said = (
            other_name(parts[0], hit.answer, rival, sentences[at][1], whole=whole)
            if rival and at is not None
            else ()
        )
        if not said and rival and at is not None:
            # the answer named in a sentence of its own, one frame with the rival's
            own = next((s for _, s in sentences if hit.answer in s and rival not in s), None)
            if own is not None:
                said = other_sentence_name(parts[0], hit.answer, rival, own, sentences[at][1])
        texts = [s for _, s in sentences]
        if said and rival and at is not None and not absent_words(question, texts):
            # the passages say every word the question asks: the answer gives one named
            # thing's attribute to another the sentence names
            return contradicted(
                claim, kind="entity", said=hit.answer, stated=rival, score=_ROLE_SCORE,
                sentence=sentences[at], trace=trace,
                why=f"what is asked ({' '.join(as_written(texts[at], said))}) is said of {rival}",
            )  # fmt: skip
        if said:
            return as_not_found(
                claim, f"stated for another name: {', '.join(said)} of {rival}, not {hit.answer}"
            )
    return claim


def check_code(
    claim: ClaimJudgement,
    question: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    short: bool,
) -> ClaimJudgement | None:
    """A short answer that is a code ("D", "0W-30"), against the code the passages give for
    what is asked (:mod:`.values.codes`); None when the answer is no code or nothing changes."""
    parts = terse_parts(claim.text, question)
    if parts is None and not short:
        return None
    asked, answer = parts if parts is not None else (question, claim.text)
    hit = account_code(asked, YES_NO.sub("", answer), [s for _, s in sentences])
    if hit is None or claim.verdict == "contradicted":
        return None
    if hit.status == "conflict" and hit.stated is not None and hit.sentence is not None:
        return contradicted(
            claim, kind="entity", said=hit.answer, stated=hit.stated, score=_ROLE_SCORE,
            sentence=sentences[hit.sentence], trace=trace,
        )  # fmt: skip
    written = any(
        re.search(rf"(?<![\w-]){re.escape(hit.answer)}(?![\w-])", s) for _, s in sentences
    )
    if hit.status == "unaccounted" and claim.verdict == "supported" and not written:
        return as_not_found(claim, f"code not in the passages: {hit.answer}")
    return None


def _answer_names(question: str, answer: str) -> list[str]:
    """The names ``answer`` gives that ``question`` does not."""
    asked = set(content_words(question))
    return [n for n in entity_spans(answer) if set(content_words(n)) - asked]


def _check_words(
    claim: ClaimJudgement, answer: str, question: str, sentences: Sequence[tuple[int, str]]
) -> ClaimJudgement:
    """A short answer of plain words ("plus bank holidays") none of which any passage uses
    (beyond the question's own) is not supported by them, whatever a model reads into it."""
    if claim.verdict != "supported":
        return claim
    words = set(content_words(answer)) - set(content_words(question))
    if not words:
        return claim
    seen = {w for _, s in sentences for w in content_words(s)}
    if words & seen:
        return claim
    missing = ", ".join(as_written(answer, sorted(words))[:4])
    return replace(claim, verdict="not_found", reason=f"not in the passages: {missing}")
