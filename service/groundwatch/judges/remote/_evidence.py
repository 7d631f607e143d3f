"""Text plumbing shared by the optional judge backends (``nli``, ``tei``, ``openai``).

Usage::

    sentences = passage_sentences(trace)                  # every passage sentence, with its index
    best = top_k_lexical(claim, sentences, k=3)           # indexes into ``sentences``
    rel = lexical_overlap(content_words(question), content_words(passage))   # 0..1

Claims and sentences come from :mod:`groundwatch.judges.claims.extract` (shared with the embedded judge),
so every backend judges the same claims for the same answer. Refusal detection reuses the
phrase patterns of :mod:`groundwatch.judges.refusal`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from groundwatch.contract.record import Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import JudgeError
from groundwatch.judges.claims import extract as claims
from groundwatch.judges.refusal import RefusalDetector

__all__ = [
    "ClaimExtractor",
    "PassageSentence",
    "SentenceSplitter",
    "approx_tokens",
    "content_words",
    "default_claim_extractor",
    "default_sentence_splitter",
    "evidence_of",
    "finite01",
    "is_refusal",
    "lexical_overlap",
    "passage_sentences",
    "top_k_by_vectors",
    "top_k_lexical",
]

ClaimExtractor = Callable[[str, str], list[str]]
SentenceSplitter = Callable[[str], list[str]]

_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class PassageSentence:
    """One sentence of a retrieved passage and the passage's 0-based index."""

    context_index: int
    text: str


def default_claim_extractor(question: str, answer: str) -> list[str]:
    """Atomic claims of an answer, shared with the embedded judge."""
    return claims.extract_claims(question, answer)


def default_sentence_splitter(text: str) -> list[str]:
    return claims.split_sentences(text)


def content_words(text: str) -> set[str]:
    """Stemmed, lower-cased words of ``text`` without stop words (as the embedded judge sees them)."""
    return set(claims.content_words(text))


def lexical_overlap(query: set[str], text: set[str]) -> float:
    """Share of the query's content words found in the text (0 when the query has none)."""
    if not query:
        return 0.0
    return len(query & text) / len(query)


def approx_tokens(texts: Sequence[str]) -> int:
    """Word-and-punctuation count: a tokenizer-free estimate of a context's size."""
    return sum(len(_TOKEN.findall(t)) for t in texts)


def finite01(value: float, what: str) -> float:
    """``value`` clipped to [0, 1]; a non-finite value is a malformed judge output."""
    if not math.isfinite(value):
        raise JudgeError("judge_malformed_output", f"{what}: non-finite score {value!r}")
    return min(1.0, max(0.0, float(value)))


def passage_sentences(
    trace: RagTrace, splitter: SentenceSplitter | None = None
) -> list[PassageSentence]:
    split = splitter or default_sentence_splitter
    out: list[PassageSentence] = []
    for index, passage in enumerate(trace.contexts):
        for sentence in split(passage.text):
            if sentence.strip():
                out.append(PassageSentence(index, sentence.strip()))
    return out


def top_k_lexical(claim: str, sentences: Sequence[PassageSentence], k: int) -> list[int]:
    """Indexes of the ``k`` sentences sharing most of the claim's content words (any > 0)."""
    words = content_words(claim)
    scored = [(lexical_overlap(words, content_words(s.text)), i) for i, s in enumerate(sentences)]
    scored = [(score, i) for score, i in scored if score > 0.0]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [i for _, i in scored[:k]]


def top_k_by_vectors(
    claims: npt.NDArray[np.float32], sentences: npt.NDArray[np.float32], k: int
) -> list[list[int]]:
    """For each claim vector, the ``k`` most similar sentence vectors (L2-normalised input)."""
    if claims.shape[0] == 0 or sentences.shape[0] == 0:
        return [[] for _ in range(claims.shape[0])]
    sims = claims @ sentences.T
    order = np.argsort(-sims, axis=1, kind="stable")[:, :k]
    return [[int(j) for j in row] for row in order]


def evidence_of(trace: RagTrace, context_index: int, text: str) -> Evidence:
    return Evidence(
        context_index=context_index, context_id=trace.contexts[context_index].id, text=text
    )


def is_refusal(answer: str, claims_left: int) -> bool:
    """True when the answer declines or says the information is not available: most of its
    sentences refuse (the shared phrase patterns of :mod:`groundwatch.judges.refusal`) and few
    claims remain."""
    sentences = claims.split_sentences(answer)
    return RefusalDetector().is_refusal(sentences, claims_left=claims_left)
