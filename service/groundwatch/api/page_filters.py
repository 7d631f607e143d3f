"""The findings page's filters, read from its GET form: slices, time and label state.

Usage::

    filters = read_filters(request.query_params, slice_keys)         # as typed
    filters = resolve_values(filters, known_slice_values(report, counts))  # ACME -> acme
    shown = [f for f in found if filters.keeps(f)]
    report = only_slices(report_json, filters.slices)                 # windows and drift follow

A slice filter is ``key=value`` or ``key:value``; several are separated by commas, spaces or
both (``tenant=acme,intent=billing``), and every one must hold (AND). Values are the bounded
slice labels the windows and findings keep: one typed in another case (``tenant=ACME``) is
matched to the known value when exactly one matches; a value nobody knows is kept as typed and
said so on the page (it matches nothing), never silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlencode

from groundwatch.state.slices import SliceMapper
from groundwatch.state.stores import Finding, LabelCounts

__all__ = [
    "LABEL_STATES",
    "PageFilters",
    "SliceSpecError",
    "known_slice_values",
    "only_slices",
    "read_filters",
    "resolve_values",
    "slice_spec",
    "split_specs",
    "unknown_values",
]

_MAX_SINCE_MIN = 525_600  # GET /v1/findings/cases accepts since_min up to a year
#: The label-state choices of the page's "Verdict / label" filter (value, text). Every finding
#: is a claim the judge called contradicted; what differs is what a person said of it.
LABEL_STATES: tuple[tuple[str, str], ...] = (
    ("", "contradicted, any label"),
    ("unlabelled", "contradicted, not labelled yet"),
    ("right", "labelled right"),
    ("wrong", "labelled wrong (any corrected verdict)"),
    ("wrong:supported", "labelled wrong: supported"),
    ("wrong:not_found", "labelled wrong: not found"),
    ("unsure", "labelled unsure"),
)
_STATES = {value for value, _ in LABEL_STATES}


class SliceSpecError(ValueError):
    """A slice filter that is not ``key:value`` or ``key=value`` (the API answers 422)."""


def slice_spec(spec: str) -> tuple[str, str]:
    """``key:value`` or ``key=value`` (whichever separator comes first) as (key, cleaned value);
    :class:`SliceSpecError` with the message the API and the page show otherwise."""
    cut = min((i for i in (spec.find(":"), spec.find("=")) if i >= 0), default=-1)
    key, value = (spec[:cut], spec[cut + 1 :]) if cut >= 0 else ("", "")
    if not key or not value:
        raise SliceSpecError(f"slice filter {spec[:80]!r} must look like key=value or key:value")
    return key[:64], SliceMapper.clean(value)


def split_specs(raw: str) -> list[str]:
    """One ``slice`` parameter as its filters: separated by commas, spaces or both."""
    return [spec for spec in re.split(r"[\s,]+", raw.strip()) if spec]


@dataclass(frozen=True)
class PageFilters:
    """Filters of the page's GET form: ``slice`` (key=value, comma- or space-separated,
    repeatable), ``since_min`` and ``label`` (one of :data:`LABEL_STATES`)."""

    slices: dict[str, str] = field(default_factory=dict)
    since_min: int | None = None
    #: Why the filter was refused (the API's 422 message); no findings are shown then.
    error: str | None = None
    label: str = ""
    #: What the page says of the filter without refusing it (a value matched in another case,
    #: a value no window or finding has).
    notes: tuple[str, ...] = ()

    def query(self) -> str:
        """The filters as the query of ``GET /v1/findings/cases`` (``slice=key:value``,
        repeatable; ``since_min`` when set, at most the endpoint's year)."""
        items = [("slice", f"{k}:{v}") for k, v in self.slices.items()]
        if self.since_min:
            items.append(("since_min", str(min(self.since_min, _MAX_SINCE_MIN))))
        return urlencode(items)

    def keeps(self, finding: Finding, since: float | None = None) -> bool:
        """Whether ``finding`` passes the time and label-state filters (the store applies the
        slice filter)."""
        if since is not None and finding.ts < since:
            return False
        if not self.label:
            return True
        label = finding.label
        if self.label == "unlabelled":
            return label is None
        if label is None:
            return False
        kind, _, corrected = self.label.partition(":")
        return label.label == kind and (not corrected or label.corrected_verdict == corrected)


def _since_min(value: str) -> int | None:
    """Empty or 0 (the form's "any time") = none, else ASCII digits up to a year; ValueError
    otherwise (``"²".isdigit()`` is true but ``int("²")`` fails)."""
    if not value:
        return None
    if value.isascii() and value.isdigit() and len(value) <= 6 and int(value) <= _MAX_SINCE_MIN:
        return int(value) or None
    raise ValueError(f"since_min must be whole minutes from 0 to {_MAX_SINCE_MIN}")


def read_filters(params: Any, slice_keys: Iterable[str]) -> PageFilters:
    """The filters of a request's query (``params``: Starlette's ``QueryParams``). A bad
    ``since_min`` raises ValueError (the route answers 422); a bad slice or label state is
    reported in ``error`` and matches nothing."""
    slices: dict[str, str] = {}
    errors: list[str] = []
    for raw in params.getlist("slice"):
        for spec in split_specs(raw):
            try:
                key, value = slice_spec(spec)
            except SliceSpecError as exc:
                errors.append(str(exc))
                continue
            slices[key] = value
    for key in slice_keys:
        given = params.get(key)
        if given:
            slices[key] = SliceMapper.clean(given)
    label = params.get("label", "") or ""
    if label not in _STATES:
        errors.append(f"label filter {label[:40]!r} must be one of: " + ", ".join(sorted(_STATES)))
        label = ""
    return PageFilters(
        slices=slices,
        since_min=_since_min(params.get("since_min", "")),
        error="; ".join(errors) or None,
        label=label,
    )


def known_slice_values(report: Mapping[str, Any], counts: LabelCounts) -> dict[str, set[str]]:
    """Every slice value the windows report and the labelled findings know, per key."""
    known: dict[str, set[str]] = {}
    rows = [r for rows in report.get("windows", {}).values() for r in rows]
    pairs = [(r.get("slice_key"), r.get("slice_value")) for r in rows]
    pairs += [(key, value) for _, key, value, _ in counts]
    for key, value in pairs:
        if isinstance(key, str) and isinstance(value, str) and key != "all":
            known.setdefault(key, set()).add(value)
    return known


def resolve_values(filters: PageFilters, known: Mapping[str, set[str]]) -> PageFilters:
    """``filters`` with each slice value matched to the known value of its key when they differ
    in case only (and exactly one matches, noted); a value that matches none is kept as typed
    (:func:`unknown_values` notes it when nothing matched)."""
    slices, notes = dict(filters.slices), list(filters.notes)
    for key, value in filters.slices.items():
        values = known.get(key, set())
        if value in values:
            continue
        same = sorted(v for v in values if v.casefold() == value.casefold())
        if len(same) == 1:
            slices[key] = same[0]
            notes.append(f"{key}={value} matched as {key}={same[0]} (case ignored)")
            continue
    return replace(filters, slices=slices, notes=tuple(notes))


def unknown_values(filters: PageFilters, known: Mapping[str, set[str]]) -> PageFilters:
    """``filters`` with a note for each slice value no window or labelled finding has (said
    when a filter matched no finding, so that a typo is not read as "no findings")."""
    notes = list(filters.notes)
    for key, value in filters.slices.items():
        values = known.get(key, set())
        if value not in values:
            listed = ", ".join(sorted(values)[:20]) or "none yet"
            notes.append(f"no window or labelled finding has {key}={value} (known {key}: {listed})")
    return replace(filters, notes=tuple(notes))


def only_slices(report: dict[str, Any], slices: Mapping[str, str]) -> dict[str, Any]:
    """The windows report with only the rows of the filtered slices (every row without a
    filter). Windows are kept per slice key, so under ``tenant=acme,intent=billing`` the rows
    of each are shown, not their intersection (which no store keeps)."""
    if not slices:
        return report
    wanted = set(slices.items())

    def keep(row: Mapping[str, Any]) -> bool:
        return (row.get("slice_key"), row.get("slice_value")) in wanted

    windows = {name: [r for r in rows if keep(r)] for name, rows in report["windows"].items()}
    drift = [d for d in report.get("drift", []) if keep(d)]
    return {**report, "windows": windows, "drift": drift}
