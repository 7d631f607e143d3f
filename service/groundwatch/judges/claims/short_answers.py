"""Short answers read with their question: the values a claim states, and their attribute.

Usage::

    [v] = claim_values("When does the pool open on weekdays? 6 am.", "When does ...?")
    v.text, "weekday" in v.attribute   # '6 am', True

The claims module turns a terse answer ("6 am", "Frank Gehry", "Yes, from renewal") into the
claim ``"<question>? <answer>."``. Its values are the answer's; what they are the values of is
said by the question, so their attribute is read on the question and the answer as one clause
("when does the pool open on weekdays 6 am"). Any other claim's values are its own.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import replace
from types import MappingProxyType

from groundwatch.judges.claims.extract import terse_claim_parts
from groundwatch.judges.text.words import STOPWORDS, content_words, stem
from groundwatch.judges.values.stated import StatedValue, stated_values

__all__ = ["claim_values", "one_unit", "terse_parts"]


def terse_parts(claim: str, question: str) -> tuple[str, str] | None:
    """(question, answer) of a terse claim built from ``question``; None for any other claim."""
    q = " ".join(question.split())
    if not q or not claim.startswith(q.rstrip("?.")):
        return None
    return terse_claim_parts(claim)


_POLAR = re.compile(r"^(?:yes|no|yeah|yep|nope)\b\s*[,.;:!—–-]\s*(?=\S)", re.I)

#: The weight of a claim's own words in its values' attributes, when it is one claim of a
#: short answer's several (none when it is the whole answer).
_OWN_WEIGHT = 0.5


def claim_values(
    claim: str,
    question: str,
    *,
    short: bool = False,
    alone: bool = True,
    counted: Collection[str] = (),
) -> tuple[StatedValue, ...]:
    """The values ``claim`` states, each with its attribute (for a short answer, or any claim
    of a ``short`` answer such as "6 am" or "From 10 am to 5 pm": read with its question).
    ``alone``: the claim is the whole answer; one of several ("Peak fares are £6.10, and a
    weekly pass costs £38") keeps its own words in its attributes too. ``counted``: the kinds
    of the passages' values, for a bare number answering "how many"."""
    parts = terse_parts(claim, question)
    if parts is None and not (short and question.strip()):
        return stated_values(claim)
    q, answer = parts if parts is not None else (question, claim)
    # "Yes, in 1961": what the value is the value of is still the question's
    answer = one_unit(_POLAR.sub("", answer.strip()).rstrip("."))
    own = stated_values(answer)
    if not own:
        return ()
    joined = stated_values(f"{q.rstrip('?').strip()} {answer}")
    texts = [v.text for v in own]
    if not set(texts) <= {v.text for v in joined}:
        # the question's last word read into the answer's value ("in March" + "42,000 units"
        # as the date "March 42"): a word between keeps them apart
        joined = stated_values(f"{q.rstrip('?').strip()} is {answer}")
    # What the value is the value of is what the question asks: the answer's other words
    # ("Mondays" in "Mondays at 9:30", "per user per month") are the answer's own claims, not
    # its attribute, so a value given for another attribute is told apart by the question.
    asked = set(content_words(q))
    own_words = set(content_words(answer)) - asked
    # the own words of one claim of several weigh half: they say what its value is, but the
    # question still names the attribute asked
    own_weight = 0.0 if alone else _OWN_WEIGHT
    out: list[StatedValue] = []
    for v in reversed(joined):  # the answer comes last: its values are the last ones
        if v.text in texts:
            texts.remove(v.text)
            attribute = {s: w * own_weight if s in own_words else w for s, w in v.attribute.items()}
            attribute = {s: w for s, w in attribute.items() if w > 0.0}
            asked_count = _counted_as_asked(v, q, counted)
            attribute = attribute or dict(v.attribute)
            out.append(replace(asked_count, attribute=MappingProxyType(attribute)))
    return tuple(reversed(out))


#: A whole short answer that is one unit of time ("A week", "In roughly a day", "About a
#: fortnight", "An hour before departure"): a duration, read as one. (In a sentence "a week" is as often a period: "£5 a
#: week", "twice a week"; read there too, it cost the triage set a false contradiction.)
_ONE_UNIT = re.compile(
    r"^(?:in|for|after|within)?\s*(?P<hedge>(?:about|around|roughly|approximately|nearly|almost"
    r"|just over|just under|a little over|a little under|over|under)\s+)?(?:a|an|one)\s+"
    r"(?P<unit>minute|hour|day|week|fortnight|month|year|decade)"
    # "An hour before departure": before an event, still the duration asked
    r"(?P<rest>\s+(?:before|prior\s+to)\s+[\w\s'’-]+)?$",
    re.I,
)
_AS_COUNT = {"fortnight": "14 days", "decade": "10 years"}


def one_unit(answer: str) -> str:
    """``answer`` with one unit of time written as a number ("a week" -> "1 week", "a
    fortnight" -> "14 days"); as it is otherwise."""
    m = _ONE_UNIT.match(answer.strip())
    if m is None:
        return answer
    unit = m.group("unit").lower()
    return f"{m.group('hedge') or ''}{_AS_COUNT.get(unit, f'1 {unit}')}{m.group('rest') or ''}"


_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:more\s+|other\s+)?([a-z]+)", re.I)


def _counted_as_asked(value: StatedValue, question: str, counted: Collection[str]) -> StatedValue:
    """A bare number answering "How many tickets ...?" ("No more than four") counts tickets,
    where the passages count tickets (``counted``: their values' kinds): compared with those
    counts, not with any number of the passages ("10:00"). Where they count them by another
    noun ("four musicians" for "How many members"), it stays a bare number."""
    m = _HOW_MANY.search(question)
    q = value.quantity
    if m is None or q is None or q.kind != "n:" or value.kind != "n:":
        return value
    noun = m.group(1).lower()
    if noun in STOPWORDS:
        return value  # "how many of them"
    kind = "n:" + stem(noun)
    if kind not in counted:
        return value
    return replace(value, kind=kind, quantity=replace(q, kind=kind))
