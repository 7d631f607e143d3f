"""Slots: what a text asserts that cosine similarity cannot see, parsed once per text.

Usage::

    slots = parse_slots("Refunds are not accepted after 14 days.")
    slots.negated, [q.text for q in slots.quantities]   # True, ['14 days']

Slots are numbers with units, years and dates (:mod:`groundwatch.judges.values.quantities`), named
entities (:mod:`groundwatch.judges.values.entities`), negation, modality and opposite words
(:mod:`groundwatch.judges.text.polarity`). :func:`groundwatch.judges.values.agreement.compare_slots` compares
a claim's slots with an evidence sentence's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from groundwatch.judges.text.polarity import OPPOSITES, bound_tokens, modality_of, polarity_negated
from groundwatch.judges.text.words import content_words
from groundwatch.judges.values.entities import entity_spans
from groundwatch.judges.values.quantities import Quantity, parse_quantities

__all__ = ["Slots", "parse_slots"]


@dataclass(frozen=True)
class Slots:
    """Everything the agreement checks look at in one text."""

    quantities: tuple[Quantity, ...]
    years: frozenset[int]
    dates: tuple[tuple[int | None, int, int | None], ...]  # (year, month, day)
    entities: tuple[str, ...]
    negated: bool | None  # None: polarity unknown (not checked)
    modality: tuple[str, str] | None  # ("must" | "may", the verb it bears on or "adj")
    opposites: tuple[tuple[int, int, int], ...]  # (pair index, side, occurrences)
    words: frozenset[str]
    tokens: tuple[str, ...] = ()


@lru_cache(maxsize=65536)
def parse_slots(text: str) -> Slots:
    """Parse every slot of ``text`` (cached: passage sentences recur across traces)."""
    quantities, years, dates = parse_quantities(text)
    tokens = re.findall(r"[a-z]+", text.lower())
    bound = bound_tokens(tokens)
    bound_set = set(bound)
    opposites = tuple(
        (i, side, sum(1 for t in bound if t in words))
        for i, pair in enumerate(OPPOSITES)
        for side, words in enumerate(pair)
        if bound_set & words
    )
    return Slots(
        quantities=quantities,
        years=years,
        dates=dates,
        entities=entity_spans(text),
        negated=polarity_negated(text),
        modality=modality_of(tokens),
        opposites=opposites,
        words=frozenset(content_words(text)),
        tokens=tuple(tokens),
    )
