"""What a passage is about, named once in its first sentence and meant in every later one.

Usage::

    passage_topics([(0, "The Kestrel 5 scooter has a 350 W motor."),
                    (0, "The deck is magnesium and the scooter weighs 14.2 kg.")])
    # [{}, {'kestrel': 0.3}]: the second sentence's values are the Kestrel 5's too

A passage names its subject once ("The Trailhawk 2 e-bike has ...") and then says "the bike",
"its" or nothing. A value of a later sentence is read as if its sentence named the topic (at a
sentence word's weight), so that a claim naming the topic is not left with no value to dispute
it only because the first sentence names it. Only names make a topic ("The pool" may well be
followed by a sentence about something else of it); a later sentence whose subject names
something else ("The Business plan is $24") inherits nothing; nor does any sentence of another
passage. The values check uses it only to hold a value back (:mod:`.alignment`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from types import MappingProxyType

from groundwatch.judges.text.grammar import has_verb, subject_of
from groundwatch.judges.text.words import content_words

__all__ = ["TOPIC_WEIGHT", "passage_topics"]

#: The weight of an inherited topic word in a later sentence's value attributes (a sentence
#: word's).
TOPIC_WEIGHT = 0.3
#: A first sentence without a verb and at most this many words is a heading ("Ibuprofen 200 mg
#: tablets."): all of it is the topic, or what comes before its colon ("PowerZone Gym: weekdays
#: 05:30-23:00, weekends ...": the days are its own cases, not the passage's).
_HEADING_WORDS = 8
_NAME = re.compile(r"[A-Z][\w\-']*")


def _bare(token: str) -> str:
    """A token without its punctuation and possessive ending ("Tower's," -> "Tower")."""
    return re.sub(r"['’]s$", "", token.strip(",.;:()"))


def _topic_of(sentence: str) -> tuple[str, ...]:
    """The names a passage's first sentence gives as its subject (none if unclear): "The
    Trailhawk 2 e-bike" -> trailhawk; a subject of plain words ("The pool", "Lane swimming") is
    no topic, as a later sentence may well be about something else of it."""
    if sentence.rstrip().endswith(("...", "…")):
        return ()  # cut short ("Uptown..."): a title split apart, not a subject
    head = re.split(r":(?!\d)", sentence, maxsplit=1)[0]
    if has_verb(head) or len(head.split()) > _HEADING_WORDS:
        head = subject_of(sentence) or ""
    names = [_bare(t) for t in head.split()]
    return tuple(w for n in names if _NAME.fullmatch(n) for w in content_words(n))


def _names_of_passage(sentences: Sequence[str]) -> set[str]:
    """Capitalised words the passage writes mid-sentence: names wherever they appear."""
    names: set[str] = set()
    for s in sentences:
        tokens = s.split()
        names.update(_bare(t) for t in tokens[1:] if _NAME.fullmatch(_bare(t)))
    return names


def _own_subject(sentence: str, names: set[str], topic: set[str]) -> bool:
    """The sentence's subject names something other than the topic ("The Business plan")."""
    subject = subject_of(sentence)
    if not subject:
        return False
    for i, token in enumerate(subject.split()):
        word = _bare(token)
        if not _NAME.fullmatch(word):
            continue
        if (i > 0 or word in names) and not set(content_words(word)) <= topic:
            return True
    return False


def passage_topics(sentences: Sequence[tuple[int, str]]) -> tuple[Mapping[str, float], ...]:
    """Per sentence (``(passage index, text)``, in passage order), the topic words it inherits
    from its passage's first sentence, with their weight; empty for a first sentence. Cached:
    every claim of a trace reads the same sentences."""
    return _topics(tuple(sentences))


@lru_cache(maxsize=1024)
def _topics(sentences: tuple[tuple[int, str], ...]) -> tuple[Mapping[str, float], ...]:
    by_passage: dict[int, list[str]] = {}
    for ctx, text in sentences:
        by_passage.setdefault(ctx, []).append(text)
    topics: dict[int, set[str]] = {}
    names: dict[int, set[str]] = {}
    for ctx, texts in by_passage.items():
        topics[ctx] = set(_topic_of(texts[0]))
        names[ctx] = _names_of_passage(texts)
    out: list[Mapping[str, float]] = []
    seen: set[int] = set()
    for ctx, text in sentences:
        topic = topics[ctx]
        first = ctx not in seen
        seen.add(ctx)
        if first or not topic or _own_subject(text, names[ctx], topic):
            out.append(MappingProxyType({}))
            continue
        out.append(MappingProxyType(dict.fromkeys(topic, TOPIC_WEIGHT)))
    return tuple(out)
