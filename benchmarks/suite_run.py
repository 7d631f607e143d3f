"""Benchmark: ``suite run`` on 1,000 cases against ``groundwatch evaluate`` on the same traces.

Usage::

    nice -n 5 .venv/bin/python benchmarks/suite_run.py [--n 1000] [--batch-size 16] [--repeat 3]
        [--no-probe-cache] [--cold] [--workload]
    .venv/bin/python benchmarks/suite_run.py --workload --cold --no-probe-cache --repeat 3

``--workload``: 1,000 *distinct* cases (every question, answer, reference answer and nugget new)
over the synthetic workload's 2,000-chunk knowledge base (``benchmarks/workload.py``, popular
chunks recur as in production): what a real suite costs. Use it with ``--cold``; without it,
``evaluate`` meets every text first and ``suite run`` finds them all in the embedding cache.

Cases are the worked example's (examples/suite), repeated with new ids up to ``--n``; traces
come from its toy assistant (baseline configuration). Both paths use the configured judge
(embedded by default), loaded once beforehand. ``evaluate`` = ``Evaluator.evaluate_batch`` over
the traces in batches, as ``groundwatch evaluate`` does; ``suite run`` = ``run_suite`` (the same
reference-free pass plus the reference and nugget probes and the rank metrics). Prints both
throughputs and their ratio; the target is a ratio within 1.2.

``--cold`` gives each path a freshly loaded judge (an empty embedding cache; loading is not
timed), as two separate CLI runs would: both pay for embedding the texts they meet first.

``--repeat R`` times the two paths R times, alternating (a shared machine's load moves between
them less than between runs), and prints the medians and the median of the per-round ratios.
The first round includes embedding the nugget and reference texts (the model sees each once;
the main traces' texts were embedded by the warm-up and the first ``evaluate`` round).
CPU seconds (``time.process_time``, all threads) are printed beside wall time: on a shared
machine they move less with the neighbours' load. ``--no-probe-cache`` judges every probe
even when an earlier case checked the same fact against the same answer (``ProbeCache(0)``; a batch's own repeats are still judged once): the
cost for a suite whose cases never repeat one.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path

from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.factory import build_judge
from groundwatch.settings import Settings
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.runner import ProbeCache, run_suite

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
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-probe-cache", action="store_true")
    parser.add_argument(
        "--workload",
        action="store_true",
        help="distinct cases from benchmarks/workload.py (every question, answer and fact new)",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="each path with a freshly loaded judge (empty embedding cache), as two CLI runs",
    )
    args = parser.parse_args()
    cases, traces = _workload(args.n) if args.workload else _example(args.n)
    settings = Settings()
    judge = build_judge(settings.judge, settings.embedding)
    judge.load()
    evaluator = Evaluator(judge)
    evaluator.evaluate_batch(list(traces.values())[:32])  # warm up
    ordered = [traces[c.id] for c in cases]
    probes = sum(len(c.nuggets) + (1 if c.reference_answer else 0) for c in cases)
    print(f"judge                  {evaluator.metric_version}")
    print(f"cases                  {args.n} ({probes} probe traces for references and nuggets)")
    evs, sus, ratios, cpu_ratios = [], [], [], []
    for _ in range(max(1, args.repeat)):
        if args.cold:
            evaluator = _fresh_evaluator()
        t0, c0 = time.perf_counter(), time.process_time()
        for start in range(0, len(ordered), args.batch_size):
            evaluator.evaluate_batch(ordered[start : start + args.batch_size])
        t1, c1 = time.perf_counter(), time.process_time()
        cache = ProbeCache(0 if args.no_probe_cache else 50_000)
        if args.cold:
            evaluator = _fresh_evaluator()
            t1, c1 = time.perf_counter(), time.process_time()
        records = run_suite(cases, traces, evaluator, batch_size=args.batch_size, probe_cache=cache)
        t2, c2 = time.perf_counter(), time.process_time()
        ev, su = args.n / (t1 - t0), args.n / (t2 - t1)
        evs.append(ev)
        sus.append(su)
        ratios.append(ev / su)
        cpu_ratios.append((c2 - c1) / (c1 - c0))
        judged = cache.misses  # ProbeCache(0) too: a batch's repeats are judged once
        print(f"evaluate               {t1 - t0:.2f} s  {ev:.1f} traces/s  (cpu {c1 - c0:.2f} s)")
        print(
            f"suite run              {t2 - t1:.2f} s  {su:.1f} cases/s  (cpu {c2 - c1:.2f} s;"
            f" {len(records)} records; {judged} probes judged, {cache.hits} from the probe cache)"
        )
        print(
            f"ratio (evaluate/suite) {ev / su:.2f}x   (target <= 1.2x; cpu time ratio"
            f" {cpu_ratios[-1]:.2f}x)"
        )
    if len(ratios) > 1:
        print(
            f"median of {len(ratios)}: evaluate {statistics.median(evs):.1f} traces/s, suite run "
            f"{statistics.median(sus):.1f} cases/s, ratio {statistics.median(ratios):.2f}x "
            f"(cpu time ratio {statistics.median(cpu_ratios):.2f}x)"
        )


def _example(n: int) -> tuple[list[EvalCase], dict[str, RagTrace]]:
    """The worked example's cases, repeated with new ids, answered by its toy assistant."""
    toy = _toy()
    base = [json.loads(line) for line in (EXAMPLE / "cases.jsonl").read_text().splitlines()]
    config = json.loads((EXAMPLE / "baseline.json").read_text())
    kb = toy.passages()  # type: ignore[attr-defined]
    cases, traces = [], {}
    for i in range(n):
        obj = dict(base[i % len(base)], id=f"{base[i % len(base)]['id']}-{i}")
        case = EvalCase.model_validate(obj)
        cases.append(case)
        traces[case.id] = RagTrace.model_validate(
            {"trace_id": case.id, **toy.answer(case.question, config, kb)}  # type: ignore[attr-defined]
        )
    return cases, traces


def _workload(n: int) -> tuple[list[EvalCase], dict[str, RagTrace]]:
    """Distinct cases over the synthetic workload's 2,000-chunk knowledge base.

    Each trace of ``make_workload`` (five passages with Zipf popularity, a 1-4 claim answer)
    becomes a case: its gold passage is the retrieved chunk that states the fact asked about,
    the reference answer states that fact and one more fact of the same chunk, and each of the
    two is a nugget (the asked one vital): three distinct probes a case. No two cases share a question, so the probe cache and
    the embedding cache help only where texts really recur (popular chunks)."""
    sys.path.insert(0, str(EXAMPLE.parent.parent))  # the repository root: run as a script too
    from benchmarks.workload import make_workload

    wl = make_workload(n_traces=n, seed=7)
    by_id = {c.id: c for c in wl.chunks}
    cases, traces = [], {}
    for trace in wl.traces:
        gold, fact = next(
            (by_id[ctx.id], f)
            for ctx in trace.contexts
            if ctx.id in by_id
            for f in by_id[ctx.id].facts
            if f.question == trace.question
        )
        other = next((f for f in gold.facts if f.question != trace.question), fact)
        case = EvalCase.model_validate(
            {
                "id": trace.trace_id,
                "question": trace.question,
                "slice": {"domain": gold.domain},
                "reference_answer": f"{fact.claim()} {other.claim()}",
                "evidence": [{"doc_id": gold.id, "quote": fact.statement}],
                "nuggets": [
                    {"text": fact.claim(), "vital": True},
                    {"text": other.claim(), "vital": False},
                ],
                "answerable": True,
            }
        )
        cases.append(case)
        traces[case.id] = trace
    return cases, traces


def _fresh_evaluator() -> Evaluator:
    """A judge loaded anew (its embedding cache empty), outside the timed span."""
    settings = Settings()
    judge = build_judge(settings.judge, settings.embedding)
    judge.load()
    return Evaluator(judge)


if __name__ == "__main__":
    main()
