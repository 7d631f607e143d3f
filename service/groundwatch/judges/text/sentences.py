"""Sentence splitting: a text becomes its sentences, robust to abbreviations and bullets.

Usage::

    split_sentences("Dr. Smith joined in 2019. The fee is $3.50 [1].")
    # -> ["Dr. Smith joined in 2019.", "The fee is $3.50."]

Sentences end on terminal punctuation, not after abbreviations (Dr., U.S., e.g.), initials or
decimals; list items and bullet lines are sentences of their own; citation markers such as ``[1]``
are removed (:func:`strip_citations`).
"""

from __future__ import annotations

import re

from groundwatch.judges.text.words import word_set

__all__ = ["sentence_lines", "split_sentences", "strip_bullet", "strip_citations"]


_ABBREVIATIONS = word_set(
    """
    mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e eg ie inc ltd co corp no nos fig figs approx
    dept est jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun gen
    col lt sgt capt gov sen rep rev hon pres u.s u.k u.n e.u a.m p.m cf al ca op vol ed eds min
    max avg gov't ext tel
    """
)

_CITATION = re.compile(
    r"\s*(\[(?:\d+|[a-z]?\d+(?:\s*[,\-–]\s*[a-z]?\d+)*|source\s*\d+)\]|【[^】]*】)", re.I
)
_BULLET = re.compile(r"^\s*(?:[-*•●▪◦–]|\d{1,2}[.)]|[a-z][.)])\s+")


_LINES = re.compile(r"\n+|(?<=\S)\s+(?=(?:[•●▪]|\d{1,2}\))\s)")
# A sentence end: . ! ? (optionally followed by quotes/brackets), then whitespace.
_END = re.compile(r"([.!?]+[\"'”’)\]]*)(\s+)")
# Sentences glued without a space, common in scraped passages: "Mackay.The Honoured Society".
_GLUED = re.compile(r"(?<=[a-z0-9)]{2})\.(?=[A-Z][a-z])")


def strip_citations(text: str) -> str:
    """``text`` without its citation markers ("[1]", "[2, 3]", "[source 1]", "【4】")."""
    return _CITATION.sub("", text)


def _is_abbreviation(chunk: str) -> bool:
    """True when ``chunk`` (text up to and including a period) ends in an abbreviation."""
    m = re.search(r"(\S+)\.$", chunk)
    if not m:
        return False
    last = m.group(1).lstrip("([\"'“").lower()
    if last in _ABBREVIATIONS:
        return True
    # Initials and dotted acronyms: "J.", "U.S.", "e.g."
    return bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", last))


def sentence_lines(text: str) -> list[str]:
    """The lines and list items of ``text`` (a run-in "1) ... 2) ..." list too), bullet markers
    dropped: each holds one sentence or more."""
    lines = (strip_bullet(raw).strip() for raw in _LINES.split(text))
    return [line for line in lines if line]


def strip_bullet(line: str) -> str:
    """``line`` without its list marker ("- ", "• ", "2) ", "a. ")."""
    return _BULLET.sub("", line)


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences; bullets and lines are separate items, citations removed."""
    if not text or not text.strip():
        return []
    sentences: list[str] = []
    for raw_line in sentence_lines(strip_citations(text)):
        line = _GLUED.sub(". ", raw_line)
        start = 0
        for m in _END.finditer(line):
            end = m.end(1)
            chunk = line[start:end]
            nxt = line[m.end() : m.end() + 1]
            tail = line[max(start, end - 40) : end]  # only the last word matters (and O(n))
            if (
                m.group(1) == "."
                and _is_abbreviation(tail)
                and not (
                    nxt.isupper() and _ends_acronym_sentence(tail, line[m.end() : m.end() + 20])
                )
            ):
                continue
            if nxt and nxt.islower():
                continue
            if chunk.strip():
                sentences.append(chunk.strip())
            start = m.end()
        rest = line[start:].strip()
        if rest:
            sentences.append(rest)
    return [s for s in sentences if any(ch.isalnum() for ch in s)]


def _ends_acronym_sentence(chunk: str, after: str) -> bool:
    """ "... in the U.S. The fee" ends a sentence; "Dr. Smith" or "J. R. R. Tolkien" does not."""
    m = re.search(r"(\S+)\.$", chunk)
    last = m.group(1).lower() if m else ""
    if last in {"mr", "mrs", "ms", "dr", "prof", "st", "mt", "gen", "col", "lt", "sgt", "capt"}:
        return False
    if re.fullmatch(r"[a-z]", last):  # an initial
        return False
    first = after.split(" ", 1)[0]
    return first in {"The", "A", "An", "It", "This", "They", "He", "She", "We", "In", "Its"}
