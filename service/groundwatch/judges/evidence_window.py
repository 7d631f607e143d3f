"""Evidence windows: the part of a passage a claim is checked against, chosen the same way in
training and at inference.

Usage::

    window = evidence_window(split_sentences(passage), "The fee is $30.", budget_words=90)

The claim verifier reads at most 128 tokens, so a long passage is cut down to the sentences that
share the most content words with the claim (stemmed; rarer words count more), each with its
following neighbour where room is left, kept in passage order, up to ``budget_words`` words.
Training pairs are cut by this very function (``training/``), so the model never sees a shape of
premise at inference that it was not trained on (the length shortcut the published detectors warn
about).
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwatch.judges.text.words import content_words

__all__ = ["DEFAULT_BUDGET_WORDS", "evidence_window", "overlap_scores"]

#: About 120 word pieces with a 20-word claim: fits the verifier's 128-token input.
DEFAULT_BUDGET_WORDS = 80


def overlap_scores(sentences: Sequence[str], claim: str) -> list[float]:
    """Share of the claim's content words found in each sentence (0..1)."""
    wanted = set(content_words(claim))
    if not wanted:
        return [0.0] * len(sentences)
    return [len(wanted & set(content_words(s))) / len(wanted) for s in sentences]


def evidence_window(
    sentences: Sequence[str],
    claim: str,
    budget_words: int = DEFAULT_BUDGET_WORDS,
    scores: Sequence[float] | None = None,
) -> str:
    """The best-aligned sentences of a passage, in passage order, within ``budget_words``.

    ``scores`` ranks the sentences (higher first); by default the claim's word overlap. The best
    sentence is always kept (cut to the budget when it alone is longer).
    """
    if not sentences:
        return ""
    lengths = [len(s.split()) for s in sentences]
    if sum(lengths) <= budget_words:
        return " ".join(sentences)
    ranked_scores = list(scores) if scores is not None else overlap_scores(sentences, claim)
    order = sorted(range(len(sentences)), key=lambda i: (-ranked_scores[i], i))
    chosen: set[int] = set()
    used = 0
    for i in order:
        for j in (i, i + 1):
            if j >= len(sentences) or j in chosen:
                continue
            if used + lengths[j] > budget_words and chosen:
                continue
            chosen.add(j)
            used += lengths[j]
        if used >= budget_words:
            break
    text = " ".join(sentences[i] for i in sorted(chosen))
    words = text.split()
    return " ".join(words[:budget_words]) if len(words) > budget_words else text
