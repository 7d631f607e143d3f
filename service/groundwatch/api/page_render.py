"""Server-side rendering of the findings page: a plain GET shows the findings, no script needed.

Usage::

    html = render_main(findings_page, report_json, filters, min_wasserstein=0.03)

Findings come first (newest first) with claim, evidence (the number or word that disagrees
with the claim highlighted), reason, verdict score, slice and judge version; then a small
inline-SVG trend of the contradiction rate and faithfulness per window (no CDN); then the
window table, collapsed to slices with enough samples; then drift rows with their PSI,
Wasserstein distance and the reporting threshold. Every value goes through ``html.escape``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from typing import Any
from urllib.parse import urlencode

from groundwatch.contract.record import Conflict
from groundwatch.observability.precision_collector import PrecisionEstimate

__all__ = ["PageFilters", "highlight_disagreement", "render_main", "trend_svg"]

_CASES_PATH = "v1/findings/cases"  # relative, like the script's page/main
_MAX_SINCE_MIN = 525_600  # GET /v1/findings/cases accepts since_min up to a year


@dataclass(frozen=True)
class PageFilters:
    """Filters of the page's GET form: ``slice`` (key:value, repeatable) and ``since_min``."""

    slices: dict[str, str] = field(default_factory=dict)
    since_min: int | None = None
    #: Why the slice filter was refused (the API's 422 message); no findings are shown then.
    error: str | None = None

    def query(self) -> str:
        """The filters as the query of ``GET /v1/findings/cases`` (``slice=key:value``,
        repeatable; ``since_min`` when set, at most the endpoint's year)."""
        items = [("slice", f"{k}:{v}") for k, v in self.slices.items()]
        if self.since_min:
            items.append(("since_min", str(min(self.since_min, _MAX_SINCE_MIN))))
        return urlencode(items)


def highlight_disagreement(evidence: str | None, conflict: Conflict | None) -> str:
    """``evidence`` as HTML, with the words the judge found disagreeing in ``<mark>``: the
    evidence side of its ``conflict`` (the rival number of a number mismatch, the negator or
    the word negated, the modal verb, the other name), wherever the sentence has them.

    Nothing is marked without a conflict (a judge that names no words, a finding stored
    before conflicts were kept) or when the words are not in the sentence (redacted, say):
    guessing from the text marked years and common words where the reason was a negation."""
    if not evidence:
        return "—"
    words = conflict.evidence if conflict is not None else None
    if not words:
        return escape(evidence)
    out, last = [], 0
    for m in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", evidence, re.IGNORECASE):
        out.append(escape(evidence[last : m.start()]))
        out.append(f"<mark>{escape(m.group())}</mark>")
        last = m.end()
    out.append(escape(evidence[last:]))
    return "".join(out)


def _fmt(value: Any, digits: int = 3) -> str:
    return "—" if value is None else f"{float(value):.{digits}f}"


def _download_link(filters: PageFilters) -> str:
    # A plain link (works without a token and without script); page.js fetches it with the
    # bearer token instead and saves the response, so it also works when a token is needed.
    query = filters.query()
    href = _CASES_PATH + (f"?{query}" if query else "")
    return (
        f"<p class='download'><a id='download-cases' href='{escape(href)}'>"
        "Download as eval cases (JSONL)</a></p>"
    )


_LABEL_BUTTONS = (("right", "right"), ("wrong", "wrong"), ("unsure", "unsure"))


def _label_cell(f: Any) -> str:
    """The finding's label and the controls to (re)label it; page.js posts them to
    ``POST /v1/findings/{id}/label``. Without script the cell still shows the label."""
    label = getattr(f, "label", None)
    current = "unlabelled" if label is None else label.label
    if label is not None and label.corrected_verdict:
        current += f" ({label.corrected_verdict.replace('_', ' ')})"
    key = escape(f.id)
    buttons = "".join(
        f"<button type='button' class='label-btn' data-label='{value}'>{text}</button>"
        for value, text in _LABEL_BUTTONS
    )
    corrected = (
        "<select class='label-corrected' aria-label='corrected verdict'>"
        "<option value=''>verdict if wrong</option><option value='supported'>supported</option>"
        "<option value='not_found'>not found</option></select>"
    )
    note = escape(label.note or "") if label is not None else ""
    return (
        f"<td class='label' data-finding='{key}'>"
        f"<span class='label-state'>{escape(current)}</span><br>{buttons}<br>{corrected}"
        f"<input class='label-note' maxlength='1000' placeholder='note' value='{note}'></td>"
    )


def _findings(items: list[Any], total: int, filters: PageFilters) -> str:
    rows = []
    for f in items:
        slices = " ".join(f"{k}={v}" for k, v in sorted(f.slices.items())) or "—"
        rows.append(
            "<tr class='finding'>"
            f"<td><time datetime='{escape(f.time)}'>{escape(f.time[:19].replace('T', ' '))}</time>"
            f"<br><code>{escape(f.trace_id)}#{f.claim_index}</code></td>"
            f"<td class='claim'>{escape(f.claim)}</td>"
            f"<td class='evidence'>{highlight_disagreement(f.evidence, f.conflict)}</td>"
            f"<td class='reason'>{escape(f.reason or '—')}</td>"
            f"<td class='num'>{_fmt(f.score, 2)}</td>"
            f"<td>{escape(slices)}</td>"
            f"<td><code>{escape(f.judge_version)}</code></td>"
            f"{_label_cell(f)}"
            "</tr>"
        )
    if not rows:
        rows.append("<tr><td colspan='8'>No contradicted claims match these filters.</td></tr>")
    return (
        f"<section id='findings-section'><h2>Findings <span id='total'>({total})</span></h2>"
        + _download_link(filters)
        + "<table id='findings'><thead><tr><th>time / trace</th><th>claim</th>"
        "<th>evidence (disagreeing value marked)</th><th>reason</th><th>score</th>"
        "<th>slice</th><th>judge</th><th>label</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table>"
        "</section>"
    )


def trend_svg(points: list[tuple[str, float | None, float | None]]) -> str:
    """A 320x120 inline SVG: faithfulness (solid) and contradicted claim share (dashed) per
    window, on a 0..1 axis. ``points`` are (window, faithfulness, contradiction rate)."""
    if not points:
        return ""
    width, height, pad = 320, 120, 24
    step = (width - 2 * pad) / max(1, len(points) - 1)

    def xy(i: int, v: float) -> str:
        return f"{pad + i * step:.1f},{height - pad - v * (height - 2 * pad):.1f}"

    parts = [
        f"<svg id='trend' role='img' viewBox='0 0 {width} {height}' width='{width}' "
        f"height='{height}' aria-label='faithfulness and contradiction rate per window'>",
        f"<line x1='{pad}' y1='{height - pad}' x2='{width - pad}' y2='{height - pad}' "
        "class='axis'/>",
        f"<text x='2' y='{pad + 4}' class='tick'>1</text>",
        f"<text x='2' y='{height - pad + 4}' class='tick'>0</text>",
    ]
    for series, cls in (("faithfulness", "faith"), ("contradiction rate", "contra")):
        values = [p[1] if cls == "faith" else p[2] for p in points]
        coords = [xy(i, v) for i, v in enumerate(values) if v is not None]
        if coords:
            parts.append(
                f"<polyline class='{cls}' points='{' '.join(coords)}'><title>{series}</title>"
                "</polyline>"
            )
            for c in coords:
                x, y = c.split(",")
                parts.append(f"<circle class='{cls}' cx='{x}' cy='{y}' r='3'/>")
    for i, p in enumerate(points):
        parts.append(
            f"<text x='{pad + i * step:.1f}' y='{height - 6}' class='tick' "
            f"text-anchor='middle'>{escape(p[0])}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _windows(report: dict[str, Any]) -> tuple[str, list[tuple[str, float | None, float | None]]]:
    min_samples = report.get("min_samples", 0)
    rows, trend, hidden = [], [], 0
    for name, window_rows in report.get("windows", {}).items():
        for r in window_rows:
            scored = r.get("traces", {}).get("scored", 0) or 0
            means, rates = r.get("means", {}), r.get("rates", {})
            if r.get("slice_key") == "all":
                trend.append((name, means.get("faithfulness"), rates.get("contradicted_share")))
            if scored < min_samples:
                hidden += 1
                continue
            label = "all" if r["slice_key"] == "all" else f"{r['slice_key']}={r['slice_value']}"
            faith = means.get("faithfulness")
            low = " low" if faith is not None and faith < 0.7 else ""
            rows.append(
                f"<tr><td>{escape(name)}</td><td>{escape(label)}</td>"
                f"<td class='num'>{scored:.0f}</td>"
                f"<td class='num{low}'>{_fmt(faith)}</td>"
                f"<td class='num'>{_fmt(rates.get('contradicted_share'))}</td>"
                f"<td class='num'>{_fmt(means.get('context_precision'))}</td>"
                f"<td class='num'>{_fmt(rates.get('refusal'))}</td></tr>"
            )
    note = (
        f"<p class='note'>{hidden} window slices with fewer than {min_samples} scored traces "
        "are not shown.</p>"
        if hidden
        else ""
    )
    if not rows:
        rows.append(f"<tr><td colspan='7'>No slice has {min_samples} scored traces yet.</td></tr>")
    table = (
        "<table id='windows'><thead><tr><th>window</th><th>slice</th><th>scored</th>"
        "<th>faithfulness</th><th>contradicted share</th><th>context precision</th>"
        "<th>refusal</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + note
    )
    return table, trend


def _count(value: Any) -> str:
    return "—" if value is None else f"{float(value):.0f}"


def _decision(test: dict[str, Any], min_samples: int) -> tuple[str, bool]:
    """What the drift test decided, in words, and whether it is drift: ``underpowered: needs N``
    when the current window holds too few samples for the test to be made at all."""
    samples = test.get("samples", {})
    n_cur, n_ref = samples.get("current", 0) or 0, samples.get("reference", 0) or 0
    if test.get("q_value") is None:
        if n_ref < min_samples:
            return f"underpowered: reference needs {min_samples} (has {n_ref:.0f})", False
        needs = test.get("required_samples")
        if needs is None:
            return "underpowered: the reference is too small to ever test", False
        return f"underpowered: needs {math.ceil(needs)} (has {n_cur:.0f})", False
    if test.get("decision"):
        return "drift", True
    return "no drift", False


def _drift(report: dict[str, Any], min_wasserstein: float) -> str:
    min_samples = int(report.get("min_samples", 0) or 0)
    fdr = report.get("drift_fdr")
    rows = []
    for d in report.get("drift", []):
        label = "all" if d["slice_key"] == "all" else f"{d['slice_key']}={d['slice_value']}"
        # every metric with samples on both sides, tested or not (an untested one says why)
        for metric, test in sorted(d.get("metrics", {}).items()):
            samples = test.get("samples", {})
            value, wd = test.get("psi"), test.get("wasserstein")
            text, drift = _decision(test, min_samples)
            flag = " low" if drift else ""
            rows.append(
                f"<tr><td>{escape(label)}</td><td>{escape(metric)}</td>"
                f"<td class='num'>{_count(samples.get('current'))} / "
                f"{_count(samples.get('reference'))}</td>"
                f"<td class='num'>{_fmt(value)}</td><td class='num{flag}'>{_fmt(wd)}</td>"
                f"<td class='num'>{min_wasserstein:.3f}</td>"
                f"<td class='num'>{_fmt(test.get('q_value'), 4)}</td>"
                f"<td class='decision{flag}'>{escape(text)}</td></tr>"
            )
    if not rows:
        rows.append(
            "<tr><td colspan='8'>No drift values yet: the current window or the reference has "
            f"fewer than {min_samples} samples.</td></tr>"
        )
    note = (
        "<p class='note'>Drift is decided when q (the p-value after multiple-testing control"
        + (f", FDR {float(fdr):g}" if fdr is not None else "")
        + ") is small and the Wasserstein distance reaches the threshold.</p>"
    )
    return (
        "<table id='drift'><thead><tr><th>slice</th><th>metric</th>"
        "<th>samples (current / reference)</th><th>PSI</th>"
        "<th>Wasserstein</th><th>threshold</th><th>q-value</th><th>decision</th></tr></thead>"
        "<tbody>" + "".join(rows) + "</tbody></table>" + note
    )


def _filters_form(filters: PageFilters) -> str:
    # key=value, as the findings show their slice (key:value is accepted too)
    slice_value = " ".join(f"{k}={v}" for k, v in filters.slices.items())
    options = "".join(
        f"<option value='{m}'{' selected' if filters.since_min == m else ''}>{label}</option>"
        for m, label in (
            (0, "any time"),
            (15, "last 15 min"),
            (60, "last hour"),
            (1440, "last day"),
        )
    )
    return (
        "<form id='filters' method='get' action=''>"
        f"<label>Slice <input name='slice' value='{escape(slice_value)}' "
        "placeholder='tenant=acme'></label>"
        f"<label>Time <select name='since_min'>{options}</select></label>"
        "<label>Verdict <select name='verdict' disabled><option>contradicted</option></select>"
        "</label><button type='submit'>Filter</button></form>"
        + (
            f"<p id='filter-error' class='error' role='alert'>{escape(filters.error)}</p>"
            if filters.error
            else ""
        )
    )


def render_main(
    items: list[Any],
    total: int,
    report: dict[str, Any],
    filters: PageFilters,
    *,
    min_wasserstein: float,
    precision: PrecisionEstimate | None = None,
    sampled: bool = False,
) -> str:
    """The page's ``<main>``: filters, the judge's measured precision, findings (the newest,
    or a random sample to label), trend, windows, drift."""
    windows_table, trend = _windows(report)
    now = datetime.fromtimestamp(report.get("now", 0) or 0, UTC).isoformat(timespec="seconds")
    return (
        "<main id='main'>"
        + _filters_form(filters)
        + _precision_note(precision, filters, sampled)
        + _findings(items, total, filters)
        + "<section><h2>Trend</h2><p class='legend'><span class='faith'>■</span> faithfulness "
        "<span class='contra'>■</span> contradicted claim share, per window (all traces)</p>"
        + trend_svg(trend)
        + "</section><section><h2>Windows</h2>"
        + _frozen_note(report)
        + windows_table
        + "<h3>Drift (current window vs reference)</h3>"
        + _drift(report, min_wasserstein)
        + f"<p class='note'>Rendered {escape(now)}.</p></section></main>"
    )


#: Below this measured contradicted precision the page says to check each finding.
LOW_PRECISION = 0.8


def _precision_note(
    precision: PrecisionEstimate | None, filters: PageFilters, sampled: bool
) -> str:
    query = filters.query()
    if sampled:
        toggle = (
            f"<a id='sample-toggle' href='?{escape(query)}'>Show the newest findings</a>"
            " (shown: a random sample, to label: an estimate from it is unbiased)"
        )
    else:
        href = "?" + (f"{query}&" if query else "") + "sample=random"
        toggle = f"<a id='sample-toggle' href='{escape(href)}'>Label a random sample</a>"
    if precision is None:
        return f"<p id='precision' class='note'>{toggle}</p>"
    counts = f"{precision.decided} right/wrong labels, {precision.unsure} unsure"
    if precision.precision is None or precision.interval is None:
        text = (
            "Judge precision here: not measured yet (no right/wrong labels on this judge "
            f"version's findings). {toggle}."
        )
        return f"<p id='precision' class='note'>{text}</p>"
    low, high = precision.interval
    measured = (
        f"Judge precision on labelled findings: {precision.precision:.2f} "
        f"(95 % {low:.2f}-{high:.2f}, {counts})"
    )
    if precision.precision < LOW_PRECISION:
        return (
            f"<p id='precision' class='error low-precision'>{escape(measured)}: low, so check "
            f"each finding before acting on it. {toggle}.</p>"
        )
    return f"<p id='precision' class='note'>{escape(measured)}. {toggle}.</p>"


def _frozen_note(report: dict[str, Any]) -> str:
    frozen = report.get("frozen_at")
    if not frozen:
        return ""
    at = datetime.fromtimestamp(frozen, UTC).isoformat(timespec="seconds")
    return (
        f"<p id='frozen' class='note'>Windows frozen at {escape(at)}: the replay has ended, so "
        "these are its last windows, kept as they were (no new traffic is counted).</p>"
    )
