"""Refusal detection: does the answer decline, or say the information is not available?

Usage::

    is_refusal_sentence("I'm sorry, the documents don't say.")   # True (phrase patterns)
    detector = RefusalDetector(threshold=0.72)
    detector.is_refusal(sentences, sentence_vectors, exemplar_vectors)

Two signals: phrase patterns (precise, cheap) and cosine similarity of each answer sentence to a
handful of refusal exemplars (catches paraphrases the patterns miss). A sentence that refuses is
not a factual claim, so claim extraction drops it; an answer is a refusal when its substantive
sentences are mostly refusals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "REFUSAL_EXEMPLARS",
    "REFUSAL_SIMILARITY_THRESHOLD",
    "RefusalDetector",
    "is_refusal_sentence",
]

#: Cosine similarity to the nearest exemplar above which a sentence counts as a refusal.
#: Calibrated on the answer sentences of HaluEval dev and tests/hard_cases.jsonl: factual
#: sentences score at most 0.35 (99th percentile 0.33); paraphrased refusals 0.39-0.76, the lower
#: ones being caught by the phrase patterns.
REFUSAL_SIMILARITY_THRESHOLD = 0.55

REFUSAL_EXEMPLARS: tuple[str, ...] = (
    "I don't know the answer to that.",
    "The provided documents do not contain this information.",
    "I'm sorry, but I cannot answer that question based on the available context.",
    "There is no information about this in the sources.",
    "I am unable to find the answer in the given passages.",
    "The context does not specify this.",
    "I can't help with that request.",
    "Unfortunately, that information is not available to me.",
    "I wasn't able to find anything about that in the documentation.",
    "I don't see any information about that here.",
    "That isn't covered in the sources I have.",
    "Please contact support for more details on this.",
)

_NOT_AVAILABLE = (
    r"(?:do(?:es)?\s*(?:n't|not)|did\s*(?:n't|not))\s+(?:\w+\s+){0,2}"
    r"(?:contain|mention|say|specify|state|provide|address|discuss|indicate|tell)"
)
_SOURCE = (
    r"(?:document|context|passage|source|text|information|knowledge base|article|excerpt|"
    r"material|search result|data|documentation|handbook|manual|guide|faq|wiki)"
)
_PATTERNS = [
    r"\bi\s*(?:do\s*(?:n't|not)|don’t)\s+(?:know|have (?:that|this|enough|any|the)|"
    r"have access|see any|find any)",
    r"\bi(?:'m| am)\s+(?:not able|unable|afraid|sorry)\b",
    r"\bi\s+(?:cannot|can't|can not|could not|couldn't|was unable to|am unable to|"
    r"was not able to|wasn't able to|am not able to|did not|didn't|have not|haven't)\s+"
    r"(?:(?:yet|seem to|manage to|be able to)\s+)?"
    r"(?:find|answer|determine|say|tell|provide|locate|confirm|help|verify|see|access|come across)",
    r"\b(?:isn't|is not|aren't|are not|wasn't|was not)\s+(?:\w+\s+)?(?:covered|mentioned|"
    r"addressed|described|documented|included|listed)\s+(?:in|by)\s+(?:the|any|my|these|those)\b",
    r"\b(?:no|any)\s+mention\s+of\b",
    r"\b(?:please |you (?:may|might|should|can) (?:want to )?|i (?:would|'d) (?:recommend|suggest) )"
    r"(?:contact|reach out to|ask|check with)\b[^.]*\b(?:for|about|regarding)\s+(?:more|further|"
    r"this|that|details|information|help|questions?)\b",
    r"\b(?:unable|not able)\s+to\s+(?:find|answer|determine|locate|confirm|provide)",
    rf"\b(?:the|these|those|provided|given|available|retrieved|this|that|my)\s+(?:\w+\s+)?"
    rf"{_SOURCE}s?\s+(?:(?:provided|given|available|shared|above|here)\s+)?{_NOT_AVAILABLE}",
    r"\bthere(?:'s| is| are)\s+nothing\s+(?:about|on|regarding|in|related)",
    r"\bi\s+(?:have|had|found)\s+no\s+(?:data|information|details|record|mention)",
    rf"\b(?:no|not enough|insufficient)\s+(?:relevant\s+|specific\s+|such\s+)?"
    rf"(?:information|details?|data|mention|answer|evidence)\b[^.]*\b(?:{_SOURCE}s?|available|"
    r"provided|found|given)",
    r"\b(?:is|are)\s+not\s+(?:mentioned|specified|provided|available|stated|covered|"
    r"included|addressed|given|listed)\s+in\s+the\b",
    r"\bnot\s+(?:mentioned|specified|stated|covered|addressed)\s+in\s+(?:the|any)\b",
    r"\bcan(?:not|'t)\s+(?:be\s+)?(?:answered|determined|found)\s+(?:from|based on|with|using|in)\b",
    r"\b(?:outside|beyond)\s+(?:the\s+)?scope\b",
    r"\bi\s+(?:can't|cannot|won't|will not)\s+(?:help|assist)\b",
    r"\bthere\s+(?:is|are)\s+no\s+(?:information|details|mention|data|record)s?\b",
    r"\b(?:no|not)\s+(?:information|details|answer)\s+(?:is\s+)?(?:available|provided|given)\b",
]
_REFUSAL = re.compile("|".join(f"(?:{p})" for p in _PATTERNS), re.I)


def is_refusal_sentence(text: str) -> bool:
    """True when ``text`` declines or says the information is not in the sources (patterns)."""
    return bool(_REFUSAL.search(text.replace("’", "'")))


class RefusalDetector:
    """Decides whether an answer is a refusal from its sentences, by patterns and exemplars.

    Usage: ``RefusalDetector().is_refusal(sentences, vectors, exemplar_vectors)`` where the
    vectors are L2-normalised embeddings of the sentences and of :data:`REFUSAL_EXEMPLARS`.
    """

    def __init__(self, threshold: float = REFUSAL_SIMILARITY_THRESHOLD):
        self.threshold = threshold

    def refusal_flags(
        self,
        sentences: Sequence[str],
        vectors: npt.NDArray[np.float32] | None,
        exemplars: npt.NDArray[np.float32] | None,
    ) -> list[bool]:
        """One flag per sentence: does it refuse?"""
        flags = [is_refusal_sentence(s) for s in sentences]
        if vectors is not None and exemplars is not None and len(sentences) and len(exemplars):
            sims = np.asarray(vectors @ exemplars.T, dtype=np.float64).max(axis=1)
            flags = [f or bool(sim >= self.threshold) for f, sim in zip(flags, sims, strict=True)]
        return flags

    def is_refusal(
        self,
        sentences: Sequence[str],
        vectors: npt.NDArray[np.float32] | None = None,
        exemplars: npt.NDArray[np.float32] | None = None,
        claims_left: int = 0,
    ) -> bool:
        """An answer refuses when any of its sentences refuses, wherever it stands.

        "The Pro plan costs $12. I couldn't find the Enterprise price." is a partial refusal:
        ``refusal`` is true, and its factual claims (``claims_left``) are still judged by the
        caller; the record's faithfulness is then computed from them.
        """
        del claims_left  # kept for callers; a partial refusal is a refusal
        if not sentences:
            return False
        return any(self.refusal_flags(sentences, vectors, exemplars))
