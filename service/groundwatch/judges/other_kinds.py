"""A claim that gives one kind's fact to another: "Blueberries cost £7 a kilo" against
"raspberries £7 per kg", "About 2.6 metres" (an adult female Komodo dragon) against "Adult male
Komodo dragons average 2.6 m".

Usage::

    held = check_kind(claim, question, sentences)   # a supported claim, or None to keep it

The clauses of the passages that state one of the claim's values are read: where such a clause
names a kind the claim does not, and the claim (with its question, for a short answer) names
another kind of the same thing that the clause lacks, the value is the clause's kind's, not the
claim's (:mod:`.rules.substituted`; :mod:`.text.kinds` tells two kinds of one thing from one
thing said two ways). The claim is then not found, never supported. Not contradicted: the value
the passages give the claim's own kind, where they give one, is the value checks' to align.

Measured while it was built (Session 54): read against whole sentences, or for claims with no
value the passages state (names too), HaluEval QA went 0.817 -> 0.793 with the verifier and
0.930 -> 0.900 with the rules judge; with kinds of every kind of noun (artefacts, payments), the
blind units devices set lost a true pair ("laptop" and "notebook" are sibling synsets).
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
    None otherwise. ``question``: a short answer's question (its nouns name the answer's kind)."""
    parts = terse_parts(claim.text, question) or terse_claim_parts(claim.text)
    said, asked = (parts[1], parts[0]) if parts is not None else (claim.text, "")
    texts = [s for _, s in sentences]
    for clause in _clauses_stating(claim, texts):
        # a kind of the answer's, or of its question's, that the clause stating its value lacks
        swap = substituted(said, "", clause)
        if swap is None and asked:
            swap = substituted(said, asked, clause)
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
