"""Rank metrics of one retrieved list against gold relevance (pure functions).

Usage::

    gains = [0, 2, 0, 1]                      # per retrieved passage, in rank order
    ndcg_at_k(gains, ideal=[2, 1], k=3)       # graded nDCG@3

Conventions (written here because libraries differ):

- ``gains[i]`` is the graded relevance of the passage at rank i+1 (0 = not relevant); a
  document already credited at a better rank gains 0 again, so nDCG stays within [0, 1].
- Nothing relevant exists (an unanswerable case, or no evidence labelled): every metric is
  ``None``, never 0 and never NaN; such cases are left out of means.
- ``k`` larger than the list: the missing ranks count as not relevant. precision@k divides by
  ``k`` (trec_eval's convention), so a short list is not rewarded for being short.
- Ties in retrieval score: the order given in the trace (its ``rank`` when present) decides;
  the metrics never reorder passages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "dcg",
    "hit_at_k",
    "ndcg_at_k",
    "precision_at_k",
    "rank_metrics",
    "recall_at_k",
    "reciprocal_rank",
]


def recall_at_k(found_per_rank: Sequence[set[int]], n_relevant: int, k: int) -> float | None:
    """Share of the ``n_relevant`` gold items found in the top ``k``; ``found_per_rank[i]`` is
    the set of gold item indexes the passage at rank i+1 holds."""
    if n_relevant <= 0:
        return None
    found: set[int] = set()
    for items in found_per_rank[:k]:
        found |= items
    return len(found) / n_relevant


def precision_at_k(gains: Sequence[float], k: int, any_relevant: bool = True) -> float | None:
    """Relevant passages among the top ``k``, divided by ``k``."""
    if not any_relevant or k <= 0:
        return None
    return sum(1 for g in gains[:k] if g > 0) / k


def hit_at_k(gains: Sequence[float], k: int, any_relevant: bool = True) -> float | None:
    """1.0 when a relevant passage is in the top ``k``, else 0.0."""
    if not any_relevant:
        return None
    return 1.0 if any(g > 0 for g in gains[:k]) else 0.0


def reciprocal_rank(gains: Sequence[float], any_relevant: bool = True) -> float | None:
    """1 / rank of the first relevant passage; 0.0 when none was retrieved."""
    if not any_relevant:
        return None
    for rank, gain in enumerate(gains, start=1):
        if gain > 0:
            return 1.0 / rank
    return 0.0


def dcg(gains: Sequence[float], k: int) -> float:
    """Σ (2^gain − 1) / log2(rank + 1) over the top ``k``."""
    return math.fsum(
        (2.0 ** float(g) - 1.0) / math.log2(rank + 1) for rank, g in enumerate(gains[:k], start=1)
    )


def ndcg_at_k(gains: Sequence[float], ideal: Sequence[float], k: int) -> float | None:
    """DCG of the list over DCG of the best possible list built from ``ideal`` (every gold
    item's grade); None when no gold item has a positive grade."""
    best = dcg(sorted((g for g in ideal if g > 0), reverse=True), k)
    if best <= 0:
        return None
    return min(1.0, dcg(gains, k) / best)


@lru_cache(maxsize=256)
def _names(k: int) -> tuple[str, str, str, str, str]:
    return (f"recall@{k}", f"all_evidence@{k}", f"precision@{k}", f"hit@{k}", f"ndcg@{k}")


def _dcg_terms(gains: Sequence[float]) -> list[float]:
    return [(2.0 ** float(g) - 1.0) / math.log2(rank + 1) for rank, g in enumerate(gains, start=1)]


def rank_metrics(
    found_per_rank: Sequence[set[int]],
    n_relevant: int,
    gains: Sequence[float],
    ideal: Sequence[float],
    ks: Sequence[int],
    *,
    any_relevant: bool = True,
) -> dict[str, float | None]:
    """``recall@k``, ``all_evidence@k``, ``precision@k``, ``hit@k``, ``nDCG@k`` for every k and
    ``mrr`` in one pass over the list: the same values, bit for bit, as the functions above
    (prefix counts and DCG terms are computed once instead of once per k and metric)."""
    if len(found_per_rank) != len(gains):
        raise ValueError("found_per_rank and gains must have one entry per retrieved passage")
    union: set[int] = set()
    found_upto: list[int] = []  # gold items found in the top i+1
    relevant_upto: list[int] = []  # relevant passages in the top i+1
    relevant = 0
    for items, gain in zip(found_per_rank, gains, strict=True):
        union |= items
        found_upto.append(len(union))
        relevant += gain > 0
        relevant_upto.append(relevant)
    terms = _dcg_terms(gains)
    ideal_terms = _dcg_terms(sorted((g for g in ideal if g > 0), reverse=True))
    out: dict[str, float | None] = {}
    for k in ks:
        recall_name, all_name, precision_name, hit_name, ndcg_name = _names(k)
        top = len(gains[:k])  # slicing's own rules, as the functions above
        recall = None if n_relevant <= 0 else (found_upto[top - 1] if top else 0) / n_relevant
        out[recall_name] = recall
        out[all_name] = None if recall is None else float(recall == 1.0)
        hits = relevant_upto[top - 1] if top else 0
        out[precision_name] = hits / k if any_relevant and k > 0 else None
        out[hit_name] = (1.0 if hits else 0.0) if any_relevant else None
        best = math.fsum(ideal_terms[:k])
        out[ndcg_name] = None if best <= 0 else min(1.0, math.fsum(terms[:k]) / best)
    out["mrr"] = reciprocal_rank(gains, any_relevant)
    return out
