"""A comparison as one self-contained HTML file: inline CSS and SVG, no script, no CDN.

Usage::

    Path("report.html").write_text(render_html(comparison, gate_result), encoding="utf-8")

Pictures: for each headline metric, the per-slice delta as a dot with its 95% interval as a
whisker around a zero line (regressions red, improvements green, the rest grey); and the 2×2
diagnosis counts of both runs as paired bars. Every number in a chart is also in a table below
it, and every chart has a ``<title>`` so it reads without colour or sight.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from groundwatch.suite.compare import Comparison, MetricRow
from groundwatch.suite.gate import GateResult
from groundwatch.suite.record import DIAGNOSES
from groundwatch.suite.report import render_markdown, select_rows

__all__ = ["render_html"]

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1f24;padding:0 1rem}
h1,h2,h3{line-height:1.2}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
td,th{border-bottom:1px solid #d0d7de;padding:.25rem .6rem;text-align:left;font-variant-numeric:tabular-nums}
.worse{color:#b3261e;font-weight:600}.better{color:#1a7f37;font-weight:600}
.fail{background:#fde7e9}.pass{background:#e6f4ea}.missing{background:#fff4ce}
figure{margin:0 0 1.5rem}figcaption{color:#57606a}svg text{font:12px system-ui,sans-serif}
"""

_W, _LABEL, _ROW = 640, 170, 22
_LEGEND = 20  # the bar chart's key, above its bars
_BASE_COLOUR, _CAND_COLOUR = "#8c959f", "#0969da"


def _colour(row: MetricRow) -> str:
    if row.regressed:
        return "#b3261e"
    if row.significant and row.direction != 0:
        return "#1a7f37"
    return "#57606a"


def forest_svg(metric: str, rows: Sequence[MetricRow]) -> str:
    """Per-slice delta (dot) and interval (whisker) for one metric, zero line in the middle."""
    rows = [r for r in rows if r.delta is not None]
    extent = max([abs(v) for r in rows for v in (r.lo, r.hi, r.delta) if v is not None] + [0.05])
    plot = _W - _LABEL - 20
    height = _ROW * len(rows) + 30

    def x(v: float) -> float:
        return _LABEL + plot / 2 + v / extent * plot / 2 * 0.95

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{_W}" height="{height}" '
        f'viewBox="0 0 {_W} {height}" class="forest" data-metric="{escape(metric)}">',
        f"<title>{escape(metric)}: candidate minus baseline per slice, 95% interval</title>",
        f'<line x1="{x(0):.1f}" y1="4" x2="{x(0):.1f}" y2="{height - 22}" stroke="#8c959f" '
        'stroke-dasharray="3 3"/>',
        f'<text x="{x(-extent):.1f}" y="{height - 6}">{-extent:+.2f}</text>',
        f'<text x="{x(0) - 4:.1f}" y="{height - 6}">0</text>',
        f'<text x="{x(extent) - 30:.1f}" y="{height - 6}">{extent:+.2f}</text>',
    ]
    for i, r in enumerate(rows):
        y = 14 + i * _ROW
        colour = _colour(r)
        parts.append(f'<text x="4" y="{y + 4}">{escape(r.slice)} (n={r.n})</text>')
        if r.lo is not None and r.hi is not None:
            parts.append(
                f'<line class="whisker" x1="{x(r.lo):.1f}" y1="{y}" x2="{x(r.hi):.1f}" y2="{y}" '
                f'stroke="{colour}" stroke-width="2"><title>{escape(r.slice)}: '
                f"[{r.lo:+.3f}, {r.hi:+.3f}]</title></line>"
            )
        delta = r.delta if r.delta is not None else 0.0
        parts.append(
            f'<circle class="delta" cx="{x(delta):.1f}" cy="{y}" r="4" fill="{colour}">'
            f"<title>{escape(r.slice)}: Δ {delta:+.3f}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


def diagnosis_svg(comparison: Comparison) -> str:
    """Counts per diagnosis, baseline and candidate side by side."""
    base = comparison.diagnosis_counts.get("base", {})
    cand = comparison.diagnosis_counts.get("cand", {})
    names = [d for d in DIAGNOSES if base.get(d) or cand.get(d)]
    top = max([base.get(d, 0) for d in names] + [cand.get(d, 0) for d in names] + [1])
    height = 34 * len(names) + 30 + _LEGEND
    plot = _W - _LABEL - 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{_W}" height="{height}" '
        f'viewBox="0 0 {_W} {height}" class="diagnosis">',
        "<title>Diagnosis counts: baseline (grey) and candidate (blue)</title>",
        # the key, drawn: the colours alone (and a title only a pointer or a reader finds) do
        # not say which bar is which run
        '<g class="legend">'
        f'<rect x="{_LABEL}" y="4" width="11" height="11" fill="{_BASE_COLOUR}"/>'
        f'<text x="{_LABEL + 16}" y="14">baseline</text>'
        f'<rect x="{_LABEL + 90}" y="4" width="11" height="11" fill="{_CAND_COLOUR}"/>'
        f'<text x="{_LABEL + 106}" y="14">candidate</text></g>',
    ]
    for i, name in enumerate(names):
        y = 8 + _LEGEND + i * 34
        parts.append(f'<text x="4" y="{y + 14}">{escape(name)}</text>')
        for j, (label, counts, colour) in enumerate(
            (("base", base, _BASE_COLOUR), ("cand", cand, _CAND_COLOUR))
        ):
            n = counts.get(name, 0)
            w = plot * n / top
            parts.append(
                f'<rect class="bar {label}" x="{_LABEL}" y="{y + j * 13}" width="{w:.1f}" '
                f'height="11" fill="{colour}"><title>{label} {escape(name)}: {n}</title></rect>'
                f'<text x="{_LABEL + w + 4:.1f}" y="{y + j * 13 + 10}">{n}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _table(rows: Sequence[MetricRow]) -> str:
    head = "".join(
        f"<th>{h}</th>" for h in ("slice", "metric", "n", "base", "cand", "Δ", "95% CI", "p")
    )
    body = []
    for r in rows:
        cls = "worse" if r.regressed else ("better" if r.significant and r.direction else "")

        def f(v: float | None, sign: bool = False) -> str:
            return "–" if v is None else (f"{v:+.3f}" if sign else f"{v:.3f}")

        p = "" if r.p_value is None else f"{r.p_value:.3g}"
        body.append(
            f'<tr class="{cls}"><td>{escape(r.slice)}</td><td>{escape(r.metric)}</td>'
            f"<td>{r.n}</td><td>{f(r.base)}</td><td>{f(r.cand)}</td><td>{f(r.delta, True)}</td>"
            f"<td>[{f(r.lo, True)}, {f(r.hi, True)}]</td><td>{p}</td></tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def render_html(
    comparison: Comparison, gate: GateResult | None = None, metrics: Sequence[str] | None = None
) -> str:
    rows = select_rows(comparison, metrics, gate)
    by_metric: dict[str, list[MetricRow]] = {}
    for r in rows:
        by_metric.setdefault(r.metric, []).append(r)
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        "<title>groundwatch suite comparison</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Suite comparison</h1>",
        f"<p>{comparison.paired} paired cases; paired bootstrap with {comparison.resamples} "
        f"resamples (seed {comparison.seed}); a metric is marked when its 95% interval "
        "excludes zero.</p>",
    ]
    if gate is not None:
        verdict = {0: "passed", 1: "FAILED", 2: "misconfigured"}[gate.exit_code]
        out.append(f"<h2 id='gate'>Gate: {verdict}</h2><table><tbody>")
        out += [
            f"<tr class='{c.outcome}'><td><code>{escape(c.rule)}</code></td>"
            f"<td>{c.outcome}</td><td>{escape(c.detail)}</td></tr>"
            for c in gate.checks
        ]
        out.append("</tbody></table>")
    out.append("<h2>Diagnosis: gold context retrieved × answer correct</h2>")
    out.append(f"<figure>{diagnosis_svg(comparison)}</figure>")
    out.append("<h2>Per-slice deltas</h2>")
    for metric, metric_rows in by_metric.items():
        out.append(
            f"<figure><figcaption>{escape(metric)}</figcaption>"
            f"{forest_svg(metric, metric_rows)}</figure>"
        )
    out.append("<h2>All numbers</h2>")
    out.append(_table(rows))
    out.append(f"<h2>Flipped cases ({len(comparison.flips)})</h2><table><tbody>")
    for fl in comparison.flips:
        slices = ", ".join(f"{k}={v}" for k, v in fl.slices.items())
        out.append(
            f"<tr class='{'fail' if fl.before else 'pass'}'><td><code>{escape(fl.case_id)}</code>"
            f"</td><td>{escape(slices)}</td><td>{'pass → fail' if fl.before else 'fail → pass'}"
            f"</td><td>{escape(fl.base_diagnosis)} → {escape(fl.cand_diagnosis)}</td>"
            f"<td>{escape(', '.join(fl.retrieved_before))} → "
            f"{escape(', '.join(fl.retrieved_after))}</td></tr>"
        )
    out.append("</tbody></table>")
    out.append(
        "<details><summary>Markdown</summary><pre>"
        f"{escape(render_markdown(comparison, gate, metrics))}</pre></details>"
    )
    out.append("</body></html>")
    return "\n".join(out) + "\n"
