"""Benchmark: ``suite compare`` of two 10,000-record runs with 1,000 bootstrap resamples.

Usage::

    nice -n 5 .venv/bin/python benchmarks/suite_compare.py [--n 10000] [--resamples 1000]

Builds two synthetic runs (3 slice keys, 24 metrics per record, a few missing values), writes
them as JSONL, and times what ``groundwatch suite compare`` does: load both files, compare
(bootstrap every metric × slice), render the terminal, Markdown and HTML reports. Prints
figures; the target is under 10 s on 2 cores.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from groundwatch.suite.compare import compare_runs
from groundwatch.suite.html_report import render_html
from groundwatch.suite.record import EvalRecord
from groundwatch.suite.report import render_markdown, render_terminal
from groundwatch.suite.runner import load_records

METRICS = [f"{m}@{k}" for m in ("recall", "precision", "hit", "ndcg") for k in (1, 3, 5)] + [
    "mrr",
    "correct",
    "correctness",
    "vital_nugget_recall",
    "nugget_recall",
    "all_vital_present",
    "faithfulness",
    "answer_relevance",
    "false_refusal",
    "has_contradiction",
    "gold_context_precision",
    "first_gold_rank",
]


def _run(n: int, shift: float, seed: int) -> list[EvalRecord]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        rng_case = random.Random(i)
        slices = {
            "intent": rng_case.choice(["billing", "account", "api", "support", "shipping"]),
            "source": rng_case.choice(["kb", "faq", "policy"]),
            "answerable": "yes" if i % 10 else "no",
        }
        metrics: dict[str, float | None] = {}
        for m in METRICS:
            if rng.random() < 0.05:
                metrics[m] = None
            elif m in (
                "correct",
                "false_refusal",
                "has_contradiction",
                "all_vital_present",
            ) or m.startswith("hit"):
                metrics[m] = float(
                    rng.random() < 0.7 - (shift if slices["intent"] == "billing" else 0)
                )
            else:
                metrics[m] = rng.random()
        out.append(
            EvalRecord(
                case_id=f"c{i}",
                question="q",
                slices=slices,
                metrics=metrics,
                passed=bool(metrics["correct"]),
                retrieved=["a", "b"],
            )
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, shift, seed in (("base", 0.0, 1), ("cand", 0.1, 2)):
            path = Path(tmp) / f"{name}.jsonl"
            path.write_text("".join(r.model_dump_json() + "\n" for r in _run(args.n, shift, seed)))
            paths.append(path)
        t0 = time.perf_counter()
        base, cand = load_records(paths[0]), load_records(paths[1])
        t1 = time.perf_counter()
        cmp = compare_runs(base, cand, resamples=args.resamples, seed=0)
        t2 = time.perf_counter()
        render_terminal(cmp)
        render_markdown(cmp)
        render_html(cmp)
        t3 = time.perf_counter()
    print(f"records per run        {args.n}")
    print(f"resamples              {args.resamples}")
    print(f"metric x slice rows    {len(cmp.rows)}")
    print(f"load both runs         {t1 - t0:.2f} s")
    print(f"compare (bootstrap)    {t2 - t1:.2f} s")
    print(f"render 3 reports       {t3 - t2:.2f} s")
    print(f"total                  {t3 - t0:.2f} s   (target < 10 s on 2 cores)")


if __name__ == "__main__":
    main()
