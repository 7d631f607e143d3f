"""Measure a verifier checkpoint on the dev sets (never trained on) and the held-out split.

Usage::

    python -m training.stage1_eval --checkpoint build/stage1/best.pt
    python -m training.stage1_eval --checkpoint build/stage1/best.pt --limit 500   # quick

Prints one JSON object a line and a table:

- SICK: 3-way accuracy, balanced 3-way accuracy, contradicted precision / recall;
- ANLI (rounds 1-3): 3-way accuracy (adversarial; reported, no target);
- Climate-FEVER: AUROC of P(supported), supported vs the rest; contradicted precision;
- SummEdits podcast + sales email (two domains not in train/): each summary sentence against
  its evidence window (cut as the judge cuts passages), a summary is supported when every
  sentence is; balanced accuracy at argmax and AUROC of the weakest sentence's P(supported);
- stage 1's held-out 5 % per source (:mod:`training.stage1`).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np
import torch

from groundwatch.judges.claims.extract import split_sentences
from training.data import (
    CONTRADICTED,
    NATURAL_HELD_OUT,
    SUPPORTED,
    TARGETS,
    Pair,
    load_natural,
    split_by_group,
    windowed,
)
from training.model import CrossEncoder, auroc, held_report, load_tokenizer, model_dir, predict


def _rows(root: Path, name: str, limit: int, seed: int) -> list[dict[str, str]]:
    rows = [json.loads(x) for x in (root / "dev" / f"{name}.jsonl").read_text().splitlines() if x]
    if limit and len(rows) > limit:
        rows = random.Random(seed).sample(rows, limit)
    return rows


def three_way(name: str, rows: list[dict[str, str]], probs: np.ndarray) -> dict[str, float]:
    gold = [min(TARGETS[r["label"]]) for r in rows]
    pred = [int(np.argmax(p)) for p in probs]
    per_class = [
        float(np.mean([pred[i] == c for i, g in enumerate(gold) if g == c]))
        for c in range(3)
        if c in gold
    ]
    said = [i for i, y in enumerate(pred) if y == CONTRADICTED]
    truly = [i for i, g in enumerate(gold) if g == CONTRADICTED]
    return {
        f"{name}/acc3": float(np.mean([a == b for a, b in zip(gold, pred, strict=True)])),
        f"{name}/bal_acc3": float(np.mean(per_class)),
        f"{name}/contra_precision": float(np.mean([gold[i] == CONTRADICTED for i in said]))
        if said
        else float("nan"),
        f"{name}/contra_recall": float(np.mean([pred[i] == CONTRADICTED for i in truly]))
        if truly
        else float("nan"),
        f"{name}/support_auroc": auroc(
            [float(p[SUPPORTED]) for p in probs], [g == SUPPORTED for g in gold]
        ),
    }


def summedits(rows: list[dict[str, str]], model: CrossEncoder, tok: object) -> dict[str, float]:
    pairs: list[Pair] = []
    owner: list[int] = []
    for n, row in enumerate(rows):
        for sent in split_sentences(row["hypothesis"]) or [row["hypothesis"]]:
            pairs.append(Pair(windowed(row["premise"], sent), sent, frozenset(), "summedits", ""))
            owner.append(n)
    probs = predict(model, tok, pairs, torch.device("cpu"))  # type: ignore[arg-type]
    weakest = [1.0] * len(rows)
    all_supported = [True] * len(rows)
    for i, n in enumerate(owner):
        weakest[n] = min(weakest[n], float(probs[i][SUPPORTED]))
        all_supported[n] = all_supported[n] and int(np.argmax(probs[i])) == SUPPORTED
    gold = [r["label"] == "supported" for r in rows]
    pos = [all_supported[i] for i, g in enumerate(gold) if g]
    neg = [not all_supported[i] for i, g in enumerate(gold) if not g]
    return {
        "summedits_dev/bal_acc": float((np.mean(pos) + np.mean(neg)) / 2),
        "summedits_dev/auroc": auroc(weakest, gold),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--data", default="../shared/data/verifier")
    ap.add_argument("--limit", type=int, default=0, help="rows per dev set (0 = all)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    root = Path(args.data)
    tok = load_tokenizer()
    model = CrossEncoder(model_dir())
    model.load_state_dict(torch.load(args.checkpoint, map_location="cpu"))
    model.eval()
    cpu = torch.device("cpu")
    report: dict[str, float] = {}
    for name in ("sick", "anli_dev", "climate_fever"):
        rows = _rows(root, name, args.limit, args.seed)
        pairs = [Pair(r["premise"], r["hypothesis"], frozenset(), name, "") for r in rows]
        part = three_way(name, rows, predict(model, tok, pairs, cpu))
        print(json.dumps({k: round(v, 4) for k, v in part.items()}), flush=True)
        report.update(part)
    part = summedits(
        _rows(root, "summedits_podcast_sales_email", args.limit, args.seed), model, tok
    )
    print(json.dumps({k: round(v, 4) for k, v in part.items()}), flush=True)
    report.update(part)
    _, held = split_by_group(load_natural(root), NATURAL_HELD_OUT)
    if args.limit:
        held = random.Random(args.seed).sample(held, min(len(held), args.limit * 4))
    part = {
        f"held_out/{k}": v for k, v in held_report(held, predict(model, tok, held, cpu)).items()
    }
    print(json.dumps({k: round(v, 4) for k, v in part.items()}), flush=True)
    report.update(part)
    print("\n| figure | value |\n|---|---|")
    for key, value in report.items():
        print(f"| {key} | {value:.3f} |")


if __name__ == "__main__":
    main()
