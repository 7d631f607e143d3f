"""build_judge: the embedder it is handed is the one the judge uses."""

from __future__ import annotations

import pytest

from groundwatch.judges.embedding import CachedEmbedder, build_embedder
from groundwatch.judges.factory import build_judge
from groundwatch.sections.judging import EmbeddingSettings, JudgeSettings


@pytest.mark.parametrize("backend", ["embedded", "verifier"])
def test_an_empty_cache_handed_in_is_the_judges_embedder(backend: str) -> None:
    """An empty CachedEmbedder has length 0: it must still be used, not taken for "none"
    (the speed benchmark counted a second, private embedder before)."""
    cache = build_embedder(EmbeddingSettings())
    assert isinstance(cache, CachedEmbedder)
    assert len(cache) == 0
    judge = build_judge(JudgeSettings(), EmbeddingSettings(), embedder=cache, backend=backend)
    inner = getattr(judge, "inner", judge)
    assert inner._embedder is cache
