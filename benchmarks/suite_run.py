"""Benchmark: ``suite run`` on 1,000 cases against ``groundwatch evaluate`` on the same traces.

Usage::

    nice -n 5 .venv/bin/python benchmarks/suite_run.py [--n 1000] [--batch-size 16]

Cases are the worked example's (examples/suite), repeated with new ids up to ``--n``; traces
come from its toy assistant (baseline configuration). Both paths use the configured judge
(embedded by default), loaded once beforehand. ``evaluate`` = ``Evaluator.evaluate_batch`` over
the traces in batches, as ``groundwatch evaluate`` does; ``suite run`` = ``run_suite`` (the same
reference-free pass plus the reference and nugget probes and the rank metrics). Prints both
throughputs and their ratio; the target is a ratio within 1.2.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.factory import build_judge
from groundwatch.settings import Settings
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.runner import run_suite

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "suite"


def _toy() -> object:
    spec = importlib.util.spec_from_file_location("toy_assistant", EXAMPLE / "toy_assistant.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=16)
    args = parser.parse_args()
    toy = _toy()
    base = [json.loads(line) for line in (EXAMPLE / "cases.jsonl").read_text().splitlines()]
    config = json.loads((EXAMPLE / "baseline.json").read_text())
    kb = toy.passages()  # type: ignore[attr-defined]
    cases, traces = [], {}
    for i in range(args.n):
        obj = dict(base[i % len(base)], id=f"{base[i % len(base)]['id']}-{i}")
        case = EvalCase.model_validate(obj)
        cases.append(case)
        traces[case.id] = RagTrace.model_validate(
            {"trace_id": case.id, **toy.answer(case.question, config, kb)}  # type: ignore[attr-defined]
        )
    judge = build_judge(Settings())
    judge.load()
    evaluator = Evaluator(judge)
    evaluator.evaluate_batch(list(traces.values())[:32])  # warm up
    ordered = [traces[c.id] for c in cases]
    t0 = time.perf_counter()
    for start in range(0, len(ordered), args.batch_size):
        evaluator.evaluate_batch(ordered[start : start + args.batch_size])
    t1 = time.perf_counter()
    records = run_suite(cases, traces, evaluator, batch_size=args.batch_size)
    t2 = time.perf_counter()
    probes = sum(len(c.nuggets) + (1 if c.reference_answer else 0) for c in cases)
    ev, su = args.n / (t1 - t0), args.n / (t2 - t1)
    print(f"judge                  {evaluator.metric_version}")
    print(f"cases                  {args.n} ({probes} probe traces for references and nuggets)")
    print(f"evaluate               {t1 - t0:.1f} s  {ev:.1f} traces/s")
    print(f"suite run              {t2 - t1:.1f} s  {su:.1f} cases/s  ({len(records)} records)")
    print(f"ratio (evaluate/suite) {ev / su:.2f}x   (target <= 1.2x)")


if __name__ == "__main__":
    main()
