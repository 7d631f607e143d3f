"""Accuracy on premise -> claim pair files (``../shared/data/verifier/*/*.jsonl`` shape).

Usage::

    python benchmarks/pairs.py ../shared/data/verifier/dev/sick.jsonl [--limit 2000] [--raw]
    python benchmarks/accuracy.py ../shared/data/verifier/dev/sick.jsonl   # same, dispatched

Each line: ``{premise, hypothesis, label}`` with label supported / contradicted / not_found
(3-class) or supported / unsupported (binary). Two modes:

* default: the whole judge, each pair as a trace (the premise the only passage, the hypothesis
  the answer, the pair's ``question`` when it has one). The pair's verdict is the worst claim
  verdict (contradicted >
  not found > supported); its support score is the trace's faithfulness, ties broken by the
  claims' verifier scores;
* ``--raw``: the verifier alone on (evidence window, hypothesis), windows cut as in training.

Prints: 3-way accuracy (3-class files), per-class precision / recall, the confusion matrix
(rows = label), balanced accuracy of supported vs not, AUROC of the support score, and the
precision of *contradicted* counting both contradicted and unsupported labels as right.
A limit draws a seeded, label-stratified sample, so figures are comparable between runs.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

VERDICTS = ("supported", "contradicted", "not_found")


def load_pairs(path: Path, limit: int | None, seed: int = 7) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    if limit is None or limit >= len(rows):
        return rows
    rng = random.Random(seed)
    by_label: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_label.setdefault(str(r["label"]), []).append(r)
    out: list[dict[str, Any]] = []
    for _label, items in sorted(by_label.items()):
        take = round(limit * len(items) / len(rows))
        out += rng.sample(items, min(take, len(items)))
    return out


def auroc(scores: Sequence[float], positives: Sequence[bool]) -> float | None:
    pos = [s for s, y in zip(scores, positives, strict=True) if y]
    neg = [s for s, y in zip(scores, positives, strict=True) if not y]
    if not pos or not neg:
        return None
    wins = 0.0
    neg_sorted = sorted(neg)
    import bisect

    for s in pos:
        lo = bisect.bisect_left(neg_sorted, s)
        hi = bisect.bisect_right(neg_sorted, s)
        wins += lo + 0.5 * (hi - lo)
    return wins / (len(pos) * len(neg))


def judge_pairs(
    rows: Sequence[dict[str, Any]], backend: str = "embedded"
) -> tuple[list[str], list[float], str]:
    """Verdict and support score per pair, from the full judge."""
    from groundwatch.contract.trace import RagTrace
    from groundwatch.evaluation.evaluator import Evaluator
    from groundwatch.judges.factory import build_judge
    from groundwatch.settings import Settings

    # the other judge settings (GROUNDWATCH_JUDGE__CALIBRATION_PATH, ...) as the service reads them
    settings = Settings()
    judge = build_judge(settings.judge, settings.embedding, backend=backend)
    judge.load()
    evaluator = Evaluator(judge)
    traces = [
        RagTrace(
            trace_id=f"pair-{i}",
            question=str(r.get("question") or ""),
            contexts=[str(r["premise"])],
            answer=r["hypothesis"],
        )
        for i, r in enumerate(rows)
    ]
    verdicts: list[str] = []
    scores: list[float] = []
    for start in range(0, len(traces), 32):
        for rec in evaluator.evaluate_batch(traces[start : start + 32]):
            found = {c.verdict for c in rec.claims}
            verdict = next((v for v in ("contradicted", "not_found") if v in found), "supported")
            verdicts.append(verdict)
            tie = min(
                (c.score if c.verdict == "supported" else 1 - c.score for c in rec.claims),
                default=0.5,
            )
            faith = rec.faithfulness if rec.faithfulness is not None else 0.5
            scores.append(faith + 0.01 * tie)
    return verdicts, scores, judge.version


def raw_pairs(rows: Sequence[dict[str, Any]]) -> tuple[list[str], list[float], str]:
    """Verdict and support score per pair, from the verifier alone."""
    from groundwatch.judges.claims.extract import split_sentences
    from groundwatch.judges.evidence_window import evidence_window
    from groundwatch.judges.verifier import ClaimVerifier

    verifier = ClaimVerifier.shipped()
    pairs = [
        (evidence_window(split_sentences(str(r["premise"])), str(r["hypothesis"])), r["hypothesis"])
        for r in rows
    ]
    probs = verifier.predict(pairs)
    verdicts = [VERDICTS[int(p.argmax())] for p in probs]
    return verdicts, [float(p[0]) for p in probs], verifier.name


def figures(
    rows: Sequence[dict[str, Any]], verdicts: Sequence[str], scores: Sequence[float]
) -> dict[str, float | None]:
    """The headline figures: 3-way accuracy (3-class files, else None), balanced accuracy of
    supported vs not, AUROC of the support score."""
    labels = [str(r["label"]) for r in rows]
    three = all(lab in VERDICTS for lab in labels)
    sup = [lab == "supported" for lab in labels]
    pred = [v == "supported" for v in verdicts]
    pos, neg = sum(sup), len(sup) - sum(sup)
    tpr = sum(a and b for a, b in zip(sup, pred, strict=True)) / pos if pos else 0.0
    tnr = sum(not a and not b for a, b in zip(sup, pred, strict=True)) / neg if neg else 0.0
    return {
        "three_way": (
            sum(v == lab for v, lab in zip(verdicts, labels, strict=True)) / len(rows)
            if three and rows
            else None
        ),
        "balanced": (tpr + tnr) / 2,
        "auroc": auroc(scores, sup),
    }


def report(
    rows: Sequence[dict[str, Any]], verdicts: Sequence[str], scores: Sequence[float]
) -> list[str]:
    labels = [str(r["label"]) for r in rows]
    three = all(lab in VERDICTS for lab in labels)
    lines = [f"pairs: {len(rows)}  labels: {dict(Counter(labels))}"]
    if three:
        acc = sum(v == lab for v, lab in zip(verdicts, labels, strict=True)) / len(rows)
        lines.append(f"3-way accuracy: {acc:.3f}")
    for v in VERDICTS:
        pred = [i for i, x in enumerate(verdicts) if x == v]
        if v == "supported":
            right_label = {"supported"}
        elif three:
            right_label = {v}
        else:
            right_label = {"unsupported"}
        prec = sum(labels[i] in right_label for i in pred) / len(pred) if pred else None
        gold = [i for i, lab in enumerate(labels) if lab == v]
        rec = sum(verdicts[i] == v for i in gold) / len(gold) if gold else None
        p = "n/a (none predicted)" if prec is None else f"{prec:.3f}"
        r = "n/a" if rec is None else f"{rec:.3f}"
        lines.append(f"  {v:<13} predicted {len(pred):>5}  precision {p}  recall {r}")
    lines.append("confusion (rows = label; cols = supported / contradicted / not_found):")
    for lab in sorted(set(labels)):
        row = Counter(v for v, x in zip(verdicts, labels, strict=True) if x == lab)
        lines.append(f"  {lab:<13} " + " ".join(f"{row.get(v, 0):>6}" for v in VERDICTS))
    sup = [lab == "supported" for lab in labels]
    pred_sup = [v == "supported" for v in verdicts]
    tpr = sum(a and b for a, b in zip(sup, pred_sup, strict=True)) / max(1, sum(sup))
    tnr = sum((not a) and (not b) for a, b in zip(sup, pred_sup, strict=True)) / max(
        1, len(sup) - sum(sup)
    )
    lines.append(f"balanced accuracy (supported vs not): {(tpr + tnr) / 2:.3f}")
    au = auroc(scores, sup)
    lines.append(f"AUROC of the support score: {'n/a' if au is None else f'{au:.3f}'}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--raw", action="store_true", help="the verifier alone, no judge")
    parser.add_argument("--backend", choices=["embedded", "verifier"], default="embedded")
    args = parser.parse_args(argv)
    rows = load_pairs(args.file, args.limit)
    start = time.perf_counter()
    if args.raw:
        verdicts, scores, name = raw_pairs(rows)
    else:
        verdicts, scores, name = judge_pairs(rows, args.backend)
    elapsed = time.perf_counter() - start
    print(f"{args.file.name}  ({name}; {len(rows) / elapsed:.1f} pairs/s)")
    print("\n".join(report(rows, verdicts, scores)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
