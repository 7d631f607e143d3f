"""The negation twin: a claim that is its evidence clause with the negation turned round.

Usage::

    negation_twin("Scuba diving is covered under Basic.", "Scuba diving is not covered under Basic.")
    # ('negation mismatch: claim is positive, evidence is negative', Conflict(kind='negation', ...))

The claim verifier reads a passage-sized window and often misses a bare "not" (P(contradicted)
under its bar for "is available" against "is not available"). When every content word of the
claim is in the clause of its best-aligned evidence sentence that is about it, and the two
differ in polarity on a word they share, the contradiction is in the words themselves. Anything
that moves a negation's scope makes it no twin, and the verifier decides as before: a reworded
negative ("prohibited" for "not allowed": other words), an exception or a condition ("except",
"unless", "only", "if", "when"), a negation bearing on a word the claim does not assert ("at no
extra cost"), a terse "Q? A." claim.
"""

from __future__ import annotations

import re

from groundwatch.contract.record import Conflict
from groundwatch.judges.claims.extract import terse_claim_parts
from groundwatch.judges.claims.target import fuzzy_in
from groundwatch.judges.text.grammar import AUXILIARIES, is_verb, subject_of
from groundwatch.judges.text.polarity import (
    negated_words,
    negator_written,
    polarity_negated,
    related,
    word_written,
)
from groundwatch.judges.text.words import content_words, word_set
from groundwatch.judges.values.agreement import clauses_of

__all__ = ["negation_twin"]

#: Words that move a negation's scope (exceptions, exclusions such as "cannot be shipped outside
#: the UK", conditions, contrasts, alternatives) or
#: negate without a negator ("free of charge" is "no charge", "exempt from" is "not liable").
_SCOPE_WORDS = word_set(
    """
    except unless only without but however although though apart otherwise instead rather
    outside beyond besides if when whenever once until while whether either neither nor or than
    free exempt lack lacks lacking fail fails failed waive waived waives exclude excludes
    excluded excluding absent refuse refused refuses deny denied denies prohibit prohibited
    forbid forbidden ban banned prevent prevents prevented avoid stop stops stopped cease
    """
)
_NEGATION_WORDS = frozenset({"not", "no", "never"})
_MIN_WORDS = 3


def negation_twin(
    claim: str, sentence: str, before: str = ""
) -> tuple[str, Conflict | None] | None:
    """(reason, conflict) when ``claim`` is ``sentence``'s clause about it with the polarity
    turned round; None otherwise. ``before``: the passage's text before ``sentence``, which a
    clause whose subject is a pronoun ("He did not attend the ceremony") refers back to: the
    claim's words it states ("Bob Dylan", "Nobel") count as the clause's."""
    if terse_claim_parts(claim) is not None:
        return None
    words = [w for w in dict.fromkeys(content_words(claim)) if w not in _NEGATION_WORDS]
    if len(words) < _MIN_WORDS:
        return None
    clause = _best_clause(frozenset(words), sentence)
    if _SCOPE_WORDS & set(_tokens(claim) + _tokens(clause)):
        return None
    clause_words = frozenset(content_words(clause))
    if before and _tokens(clause)[:1] in (["he"], ["she"], ["it"], ["they"]):
        own = [w for w in words if fuzzy_in(w, clause_words)]
        if len(own) >= _MIN_WORDS - 1:  # the clause states the relation, not only its subject
            clause_words |= frozenset(content_words(before))
    if not all(fuzzy_in(w, clause_words) for w in words):
        return None
    claim_negated = polarity_negated(claim)
    if claim_negated == polarity_negated(clause):
        return None
    negative, positive = (claim, clause) if claim_negated else (clause, claim)
    scope = negated_words(tuple(_tokens(negative)))
    positive_words = set(content_words(positive))
    if not scope or not any(related(a, b) for a in scope for b in positive_words):
        return None  # the negation bears on something the other side does not assert
    reason = "negation mismatch: claim is " + (
        "negative, evidence is positive" if claim_negated else "positive, evidence is negative"
    )
    evidence = negator_written(clause) if not claim_negated else word_written(clause, scope)
    return reason, Conflict(kind="negation", claim=None, evidence=evidence)


def _best_clause(words: frozenset[str], sentence: str) -> str:
    """The clause of ``sentence`` sharing most words with the claim; a clause with no subject of
    its own ("... until midnight and are non-transferable") read with the one before it."""
    clauses: list[str] = []
    subject: str | None = None
    for written in clauses_of(sentence):
        first = written.split()[0].lower()
        if clauses and subject and (first in AUXILIARIES or is_verb(first)):
            clauses.append(f"{subject} {written}")  # "Day Rover tickets are non-transferable"
            continue
        subject = subject_of(written)
        clauses.append(written)
    return max(clauses, key=lambda c: len(words & set(content_words(c))))


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)?", text.lower().replace("’", "'"))
