"""Slot agreement: does an evidence sentence agree with a claim on what the claim asserts?

Usage::

    check = compare_slots(parse_slots("The refund window is 14 days."),
                          parse_slots("Refunds are accepted within two weeks."))
    check.conflicts   # [] -> numbers agree (14 days == two weeks)

Slots are numbers with units (percentages, currencies, ranges, written-out numbers, durations,
lengths, masses, data sizes), years and dates, named entities (capitalised spans), negation,
modality (may / must) and comparatives (more / less, before / after, ...). Cosine similarity
cannot see any of these, so they are checked here, explicitly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from groundwatch.contract.record import Conflict
from groundwatch.judges.text.grammar import common_word
from groundwatch.judges.text.polarity import (
    OPPOSITES,
    modal_written,
    negated_words,
    negator_written,
    related,
    word_written,
)
from groundwatch.judges.text.words import STOPWORDS, content_words
from groundwatch.judges.values.quantities import (
    Quantity,
    bounds_compatible,
    kinds_compatible,
    same_unit,
)
from groundwatch.judges.values.slots import Slots, parse_slots

__all__ = [
    "SlotCheck",
    "ValueConflict",
    "best_clause",
    "clauses_of",
    "compare_slots",
]


_CLAUSE = re.compile(
    r"\s*(?:;|,\s*(?:but|while|whereas|although|though|however|and)\b|\s+and\s+(?=\w+\s+\w+)|\bbut\b|\bwhereas\b|\bwhile\b|\bhowever\b|\bunlike\b|\bexcept\b)\s*",
    re.I,
)


_PARENS = re.compile(r"\([^()]*\)")


@dataclass(frozen=True)
class ValueConflict:
    """A claim value and the evidence value that disagrees with it, each as written
    (``"23 kg"`` vs ``"32 kg"``, ``"1934"`` vs ``"1932"``): data a caller can act on, such as
    restating the claim with the evidence's value."""

    kind: str  # "number" | "date" | "year"
    claim_text: str
    evidence_text: str


@dataclass
class SlotCheck:
    """Result of comparing a claim's slots with an evidence text."""

    conflicts: list[str] = field(default_factory=list)
    #: The number, date and year conflicts of ``conflicts`` as data, in the same order (a date
    #: conflict is here only when its years differ: the year is the part written alike).
    value_conflicts: list[ValueConflict] = field(default_factory=list)
    qualifier_conflicts: list[str] = field(default_factory=list)
    matched: int = 0
    values_matched: int = 0  # numbers, dates and years that agree
    missing: list[str] = field(default_factory=list)
    agreed: list[str] = field(default_factory=list)  # claim values this evidence states
    #: claim values on the side of a comparison bound this evidence states ("4 p.m." against
    #: "after 2 p.m."): consistent with it, though not stated
    within: list[str] = field(default_factory=list)
    #: Each reason of ``conflicts`` (and ``qualifier_conflicts``) -> the disagreeing words as
    #: written, as data: what a finding shows and the page marks.
    found: dict[str, Conflict] = field(default_factory=dict)

    def add(self, reason: str, conflict: Conflict | None, *, qualifier: bool = False) -> None:
        """Record one disagreement: its reason and, when the words are known, its data."""
        (self.qualifier_conflicts if qualifier else self.conflicts).append(reason)
        if conflict is not None:
            self.found.setdefault(reason, conflict)


def _negation_in_scope(claim: Slots, evidence: Slots, sentence: Slots) -> bool:
    """A polarity clash counts only when the negated word is one the other side asserts:
    "is not prorated" vs "is prorated", not "if a payment is not received" vs "more than ten
    days late" (the evidence negates something the claim does not talk about)."""
    negative, positive = (claim, evidence) if claim.negated else (evidence, claim)
    scope = negated_words(negative.tokens)
    if not scope:
        return True  # "no", "none", "nothing": the whole statement
    words = positive.words | (sentence.words if positive is evidence else frozenset())
    return any(related(a, b) for a in scope for b in words)


def _negation_conflict(claim: Slots, clause: Slots, clause_text: str | None) -> Conflict | None:
    """The words of a polarity clash: the negator on the negative side; on the positive
    evidence side, the word the claim negates ("is not prorated" vs "is prorated")."""
    if clause_text is None:
        return None
    if clause.negated:
        return Conflict(kind="negation", claim=None, evidence=negator_written(clause_text))
    return Conflict(
        kind="negation",
        claim=None,
        evidence=word_written(clause_text, negated_words(claim.tokens)),
    )


def _same_date(
    a: tuple[int | None, int, int | None], b: tuple[int | None, int, int | None]
) -> bool:
    (y, mon, day), (ey, em, ed) = a, b
    return (
        (y is None or ey is None or ey == y)
        and em == mon
        and (day is None or ed is None or ed == day)
    )


def _agree(q: Quantity, e: Quantity) -> bool:
    return kinds_compatible(q, e) and q.overlaps(e) and same_unit(q, e)


def _same_attribute(a: Quantity, b: Quantity) -> bool:
    """Two values that measure the same kind of thing (a disagreement is possible)."""
    if a.kind == "n:" or b.kind == "n:":
        # A bare number ("two", "fifteen") is attached to nothing the unit can tell: it is the
        # same attribute only when both are bare and their words say so.
        return a.kind == b.kind == "n:" and bool(a.context & b.context)
    return kinds_compatible(a, b)


def _rival(q: Quantity, claim: Slots, evidence: Slots, taken: set[int]) -> Quantity | None:
    """The evidence value stating the same attribute as ``q`` with another value, if any."""
    rivals = [
        e
        for k, e in enumerate(evidence.quantities)
        if k not in taken and not e.derived and e.relative == q.relative and _same_attribute(q, e)
    ]
    if not rivals:
        return None
    peers = [c for c in claim.quantities if c is not q and _same_attribute(q, c)]
    if len(rivals) == 1 and not peers:
        best = rivals[0]
    else:
        # Several candidates: only one about the same thing (shared neighbouring words) counts.
        best = max(rivals, key=lambda e: len(e.context & q.context))
        if not best.context & q.context:
            return None
    # A value attached to another name than the claim's ("Premium plan: 1,000" for a claim
    # about the Basic plan) is that name's value, not a rival.
    if _other_names_value(best, claim, evidence):
        return None
    return best


def _names(claim: Slots, evidence: Slots) -> set[str]:
    """The words of the names the claim gives. A capitalised first word alone ("Inflation fell
    ...") is a name only if the evidence does not use it as a common word (lower case)."""
    out: set[str] = set()
    evidence_names = {w for ent in evidence.entities for w in content_words(ent)}
    for ent in claim.entities:
        words = content_words(ent)
        initial = " " not in ent and bool(claim.tokens) and claim.tokens[0] == ent.lower()
        if initial and all(w in evidence.words and w not in evidence_names for w in words):
            continue
        # "Full-price adults pay": a compound of common words that opens the sentence
        parts = re.findall(r"[a-z]+", ent.lower())
        compound = "-" in ent and " " not in ent and tuple(claim.tokens[:1]) == tuple(parts[:1])
        if compound and all(common_word(p) for p in parts) and not set(words) & evidence_names:
            continue
        out.update(words)
    return out


def _other_names_value(e: Quantity, claim: Slots, evidence: Slots) -> bool:
    """``e`` is attached to another name than the ones the claim names ("Business class ...
    32 kg" for a claim about economy): it neither rivals nor agrees with the claim's value."""
    names = _names(claim, evidence)
    if not names:
        return False
    theirs = {w for ent in evidence.entities for w in content_words(ent)} - claim.words
    where = e.context | e.scope
    return bool(where & theirs) and not where & names


def _aside_words(evidence_text: str | None) -> frozenset[str]:
    """Words only the parenthesised asides of ``evidence_text`` use: the case they are about
    ("monthly" in "billed annually (€29 if billed monthly)")."""
    if not evidence_text or "(" not in evidence_text:
        return frozenset()
    words = set(re.findall(r"[a-z]+", evidence_text.lower()))
    main = set(re.findall(r"[a-z]+", _PARENS.sub(" ", evidence_text).lower()))
    return frozenset(w for w in words - main if w not in STOPWORDS and len(w) > 2)


def _aside_rival(
    q: Quantity,
    agreeing: list[Quantity],
    claim: Slots,
    evidence: Slots,
    taken: set[int],
    *,
    aside_words: frozenset[str],
) -> Quantity | None:
    """The value the evidence states for the claim's own name when it states the claim's value
    only in an aside about another case: "Pro: €24 per user, billed annually (€29 if billed
    monthly)" for a claim that the Pro plan costs €29 billed annually. A claim that names the
    aside's case ("if billed monthly") agrees with the aside."""
    if not agreeing or not all(e.aside for e in agreeing):
        return None
    if not aside_words or aside_words & set(claim.tokens):
        return None
    names = {w for ent in claim.entities for w in content_words(ent)}
    if not names or any((e.context | e.scope) & names for e in agreeing):
        return None
    rival = _rival(q, claim, evidence, taken)
    if rival is None or rival.aside or not (rival.context | rival.scope) & names:
        return None
    return rival


def _entity_present(entity: str, words: frozenset[str]) -> bool:
    parts = content_words(entity)
    return bool(parts) and all(p in words for p in parts)


def clauses_of(evidence: str) -> list[str]:
    """The clauses of ``evidence`` (split at "; ", ", but", " and " before two words, ...)."""
    return [c for c in _CLAUSE.split(evidence) if c and c.strip()] or [evidence]


def best_clause(claim_words: frozenset[str], evidence: str) -> str:
    """The clause of ``evidence`` that shares most content words with the claim."""
    clauses = clauses_of(evidence)
    if len(clauses) <= 1:
        return evidence
    return max(clauses, key=lambda c: len(claim_words & set(content_words(c))))


def compare_slots(
    claim: Slots, evidence: Slots, evidence_text: str | None = None, context: Slots | None = None
) -> SlotCheck:
    """Compare a claim with one evidence sentence (``context``: the rest of its passage)."""
    check = SlotCheck()
    ctx_words = evidence.words | (context.words if context else frozenset())
    # Numbers: each claim quantity must equal some evidence quantity of a compatible kind.
    # An evidence value that equals one claim value is that value's, not another's rival.
    taken = {
        k for k, e in enumerate(evidence.quantities) if any(_agree(q, e) for q in claim.quantities)
    }
    aside_words = _aside_words(evidence_text)
    for q in claim.quantities:
        if q.derived:
            continue  # the values it is read from are checked
        same_kind = [e for e in evidence.quantities if kinds_compatible(q, e)]
        # The same value stated for another name ("Business class ... 32 kg" for a claim about
        # economy) is not agreement, as it is no rival either.
        agreeing = [
            e for e in same_kind if _agree(q, e) and not _other_names_value(e, claim, evidence)
        ]
        aside_rival = _aside_rival(q, agreeing, claim, evidence, taken, aside_words=aside_words)
        if aside_rival is not None:
            check.add(
                f"number mismatch: {q.text} vs {aside_rival.text}",
                Conflict(kind="number", claim=q.text, evidence=aside_rival.text),
            )
            check.value_conflicts.append(ValueConflict("number", q.text, aside_rival.text))
        elif agreeing:
            check.matched += 1
            check.agreed.append(q.text)
        elif q.kind == "n:" and q.value in evidence.years:
            check.matched += 1
        else:
            rival = _rival(q, claim, evidence, taken)
            # The passage states the claim's value elsewhere, about something closer to the
            # claim's wording than the rival is: the sentence is not the place to compare.
            in_passage = rival is not None and any(
                _agree(q, e) and len(e.context & q.context) > len(rival.context & q.context)
                for e in (context.quantities if context is not None else ())
            )
            # A value within another bound of its kind ("£40,000" and "£50,000 or less", the
            # rival "over £250,000"): the bounds are cases, and the claim's is the other one.
            cased = rival is not None and bool(rival.bound) and not q.bound
            cased = cased and any(e.bound and bounds_compatible(q, e) for e in same_kind)
            if rival is not None and (bounds_compatible(q, rival) or cased):
                check.missing.append(q.text)  # within the bound: neither agreement nor rival
                check.within.append(q.text)
            elif rival is not None and not in_passage:
                check.add(
                    f"number mismatch: {q.text} vs {rival.text}",
                    Conflict(kind="number", claim=q.text, evidence=rival.text),
                )
                check.value_conflicts.append(ValueConflict("number", q.text, rival.text))
            else:
                check.missing.append(q.text)
    # Dates and years.
    ev_years = set(evidence.years) | {d[0] for d in evidence.dates if d[0] is not None}
    # Dates in parentheses are asides ("X (born 1975) joined in 2001"): they match, never clash.
    core = evidence
    if evidence_text is not None and "(" in evidence_text:
        core = parse_slots(_PARENS.sub(" ", evidence_text))
    core_years = set(core.years) | {d[0] for d in core.dates if d[0] is not None}
    # As with numbers, an evidence date equal to one claim date is no rival to another.
    date_rivals = [d for d in core.dates if not any(_same_date(c, d) for c in claim.dates)]
    for y, mon, day in claim.dates:
        if any(_same_date((y, mon, day), d) for d in evidence.dates):
            check.matched += 1
        elif date_rivals:
            ey, em, ed = date_rivals[0]
            years_differ = y is not None and ey is not None and y != ey
            check.add(
                f"date mismatch: {mon}/{day}/{y} vs {em}/{ed}/{ey}",
                Conflict(kind="date", claim=str(y), evidence=str(ey)) if years_differ else None,
            )
            if years_differ:
                check.value_conflicts.append(ValueConflict("date", str(y), str(ey)))
        else:
            check.missing.append(f"date {mon}/{day}")
    claim_years = set(claim.years) | {d[0] for d in claim.dates if d[0] is not None}
    ctx_years = ev_years | (set(context.years) if context else set())
    for y in claim_years:
        if y in ctx_years:
            check.matched += 1
        elif core_years:
            rival_year = min(core_years, key=lambda e: abs(e - y))
            if claim.quantities:
                check.add(
                    f"year mismatch: {y} vs {rival_year}",
                    Conflict(kind="year", claim=str(y), evidence=str(rival_year)),
                    qualifier=True,
                )
            else:
                check.add(
                    f"year mismatch: {y} vs {rival_year}",
                    Conflict(kind="year", claim=str(y), evidence=str(rival_year)),
                )
                check.value_conflicts.append(ValueConflict("year", str(y), str(rival_year)))
        else:
            check.missing.append(str(y))
    # Entities: every capitalised span of the claim must appear in the evidence or its passage.
    check.values_matched = check.matched
    # (Missing names are the caller's coverage check, not a slot disagreement.)
    check.matched += sum(1 for ent in claim.entities if _entity_present(ent, ctx_words))
    # Negation, modality, opposites: compare on the clause of the evidence about the claim.
    clause_slots = evidence
    clause = evidence_text
    if evidence_text is not None:
        clause = best_clause(claim.words, evidence_text)
        if clause != evidence_text:
            clause_slots = parse_slots(clause)
    if (
        claim.negated is not None
        and claim.negated != clause_slots.negated
        and _negation_in_scope(claim, clause_slots, evidence)
    ):
        check.add(
            "negation mismatch: claim is "
            + ("negative" if claim.negated else "positive")
            + ", evidence is "
            + ("negative" if clause_slots.negated else "positive"),
            _negation_conflict(claim, clause_slots, clause),
        )
    mine, theirs = claim.modality, clause_slots.modality
    # "may be taken" vs "must be taken", "optional" vs "required"; not "can request a refund
    # within 14 days" vs "requests must be made within 14 days" (another verb: a deadline).
    if (
        mine
        and theirs
        and mine[0] != theirs[0]
        and (mine[1] == theirs[1] or "adj" in (mine[1], theirs[1]))
    ):
        check.add(
            f"modality mismatch: {mine[0]} vs {theirs[0]}",
            Conflict(kind="modality", claim=None, evidence=modal_written(clause, theirs[0]))
            if clause is not None
            else None,
        )
    claim_tokens = set(claim.tokens)
    clause_tokens = set(clause_slots.tokens)
    ev_count = {(idx, side): n for idx, side, n in clause_slots.opposites}
    claim_count = {(idx, side): n for idx, side, n in claim.opposites}
    for (idx, side), n in claim_count.items():
        other = (idx, 1 - side)
        # The evidence says the opposite word where the claim says this one: "higher" vs
        # "lower" (counted, since "at higher altitudes the point is lower" has both).
        if ev_count.get(other, 0) > claim_count.get(other, 0) and n > ev_count.get((idx, side), 0):
            words = OPPOSITES[idx]
            said = sorted(w for w in words[side] if w in claim_tokens) or sorted(words[side])
            found = sorted(w for w in words[1 - side] if w in clause_tokens) or sorted(
                words[1 - side]
            )
            check.add(
                f"comparative mismatch: {said[0]} vs {found[0]}",
                Conflict(kind="comparative", claim=said[0], evidence=found[0]),
            )
    return check
