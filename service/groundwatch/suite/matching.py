"""Gold evidence against retrieved passages: which passage holds which piece of evidence.

Usage::

    match = match_evidence(case.evidence[0], passage, corpus)   # "quote" | "span" | "fuzzy" | None

A passage matches a piece of evidence when its document id is the evidence's and it contains
the quote (or overlaps the span). Text is compared after normalisation (case, whitespace and
punctuation folded), so re-chunking or re-flowing a document keeps the labels valid. When the
exact comparison fails, a fuzzy fallback accepts a passage holding at least ``FUZZY_SHARE`` of
the quote's words (in any order): the match kind says which rule matched. A passage that is
itself at least half of the quote (a chunker split the quote) also matches. Passages without a
``doc_id`` can only match fuzzily on text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

from groundwatch.contract.trace import ContextPassage
from groundwatch.suite.cases import EvidenceQuote, EvidenceSpan

__all__ = [
    "FUZZY_SHARE",
    "MatchKind",
    "match_evidence",
    "normalise",
    "quote_of",
]

MatchKind = Literal["quote", "span", "fuzzy"]

FUZZY_SHARE = 0.8

_NON_WORD = re.compile(r"[\W_]+", re.UNICODE)


@lru_cache(maxsize=8192)
def normalise(text: str) -> str:
    """Lower case, NFKC, every run of punctuation or whitespace turned into one space.

    Cached (bounded): the same passages and quotes recur across the cases of a run."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _NON_WORD.sub(" ", folded).strip()


def quote_of(
    evidence: EvidenceQuote | EvidenceSpan, corpus: Mapping[str, str] | None
) -> str | None:
    """The evidence's text: the quote, or the span cut from the corpus (None when unknown)."""
    if isinstance(evidence, EvidenceQuote):
        return evidence.quote
    if corpus is None or evidence.doc_id not in corpus:
        return None
    text = corpus[evidence.doc_id]
    if evidence.end > len(text):
        return None
    return text[evidence.start : evidence.end]


def _span_of(passage: ContextPassage) -> tuple[int, int] | None:
    extra = passage.model_extra or {}
    start, end = extra.get("start"), extra.get("end")
    if isinstance(start, int) and isinstance(end, int) and end > start:
        return start, end
    return None


def _fuzzy(quote: str, passage_norm: str) -> bool:
    words = quote.split()
    if not words:
        return False
    have = set(passage_norm.split())
    return sum(1 for w in words if w in have) / len(words) >= FUZZY_SHARE


def match_evidence(
    evidence: EvidenceQuote | EvidenceSpan,
    passage: ContextPassage,
    corpus: Mapping[str, str] | None = None,
) -> MatchKind | None:
    """How ``passage`` matches ``evidence``, or None when it does not."""
    same_doc = passage.doc_id is not None and passage.doc_id == evidence.doc_id
    if isinstance(evidence, EvidenceSpan) and same_doc:
        span = _span_of(passage)
        if span is not None and span[0] < evidence.end and evidence.start < span[1]:
            return "span"
    quote = quote_of(evidence, corpus)
    if quote is None:
        return None
    wanted = normalise(quote)
    have = normalise(passage.text)
    if not wanted:
        return None
    exact: MatchKind = "quote" if isinstance(evidence, EvidenceQuote) else "span"
    if same_doc and f" {wanted} " in f" {have} ":
        return exact
    # A quote that a chunker split in two: the passage holds most of it.
    if same_doc and have and f" {have} " in f" {wanted} " and len(have) >= len(wanted) / 2:
        return exact
    if (same_doc or passage.doc_id is None) and _fuzzy(wanted, have):
        return "fuzzy"
    return None
