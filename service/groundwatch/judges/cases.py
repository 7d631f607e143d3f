"""The case a claim's value belongs to: checks on top of the value account (:mod:`.checked`).

Usage::

    checked = check_crossed(claim, values, sentences, trace, terse=True, question=question)
    checked.verdict, checked.reason   # 'contradicted', 'number mismatch: 60 minutes vs 12 minutes (...)'

Passages state values for cases side by side ("60 minutes in Eco mode or 12 minutes in Boost
mode", "Monday to Friday 6:00 ... Saturday-Sunday 7:30", "ages 16 and over ... 10 to 15"); the
commonest wrong answer takes the neighbouring case's value. Each check returns the claim
contradicted (the value stated for the claim's own case differs), held back as not found (the
case is too loosely read to contradict on), or None (nothing to change):

* :func:`check_crossed`: parallel clauses (:mod:`.values.parallel`);
* :func:`check_days`: days of the week, age bands, opposite cases (:mod:`.values.weekdays`,
  :mod:`.values.bands`, :mod:`.values.opposite`);
* :func:`check_asked_case`: a short answer's value stated beside another case's only, where
  the question's words name that other case (:mod:`.values.contrast`);
* :func:`check_sentence_names`: a sentence giving one named thing another's attribute;
* :func:`check_ranges`: a range with one end the passages' and the other not
  (:mod:`.values.ranges`);
* :func:`check_qualified`: a value stated for one qualifier of a noun, the claim naming
  another (:mod:`.values.qualifiers`);
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from groundwatch.contract.record import Conflict, ConflictKind, Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.text.grammar import LIGHT_WORDS
from groundwatch.judges.text.words import as_written, content_words
from groundwatch.judges.values.alignment import agrees, exact_kind
from groundwatch.judges.values.bands import claim_age, other_band, uncovered_age
from groundwatch.judges.values.contrast import other_case
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.opposite import opposite_case
from groundwatch.judges.values.paired import case_confirmed, crossed_pair
from groundwatch.judges.values.parallel import (
    Crossed,
    asked_words,
    clauses,
    crossed_case,
    crossed_value,
)
from groundwatch.judges.values.qualifiers import qualified_pairs, qualified_rival
from groundwatch.judges.values.ranges import crossed_range
from groundwatch.judges.values.stated import StatedValue, clause_bounds, normalised, stated_values
from groundwatch.judges.values.weekdays import days_named, other_days

__all__ = [
    "KINDS",
    "absent_words",
    "as_not_found",
    "check_asked_case",
    "check_crossed",
    "check_days",
    "check_pairs",
    "check_qualified",
    "check_ranges",
    "check_sentence_names",
    "contradicted",
    "crossed",
    "paired_case",
]

KINDS: dict[str, ConflictKind] = {"date": "date", "year": "year"}
#: The confidence of a contradiction read from parallel clauses (a code check, not a model).
_CROSSED_SCORE = 0.9
#: An answer of at most this many words is a fragment, not a sentence.
_FRAGMENT_WORDS = 4
#: The reason of a claim held back because its value is stated for another case.
_HELD = "stated for another case: "


def contradicted(
    claim: ClaimJudgement,
    *,
    kind: ConflictKind,
    said: str,
    stated: str,
    score: float,
    sentence: tuple[int, str],
    trace: RagTrace,
    why: str = "",
) -> ClaimJudgement:
    """``claim`` contradicted in code: ``said`` (the claim's) against ``stated`` (the passage
    ``sentence``'s: its passage index and text), at least at ``score``; ``why`` adds to the
    reason."""
    ctx, text = sentence
    return replace(
        claim,
        verdict="contradicted",
        score=max(claim.score if claim.verdict == "contradicted" else 0.0, score),
        evidence=Evidence(context_index=ctx, context_id=trace.contexts[ctx].id, text=text),
        reason=f"{kind} mismatch: {said} vs {stated}" + (f" ({why})" if why else ""),
        conflict=Conflict(kind=kind, claim=said, evidence=stated),
    )


def as_not_found(claim: ClaimJudgement, reason: str) -> ClaimJudgement:
    """``claim`` not found, for ``reason``: no conflict stands."""
    return replace(claim, verdict="not_found", reason=reason, conflict=None)


def crossed(
    claim: ClaimJudgement,
    hit: Crossed | None,
    kind: ConflictKind,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    terse: bool,
) -> ClaimJudgement | None:
    """``claim`` contradicted by ``hit``; held back (not found) or None (unchanged) where a
    sentence's cases are no names, or there is no ``hit``."""
    if hit is None:
        return None
    own = f"for {hit.other}" if hit.other else f"without {hit.asked}"
    cases = f"{hit.said} is stated {own}, {hit.stated} for {hit.asked}"
    if not (hit.named or terse):
        # In a sentence, cases named by plain words ("usual" / "severe") are held back:
        # contradicting on them cost the triage set 3 false findings for 6 (Session 46).
        if claim.verdict != "supported":
            return None
        return replace(claim, verdict="not_found", reason=f"{_HELD}{cases}")
    return contradicted(
        claim, kind=kind, said=hit.said, stated=hit.stated, score=_CROSSED_SCORE,
        sentence=sentences[hit.sentence], trace=trace, why=cases,
    )  # fmt: skip


def check_crossed(
    claim: ClaimJudgement,
    values: Sequence[StatedValue],
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    terse: bool,
    question: str = "",
) -> ClaimJudgement | None:
    """A value the passages state for a neighbouring case, in a clause parallel to the asked
    case's, which states another value (:mod:`.values.parallel`): contradicted (a sentence's
    only where both cases are names; else held back as not found). ``question``: a short
    answer's, whose words ask the case too."""
    asked = asked_words(claim.text) | asked_words(question)
    # A fragment ("2 tablets", "£4.95") is of the case its question qualifies; a sentence may
    # leave words out that the passage's clause has ("20 minutes before [departure]").
    fragment = bool(question) and len((trace.answer or "").split()) <= _FRAGMENT_WORDS
    evidence = [s for _, s in sentences]
    passage_of = [ctx for ctx, _ in sentences]
    answered = stated_values(trace.answer or "")
    for value in values:
        hit = crossed_value(
            value, asked, evidence, values, passage_of, fragment=fragment, answered=answered
        )
        kind = KINDS.get(value.kind, "number")
        checked = crossed(claim, hit, kind, sentences, trace, terse=terse)
        if checked is not None:
            return checked
    return None


def check_days(
    claim: ClaimJudgement,
    values: Sequence[StatedValue],
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    asked: str | None,
    question: str,
    short: bool = False,
) -> ClaimJudgement | None:
    """A value the passages state only for other days of the week than the claim's ("11 pm"
    asked for Sunday, stated "on Friday and Saturday"), only for age bands without the age the
    claim or question names ("8 tablets" for a 12-year-old, stated for ages 16 and over), or
    only for the opposite of a case the
    question (``asked``: a short answer's) names ("£486" asked for metered customers, stated
    for unmetered ones): contradicted by the value stated for the claim's case, else not found
    (:mod:`.values.weekdays`, :mod:`.values.bands`, :mod:`.values.opposite`). In a sentence
    "un-" words are as often what is said ("unused days ... must be used by 31 March") as which case: not read there."""
    # A short answer naming no day ("6 am") is about the days its question names ("on Saturdays").
    claim_days = days_named(claim.text) or (days_named(question) if short else frozenset())
    age = claim_age(f"{question} {claim.text}")
    evidence = [s for _, s in sentences]
    passage_of = [ctx for ctx, _ in sentences]
    written = normalised(claim.text)
    for value in values:
        days = _clause_days(written, value) or claim_days
        other = _other_case(value, evidence, values, passage_of, days=days, age=age, asked=asked)
        if other is not None:
            said, case, stated, sentence = other
            return _elsewhere(
                claim, value, said=said, case=case, stated=stated, sentence=sentence,
                sentences=sentences, trace=trace,
            )  # fmt: skip
    return None


def _clause_days(text: str, value: StatedValue) -> frozenset[int]:
    """The days named in the clause of ``text`` (a claim, :func:`.values.stated.normalised`)
    that states ``value``: "Saturday delivery costs £4.99, the same as on weekdays" claims
    £4.99 for Saturday. Empty when that clause names no day, or ``value`` is not written there."""
    start, end = value.span
    if not start < end <= len(text) or text[start:end] != value.text:
        # a short answer's values are read with its question: found again, when written once
        start = text.find(value.text) if text.count(value.text) == 1 else -1
        if start < 0 or not value.text:
            return frozenset()
        end = start + len(value.text)
    return days_named(text[slice(*clause_bounds(text, start, end))])


def _other_case(
    value: StatedValue,
    evidence: Sequence[str],
    values: Sequence[StatedValue],
    passage_of: Sequence[int],
    *,
    days: frozenset[int],
    age: float | None,
    asked: str | None,
) -> tuple[str, str, str | None, int | None] | None:
    """(said, case, stated, sentence) of the first of: other days, another age band, the
    opposite case; None when ``value`` is stated for the claim's own."""
    day = other_days(value, days, evidence, values, passage_of)
    if day is not None:
        return day.said, day.days, day.stated, day.sentence
    band = other_band(value, age, evidence, values, passage_of)
    if band is not None:
        return band.said, band.band, band.stated, band.sentence
    turned = opposite_case(value, asked, evidence, values, passage_of) if asked else None
    if turned is not None:
        return turned.said, turned.case, turned.stated, turned.sentence
    return None


def _elsewhere(
    claim: ClaimJudgement,
    value: StatedValue,
    *,
    said: str,
    case: str,
    stated: str | None,
    sentence: int | None,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> ClaimJudgement | None:
    """``claim``, whose ``value`` the passages state (as ``said``) only for another ``case``:
    contradicted by ``stated``, the value of the claim's own case, else not found when it was
    supported; None (unchanged) otherwise."""
    if stated is not None and sentence is not None:
        return contradicted(
            claim, kind=KINDS.get(value.kind, "number"), said=value.text, stated=stated,
            score=_CROSSED_SCORE, sentence=sentences[sentence], trace=trace,
            why=f"{said} is stated for {case}",
        )  # fmt: skip
    if claim.verdict == "supported":
        return replace(
            claim,
            verdict="not_found",
            reason=f"value stated for another case: {said} for {case}",
            conflict=None,
        )
    return None


def paired_case(
    values: Sequence[StatedValue], sentences: Sequence[tuple[int, str]], question: str = ""
) -> bool:
    """A value of the claim stated beside the case its other value, or its ``question``'s,
    names (:func:`.values.paired.case_confirmed`): which case it is the values say, not the
    words the clauses share or drop."""
    evidence = [s for _, s in sentences]
    given = stated_values(question) if question else ()
    return any(
        case_confirmed(v, [*(o for o in values if o is not v), *given], evidence) for v in values
    )


def check_pairs(
    claim: ClaimJudgement,
    values: Sequence[StatedValue],
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    question: str = "",
) -> ClaimJudgement | None:
    """A value the passages state beside another case than the one the claim's other value
    names ("£280" for dogs "over 20 kg", stated for dogs under 20 kg), or a short answer's
    ``question`` names ("What is the 200 m record?" / "9.58 seconds", the 100 m record), while
    they state that case with another value (:mod:`.values.paired`): contradicted."""
    evidence = [s for _, s in sentences]
    if uncovered_age(f"{question} {claim.text}", evidence):
        return None  # the age asked is no band's: a case the passages lack, not another's
    given = stated_values(question) if question else ()
    for value in values:
        if any(agrees(value, g) for g in given):
            continue  # the question's own value, echoed
        cases = [*(v for v in values if v is not value), *given]
        hit = crossed_pair(value, cases, evidence)
        if hit is not None:
            return contradicted(
                claim, kind=KINDS.get(value.kind, "number"), said=value.text, stated=hit.stated,
                score=_CROSSED_SCORE, sentence=sentences[hit.sentence], trace=trace,
                why=f"{hit.said} is stated for {hit.other}, not {hit.case}",
            )  # fmt: skip
    return None


def check_ranges(
    claim: ClaimJudgement,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    question: str = "",
) -> ClaimJudgement | None:
    """A range of the claim with one end the passages' range's and the other not ("from 1
    October to 31 January" against "from 15 October to 31 January"): contradicted. A short
    answer's range is read with its ``question``; None where a wh-question names a case no
    passage mentions (the range may be that case's)."""
    texts = [s for _, s in sentences]
    if question and (not _WH_QUESTION.match(question) or absent_words(question, texts)):
        return None
    text = f"{question.strip().rstrip('?')}: {claim.text}" if question else claim.text
    hit = crossed_range(text, texts)
    if hit is None:
        return None
    return contradicted(
        claim, kind="number", said=hit.said, stated=hit.stated, score=_CROSSED_SCORE,
        sentence=sentences[hit.sentence], trace=trace, why="one end of the range differs",
    )  # fmt: skip


def check_qualified(
    claim: ClaimJudgement,
    value: StatedValue,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
    *,
    question: str = "",
) -> ClaimJudgement | None:
    """A claim's one value stated for one qualifier of a noun ("a cabin bag of up to 10 kg")
    while the claim's words (a short answer's: its ``question``'s) name another ("the checked
    bag", stated with 25 kg) and not the value's own: contradicted."""
    asked = {(q, n) for q, n, _ in qualified_pairs(question or claim.text)}
    if not asked:
        return None
    words = set(content_words(question or claim.text))
    hit = qualified_rival(value, asked, [s for _, s in sentences], words)
    if hit is None:
        return None
    return contradicted(
        claim, kind=KINDS.get(value.kind, "number"), said=value.text, stated=hit.stated,
        score=_CROSSED_SCORE, sentence=sentences[hit.sentence], trace=trace,
        why=f"{value.text} is stated for {hit.own}, not {hit.asked}",
    )  # fmt: skip


def check_sentence_names(
    claim: ClaimJudgement, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement:
    """A sentence giving one named thing what a parallel clause gives another ("Cabañeros
    National Park is located in Tenerife" against "Teide National Park ... located in Tenerife.
    Cabañeros National Park ... in the Montes de Toledo"): contradicted between named cases,
    else held back (:func:`.values.parallel.crossed_case`)."""
    if claim.verdict == "contradicted":
        return claim
    evidence = [s for _, s in sentences]
    passage_of = [ctx for ctx, _ in sentences]
    for name in entity_spans(claim.text):
        words = asked_words(name)
        if not words:
            continue
        hit = crossed_case(asked_words(claim.text) - words, name, evidence, passage_of)
        if hit is not None and _coordinated(claim.text, hit.said, hit.asked):
            continue  # "Quietdrive and Supergrass are bands": both are the subject
        checked = crossed(claim, hit, "entity", sentences, trace, terse=False)
        if checked is not None:
            return checked
    return claim


def _coordinated(text: str, a: str, b: str) -> bool:
    """``a`` and ``b`` are joined in ``text`` as one list ("A and B", "B, A", "A or B")."""
    join = r"\W*(?:,|and|or|&|as well as)\W+(?:\w+\W+){0,3}?"
    x, y = re.escape(a), re.escape(b)
    return bool(re.search(rf"{x}{join}{y}|{y}{join}{x}", text, re.IGNORECASE))


_WH_QUESTION = re.compile(r"\s*(?:what|which|who|whom|whose|how|when|where)\b", re.I)
#: Question words that ask (or restate a period the values carry), no case of their own.
_WH_WORDS = ("what", "which", "who", "whom", "whose", "how", "when", "where")
_NO_CASE = frozenset(
    content_words(
        "time day date long much many often price cost amount number size age old far big large "
        "small high low fast annual annually yearly monthly weekly daily hourly nightly "
        # the kind of value asked ("How much area ...", "a planetarium ticket"), not a case
        "area size length width height depth weight distance speed temperature duration "
        "capacity volume ticket fee fare charge rate"
    )
).union(_WH_WORDS)


def absent_words(question: str, evidence: Sequence[str]) -> list[str]:
    """The words ``question`` names a case by that no ``evidence`` sentence has."""
    seen = {w for s in evidence for w in content_words(s)}
    return [
        w
        for w in content_words(question)
        if w not in seen and w not in _NO_CASE and w not in LIGHT_WORDS and w.isalpha()
    ]


def check_asked_case(
    claim: ClaimJudgement,
    value: StatedValue,
    question: str,
    sentences: Sequence[tuple[int, str]],
    trace: RagTrace,
) -> ClaimJudgement | None:
    """A short answer's one value (to a wh-question) that the passages state only beside a
    value of exactly its kind whose case the question's words name ("How long is the 0% period
    on purchases?" / "24 months": "0% on purchases for 20 months and 0% on balance transfers for
    24 months"): contradicted. None where the question names a case no passage mentions ("on
    Sundays", "wheel alignment": the value may be the asked case's, stated nowhere)."""
    texts = [s for _, s in sentences]
    if not _WH_QUESTION.match(question) or absent_words(question, texts):
        return None
    hit = other_case(value, texts, exact=True)
    if hit is None:
        return None
    text = texts[hit.sentence]
    if _named_by_value(question, text, hit.agreed, hit.stated):
        # the question names the value's own case by a value ("the 5 km entry fee": "$25 for
        # the 10 km race, while the 5 km fun run costs $15"): the paired-values check reads it
        return None
    own = f" for {', '.join(as_written(text, hit.own))}" if hit.own else ""
    other = ", ".join(as_written(text, hit.other))
    return contradicted(
        claim, kind=KINDS.get(value.kind, "number"), said=hit.agreed, stated=hit.stated,
        score=_CROSSED_SCORE, sentence=sentences[hit.sentence], trace=trace,
        why=f"{hit.agreed} is stated{own}, {hit.stated} for {other}",
    )  # fmt: skip


def _named_by_value(question: str, sentence: str, agreed: str, stated: str) -> bool:
    """A value of ``question`` is stated in the clause of ``agreed`` and not in the clause of
    ``stated`` (the clauses of :func:`.values.parallel.clauses`); or the clause of ``stated``
    names another case of a question value's kind and the clause of ``agreed`` none ("How much
    is the 256 GB model?": "$699 for the 128 GB version" is not the case its word "GB" asks)."""
    given = stated_values(question)
    parts = clauses(sentence)
    own = next((c for c in parts if agreed in c), "")
    other = next((c for c in parts if stated in c), "")
    if not given or not own or own == other:
        return False

    def says(clause: str) -> bool:
        return any(agrees(g, e) for g in given for e in stated_values(clause))

    def denies(clause: str) -> bool:
        return any(
            exact_kind(g, e) and not agrees(g, e) for g in given for e in stated_values(clause)
        )

    return (says(own) and not says(other)) or (
        denies(other) and not says(other) and not denies(own)
    )
