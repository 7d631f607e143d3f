"""A comparison as a terminal table and as Markdown (the HTML report is ``html_report``).

Usage::

    print(render_terminal(comparison, gate_result))
    Path("report.md").write_text(render_markdown(comparison, gate_result))

By default only the headline metrics are shown (``HEADLINE``, plus every metric a gate rule
names); ``metrics=None`` keeps the defaults, ``metrics=["*"]`` shows everything.
"""

from __future__ import annotations

from collections.abc import Sequence

from groundwatch.suite.compare import Comparison, MetricRow
from groundwatch.suite.gate import GateResult
from groundwatch.suite.record import DIAGNOSES

__all__ = ["HEADLINE", "render_markdown", "render_terminal", "select_rows"]

HEADLINE = (
    "correct",
    "correctness",
    "vital_nugget_recall",
    "all_vital_present",
    "faithfulness",
    "has_contradiction",
    "answer_relevance",
    "false_refusal",
    "false_answer",
    "hit@1",
    "hit@3",
    "recall@3",
    "mrr",
    "ndcg@3",
    "gold_context_precision",
)


def select_rows(
    comparison: Comparison, metrics: Sequence[str] | None, gate: GateResult | None = None
) -> list[MetricRow]:
    if metrics and "*" in metrics:
        return list(comparison.rows)
    wanted = list(metrics or HEADLINE)
    if gate is not None:
        wanted += [c.rule.split("@", 1)[0] for c in gate.checks]
    order = {m: i for i, m in enumerate(dict.fromkeys(wanted))}
    rows = [r for r in comparison.rows if r.metric in order]
    slice_order = {s: i for i, s in enumerate(comparison.slices())}
    return sorted(rows, key=lambda r: (slice_order[r.slice], order[r.metric]))


def _f(x: float | None, sign: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.3f}" if sign else f"{x:.3f}"


def _flag(row: MetricRow) -> str:
    if row.regressed:
        return "▼ worse"
    if row.significant and row.direction != 0:
        return "▲ better"
    return ""


def _cells(row: MetricRow) -> list[str]:
    ci = f"[{_f(row.lo, True)}, {_f(row.hi, True)}]"
    p = "" if row.p_value is None else f"{row.p_value:.3g}"
    return [
        row.slice,
        row.metric,
        str(row.n),
        _f(row.base),
        _f(row.cand),
        _f(row.delta, True),
        ci,
        p,
        _flag(row),
    ]


_HEAD = ["slice", "metric", "n", "base", "cand", "Δ", "95% CI", "p (McNemar)", ""]


def _summary_lines(comparison: Comparison) -> list[str]:
    lines = [
        f"paired cases: {comparison.paired}; bootstrap: {comparison.resamples} resamples, "
        f"seed {comparison.seed}"
    ]
    if comparison.only_base or comparison.only_cand:
        lines.append(
            f"unpaired: {len(comparison.only_base)} only in baseline, "
            f"{len(comparison.only_cand)} only in candidate"
        )
    return lines


def _diagnosis_rows(comparison: Comparison) -> list[tuple[str, int, int]]:
    base = comparison.diagnosis_counts.get("base", {})
    cand = comparison.diagnosis_counts.get("cand", {})
    return [(d, base.get(d, 0), cand.get(d, 0)) for d in DIAGNOSES if base.get(d) or cand.get(d)]


def render_terminal(
    comparison: Comparison,
    gate: GateResult | None = None,
    metrics: Sequence[str] | None = None,
    max_flips: int = 20,
) -> str:
    rows = [_HEAD] + [_cells(r) for r in select_rows(comparison, metrics, gate)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEAD))]
    out = [*_summary_lines(comparison), ""]
    for i, row in enumerate(rows):
        out.append("  ".join(cell.ljust(widths[j]) for j, cell in enumerate(row)).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    out += ["", "diagnosis (gold context retrieved × answer correct)   base  cand"]
    for name, b, c in _diagnosis_rows(comparison):
        out.append(f"  {name:<50} {b:>5} {c:>5}")
    out += ["", f"flipped cases: {len(comparison.flips)}"]
    for flip in comparison.flips[:max_flips]:
        arrow = "pass → FAIL" if flip.before else "fail → pass"
        out.append(
            f"  {flip.case_id} [{', '.join(f'{k}={v}' for k, v in flip.slices.items())}] {arrow}: "
            f"{flip.base_diagnosis} → {flip.cand_diagnosis}; retrieved "
            f"{flip.retrieved_before} → {flip.retrieved_after}"
        )
    if len(comparison.flips) > max_flips:
        out.append(
            f"  ... {len(comparison.flips) - max_flips} more (see the Markdown or HTML report)"
        )
    if gate is not None:
        out += ["", "gate:"]
        for check in gate.checks:
            out.append(f"  {check.outcome.upper():<7} {check.rule}: {check.detail}")
        out.append(f"gate exit code: {gate.exit_code}")
    return "\n".join(out) + "\n"


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(
    comparison: Comparison, gate: GateResult | None = None, metrics: Sequence[str] | None = None
) -> str:
    out = ["# Suite comparison", "", *(f"- {line}" for line in _summary_lines(comparison)), ""]
    if gate is not None:
        verdict = {0: "passed", 1: "**FAILED**", 2: "**misconfigured**"}[gate.exit_code]
        out += [f"## Gate: {verdict}", "", "| rule | outcome | detail |", "|---|---|---|"]
        out += [
            f"| `{_md_escape(c.rule)}` | {c.outcome} | {_md_escape(c.detail)} |"
            for c in gate.checks
        ]
        out.append("")
    out += ["## Metrics", "", "| " + " | ".join(_HEAD) + " |", "|" + "---|" * len(_HEAD)]
    out += [
        "| " + " | ".join(_md_escape(c) for c in _cells(r)) + " |"
        for r in select_rows(comparison, metrics, gate)
    ]
    out += ["", "## Diagnosis (gold context retrieved × answer correct)", ""]
    out += ["| diagnosis | base | cand |", "|---|---|---|"]
    out += [f"| {n} | {b} | {c} |" for n, b, c in _diagnosis_rows(comparison)]
    out += ["", f"## Flipped cases ({len(comparison.flips)})", ""]
    if comparison.flips:
        out += ["| case | slices | flip | diagnosis | changed metrics |", "|---|---|---|---|---|"]
        for f in comparison.flips:
            changed = ", ".join(f"{k} {_f(a)}→{_f(b)}" for k, (a, b) in list(f.changes.items())[:6])
            out.append(
                f"| `{_md_escape(f.case_id)}` | "
                f"{_md_escape(', '.join(f'{k}={v}' for k, v in f.slices.items()))} | "
                f"{'pass → fail' if f.before else 'fail → pass'} | "
                f"{f.base_diagnosis} → {f.cand_diagnosis} | {_md_escape(changed)} |"
            )
    return "\n".join(out) + "\n"
