"""Server-side rendering of the findings page: a plain GET shows the findings, no script needed.

Usage::

    html = render_main(groups, total, report_json, filters, min_wasserstein=0.03,
                       trend=points, judge_version="c16-...")

The judge version comes first, once; then the filters (slice, time, verdict / label state) and
the measured precision of the filtered slice; then the findings, identical ones grouped
(:mod:`groundwatch.api.page_groups`: count, first and last seen, slices, one label for the
group, each trace's question, answer and passage on expanding); then the trend of contradicted
claims per trace over the last day (:mod:`groundwatch.api.page_trend`, inline SVG, no CDN);
then the window table of the filtered slices, collapsed to those with enough samples; then
their drift rows with PSI, Wasserstein distance and the reporting threshold. Every value goes
through ``html.escape``.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime
from html import escape
from typing import Any

from groundwatch.api.page_filters import LABEL_STATES, PageFilters
from groundwatch.api.page_groups import FindingGroup, findings_table, short_version
from groundwatch.api.page_trend import TrendPoint, trend_svg
from groundwatch.contract.record import Conflict
from groundwatch.observability.precision_collector import PrecisionEstimate

__all__ = ["PageFilters", "highlight_disagreement", "render_main", "trend_svg"]

_CASES_PATH = "v1/findings/cases"  # relative, like the script's page/main


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


def _windows(report: dict[str, Any]) -> str:
    min_samples = report.get("min_samples", 0)
    rows, hidden = [], 0
    for name, window_rows in report.get("windows", {}).items():
        for r in window_rows:
            scored = r.get("traces", {}).get("scored", 0) or 0
            means, rates = r.get("means", {}), r.get("rates", {})
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
    return (
        "<table id='windows'><thead><tr><th>window</th><th>slice</th><th>scored</th>"
        "<th>faithfulness</th><th>contradicted share</th><th>context precision</th>"
        "<th>refusal</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>" + note
    )


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
    # key=value, as the findings show their slice (key:value and commas are accepted too)
    slice_value = ", ".join(f"{k}={v}" for k, v in filters.slices.items())
    options = "".join(
        f"<option value='{m}'{' selected' if filters.since_min == m else ''}>{label}</option>"
        for m, label in (
            (0, "any time"),
            (15, "last 15 min"),
            (60, "last hour"),
            (1440, "last day"),
        )
    )
    states = "".join(
        f"<option value='{v}'{' selected' if filters.label == v else ''}>{escape(t)}</option>"
        for v, t in LABEL_STATES
    )
    notes = "".join(f"<p class='note filter-note'>{escape(n)}</p>" for n in filters.notes)
    return (
        "<form id='filters' method='get' action=''>"
        f"<label>Slice <input name='slice' value='{escape(slice_value)}' "
        "placeholder='tenant=acme, intent=billing'></label>"
        f"<label>Time <select name='since_min'>{options}</select></label>"
        f"<label>Verdict / label <select name='label'>{states}</select></label>"
        "<button type='submit'>Filter</button></form>"
        + (
            f"<p id='filter-error' class='error' role='alert'>{escape(filters.error)}</p>"
            if filters.error
            else ""
        )
        + notes
    )


def _judge_line(version: str | None) -> str:
    if not version:
        return ""
    return (
        f"<p id='judge-version' class='note'>Judge: <code title='{escape(version)}'>"
        f"{escape(short_version(version))}</code> (hover for the full version; the precision "
        "below counts its findings' labels)</p>"
    )


def _trend_section(trend: list[TrendPoint], filters: PageFilters) -> str:
    # windows hold one slice key at a time: the trend follows a one-key filter only
    one = len(filters.slices) == 1
    label = next(f"{k}={v}" for k, v in filters.slices.items()) if one else "all traces"
    extra = (
        " (windows keep one slice key at a time: shown for all traces)"
        if len(filters.slices) > 1
        else ""
    )
    return (
        "<section><h2>Trend</h2><p class='legend'><span class='contra'>■</span> contradicted "
        f"claims per scored trace, last day, {escape(label)}{extra}</p>"
        + trend_svg(trend, label)
        + "</section>"
    )


def render_main(
    groups: list[FindingGroup],
    total: int,
    report: dict[str, Any],
    filters: PageFilters,
    *,
    min_wasserstein: float,
    precision: PrecisionEstimate | None = None,
    sampled: bool = False,
    trend: list[TrendPoint] | None = None,
    judge_version: str | None = None,
) -> str:
    """The page's ``<main>``: the judge version, filters, the judge's measured precision,
    findings grouped (the newest, or a random sample to label), trend, windows, drift."""
    now = datetime.fromtimestamp(report.get("now", 0) or 0, UTC).isoformat(timespec="seconds")
    return (
        "<main id='main'>"
        + _judge_line(judge_version)
        + _filters_form(filters)
        + _precision_note(precision, filters, sampled)
        + findings_table(groups, total, _download_link(filters))
        + _trend_section(trend or [], filters)
        + "<section><h2>Windows</h2>"
        + _frozen_note(report)
        + _windows(report)
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
    scope = ", ".join(f"{k}={v}" for k, v in filters.slices.items())
    if precision.precision is None or precision.interval is None:
        text = (
            "Judge precision here: not measured yet (no right/wrong labels on this judge "
            f"version's findings{' of ' + escape(scope) if scope else ''}). {toggle}."
        )
        return f"<p id='precision' class='note'>{text}</p>"
    low, high = precision.interval
    measured = (
        "Judge precision on labelled findings"
        + (f" of {scope}" if scope else "")
        + f": {precision.precision:.2f} "
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
