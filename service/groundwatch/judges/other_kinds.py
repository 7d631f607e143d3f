"""A claim that gives one kind's fact to another: "Blueberries cost £7 a kilo" against
"raspberries £7 per kg", "About 2.6 metres" (an adult female Komodo dragon) against "Adult male
Komodo dragons average 2.6 m".

Usage::

    held = check_kind(claim, question, sentences)   # a supported claim, or None to keep it

Two readings (:mod:`.rules.substituted`, with :mod:`.text.kinds` telling two kinds of one thing
from one thing said two ways):

* the claim names a kind no passage has, and a sentence that states its value names another kind
  of the same thing: the passages say nothing of the claim's kind;
* the one clause that states the claim's value names another kind than the claim's, which the
  claim does not name: the value is that kind's.

Only claims with a value the passages state: for any claim (names too) HaluEval QA went 0.817 ->
0.793 with the verifier, 0.930 -> 0.900 with the rules judge (Session 54). Either way the claim
is not found, never supported. (Not contradicted: the value the passages
give the claim's own kind, where they give one, is for the value checks to align.)
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.cases import as_not_found
from groundwatch.judges.claims.extract import terse_claim_parts
from groundwatch.judges.claims.short_answers import terse_parts
from groundwatch.judges.rules.substituted import substituted
from groundwatch.judges.values.agreement import clauses_of
from groundwatch.judges.values.alignment import agrees
from groundwatch.judges.values.stated import stated_values

__all__ = ["check_kind"]


def check_kind(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]]
) -> ClaimJudgement | None:
    """``claim`` (supported) held back as not found where it gives one kind's fact to another;
    None otherwise. ``question``: unused for the kinds (a short answer's own words are its kinds:
    with its question's, HaluEval QA went 0.817 -> 0.793), kept for the reason."""
    parts = terse_parts(claim.text, question) or terse_claim_parts(claim.text)
    said, asked = (parts[1], parts[0]) if parts is not None else (claim.text, "")
    texts = [s for _, s in sentences]
    for clause in _clauses_stating(claim, texts):
        # the answer's kind, missing from the clause; the question's, missing from the passages
        swap = substituted(said, "", clause, [clause])
        if swap is None and asked:
            swap = substituted(said, asked, clause, texts)
        if swap is not None:
            return as_not_found(
                claim, f"value stated for {swap[1]}, not {swap[0]}: {clause.strip()}"
            )
    return None


def _clauses_stating(claim: ClaimJudgement, texts: Sequence[str]) -> list[str]:
    """The clauses of the passages that state one of the claim's values."""
    mine = stated_values(claim.text)
    return [
        c
        for s in texts
        for c in clauses_of(s)
        if any(agrees(v, e) for v in mine for e in stated_values(c))
    ]
