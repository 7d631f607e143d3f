"""What a claim asserts: its key words, its names (hard words), its value slots and, for a terse
answer, the question it answers — the target the embedded judge looks for in the passages.

Usage::

    target = ClaimTarget.build("How deep is Lake Baikal? 1,642 metres.")
    target.key, target.hard, target.slots.quantities

Also the word-matching helpers the judge shares with it: fuzzy word membership ("lankan" ~
"lanka") and acronyms spelled out ("VAT" = "Value Added Tax").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from groundwatch.judges.claims.extract import terse_claim_parts
from groundwatch.judges.text.matching import fuzzy_in, spells
from groundwatch.judges.text.words import STOPWORDS, content_words
from groundwatch.judges.values.holidays import holiday_words
from groundwatch.judges.values.measures import measure_of
from groundwatch.judges.values.slots import Slots, parse_slots
from groundwatch.judges.values.spelled import number_runs
from groundwatch.judges.values.units import NUMBER_WORDS, unit_of

__all__ = ["ClaimTarget", "fuzzy_in", "spells"]


@dataclass
class ClaimTarget:
    """What must be found for a claim: key words, hard (entity) words and slots."""

    key: list[str]
    hard: set[str]
    slots: Slots
    entities: tuple[str, ...]
    loose: bool = False
    phrases: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()
    acronyms: dict[str, str] = field(default_factory=dict)  # key word -> "VAT"

    @staticmethod
    def build(claim: str) -> ClaimTarget:
        parts = terse_claim_parts(claim)
        asserted = parts[1] if parts is not None else claim
        loose = False
        slots = parse_slots(asserted)
        slot_words: set[str] = set()
        for q in slots.quantities:
            slot_words.update(content_words(q.text))
        for run in number_runs(asserted):  # "two thousand gigabytes" is read as "2,000 gigabytes"
            slot_words.update(content_words(run))
        slot_words.update(str(y) for y in slots.years)
        for _, mon, day in slots.dates:
            slot_words.update(str(x) for x in (mon, day) if x is not None)
        slot_words.update(content_words(" ".join(_DATE_WORDS.findall(asserted))))
        slot_words.update(holiday_words(asserted))  # "Christmas Eve" is a date, not a name
        slot_words.update(_POLARITY_WORDS)
        # the words values are written with ("a fortnight", "half an hour", "noon", "175
        # degrees Celsius"): the values are compared as values, not looked up as words
        slot_words.update(value_words(asserted))
        key = [w for w in dict.fromkeys(content_words(asserted)) if w not in slot_words]
        if parts is not None:
            yes_no = asserted.rstrip(".").lower() in {"yes", "no"}
            answer_negated = not yes_no and bool(parse_slots(asserted).negated)
            negated: bool | None = answer_negated != (asserted.rstrip(".").lower() == "no")
            if yes_no and _COMPARISON.search(parts[0]):
                # "Are X and Y both ...? No": a comparison the slots cannot check; only
                # whether the passages address it.
                negated = None
                loose = True
            elif not yes_no and not answer_negated:
                negated = None  # a phrase answer takes no polarity from the question
            slots = replace(slots, negated=negated)
            # "How many days ...? 18 days": the question says what the value is about.
            about = frozenset(content_words(parts[0]))
            slots = replace(
                slots,
                quantities=tuple(replace(q, context=q.context | about) for q in slots.quantities),
                words=slots.words | about,
            )
            if not key and not slots.quantities and not slots.years and not slots.dates:
                # "Yes" / "No": the question's own words carry the claim.
                key = [w for w in dict.fromkeys(content_words(parts[0])) if w not in slot_words]
        hard: set[str] = set()
        phrases: list[str] = []
        first = asserted.split(" ", 1)[0] if asserted else ""
        for ent in slots.entities:
            if ent == first.strip(",.") and " " not in ent and not _subject_name(asserted):
                continue  # a sentence-initial word is not necessarily a name
            hard.update(w for w in content_words(ent) if w in key)
            if all(w in key for w in content_words(ent)):
                phrases.append(ent)
        return ClaimTarget(
            key=key,
            hard=hard,
            slots=slots,
            entities=slots.entities,
            loose=loose,
            phrases=tuple(phrases),
            topic=tuple(dict.fromkeys(content_words(parts[0]))) if parts is not None else (),
            acronyms={
                w: a for a in _ACRONYM.findall(asserted) for w in content_words(a) if w in key
            },
        )


def _subject_name(sentence: str) -> bool:
    """ "Germany won ...": a capitalised one-word subject right before its verb is a name."""
    tokens = sentence.split()
    if len(tokens) < 2:
        return False
    first = tokens[0].lower().strip(",.")
    bare = re.sub(r"['’](?:s|d|ll|re|ve|m)$", "", first)
    if first in STOPWORDS or bare in STOPWORDS or bare in _POSSESSIVE_PRONOUNS:
        return False  # "You'll have to ...", "Yours would begin ..."
    nxt = tokens[1].lower().strip(",.")
    if re.fullmatch(r"[a-z]{2,}[^aiolu]ly", first) and re.fullmatch(r"[a-z]{3,}(?:ed|en)", nxt):
        # "Newly accrued leave ...": an adverb on a participle ("Kelly", "Italy", "Emily"
        # signed ...: names in -lly, -aly, -ily are left as names).
        return False
    return nxt in _AUX_WORDS or nxt in _SUBJECT_VERBS or bool(re.fullmatch(r"[a-z]{3,}ed", nxt))


_POSSESSIVE_PRONOUNS = frozenset({"yours", "mine", "ours", "theirs", "hers"})


_SUBJECT_VERBS = frozenset(
    [
        "won",
        "wins",
        "lost",
        "beat",
        "became",
        "becomes",
        "founded",
        "invented",
        "discovered",
        "wrote",
        "built",
        "signed",
        "launched",
        "released",
        "announced",
        "acquired",
        "owns",
        "leads",
        "led",
        "borders",
        "flows",
        "lies",
    ]
)
_WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
_AUX_WORDS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
    ]
)


_POLARITY_WORDS = frozenset({"no", "not", "yes", "never"})
#: Words of values that are no unit: fractions, times of day, counts.
_VALUE_WORDS = frozenset(
    content_words(
        "half halves quarter quarters third thirds fifth fifths tenth tenths noon midday "
        "midnight fortnight dozen celsius fahrenheit percent gigabyte megabyte terabyte"
    )
)


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+|[A-Za-z]+|\d[\d,.:]*")


def _numeric(tokens: list[str]) -> bool:
    """The one token is a number, a number word or a fraction ("14", "two", "half")."""
    return len(tokens) == 1 and (
        (tokens[0][0].isdigit() and "-" not in tokens[0])
        or tokens[0] in NUMBER_WORDS
        or tokens[0] in _VALUE_WORDS
    )


def _unit(token: str) -> bool:
    return bool(unit_of(token) or measure_of(token))


def value_words(text: str) -> set[str]:
    """The content words of ``text`` that write its values: fractions, times of day and counts
    ("fortnight", "noon", "half"), and units right after a number ("175 degrees Celsius", "two
    weeks"); not a unit that is a rate's period or denominator ("£500 a day", "30 minutes per
    pound"), nor a noun ("A year on Venus"): those say what the value is of."""
    tokens = _TOKEN.findall(text)
    out: set[str] = set()
    for k, token in enumerate(tokens):
        low = token.lower()
        if "-" in low:
            continue  # "the five-year fix": a compound names a case
        stems = content_words(low)
        if len(stems) != 1:
            continue
        [stem_] = stems
        if stem_ in _VALUE_WORDS or low in NUMBER_WORDS:
            out.add(stem_)
            continue
        if not (unit_of(low) or (measure_of(low) and not token.isupper())):
            continue  # "CS" is no centisecond
        before = [t.lower() for t in tokens[max(0, k - 2) : k]]
        if _numeric(before[-1:]) or (
            _numeric(before[:1]) and len(before) == 2 and _unit(before[1])
        ):
            out.add(stem_)  # "two weeks", "175 degrees Celsius"
    return out


_COMPARISON = re.compile(
    r"\b(?:both|same|either|neither|or|all|each|also|too|more|less|older|younger|first)\b", re.I
)
_DATE_WORDS = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|march|april|june|july|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b",
    re.I,
)


_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")
