"""Exports the embedding cache's hit rate and size at scrape time."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from groundwatch.judges.embedding import CachedEmbedder

__all__ = ["EmbeddingCacheCollector"]


class EmbeddingCacheCollector(Collector):
    """``groundwatch_embedding_cache_{hits,misses}_total``, ``_entries``, ``_hit_ratio``."""

    def __init__(self, embedder: CachedEmbedder):
        self._embedder = embedder

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        e = self._embedder
        yield CounterMetricFamily(
            "groundwatch_embedding_cache_hits", "Embedding cache hits.", value=e.hits
        )
        yield CounterMetricFamily(
            "groundwatch_embedding_cache_misses", "Embedding cache misses.", value=e.misses
        )
        yield GaugeMetricFamily(
            "groundwatch_embedding_cache_entries", "Embeddings cached.", value=len(e)
        )
        rate = e.hit_rate()
        if rate is not None:
            yield GaugeMetricFamily(
                "groundwatch_embedding_cache_hit_ratio",
                "Share of embedding lookups served from cache since start.",
                value=rate,
            )
