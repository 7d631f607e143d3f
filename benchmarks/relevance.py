"""Passage relevance on a blind labelled set: the judge's embedding relevance against the
verifier read as a cross-encoder (issue 32, item 4).

Usage::

    python -m benchmarks.relevance                                   # tests/relevance_cases.jsonl
    python -m benchmarks.relevance --checkpoint build/stage1/best.pt  # + a torch checkpoint

Each line of the cases file: ``{id, question, passages: [{text, relevant}]}``, written blind
(tests/relevance_cases.jsonl: 40 questions, 209 passages, 54 relevant, 22 domains). For every
question, the passages go to the judge as one trace (no answer), and the judge's
``context_relevance`` is read; the verifier reads every (passage, question) pair, the shape
QNLI taught it (premise = passage, claim = question), and its P(supported) is the score.

Prints for each scorer: AUROC of relevant vs not over all passages, mean average precision of
the per-question ranking, precision@1 over the questions that have a relevant passage,
precision / recall of "relevant" at the judge's own threshold (embedding) or at 0.5
(cross-encoder), and the best threshold by Youden's J.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.judges.base import JudgeError
from groundwatch.judges.factory import build_judge
from groundwatch.settings import Settings

Case = dict[str, object]
Scores = list[list[float]]


def load_cases(path: Path) -> list[Case]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def labels_of(cases: Sequence[Case]) -> list[list[bool]]:
    return [[bool(p["relevant"]) for p in c["passages"]] for c in cases]  # type: ignore[attr-defined]


def auroc(pos: Sequence[float], neg: Sequence[float]) -> float:
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def average_precision(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    if not any(labels):
        return None
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    hits, total = 0, 0.0
    for rank, i in enumerate(order, 1):
        if labels[i]:
            hits += 1
            total += hits / rank
    return total / sum(labels)


def report(
    name: str, scores: Scores, labels: list[list[bool]], threshold: float
) -> dict[str, float]:
    flat = [
        (s, y) for ss, ys in zip(scores, labels, strict=True) for s, y in zip(ss, ys, strict=True)
    ]
    pos = [s for s, y in flat if y]
    neg = [s for s, y in flat if not y]
    aps = [
        a
        for ss, ys in zip(scores, labels, strict=True)
        if (a := average_precision(ss, ys)) is not None
    ]
    p_at_1 = [
        float(ys[int(np.argmax(ss))]) for ss, ys in zip(scores, labels, strict=True) if any(ys)
    ]
    tp = sum(s >= threshold for s in pos)
    fp = sum(s >= threshold for s in neg)
    youden = max(
        (sum(p >= t for p in pos) / len(pos) - sum(n >= t for n in neg) / len(neg), t)
        for t in sorted(set(pos + neg))
    )
    out = {
        "auroc": auroc(pos, neg),
        "map": statistics.mean(aps),
        "p_at_1": statistics.mean(p_at_1),
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / len(pos),
        "threshold": threshold,
        "youden_threshold": youden[1],
        "youden_j": youden[0],
    }
    print(f"{name}: " + ", ".join(f"{k} {v:.3f}" for k, v in out.items()))
    return out


def judge_scores(cases: Sequence[Case]) -> tuple[str, Scores, float]:
    settings = Settings()
    judge = build_judge(settings.judge, settings.embedding)
    judge.load()
    traces = [
        RagTrace(
            trace_id=str(c["id"]),
            question=str(c["question"]),
            contexts=[
                ContextPassage(text=str(p["text"]), id=f"p{i}")
                for i, p in enumerate(c["passages"])  # type: ignore[arg-type]
            ],
            answer=None,
        )
        for c in cases
    ]
    out: Scores = []
    threshold = 0.0
    for result in judge.judge_batch(traces):
        if isinstance(result, JudgeError):
            raise SystemExit(f"judge error: {result}")
        threshold = result.relevance_threshold
        out.append(list(result.context_relevance))
    return judge.version, out, threshold


def cross_scores(
    cases: Sequence[Case], predict: Callable[[list[tuple[str, str]]], np.ndarray]
) -> Scores:
    out: Scores = []
    for c in cases:
        pairs = [(str(p["text"]), str(c["question"])) for p in c["passages"]]  # type: ignore[attr-defined]
        out.append([float(x) for x in predict(pairs)[:, 0]])
    return out


def onnx_predict() -> Callable[[list[tuple[str, str]]], np.ndarray]:
    from groundwatch.judges.verifier import ClaimVerifier

    verifier = ClaimVerifier.shipped()
    return verifier.predict


def torch_predict(checkpoint: str) -> Callable[[list[tuple[str, str]]], np.ndarray]:
    import torch

    from training.data import Pair
    from training.model import CrossEncoder, load_tokenizer, model_dir, predict

    model = CrossEncoder(model_dir())
    model.load_state_dict(torch.load(checkpoint, map_location="cpu"))
    tok = load_tokenizer()
    device = torch.device("cpu")

    def run(pairs: list[tuple[str, str]]) -> np.ndarray:
        items = [Pair(p, q, frozenset({0}), "relevance", "") for p, q in pairs]
        return predict(model, tok, items, device)

    return run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("cases", nargs="?", default="tests/relevance_cases.jsonl")
    ap.add_argument("--checkpoint", default="", help="also score with this torch checkpoint")
    ap.add_argument("--no-shipped", action="store_true", help="skip the shipped ONNX verifier")
    args = ap.parse_args()
    cases = load_cases(Path(args.cases))
    labels = labels_of(cases)
    n = sum(len(x) for x in labels)
    print(f"{len(cases)} questions, {n} passages, {sum(map(sum, labels))} relevant")
    version, scores, threshold = judge_scores(cases)
    report(f"embedding relevance ({version})", scores, labels, threshold)
    if not args.no_shipped:
        report(
            "shipped verifier as cross-encoder", cross_scores(cases, onnx_predict()), labels, 0.5
        )
    if args.checkpoint:
        cross = cross_scores(cases, torch_predict(args.checkpoint))
        mean = [
            [(a + b) / 2 for a, b in zip(x, y, strict=True)]
            for x, y in zip(scores, cross, strict=True)
        ]
        report("mean of embedding relevance and cross-encoder", mean, labels, threshold)
        report(
            f"cross-encoder {args.checkpoint}",
            cross,
            labels,
            0.5,
        )


if __name__ == "__main__":
    main()
