"""Accuracy of the embedded judge on labeled traces.

Usage::

    .venv/bin/python benchmarks/accuracy.py /work/shared/data/halueval_qa_dev.jsonl [--limit N]
    .venv/bin/python benchmarks/accuracy.py tests/hard_cases.jsonl
    .venv/bin/python benchmarks/accuracy.py FILE --calibrate   # also sweep the thresholds

Each line is a trace plus ``label``: ``{"hallucinated": bool}`` (trace-labeled) or
``{"claims": [{"text", "verdict"}]}`` (claim-labeled; ``hallucinated`` is then derived: any
claim not supported).

Decision rule (documented): a trace is predicted *hallucinated* when its faithfulness is below
1.0, i.e. when any claim is contradicted or not found (a trace without claims, e.g. a refusal,
counts as not hallucinated). AUROC is computed on ``1 - faithfulness``, and again with the claim
scores breaking ties within a faithfulness level. Claim-labeled predictions are matched to labeled claims by
best word overlap (the judge's claim text need not equal the label's).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.claims.extract import content_words, is_terse
from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import build_embedder
from groundwatch.judges.factory import build_judge
from groundwatch.settings import Settings

__all__ = [
    "AccuracyReport",
    "auroc",
    "calibrate_relevance",
    "evaluate_rows",
    "load_rows",
    "score_records",
    "sweep_support",
    "throughput",
]

VERDICTS = ("supported", "contradicted", "not_found")


@dataclass
class AccuracyReport:
    """Trace-level and claim-level accuracy figures."""

    n: int = 0
    balanced_accuracy: float = 0.0
    precision: float = 0.0
    recall: float = 0.0
    f1: float = 0.0
    auroc: float | None = None
    auroc_graded: float | None = None
    claim_accuracy: float | None = None
    contradicted_precision: float | None = None
    confusion: dict[str, dict[str, int]] = field(default_factory=dict)
    mistakes: list[dict[str, Any]] = field(default_factory=list)
    refusal_accuracy: float | None = None
    refusal_precision: float | None = None
    refusal_recall: float | None = None
    refusal_balanced_accuracy: float | None = None
    contradicted_predicted: int = 0
    #: The judge's findings (its claims called contradicted) that a labelled claim matched:
    #: right when one of those labelled claims is contradicted, false (a false page) when none
    #: is. A judged sentence holding a true and a contradicted labelled claim is one right
    #: finding, though the claim-level confusion counts its true claim as called contradicted.
    findings_right: int = 0
    findings_false: int = 0
    relevance_accuracy: float | None = None
    traces_per_s: float = 0.0

    def lines(self) -> list[str]:
        out = [
            f"traces: {self.n}",
            f"balanced accuracy: {self.balanced_accuracy:.3f}",
            f"hallucinated precision/recall/F1: {self.precision:.3f} / {self.recall:.3f} / "
            f"{self.f1:.3f}",
            f"AUROC (1 - faithfulness): {_fmt(self.auroc)}",
            f"AUROC (1 - faithfulness, ties broken by claim scores): {_fmt(self.auroc_graded)}",
            f"throughput: {self.traces_per_s:.1f} traces/s",
        ]
        if self.claim_accuracy is not None:
            out.append(f"claim-verdict accuracy: {self.claim_accuracy:.3f}")
            out.append(
                f"contradicted precision: {_fmt(self.contradicted_precision)}"
                f" ({self.contradicted_predicted} predicted)"
            )
            found = self.findings_right + self.findings_false
            out.append(
                f"findings: {found} labelled, {self.findings_right} right, {self.findings_false}"
                f" false (no contradicted labelled claim in them); finding precision"
                f" {_fmt(self.findings_right / found if found else None)}"
            )
            out.append("confusion (rows = label, columns = predicted):")
            cols = (*VERDICTS, "unextracted")
            out.append("  " + " ".join(f"{v:>13}" for v in ("", *cols)))
            for label in VERDICTS:
                row = self.confusion.get(label, {})
                out.append(
                    "  " + " ".join(f"{x:>13}" for x in (label, *(row.get(p, 0) for p in cols)))
                )
        if self.refusal_accuracy is not None:
            out.append(
                f"refusal: balanced accuracy {_fmt(self.refusal_balanced_accuracy)}, precision"
                f" {_fmt(self.refusal_precision)}, recall {_fmt(self.refusal_recall)}"
                f" (plain accuracy {self.refusal_accuracy:.3f})"
            )
        if self.relevance_accuracy is not None:
            out.append(f"passage relevance accuracy: {self.relevance_accuracy:.3f}")
        return out


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _is_pair_file(path: Path) -> bool:
    with path.open(encoding="utf-8") as fh:
        first = fh.readline()
    try:
        row = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(row, dict) and "premise" in row and "hypothesis" in row


def load_rows(path: Path, limit: int | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
            if limit is not None and len(rows) >= limit:
                break
    return rows


def auroc(scores: Sequence[float], positives: Sequence[bool]) -> float | None:
    """Area under the ROC curve (ties count half); None without both classes."""
    pos = [s for s, p in zip(scores, positives, strict=True) if p]
    neg = [s for s, p in zip(scores, positives, strict=True) if not p]
    if not pos or not neg:
        return None
    wins = 0.0
    for p in pos:
        for n in neg:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(pos) * len(neg))


def _overlap(a: str, b: str) -> float:
    wa, wb = set(content_words(a)), set(content_words(b))
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _unsupported_score(record: EvaluationRecord) -> float:
    if record.faithfulness is None:
        return 0.0
    support = [c.score if c.verdict == "supported" else 1.0 - c.score for c in record.claims] or [
        1.0
    ]
    # Faithfulness first; mean support breaks ties within a faithfulness level.
    return (1.0 - record.faithfulness) + 0.01 * (1.0 - sum(support) / len(support))


def score_records(
    rows: Sequence[dict[str, Any]], records: Sequence[EvaluationRecord]
) -> AccuracyReport:
    """Compare records with the rows' labels."""
    report = AccuracyReport(n=len(rows))
    truth: list[bool] = []
    pred: list[bool] = []
    scores: list[float] = []
    graded: list[float] = []
    confusion: dict[str, dict[str, int]] = {v: dict.fromkeys(VERDICTS, 0) for v in VERDICTS}
    claim_total = claim_right = 0
    refusal_total = refusal_right = refusal_tp = refusal_fp = refusal_fn = 0
    relevance_total = relevance_right = 0
    for row, record in zip(rows, records, strict=True):
        label = row.get("label") or {}
        labeled_claims: list[dict[str, str]] = label.get("claims") or []
        if "hallucinated" in label:
            hallucinated = bool(label["hallucinated"])
        else:
            hallucinated = any(c["verdict"] != "supported" for c in labeled_claims)
        predicted = record.faithfulness is not None and record.faithfulness < 1.0
        truth.append(hallucinated)
        pred.append(predicted)
        scores.append(0.0 if record.faithfulness is None else 1.0 - record.faithfulness)
        graded.append(_unsupported_score(record))
        for flag, ctx in zip(label.get("relevant") or [], record.contexts, strict=False):
            relevance_total += 1
            relevance_right += int(bool(flag) == ctx.relevant)
        if "refusal" in label:
            refusal_total += 1
            refusal_right += int(bool(label["refusal"]) == record.refusal)
            refusal_tp += int(bool(label["refusal"]) and record.refusal)
            refusal_fp += int(not label["refusal"] and record.refusal)
            refusal_fn += int(bool(label["refusal"]) and not record.refusal)
        question = str(row.get("question") or "")
        # A terse answer's claim is shown as written ("Yes", "London") and judged read with
        # the question: match it the way the judge read it.
        read = [(f"{question} {c.text}" if is_terse(c.text) else c.text, c) for c in record.claims]
        matched: dict[int, list[str]] = {}  # judged claim (index in read) -> labels matched to it
        for lc in labeled_claims:
            best = max(read, key=lambda rc: _overlap(rc[0], lc["text"]), default=None)
            # A labelled claim the judge never extracted is a miss whatever its label: the
            # record says nothing about it (it is not a "not found" verdict).
            got = (
                best[1].verdict
                if best is not None and _overlap(best[0], lc["text"]) > 0.2
                else "unextracted"
            )
            if got != "unextracted" and best is not None:
                matched.setdefault(read.index(best), []).append(lc["verdict"])
            confusion[lc["verdict"]][got] = confusion[lc["verdict"]].get(got, 0) + 1
            claim_total += 1
            ok = got == lc["verdict"]
            claim_right += int(ok)
            if not ok:
                report.mistakes.append(
                    {
                        "trace_id": record.trace_id,
                        "claim": lc["text"],
                        "label": lc["verdict"],
                        "got": got,
                        "reason": best[1].reason if best else None,
                        "judged": best[0] if best else None,
                    }
                )
        for i, labels in matched.items():
            if read[i][1].verdict == "contradicted":
                right = "contradicted" in labels
                report.findings_right += int(right)
                report.findings_false += int(not right)
        if not labeled_claims and hallucinated != predicted:
            report.mistakes.append(
                {
                    "trace_id": record.trace_id,
                    "label": hallucinated,
                    "claims": [(c.text, c.verdict, c.reason) for c in record.claims],
                }
            )
    tp = sum(t and p for t, p in zip(truth, pred, strict=True))
    fp = sum((not t) and p for t, p in zip(truth, pred, strict=True))
    fn = sum(t and not p for t, p in zip(truth, pred, strict=True))
    tn = sum((not t) and not p for t, p in zip(truth, pred, strict=True))
    tpr = tp / (tp + fn) if tp + fn else 0.0
    tnr = tn / (tn + fp) if tn + fp else 0.0
    report.balanced_accuracy = (tpr + tnr) / 2 if (tp + fn and tn + fp) else max(tpr, tnr)
    report.precision = tp / (tp + fp) if tp + fp else 0.0
    report.recall = tpr
    report.f1 = (
        2 * report.precision * report.recall / (report.precision + report.recall)
        if report.precision + report.recall
        else 0.0
    )
    report.auroc = auroc(scores, truth)
    report.auroc_graded = auroc(graded, truth)
    if claim_total:
        report.claim_accuracy = claim_right / claim_total
        report.confusion = confusion
        predicted_contra = sum(confusion[v]["contradicted"] for v in VERDICTS)
        report.contradicted_predicted = predicted_contra
        report.contradicted_precision = (
            confusion["contradicted"]["contradicted"] / predicted_contra
            if predicted_contra
            else None  # nothing predicted contradicted: precision is undefined, not 1.0
        )
    if refusal_total:
        report.refusal_accuracy = refusal_right / refusal_total
        pos = refusal_tp + refusal_fn
        neg = refusal_total - pos
        report.refusal_precision = (
            refusal_tp / (refusal_tp + refusal_fp) if refusal_tp + refusal_fp else None
        )
        report.refusal_recall = refusal_tp / pos if pos else None
        if pos and neg:
            report.refusal_balanced_accuracy = (refusal_tp / pos + (neg - refusal_fp) / neg) / 2
    if relevance_total:
        report.relevance_accuracy = relevance_right / relevance_total
    return report


def _traces(rows: Iterable[dict[str, Any]]) -> list[RagTrace]:
    return [RagTrace.model_validate({k: v for k, v in r.items() if k != "label"}) for r in rows]


def evaluate_rows(
    rows: Sequence[dict[str, Any]],
    judge: Any = None,
    batch_size: int = 32,
) -> tuple[AccuracyReport, list[EvaluationRecord]]:
    """Run the judge over labeled rows and score it. Builds the default judge if none given."""
    if judge is None:
        judge = EmbeddedJudge(build_embedder(Settings().embedding))
    judge.load()
    evaluator = Evaluator(judge)
    traces = _traces(rows)
    records: list[EvaluationRecord] = []
    start = time.perf_counter()
    for i in range(0, len(traces), batch_size):
        records.extend(evaluator.evaluate_batch(traces[i : i + batch_size]))
    elapsed = time.perf_counter() - start
    report = score_records(rows, records)
    report.traces_per_s = len(traces) / elapsed if elapsed > 0 else 0.0
    return report, records


def calibrate_relevance(rows: Sequence[dict[str, Any]], judge: EmbeddedJudge) -> float:
    """Threshold that best separates a question's own passages from another trace's passages.

    Positives: each row's passages (HaluEval passages are retrieved for their question);
    negatives: the passages of the next row. Prints the sweep; returns the best threshold.
    """
    traces = _traces(rows)
    own = [t.model_copy(update={"answer": None}) for t in traces]
    other = [
        t.model_copy(update={"answer": None, "contexts": traces[(i + 1) % len(traces)].contexts})
        for i, t in enumerate(traces)
    ]
    pos = [
        r
        for j in judge.judge_batch(own)
        if not isinstance(j, Exception)
        for r in j.context_relevance
    ]
    neg = [
        r
        for j in judge.judge_batch(other)
        if not isinstance(j, Exception)
        for r in j.context_relevance
    ]
    best, best_bacc = 0.0, -1.0
    for k in range(10, 80):
        t = k / 100
        bacc = (sum(p >= t for p in pos) / len(pos) + sum(n < t for n in neg) / len(neg)) / 2
        if bacc > best_bacc:
            best, best_bacc = t, bacc
    t = judge.relevance_threshold
    print(
        f"relevance: AUROC {_fmt(auroc(pos + neg, [True] * len(pos) + [False] * len(neg)))}; "
        f"best threshold on these (easy, off-topic) negatives {best:.2f} "
        f"(balanced accuracy {best_bacc:.3f}); at the judge's {t:.2f}: "
        f"{sum(p >= t for p in pos) / len(pos):.3f} of own passages relevant, "
        f"{sum(n < t for n in neg) / len(neg):.3f} of other passages not"
    )
    return best


def sweep_support(rows: Sequence[dict[str, Any]], embedder: Any) -> None:
    """Balanced accuracy and claim accuracy across support thresholds."""
    for t in (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        report, _ = evaluate_rows(rows, EmbeddedJudge(embedder, support_threshold=t))
        claim = (
            "" if report.claim_accuracy is None else f", claim accuracy {report.claim_accuracy:.3f}"
        )
        print(f"support threshold {t:.2f}: balanced accuracy {report.balanced_accuracy:.3f}{claim}")


def throughput(rows: Sequence[dict[str, Any]], judge: EmbeddedJudge, passages: int = 5) -> float:
    """Warm-cache traces/s on traces with ``passages`` passages each (borrowed from other rows)."""
    texts = [c if isinstance(c, str) else c["text"] for r in rows for c in r["contexts"]]
    traces = [
        RagTrace.model_validate(
            {
                "trace_id": f"tp-{i}",
                "question": r["question"],
                "answer": r["answer"],
                "contexts": [texts[(i + k) % len(texts)] for k in range(passages)],
            }
        )
        for i, r in enumerate(rows)
    ]
    for i in range(0, len(traces), 32):
        judge.judge_batch(traces[i : i + 32])
    start = time.perf_counter()
    for i in range(0, len(traces), 32):
        judge.judge_batch(traces[i : i + 32])
    return len(traces) / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--mistakes", action="store_true", help="print the misjudged items")
    parser.add_argument("--warm", action="store_true", help="run twice; report the warm pass")
    parser.add_argument(
        "--calibrate", action="store_true", help="sweep support and relevance thresholds"
    )
    parser.add_argument(
        "--throughput", action="store_true", help="warm traces/s with 5 passages a trace"
    )
    parser.add_argument(
        "--backend",
        choices=["embedded", "verifier"],
        default="embedded",
        help="embedded (the rules judge; this script's default) or verifier (the service's"
        " default judge: the trained claim verifier)",
    )
    args = parser.parse_args(argv)
    if _is_pair_file(args.file):
        # premise -> claim pairs (../shared/data/verifier): the pair harness
        import importlib.util

        spec = importlib.util.spec_from_file_location(
            "gw_pairs", Path(__file__).with_name("pairs.py")
        )
        assert spec is not None
        assert spec.loader is not None
        pairs = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(pairs)
        extra = ["--limit", str(args.limit)] if args.limit else []
        extra += ["--backend", args.backend]
        return pairs.main([str(args.file), *extra])
    rows = load_rows(args.file, args.limit)
    settings = Settings()
    embedder = build_embedder(settings.embedding)
    # the other judge settings (GROUNDWATCH_JUDGE__CALIBRATION_PATH, ...) as the service reads them
    judge: Any = build_judge(settings.judge, embedder=embedder, backend=args.backend)
    report, _ = evaluate_rows(rows, judge)
    if args.warm:
        report, _ = evaluate_rows(rows, judge)
    print(f"judge: {judge.version}")
    print("\n".join(report.lines()))
    decided = sum(getattr(judge, "stats", {}).values())
    if decided:
        shares = ", ".join(f"{k} {v} ({v / decided:.0%})" for k, v in sorted(judge.stats.items()))
        print(f"claims decided by: {shares}")
    if args.mistakes:
        for m in report.mistakes:
            print(json.dumps(m, ensure_ascii=False))
    if args.calibrate:
        sweep_support(rows, embedder)
        calibrate_relevance(rows, judge)
    if args.throughput:
        print(f"throughput, 5 passages a trace, warm cache: {throughput(rows, judge):.1f} traces/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
