"""``groundwatch judge adapt``: refit the verifier judge's verdict model on this deployment's
labelled findings and write a new calibration file.

Usage::

    curl -H "Authorization: Bearer $T" "$GW/v1/findings/cases?limit=1000" > labelled.jsonl
    groundwatch judge adapt labelled.jsonl -o build/calibration-acme.json [--holdout 0.3]
    GROUNDWATCH_JUDGE__BACKEND=verifier \\
    GROUNDWATCH_JUDGE__CALIBRATION_PATH=build/calibration-acme.json groundwatch serve

The findings labelled right or wrong on the page (``origin.contradicted[].label`` of the
export) are run through the verifier judge again for their features; a seeded ``--holdout``
share is kept apart, the rest fits the filter (:mod:`groundwatch.judges.adapt`), and the
contradicted precision and recall (of the findings labelled right) on the held-out share are
printed for the current calibration and the new one. Nothing changes until the setting points
at the file; its version (``<base>-adapt-<hash>``) becomes part of ``metric_version``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from groundwatch.settings import Settings

__all__ = ["add_parser", "run_judge"]


def add_parser(sub: Any) -> None:
    """Register ``judge adapt`` on the top-level subparsers."""
    judge = sub.add_parser("judge", help="adapt the verifier judge to this deployment")
    js = judge.add_subparsers(dest="judge_command", required=True)
    adapt = js.add_parser(
        "adapt",
        help="refit the verdict model on labelled findings (GET /v1/findings/cases export)",
        description="Refit the verifier judge's contradicted decision on the findings labelled "
        "right or wrong on the findings page, write a new calibration file, and print "
        "contradicted precision and recall before and after on a held-out share of the labels.",
    )
    adapt.add_argument("cases", help="JSONL export of GET /v1/findings/cases with labels")
    adapt.add_argument("-o", "--output", required=True, help="calibration file to write")
    adapt.add_argument(
        "--holdout", type=float, default=0.3, help="share of labels held out (default 0.3)"
    )
    adapt.add_argument("--seed", type=int, default=0, help="seed of the held-out split")
    adapt.add_argument(
        "--l2", type=float, default=1.0, help="L2 strength on standardised features (default 1)"
    )
    adapt.add_argument(
        "--base",
        help="calibration to adapt (default: GROUNDWATCH_JUDGE__CALIBRATION_PATH, else shipped)",
    )
    adapt.add_argument("--json", action="store_true", help="print the figures as JSON")
    bar = js.add_parser(
        "bar",
        help="write a triage calibration: the same model with a lower contradicted bar",
        description="Write the calibration (the shipped one, or --base) with its contradicted "
        "bar set to BAR and no filter. Run a deployment with it while its findings are "
        "labelled: a lower bar makes more findings (and more false ones) to label, and "
        "`judge adapt --base` that file then learns which of them to keep.",
    )
    bar.add_argument("bar", type=float, help="the contradicted bar, between 0 and 1")
    bar.add_argument("-o", "--output", required=True, help="calibration file to write")
    bar.add_argument("--base", help="calibration to start from (default: the shipped one)")


def _err(message: str) -> int:
    print(f"groundwatch judge adapt: {message}", file=sys.stderr)
    return 2


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _run_bar(args: argparse.Namespace) -> int:
    from groundwatch.judges.adapt import write_model
    from groundwatch.judges.verdict import VerdictModel

    try:
        base = VerdictModel.load(Path(args.base)) if args.base else VerdictModel.shipped()
        model = base.with_bar(args.bar)
    except (OSError, ValueError) as exc:
        print(f"groundwatch judge bar: {exc}", file=sys.stderr)
        return 2
    write_model(model, Path(args.output), derived_from=base.version)
    print(
        f"wrote {args.output}: {model.version} (contradicted bar "
        f"{base.contradicted_threshold:.2f} -> {args.bar:.2f}); run with "
        f"GROUNDWATCH_JUDGE__CALIBRATION_PATH={args.output} while findings are labelled"
    )
    return 0


def _print_dropped(dropped: list[tuple[Any, str]], total: int) -> None:
    """Which labelled findings did not reach the fit, counted by reason, with examples."""
    if not dropped:
        return
    print(f"left out of the fit: {total} labelled finding{'s' if total != 1 else ''}")
    by_reason: dict[str, list[Any]] = {}
    for finding, reason in dropped:
        by_reason.setdefault(reason, []).append(finding)
    for reason, found in by_reason.items():
        shown = ", ".join(f"{f.trace_id}: {f.claim[:60]!r}" for f in found[:3])
        print(f"  {len(found)} {reason}: {shown}{', ...' if len(found) > 3 else ''}")


def run_judge(settings: Settings, args: argparse.Namespace, judge: Any = None) -> int:
    """Run ``judge adapt`` or ``judge bar``; ``judge`` (a recording judge and its recorder) for
    tests."""
    if args.judge_command == "bar":
        return _run_bar(args)
    from groundwatch.judges.adapt import (
        DROP_NO_TEXT,
        AdaptError,
        adapt,
        claim_features,
        contradicted_figures,
        labelled_claims,
        recording_judge,
        split_labels,
        write_model,
    )
    from groundwatch.judges.verdict import VerdictModel
    from groundwatch.suite.cases import load_cases

    if not 0.0 < args.holdout < 1.0:
        return _err("--holdout must be between 0 and 1")
    try:
        cases, errors = load_cases(args.cases)
    except (OSError, ValueError) as exc:
        return _err(str(exc))
    for err in errors:
        print(f"{args.cases}: {err}", file=sys.stderr)
    base_path = args.base or settings.judge.calibration_path
    base = (
        VerdictModel.load(Path(base_path)) if base_path else VerdictModel.shipped()
    ).without_filter()
    dropped: list[tuple[Any, str]] = []
    findings = labelled_claims(cases, dropped)
    if not findings:
        _print_dropped(dropped, len(dropped))
        return _err("no finding labelled right or wrong (with its trace text) in the export")
    recorder_judge, recorder = (
        judge if judge is not None else recording_judge(embedding=settings.embedding)
    )
    rows = claim_features(findings, recorder_judge, recorder, dropped)
    fit, held = split_labels(rows, args.holdout, args.seed)
    try:
        model = adapt(base, fit, l2=args.l2)
    except AdaptError as exc:
        _print_dropped(dropped, len(dropped))
        labelled = len(findings) + sum(reason == DROP_NO_TEXT for _, reason in dropped)
        return _err(
            f"{exc}; of {labelled} findings labelled right or wrong, {len(rows)} reached the "
            f"verdict model: {len(fit)} to fit, {len(held)} held out to measure"
        )
    before, after = contradicted_figures(base, held), contradicted_figures(model, held)
    report = {
        "base_version": base.version,
        "version": model.version,
        "labels": len(rows),
        "fit_labels": len(fit),
        "held_out": {"before": before.to_json(), "after": after.to_json()},
        "left_out": {reason: sum(r == reason for _, r in dropped) for _, reason in dropped},
        "output": args.output,
    }
    write_model(
        model,
        Path(args.output),
        adapted_from=base.version,
        adapt_figures=report["held_out"],
        adapt_labels=len(fit),
        seed=args.seed,
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"labelled findings: {len(findings)} ({len(rows)} matched to the judge's claims)")
    _print_dropped(dropped, len(dropped))
    print(f"fit on {len(fit)}, held out {len(held)} (seed {args.seed})")
    print("held-out contradicted   precision  recall (of findings labelled right)  flagged")
    for name, fig in ((base.version, before), (model.version, after)):
        print(f"  {name:<28} {_fmt(fig.precision):>9}  {_fmt(fig.recall):>6}  {fig.predicted:>7}")
    print(f"wrote {args.output}; apply with GROUNDWATCH_JUDGE__CALIBRATION_PATH={args.output}")
    return 0
