"""Open on a day the passages say it is closed: "Is the library open on Sundays? Yes" against
"The branch is closed on Sundays and Mondays"; and not open on a day they say it opens: "Is
the office open at weekends? No" against "open 09:00 to 13:00 on Saturdays".

Usage::

    hit = closed_on("Westbrook library is open on Sundays.",
                    ["Westbrook Library is open Tuesday to Saturday.", "It is closed on Sundays."])
    hit.said, hit.stated   # 'open on Sundays', 'It is closed on Sundays'

Days are a closed class (:mod:`.weekdays`), and so is the pair "open" / "closed": a statement
that something opens (runs, operates) on some days is contradicted by a clause that says it is
closed (shut, does not open or run) on all of them. The clause must name nothing the statement
does not (another branch, another line: "Elmfield opens on Saturdays; Dock Road is closed at
weekends"), and nothing may move the scope of the closing ("except", "unless", "only", "if").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.parallel import clauses
from groundwatch.judges.values.weekdays import ALL_DAYS, days_named

__all__ = ["ClosedOn", "closed_on", "open_on"]

_OPEN = re.compile(r"\b(?:open|opens|opening|run|runs|running|operate|operates|operating)\b", re.I)
_CLOSED = re.compile(
    r"\b(?:closed|shut|(?:does|do|is|are|will)\s+not\s+(?:open|run|operate)|(?:doesn't|don't|isn't|"
    r"aren't|won't)\s+(?:open|run|operate)|no\s+(?:service|services|buses|trains))\b",
    re.I,
)
_NEGATED = re.compile(r"\b(?:not|never|no|isn't|aren't|doesn't|don't|won't|closed)\b", re.I)
_SCOPE = re.compile(
    r"\b(?:except|unless|only|if|when|apart|other than|but|holidays?|by appointment)\b", re.I
)
#: "... opens 7 am to 7 pm Tuesday to Sunday and is closed on Mondays": a second verb phrase
#: of one subject.
_SHARED_SUBJECT = re.compile(
    r"\s(?:and|but)\s(?=(?:is|are|will be|stays?|remains?|closes|closed|shuts?)\b)", re.I
)
_DAY_WORDS = frozenset(
    content_words(
        "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
        "thursdays fridays saturdays sundays weekend weekends weekday weekdays"
    )
)


@dataclass(frozen=True)
class ClosedOn:
    """The statement's opening and the passage clause's closing (``sentence``: its index)."""

    said: str
    stated: str
    sentence: int


def _names(text: str) -> set[str]:
    """The content words of the names ``text`` gives, days aside."""
    return {w for n in entity_spans(text) for w in content_words(n)} - _DAY_WORDS


def closed_on(statement: str, evidence: Sequence[str]) -> ClosedOn | None:
    """The clause of ``evidence`` that says the thing ``statement`` says opens on some days is
    closed on all of them; None when there is none."""
    opening = _OPEN.search(statement)
    days = days_named(statement)
    if opening is None or not days or days == ALL_DAYS or _NEGATED.search(statement):
        return None
    if _SCOPE.search(statement):
        return None
    mine = _names(statement) | set(content_words(statement))
    for k, sentence in enumerate(evidence):
        for clause in (p for c in clauses(sentence) for p in _SHARED_SUBJECT.split(c)):
            closing = _CLOSED.search(clause)
            if closing is None or _SCOPE.search(clause) or _OPEN.search(clause[: closing.start()]):
                continue
            shut = days_named(clause)
            if not shut or not days <= shut or not _names(clause) <= mine:
                continue
            return ClosedOn(f"{opening.group(0)} {_days_written(statement)}", clause.strip(), k)
    return None


def _days_written(text: str) -> str:
    m = re.search(
        r"\b(?:on\s+|at\s+)?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|weekday)s?"
        r"(?:\s+(?:morning|afternoon|evening)s?)?",
        text,
        re.I,
    )
    return m.group(0) if m is not None else ""


def open_on(statement: str, evidence: Sequence[str]) -> ClosedOn | None:
    """The clause of ``evidence`` that says the thing ``statement`` says does not open on some
    days opens (runs) on one of them ("The office is not open at weekends" against "open 09:00
    to 13:00 on Saturdays"); None when there is none."""
    negated = _NOT_OPEN.search(statement)
    days = days_named(statement)
    if negated is None or not days or days == ALL_DAYS:
        return None
    if _SCOPE.search(statement.replace(negated.group(0), "")):
        return None
    mine = _names(statement) | set(content_words(statement))
    for k, sentence in enumerate(evidence):
        # days listed with "and" are one clause here ("open ... on weekdays and 09:00-13:00 on
        # Saturdays")
        for clause in (p for c in _PARTS.split(sentence) for p in _SHARED_SUBJECT.split(c)):
            opening = _OPEN.search(clause)
            if opening is None or _NEGATED.search(clause) or _SCOPE.search(clause):
                continue
            if not days_named(clause) & days or not _names(clause) <= mine:
                continue
            return ClosedOn(f"{negated.group(0)} {_days_written(statement)}", clause.strip(), k)
    return None


_PARTS = re.compile(r";|\s(?:while|whereas|but)\s")
_NOT_OPEN = re.compile(
    r"\b(?:(?:is|are|does|do|will)\s+not|isn't|aren't|doesn't|don't|won't)\s+(?:open|run|operate)\b",
    re.I,
)
