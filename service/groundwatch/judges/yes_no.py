"""A "Yes" / "No" answer read as its statement, against what the passages say.

Usage::

    checked = check_yes_no(claim, "Is the museum open on Mondays?", sentences, trace)

"Is the museum open on Mondays?" + "No" is "The museum is not open on Mondays." (:mod:`.claims.
declarative`). It is contradicted when a passage sentence is that statement's clause with the
negation turned round (:mod:`.rules.negation_twin`), or says the thing is closed on the days the
statement says it opens, or opens on days it says it does not (:mod:`.values.closed_days`), or a
"Yes" asks of a value the passages bar ("bags over 32 kg are not accepted": :mod:`.values.barred`).
The model cannot overrule a negation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import ClaimJudgement
from groundwatch.judges.cases import contradicted
from groundwatch.judges.claims.declarative import declarative
from groundwatch.judges.claims.short_answers import terse_parts
from groundwatch.judges.negated import turned_round
from groundwatch.judges.values.barred import barred
from groundwatch.judges.values.closed_days import closed_on, open_on

__all__ = ["YES_NO", "check_yes_no", "said_closed"]

YES_NO = re.compile(r"^(?:yes|no|yeah|yep|nope|correct|true|false)\b[\s,.;:!-]*", re.I)
_NO_WORDS = frozenset({"no", "nope", "false"})
#: The confidence of a contradiction read from a closed class of words (days, open / closed).
_SCORE = 0.9


def said_closed(question: str, trace: RagTrace, sentences: Sequence[tuple[int, str]]) -> bool:
    """The answer is "No" to opening on some days, and a passage says it is closed on them."""
    said = YES_NO.match((trace.answer or "").strip())
    if said is None or said.group(0).strip(" ,.;:!-").lower() not in _NO_WORDS:
        return False
    statement = declarative(question, "Yes")
    return statement is not None and closed_on(statement, [s for _, s in sentences]) is not None


def check_yes_no(
    claim: ClaimJudgement, question: str, sentences: Sequence[tuple[int, str]], trace: RagTrace
) -> ClaimJudgement | None:
    """A short "Yes"/"No" answer read as its statement ("Is the museum open on Mondays?" + "No"
    -> "The museum is not open on Mondays."): contradicted when a passage sentence is that
    statement's clause with the negation turned round (:mod:`.rules.negation_twin`); None
    otherwise. The model cannot overrule a negation."""
    answer = (trace.answer or "").strip()
    said = YES_NO.match(answer)
    if said is None:
        return None
    word = said.group(0).strip(" ,.;:!-").lower()
    statement = declarative(question, "No" if word in _NO_WORDS else "Yes")
    if statement is None:
        return None
    # "Yes, from 9 am until noon": each claim of the answer says it opens on the days asked
    texts = [s for _, s in sentences]
    shut = open_on(statement, texts) if word in _NO_WORDS else closed_on(statement, texts)
    if shut is not None:
        return contradicted(
            claim, kind="negation", said=shut.said, stated=shut.stated, score=_SCORE,
            sentence=sentences[shut.sentence], trace=trace, why=statement,
        )  # fmt: skip
    bar = barred(question, texts) if word not in _NO_WORDS else None
    if bar is not None:
        # "Can I check a 35 kg bag?" + "Yes" against "bags over 32 kg are not accepted"
        return contradicted(
            claim, kind="negation", said=bar.asked, stated=bar.stated, score=_SCORE,
            sentence=sentences[bar.sentence], trace=trace, why=statement,
        )  # fmt: skip
    if terse_parts(claim.text, question) is None:
        return None
    return turned_round(claim, statement, sentences, trace, why=statement)
