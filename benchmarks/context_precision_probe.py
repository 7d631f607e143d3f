"""Context-precision calibration probe (issue 17, item 3): passage relevance of the configured judge
on short, single-domain passages with hand labels (one relevant passage per question).

Every question is paired with all ten passages of one small support knowledge base; the passage
written for the question is labelled relevant, the other nine not. Prints the relevance score
distribution of both groups, precision/recall of "relevant" at the judge's threshold, AUROC, and
the context precision a retriever returning the top 2 (one right, one wrong) would get.

Usage::

    python -m benchmarks.context_precision_probe            # the judge of GROUNDWATCH_JUDGE__*
"""

from __future__ import annotations

import statistics
import time

from groundwatch.contract.trace import ContextPassage, RagTrace
from groundwatch.judges.base import JudgeError
from groundwatch.judges.factory import build_judge
from groundwatch.settings import Settings

# (question, passage written for it). All passages are short and about one shop's policies.
LABELLED = [
    ("How long is the refund window?", "The refund window is 30 days."),
    ("How long does shipping take?", "Shipping takes 5 business days."),
    ("What does the warranty cover?", "The warranty covers the battery for 2 years."),
    ("Can I return opened items?", "Opened items can be returned only if they are defective."),
    ("Which payment methods are accepted?", "We accept credit cards and bank transfers."),
    ("Do you ship abroad?", "International orders are delivered to EU countries only."),
    ("How do I cancel my subscription?", "Subscriptions are cancelled from the account page."),
    ("Is there a student discount?", "Students get 10% off with a valid student card."),
    ("When is customer support available?", "Support is open on weekdays from 9 to 17."),
    ("Who pays for return postage?", "Return postage is paid by the customer."),
]


def auroc(positives: list[float], negatives: list[float]) -> float:
    wins = sum((p > n) + 0.5 * (p == n) for p in positives for n in negatives)
    return wins / (len(positives) * len(negatives))


def main() -> None:
    settings = Settings()
    judge = build_judge(settings.judge, settings.embedding)
    judge.load()
    passages = [ContextPassage(text=text, id=f"p{i}") for i, (_, text) in enumerate(LABELLED)]
    traces = [
        RagTrace(trace_id=f"q{i}", question=q, contexts=passages, answer=None)
        for i, (q, _) in enumerate(LABELLED)
    ]
    start = time.perf_counter()
    results = judge.judge_batch(traces)
    elapsed = time.perf_counter() - start
    pos: list[float] = []
    neg: list[float] = []
    threshold = 0.0
    top2_precision: list[float] = []
    for i, result in enumerate(results):
        if isinstance(result, JudgeError):
            raise SystemExit(f"judge error: {result}")
        threshold = result.relevance_threshold
        scores = result.context_relevance
        pos.append(scores[i])
        for j, score in enumerate(scores):
            if (j == i) != (score >= threshold):
                label = "relevant" if j == i else "irrelevant"
                print(f"misjudged ({label}, {score:.3f}): {LABELLED[i][0]!r} / {LABELLED[j][1]!r}")
        neg.extend(s for j, s in enumerate(scores) if j != i)
        wrong = max((s, j) for j, s in enumerate(scores) if j != i)[0]
        top2_precision.append(((scores[i] >= threshold) + (wrong >= threshold)) / 2)
    tp = sum(s >= threshold for s in pos)
    fp = sum(s >= threshold for s in neg)
    print(
        f"judge {judge.version}: {len(traces)} questions x {len(passages)} passages, {elapsed:.2f}s"
    )
    print(f"threshold {threshold:.2f}")
    for name, group in (("relevant", pos), ("irrelevant", neg)):
        q = statistics.quantiles(group, n=4) if len(group) > 1 else group * 3
        print(
            f"{name:10s} n={len(group):3d} min={min(group):.3f} q1={q[0]:.3f} "
            f"median={q[1]:.3f} q3={q[2]:.3f} max={max(group):.3f}"
        )
    print(f"relevant passages judged relevant: {tp}/{len(pos)}")
    print(f"irrelevant passages judged relevant: {fp}/{len(neg)} ({fp / len(neg):.1%})")
    print(f"AUROC relevant vs irrelevant: {auroc(pos, neg):.3f}")
    best = max(
        (sum(p >= t for p in pos) / len(pos) - sum(n >= t for n in neg) / len(neg), t)
        for t in sorted(set(pos + neg))
    )
    print(f"best threshold by Youden's J: {best[1]:.3f} (J={best[0]:.3f})")
    print(
        "context precision of a top-2 retrieval (right passage + hardest wrong one), mean: "
        f"{statistics.mean(top2_precision):.3f} (ideal 0.5)"
    )


if __name__ == "__main__":
    main()
