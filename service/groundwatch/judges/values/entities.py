"""Named entities: the capitalised spans of a text ("Great Plains Aquifer", "K4", "Pro plan").

Usage::

    entity_spans("In 2019 the Harbour Bridge in Sydney was repainted.")
    # -> ('Harbour Bridge', 'Sydney')

A capitalised word that only opens a sentence ("The", "Please", "In") is no name, nor are
stopwords and month names.
"""

from __future__ import annotations

import re

from groundwatch.judges.text.words import STOPWORDS
from groundwatch.judges.values.units import MONTHS

__all__ = ["entity_spans"]


_ENTITY = re.compile(
    r"(?:[A-Z][\w'’.\-]*[\w]|[A-Z])(?:\s+(?:of|de|du|la|van|von|&)?\s*[A-Z][\w'’.\-]*[\w])*"
)


_SENTENCE_START_COMMON = STOPWORDS | frozenset(
    [
        "yes",
        "no",
        "please",
        "note",
        "however",
        "also",
        "in",
        "on",
        "at",
        "for",
        "from",
        "after",
        "before",
        "during",
    ]
)


def entity_spans(text: str) -> tuple[str, ...]:
    out: list[str] = []
    for m in _ENTITY.finditer(text):
        span = m.group(0).strip(" .'’")
        first = span.split()[0].lower() if span else ""
        at_start = m.start() == 0 or text[: m.start()].rstrip().endswith((".", "?", "!", ":", '"'))
        if at_start and " " not in span and first in _SENTENCE_START_COMMON:
            continue
        if span.lower() in STOPWORDS or span.lower() in MONTHS or len(span) < 2:
            continue
        if at_start and first in _SENTENCE_START_COMMON:
            span = span.split(" ", 1)[1] if " " in span else ""
        if span:
            out.append(span)
    return tuple(out)
