"""The findings page's table: identical findings grouped, each group expandable to its traces.

Usage::

    groups = group_findings(findings)             # newest group first
    html = findings_table(groups, total, short_version)

A group is every finding with the same claim, evidence sentence and judge version: the same
wrong fact repeated over traces is one row with a count, first and last seen, its slices, and
one label control that labels every finding of the group (``POST /v1/findings/labels``). Its
``<details>`` lists each trace: the finding's id (the one the label route takes), the question,
the whole answer with the claim's disagreeing value marked, and the passage (rank and id) with
the evidence's value marked. Every value goes through ``html.escape``.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape

from groundwatch.contract.record import Conflict
from groundwatch.state.stores import Finding

__all__ = ["FindingGroup", "findings_table", "group_findings", "mark_words", "short_version"]

#: Traces listed under one group (the count says how many there are).
MAX_TRACES_SHOWN = 20
_VERSION_CHARS = 24


@dataclass
class FindingGroup:
    """Findings sharing (claim, evidence, judge version), newest first."""

    claim: str
    evidence: str | None
    version: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def first_seen(self) -> float:
        return min(f.ts for f in self.findings)

    @property
    def last_seen(self) -> float:
        return max(f.ts for f in self.findings)

    @property
    def slices(self) -> Counter[str]:
        return Counter(f"{k}={v}" for f in self.findings for k, v in sorted(f.slices.items()))

    @property
    def ids(self) -> list[str]:
        return [f.key for f in self.findings]


def group_findings(findings: list[Finding]) -> list[FindingGroup]:
    """Group by (claim, evidence, judge version), in the order of each group's newest finding
    (the input is newest first, as the stores page)."""
    groups: dict[tuple[str, str | None, str], FindingGroup] = {}
    for f in findings:
        key = (f.claim, f.evidence, f.metric_version)
        if key not in groups:
            groups[key] = FindingGroup(f.claim, f.evidence, f.metric_version)
        groups[key].findings.append(f)
    return list(groups.values())


def short_version(version: str) -> str:
    """A judge version cut to fit a table cell (the full text goes in its ``title``)."""
    return version if len(version) <= _VERSION_CHARS else version[: _VERSION_CHARS - 1] + "…"


def mark_words(text: str | None, words: str | None) -> str:
    """``text`` as HTML with every whole-word occurrence of ``words`` in ``<mark>``; nothing is
    marked without words (a judge that names none) or when the text lacks them."""
    if not text:
        return "—"
    if not words:
        return escape(text)
    out, last = [], 0
    for m in re.finditer(rf"(?<!\w){re.escape(words)}(?!\w)", text, re.IGNORECASE):
        out.append(escape(text[last : m.start()]))
        out.append(f"<mark>{escape(m.group())}</mark>")
        last = m.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _time(ts: float) -> str:
    safe = ts if math.isfinite(ts) else 0.0
    try:
        return datetime.fromtimestamp(safe, UTC).isoformat(timespec="seconds")
    except (OverflowError, ValueError, OSError):
        return "—"


def _conflict(group: FindingGroup) -> Conflict | None:
    return next((f.conflict for f in group.findings if f.conflict is not None), None)


_LABEL_BUTTONS = ("right", "wrong", "unsure")
_CORRECTED = (("supported", "supported"), ("not_found", "not found"))


def _label_text(f: Finding) -> str:
    label = f.label
    if label is None:
        return "unlabelled"
    if label.corrected_verdict:
        return f"{label.label} ({label.corrected_verdict.replace('_', ' ')})"
    return label.label


def _label_cell(group: FindingGroup) -> str:
    """The group's label state and the controls to (re)label all of it; page.js posts them.
    A reload shows every part of a label: state, corrected verdict (selected) and note."""
    states = Counter(_label_text(f) for f in group.findings)
    if len(states) == 1:
        current = next(iter(states))
        current += f" (all {len(group.findings)})" if len(group.findings) > 1 else ""
    else:
        current = ", ".join(f"{n} {s}" for s, n in states.most_common())
    labels = [f.label for f in group.findings]
    shared = labels[0] if all(lab == labels[0] for lab in labels) else None
    corrected_now = shared.corrected_verdict if shared is not None else None
    options = "<option value=''>verdict if wrong</option>" + "".join(
        f"<option value='{v}'{' selected' if corrected_now == v else ''}>{t}</option>"
        for v, t in _CORRECTED
    )
    buttons = "".join(
        f"<button type='button' class='label-btn' data-label='{v}' aria-pressed="
        f"'{'true' if shared is not None and shared.label == v else 'false'}'>{v}</button>"
        for v in _LABEL_BUTTONS
    )
    note = escape(shared.note or "") if shared is not None else ""
    ids = escape(json.dumps(group.ids))
    return (
        f"<td class='label' data-finding='{escape(group.ids[0])}' data-findings='{ids}'>"
        f"<span class='label-state'>{escape(current)}</span><br>{buttons}<br>"
        f"<select class='label-corrected' aria-label='corrected verdict'>{options}</select>"
        f"<input class='label-note' maxlength='1000' placeholder='note' value='{note}'></td>"
    )


def _passage(f: Finding) -> str:
    index = f.context_index
    rank = f"rank {index + 1}" if index is not None else "rank —"
    ident = f"id {escape(f.context_id)}" if f.context_id else "no id"
    words = f.conflict.evidence if f.conflict is not None else None
    text = None
    if f.trace is not None and index is not None:
        text = next((p.text for p in f.trace.passages if p.index == index), None)
    body = mark_words(text or f.evidence, words)
    where = "" if text else " (evidence sentence only: the passage text was not kept)"
    return (
        f"<div class='passage'><span class='what'>passage {rank}, {ident}{where}</span>"
        f"<blockquote>{body}</blockquote></div>"
    )


def _trace_item(f: Finding) -> str:
    claim_words = f.conflict.claim if f.conflict is not None else None
    slices = " ".join(f"{k}={v}" for k, v in sorted(f.slices.items())) or "—"
    head = (
        f"<p class='trace-head'><code class='finding-id'>{escape(f.key)}</code> "
        f"{escape(_time(f.ts))} · {escape(slices)}</p>"
    )
    if f.trace is None:
        body = (
            "<p class='note'>The trace's question and answer were not kept (redaction mode "
            "drop_text, or a finding stored before traces were kept).</p>"
        )
    else:
        cut = " (cut to findings.case_text_chars)" if f.trace.truncated else ""
        body = (
            f"<p class='question'><b>Question</b> {escape(f.trace.question)}</p>"
            f"<p class='answer'><b>Answer{cut}</b> {mark_words(f.trace.answer, claim_words)}</p>"
        )
    return f"<li class='trace'>{head}{body}{_passage(f)}</li>"


def _group_row(group: FindingGroup) -> str:
    conflict = _conflict(group)
    n = len(group.findings)
    shown = group.findings[:MAX_TRACES_SHOWN]
    more = f"<p class='note'>and {n - len(shown)} more</p>" if n > len(shown) else ""
    slices = "<br>".join(
        escape(s) + (f" ×{c}" if c > 1 else "") for s, c in sorted(group.slices.items())
    )
    score = max(f.score for f in group.findings)
    seen = f"first {_time(group.first_seen)}<br>last {_time(group.last_seen)}"
    traces = "".join(_trace_item(f) for f in shown)
    first_id = escape(group.ids[0])
    return (
        f"<tr class='finding' data-count='{n}'>"
        f"<td class='seen'><span class='count'>×{n}</span><br>{seen}"
        f"<br><code class='finding-id'>{first_id}</code></td>"
        f"<td class='claim'>{mark_words(group.claim, conflict.claim if conflict else None)}</td>"
        f"<td class='evidence'>{mark_words(group.evidence, conflict.evidence if conflict else None)}"
        "</td>"
        f"<td class='reason'>{escape(group.findings[0].reason or '—')}</td>"
        f"<td class='num'>{score:.2f}</td>"
        f"<td class='slices'>{slices or '—'}</td>"
        f"<td class='judge'><code title='{escape(group.version)}'>"
        f"{escape(short_version(group.version))}</code></td>"
        f"{_label_cell(group)}</tr>"
        # the group's traces, on a full-width row of their own, folded until asked for
        f"<tr class='group-traces'><td colspan='8'><details class='traces'><summary>{n} "
        f"trace{'s' if n > 1 else ''}: question, whole answer, passage</summary>"
        f"<ol>{traces}</ol>{more}</details></td></tr>"
    )


def findings_table(groups: list[FindingGroup], total: int, download: str) -> str:
    """The findings section: the count (``#total``: findings), the groups, the download link."""
    rows = [_group_row(g) for g in groups]
    if not rows:
        rows.append("<tr><td colspan='8'>No contradicted claims match these filters.</td></tr>")
    shown = sum(len(g.findings) for g in groups)
    return (
        f"<section id='findings-section'><h2>Findings <span id='total'>({total})</span></h2>"
        f"<p class='note' id='groups'>{shown} shown in {len(groups)} group"
        f"{'' if len(groups) == 1 else 's'} of identical claim, evidence and judge version"
        + (
            f"; the counts are of these {shown}, the newest of the {total} (narrow the filters "
            "to see the rest)."
            if shown < total
            else "."
        )
        + "</p>"
        + download
        + "<table id='findings'><thead><tr><th>count / seen / id</th><th>claim (value marked)"
        "</th><th>evidence (disagreeing value marked)</th><th>reason</th><th>score</th>"
        "<th>slices</th><th>judge</th><th>label (whole group)</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></section>"
    )
