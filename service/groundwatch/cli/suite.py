"""``groundwatch suite {run,compare,calibrate,check-evidence}`` and ``groundwatch findings export``.

Usage::

    groundwatch suite run CASES.jsonl TRACES.jsonl -o RUN.jsonl --config '{"top_k": 3}'
    groundwatch suite compare BASE.jsonl CAND.jsonl --gate 'vital_nugget_recall@intent=billing' \\
        --markdown report.md --html report.html
    groundwatch suite check-evidence CASES.jsonl CORPUS.jsonl --quarantine bad.jsonl
    groundwatch suite calibrate LABELLED.jsonl
    groundwatch findings export --traces T.jsonl --records R.jsonl -o drafts.jsonl

Exit codes: 0 done; 1 ``compare --gate`` found a significant regression, or ``check-evidence``
quarantined cases; 2 unusable arguments or files (including a gate rule that names nothing).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from groundwatch.settings import Settings

__all__ = ["add_parsers", "run_findings", "run_suite_command"]


def add_parsers(sub: Any) -> None:
    """Register ``suite`` and ``findings`` on the top-level subparsers."""
    suite = sub.add_parser("suite", help="offline evaluation suite: run, compare and gate")
    ss = suite.add_subparsers(dest="suite_command", required=True)

    run = ss.add_parser("run", help="score the assistant's traces for a labelled suite")
    run.add_argument("cases", help="JSONL of eval cases (schemas/eval-case.v1.schema.json)")
    run.add_argument("traces", help="JSONL of the assistant's traces, trace_id = case id")
    run.add_argument("-o", "--output", required=True, help="JSONL of eval records")
    run.add_argument("--config", default="{}", help="JSON object describing the configuration")
    run.add_argument("--k", default="1,3,5", help="cut-offs for the rank metrics (default 1,3,5)")
    run.add_argument("--corpus", help="JSONL {doc_id, text}: check evidence, resolve spans")
    run.add_argument("--include-drafts", action="store_true", help="also run needs_review cases")
    run.add_argument("--batch-size", type=int, default=16)

    cmp = ss.add_parser("compare", help="baseline vs candidate run with paired intervals")
    cmp.add_argument("base")
    cmp.add_argument("cand")
    cmp.add_argument(
        "--gate",
        action="append",
        default=[],
        help="METRIC[,METRIC][@KEY=VALUE|@KEY=*]: fail when it regresses significantly",
    )
    cmp.add_argument("--resamples", type=int, default=1000)
    cmp.add_argument("--seed", type=int, default=0)
    cmp.add_argument("--metrics", help="comma-separated metrics to show (* = all)")
    cmp.add_argument("--markdown", help="write the Markdown report here")
    cmp.add_argument("--html", help="write the HTML report here")

    cal = ss.add_parser("calibrate", help="judge verdicts against human claim labels")
    cal.add_argument("labelled", help="JSONL {question, contexts, claim, label}")
    cal.add_argument("--json", action="store_true", help="print JSON instead of a table")

    chk = ss.add_parser("check-evidence", help="quarantine cases whose gold evidence vanished")
    chk.add_argument("cases")
    chk.add_argument("corpus", help="JSONL {doc_id, text}")
    chk.add_argument("--quarantine", help="write the quarantined cases here")
    chk.add_argument("--kept", help="write the kept cases here")

    findings = sub.add_parser("findings", help="export findings as draft eval cases")
    fs = findings.add_subparsers(dest="findings_command", required=True)
    exp = fs.add_parser("export", help="draft eval cases from contradicted claims")
    exp.add_argument("--traces", required=True, help="JSONL traces given to groundwatch evaluate")
    exp.add_argument("--records", required=True, help="JSONL records groundwatch evaluate wrote")
    exp.add_argument("-o", "--output", default="-", help="JSONL of draft cases, or - (stdout)")


def _err(message: str) -> int:
    print(f"groundwatch suite: {message}", file=sys.stderr)
    return 2


def _evaluator(settings: Settings) -> Any:
    from groundwatch.evaluation.evaluator import Evaluator
    from groundwatch.judges.factory import build_judge

    judge = build_judge(settings.judge, settings.embedding)
    judge.load()
    return Evaluator(judge)


def _write_jsonl(path: str, lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    if path == "-":
        sys.stdout.write(text)
    else:
        Path(path).write_text(text, encoding="utf-8")


def _run(settings: Settings, args: argparse.Namespace, evaluator: Any = None) -> int:
    from groundwatch.suite.cases import load_cases
    from groundwatch.suite.hygiene import check_evidence
    from groundwatch.suite.runner import load_corpus, load_traces, run_suite, write_records

    try:
        config = json.loads(args.config)
        ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    except ValueError as exc:
        return _err(f"--config must be a JSON object and --k integers: {exc}")
    if not isinstance(config, dict) or not ks or min(ks) < 1:
        return _err("--config must be a JSON object and --k positive integers")
    try:
        cases, case_errors = load_cases(args.cases)
        traces, trace_errors = load_traces(args.traces, settings.limits)
        corpus = load_corpus(args.corpus) if args.corpus else None
    except (OSError, ValueError) as exc:
        return _err(str(exc))
    for err in case_errors:
        print(f"{args.cases}: {err}", file=sys.stderr)
    for err in trace_errors:
        print(f"{args.traces}: {err}", file=sys.stderr)
    drafts = [c for c in cases if c.needs_review]
    if drafts and not args.include_drafts:
        print(f"skipping {len(drafts)} needs_review draft case(s)", file=sys.stderr)
        cases = [c for c in cases if not c.needs_review]
    if corpus is not None:
        report = check_evidence(cases, corpus)
        for line in report.lines():
            print(line, file=sys.stderr)
        cases = report.kept
    records = run_suite(
        cases,
        traces,
        evaluator or _evaluator(settings),
        ks=ks,
        config=config,
        corpus=corpus,
        batch_size=args.batch_size,
        progress=sys.stderr,
    )
    write_records(records, args.output)
    missing = sum(1 for r in records if r.status == "missing_trace")
    print(
        f"{len(records)} eval record(s) written to {args.output} "
        f"({missing} case(s) without a trace, {len(case_errors)} bad case line(s), "
        f"{len(trace_errors)} bad trace line(s))",
        file=sys.stderr,
    )
    return 0


def _compare(args: argparse.Namespace) -> int:
    from groundwatch.suite.compare import compare_runs
    from groundwatch.suite.gate import GateRuleError, check_gate, parse_rule
    from groundwatch.suite.html_report import render_html
    from groundwatch.suite.report import render_markdown, render_terminal
    from groundwatch.suite.runner import load_records

    try:
        rules = [parse_rule(text) for text in args.gate]
        base = load_records(args.base)
        cand = load_records(args.cand)
    except (GateRuleError, OSError, ValueError) as exc:
        return _err(str(exc))
    if args.resamples < 100:
        return _err("--resamples must be at least 100")
    comparison = compare_runs(base, cand, resamples=args.resamples, seed=args.seed)
    gate = check_gate(comparison, rules) if rules else None
    metrics = [m.strip() for m in args.metrics.split(",")] if args.metrics else None
    sys.stdout.write(render_terminal(comparison, gate, metrics))
    if args.markdown:
        Path(args.markdown).write_text(render_markdown(comparison, gate, metrics), "utf-8")
    if args.html:
        Path(args.html).write_text(render_html(comparison, gate, metrics), "utf-8")
    return gate.exit_code if gate is not None else 0


def _check_evidence(args: argparse.Namespace) -> int:
    from groundwatch.suite.cases import load_cases
    from groundwatch.suite.hygiene import check_evidence
    from groundwatch.suite.runner import load_corpus

    try:
        cases, errors = load_cases(args.cases)
        corpus = load_corpus(args.corpus)
    except (OSError, ValueError) as exc:
        return _err(str(exc))
    for err in errors:
        print(f"{args.cases}: {err}", file=sys.stderr)
    report = check_evidence(cases, corpus)
    print("\n".join(report.lines()))
    if args.quarantine:
        _write_jsonl(args.quarantine, [c.model_dump_json() for c in report.quarantined])
    if args.kept:
        _write_jsonl(args.kept, [c.model_dump_json() for c in report.kept])
    return 1 if report.quarantined else 0


def _calibrate(settings: Settings, args: argparse.Namespace, evaluator: Any = None) -> int:
    from groundwatch.suite.calibration import calibrate, load_labelled

    try:
        rows, errors = load_labelled(args.labelled)
    except OSError as exc:
        return _err(str(exc))
    for err in errors:
        print(f"{args.labelled}: {err}", file=sys.stderr)
    if not rows:
        return _err("no labelled claims")
    report = calibrate(rows, evaluator or _evaluator(settings))
    print(json.dumps(report.to_json(), indent=2) if args.json else report.table())
    return 0


def run_suite_command(settings: Settings, args: argparse.Namespace, evaluator: Any = None) -> int:
    """Dispatch ``groundwatch suite ...``; ``evaluator`` replaces the configured judge (tests)."""
    command: str = args.suite_command
    if command == "run":
        return _run(settings, args, evaluator)
    if command == "compare":
        return _compare(args)
    if command == "check-evidence":
        return _check_evidence(args)
    return _calibrate(settings, args, evaluator)


def run_findings(settings: Settings, args: argparse.Namespace) -> int:
    """``groundwatch findings export``: drafts from ``groundwatch evaluate`` input and output."""
    from groundwatch.contract.record import EvaluationRecord
    from groundwatch.suite.findings_export import drafts_from_records
    from groundwatch.suite.runner import load_traces

    try:
        traces, errors = load_traces(args.traces, settings.limits)
        by_trace = {t.trace_id: t for t in traces.values()}
        with open(args.records, encoding="utf-8") as fh:
            records = [EvaluationRecord.model_validate_json(line) for line in fh if line.strip()]
    except (OSError, ValueError) as exc:
        print(f"groundwatch findings export: {exc}", file=sys.stderr)
        return 2
    for err in errors:
        print(f"{args.traces}: {err}", file=sys.stderr)
    drafts, missing = drafts_from_records(by_trace, records)
    _write_jsonl(args.output, [d.model_dump_json(exclude_none=True) for d in drafts])
    print(
        f"{len(drafts)} draft case(s) written; {len(missing)} finding(s) without a trace",
        file=sys.stderr,
    )
    return 0
