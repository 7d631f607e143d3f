"""HTTP read API for triage: findings, current windows and drift, and a small built-in page.

Usage::

    app.include_router(findings_router(finding_store, window_store, settings.windows),
                       dependencies=[Depends(require_read_token)])

Routes: ``GET /v1/findings`` (newest first, ``limit`` + ``cursor``; filter by slice with
``?tenant=acme`` for any configured slice key, or ``?slice=tenant:acme``, repeatable),
``GET /v1/findings/cases`` (the same findings as a JSONL download of draft eval cases, one per
trace, newest first: ``limit`` traces, the same slice filters, ``since_min``),
``GET /v1/findings?sample=random&n=50`` (a uniform random sample of the kept findings, to label:
an estimate of the judge's precision from it is unbiased, unlike one from the loudest or newest),
``POST /v1/findings/{id}/label`` (:func:`label_router`, a write route: right / wrong / unsure,
an optional corrected verdict and a note; re-labelling replaces),
``GET /v1/windows`` (window means, rates and drift as JSON), ``GET /`` (the page) and its
assets under ``/static/``. The page sends the bearer token typed into it with every request,
so the JSON routes can sit behind authentication while the page and its assets are public
(mount :func:`page_router` without auth and pass ``include_page=False``). ``GET /`` renders the
findings server-side (:mod:`groundwatch.api.page_render`) when no token is needed or a valid
bearer header comes with the request; ``GET /page/main`` is the same fragment for the script.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from groundwatch.access import tenant_scope
from groundwatch.api.page import page_router
from groundwatch.api.page_filters import SliceSpecError, slice_spec, split_specs
from groundwatch.api.tenancy import current_tenant
from groundwatch.contract.record import Conflict
from groundwatch.observability.windows_collector import build_report, report_to_json
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import WindowReader, as_reader
from groundwatch.state.findings import InvalidCursorError
from groundwatch.state.slices import SliceMapper
from groundwatch.state.stores import (
    Finding,
    FindingLabel,
    FindingStore,
    StoreUnavailableError,
    WindowStore,
)
from groundwatch.suite.findings_export import drafts_from_findings

__all__ = [
    "CASES_FILENAME",
    "CASES_MAX_TRACES",
    "AmbiguousIdError",
    "FindingOut",
    "FindingsPageOut",
    "LabelGroupIn",
    "LabelGroupOut",
    "LabelIn",
    "LabelOut",
    "findings_router",
    "label_router",
    "page_router",
    "resolve_id",
    "slice_spec",
]

log = logging.getLogger(__name__)

#: Longest note kept with a label (characters); a longer one is refused (422).
NOTE_MAX_CHARS = 1000


class LabelIn(BaseModel):
    """Body of ``POST /v1/findings/{id}/label``."""

    model_config = {"extra": "forbid"}

    label: Literal["right", "wrong", "unsure"] = Field(
        description="right: the claim is contradicted; wrong: it is not; unsure: cannot tell."
    )
    corrected_verdict: Literal["supported", "not_found"] | None = Field(
        default=None, description="With label wrong only: the verdict the claim should have had."
    )
    note: str | None = Field(default=None, max_length=NOTE_MAX_CHARS)


class LabelOut(BaseModel):
    label: str
    corrected_verdict: str | None
    note: str | None
    labelled_at: str = Field(description="RFC 3339 UTC.")


class FindingOut(BaseModel):
    """One contradicted claim, as returned by GET /v1/findings."""

    id: str = Field(
        description=(
            "The finding's id, as the label route takes it: trace_id#claim_index, then "
            "@scope (a hash of the tenant) when the trace has a tenant."
        )
    )
    trace_id: str
    claim_index: int
    ts: float = Field(description="Trace time, unix seconds.")
    time: str = Field(description="Trace time, RFC 3339 UTC.")
    slices: dict[str, str]
    claim: str
    evidence: str | None = Field(description="The passage sentence that contradicts the claim.")
    context_index: int | None
    context_id: str | None
    score: float
    reason: str | None
    judge_version: str = Field(description="metric_version of the judge that found it.")
    conflict: Conflict | None = Field(
        default=None, description="The disagreeing words the judge named, when it names them."
    )
    label: LabelOut | None = Field(default=None, description="Its triage label, when given.")


class FindingsPageOut(BaseModel):
    items: list[FindingOut]
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next (older) page.")
    total: int = Field(description="Findings matching the filter (kept ones only).")


# 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z as unix seconds (datetime.max.timestamp()
# rounds up to year 10000).
_TIME_RANGE = (-62_135_596_800.0, 253_402_300_799.0)


def _iso(ts: float) -> str:
    """RFC 3339 UTC; never raises: a stored time outside datetime's range (a finding stored
    before ingest bounded trace times, such as year 10000 in UTC) is shown at the nearest
    representable instant, and a time that is not a number as the epoch."""
    safe = min(max(ts, _TIME_RANGE[0]), _TIME_RANGE[1]) if math.isfinite(ts) else 0.0
    try:
        return datetime.fromtimestamp(safe, UTC).isoformat(timespec="milliseconds")
    except (OverflowError, ValueError, OSError):  # a platform with a narrower time range
        return datetime.fromtimestamp(0.0, UTC).isoformat(timespec="milliseconds")


def _label_out(label: FindingLabel | None) -> LabelOut | None:
    if label is None:
        return None
    return LabelOut(
        label=label.label,
        corrected_verdict=label.corrected_verdict,
        note=label.note,
        labelled_at=_iso(label.ts),
    )


def _out(f: Finding) -> FindingOut:
    return FindingOut(
        id=f.key,
        trace_id=f.trace_id,
        claim_index=f.claim_index,
        ts=f.ts if math.isfinite(f.ts) else 0.0,  # JSON has no infinity
        time=_iso(f.ts),
        slices=f.slices,
        claim=f.claim,
        evidence=f.evidence,
        context_index=f.context_index,
        context_id=f.context_id,
        score=f.score,
        reason=f.reason,
        judge_version=f.metric_version,
        conflict=f.conflict,
        label=_label_out(f.label),
    )


_UNAVAILABLE = "store unavailable; retry"
CASES_FILENAME = "groundwatch-findings-cases.jsonl"
#: Most traces (draft cases) one ``GET /v1/findings/cases`` returns.
CASES_MAX_TRACES = 1000
_CASES_PAGE = 500  # findings read from the store per page while collecting a download


def _unavailable(exc: StoreUnavailableError) -> HTTPException:
    # The error names the store's address (host, port, sometimes the URL): log it for the
    # operator, answer the client without it.
    log.warning("state store unavailable: %s", exc)
    return HTTPException(503, _UNAVAILABLE, headers={"Retry-After": "5"})


def findings_router(
    store: FindingStore,
    windows: WindowStore | WindowReader,
    window_settings: WindowSettings,
    *,
    include_page: bool = True,
    include_labels: bool = True,
) -> APIRouter:
    """The triage routes over a finding store and a window store (see module docstring), with
    the ``windows`` section (slice keys, the window report's layout and drift rule).
    ``include_labels=False`` leaves out the label route, for an app that mounts
    :func:`label_router` behind its write guard."""
    reader = as_reader(windows)
    slice_keys = list(window_settings.slice_keys)
    router = APIRouter()

    def slice_filter(request: Request, specs: list[str]) -> dict[str, str]:
        wanted: dict[str, str] = {}
        # ``slice=tenant:acme,intent:billing`` as two filters, as the page reads them
        for spec in (part for raw in specs for part in split_specs(raw)):
            try:
                key, value = slice_spec(spec)
            except SliceSpecError as exc:
                raise HTTPException(422, str(exc)) from None
            wanted[key] = value
        for key in slice_keys:
            given = request.query_params.get(key)
            if given:
                wanted[key] = SliceMapper.clean(given)
        return wanted

    @router.get("/v1/findings", response_model=FindingsPageOut, tags=["triage"])
    def list_findings(
        request: Request,
        *,
        limit: Annotated[int, Query(ge=1, le=500, description="Page size.")] = 50,
        cursor: Annotated[str | None, Query(max_length=2048)] = None,
        slice_: Annotated[
            list[str],
            Query(alias="slice", description="key:value slice filter, repeatable (AND)."),
        ] = [],  # noqa: B006 - FastAPI copies query defaults
        sample: Annotated[
            Literal["random"] | None,
            Query(description="random: a uniform random sample of the kept findings to label."),
        ] = None,
        n: Annotated[int, Query(ge=1, le=500, description="Sample size (sample=random).")] = 50,
    ) -> FindingsPageOut:
        """Contradicted claims, newest first, optionally filtered by slice; with
        ``sample=random``, ``n`` of them drawn at random (no cursor), for unbiased labelling."""
        wanted = slice_filter(request, slice_)
        try:
            if sample == "random":
                drawn = store.sample(n, slice_filter=wanted or None)
                return FindingsPageOut(
                    items=[_out(f) for f in drawn], next_cursor=None, total=len(drawn)
                )
            page = store.page(limit=limit, cursor=cursor, slice_filter=wanted or None)
        except InvalidCursorError as exc:
            raise HTTPException(400, str(exc)) from None
        except StoreUnavailableError as exc:
            raise _unavailable(exc) from None
        return FindingsPageOut(
            items=[_out(f) for f in page.items], next_cursor=page.next_cursor, total=page.total
        )

    @router.get(
        "/v1/findings/cases",
        tags=["triage"],
        response_class=Response,
        responses={
            200: {
                "description": (
                    "JSONL, one draft eval case per line (schemas/eval-case.v1.schema.json, "
                    "needs_review: true), sent as an attachment. The question, answer and "
                    "passages are the trace text the store kept: redacted like the claim, cut "
                    "to findings.case_text_chars, and absent in redaction mode drop_text."
                ),
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    def findings_cases(
        request: Request,
        limit: Annotated[
            int,
            Query(ge=1, le=CASES_MAX_TRACES, description="Most traces (draft cases)."),
        ] = 100,
        since_min: Annotated[
            int | None,
            Query(ge=1, le=525_600, description="Only findings of the last N minutes."),
        ] = None,
        slice_: Annotated[
            list[str],
            Query(alias="slice", description="key:value slice filter, repeatable (AND)."),
        ] = [],  # noqa: B006 - FastAPI copies query defaults
    ) -> Response:
        """The findings as draft eval cases (``groundwatch findings export``), newest first:
        one case per trace with its contradicted claims; feed them to ``suite run`` after
        review."""
        wanted = slice_filter(request, slice_)
        since = time.time() - since_min * 60 if since_min else None
        found: list[Finding] = []
        traces: set[str] = set()
        cursor: str | None = None
        try:
            while True:
                page = store.page(limit=_CASES_PAGE, cursor=cursor, slice_filter=wanted or None)
                for f in page.items:
                    if since is not None and f.ts < since:
                        break
                    if f.trace_id not in traces:
                        if len(traces) >= limit:
                            break
                        traces.add(f.trace_id)
                    found.append(f)
                else:
                    if page.next_cursor is not None:
                        cursor = page.next_cursor
                        continue
                break
        except StoreUnavailableError as exc:
            raise _unavailable(exc) from None
        body = "".join(
            d.model_dump_json(exclude_none=True) + "\n" for d in drafts_from_findings(found)
        )
        return Response(
            body,
            media_type="application/x-ndjson",
            headers={
                "Content-Disposition": f'attachment; filename="{CASES_FILENAME}"',
                "Cache-Control": "no-store",
                "X-Content-Type-Options": "nosniff",
            },
        )

    @router.get("/v1/windows", tags=["triage"])
    def current_windows() -> dict[str, Any]:
        """Window means, counts and rates per slice, and drift against the reference."""
        try:
            return report_to_json(build_report(reader, window_settings))
        except StoreUnavailableError as exc:
            raise _unavailable(exc) from None

    if include_labels:
        router.include_router(label_router(store))
    if include_page:
        router.include_router(page_router(store, windows, window_settings))
    return router


class LabelGroupIn(LabelIn):
    """Body of ``POST /v1/findings/labels``: one label for several findings (a group)."""

    ids: list[str] = Field(
        min_length=1, max_length=500, description="Finding ids, as GET /v1/findings gives them."
    )


class LabelGroupOut(BaseModel):
    labelled: list[str] = Field(description="The ids labelled (full form).")
    missing: list[str] = Field(description="Ids given that no kept finding has.")


class AmbiguousIdError(LookupError):
    """A short id (``trace_id#claim_index``) that several kept findings of the judge version
    share (traces of several tenants): the full id is needed (409)."""


def resolve_id(store: FindingStore, finding_id: str, version: str | None) -> str | None:
    """The full id (``trace_id#claim_index@scope``) of the finding ``finding_id`` names: as it
    is when kept under it, else the one kept finding of judge ``version`` whose short form
    (``trace_id#claim_index``) it is; None when none is; :class:`AmbiguousIdError` when several
    are. The short form is read by scanning the kept findings (bounded by findings.max_items):
    a fallback for ids typed from the docs, not the page's path (the page posts full ids)."""
    if "@" in finding_id.rpartition("#")[2]:
        return finding_id
    tenant = current_tenant()  # a tenant-bound token's short id names its tenant's finding only
    scope = tenant_scope(tenant) if tenant is not None else None
    matches: list[str] = []
    cursor: str | None = None
    while True:
        page = store.page(limit=_CASES_PAGE, cursor=cursor)
        for f in page.items:
            short = f"{f.trace_id}#{f.claim_index}"
            if short != finding_id or (scope is not None and f.scope != scope):
                continue
            if version is None or f.metric_version == version:
                matches.append(f.key)
        cursor = page.next_cursor
        if cursor is None or not page.items:
            break
    if len(matches) > 1:
        raise AmbiguousIdError(
            f"{len(matches)} findings have the id {finding_id[:200]!r} (one per tenant): "
            "label one by its full id, " + ", ".join(sorted(matches)[:5])
        )
    return matches[0] if matches else None


def label_router(
    store: FindingStore,
    *,
    clock: Callable[[], float] = time.time,
    redact_note: Callable[[str], str | None] | None = None,
    judge_version: Callable[[], str] | None = None,
) -> APIRouter:
    """``POST /v1/findings/{id}/label`` and ``POST /v1/findings/labels`` (a group): write
    routes (mount them behind the write guard). ``id`` is the finding's id as the API and the
    page show it, URL-encoded (``#`` as ``%23``): ``trace_id#claim_index``, followed by
    ``@scope`` when the trace has a tenant; the short form is accepted when exactly one kept
    finding of the current ``judge_version()`` has it (409 when several tenants share it).
    ``redact_note`` (the PII redactor's ``redact_text``) is applied to a note before it is
    stored, like every other free text kept with a finding."""
    router = APIRouter()

    def stored_label(body: LabelIn) -> FindingLabel:
        if body.corrected_verdict is not None and body.label != "wrong":
            raise HTTPException(422, "corrected_verdict goes with label 'wrong' only")
        note = (body.note or "").strip() or None
        if note is not None and redact_note is not None:
            note = redact_note(note) or None
        return FindingLabel(body.label, clock(), body.corrected_verdict, note)

    def set_one(finding_id: str, label: FindingLabel) -> Finding | None:
        found = store.set_label(finding_id, label)
        if found is not None:
            return found
        version = judge_version() if judge_version is not None else None
        try:
            full = resolve_id(store, finding_id, version)
        except AmbiguousIdError as exc:
            raise HTTPException(409, str(exc)) from None
        return None if full is None or full == finding_id else store.set_label(full, label)

    @router.post(
        "/v1/findings/{finding_id:path}/label",
        response_model=FindingOut,
        tags=["triage"],
        responses={404: {"description": "No such finding is kept."}},
    )
    def label_finding(finding_id: str, body: LabelIn) -> FindingOut:
        """Label a finding: the judge was right, wrong (optionally with the verdict it should
        have given) or unsure. Labelling again replaces the label. The labels feed
        ``groundwatch_judge_contradicted_precision`` and ``groundwatch judge adapt``."""
        label = stored_label(body)
        try:
            found = set_one(finding_id[:1024], label)
        except StoreUnavailableError as exc:
            raise _unavailable(exc) from None
        if found is None:
            raise HTTPException(404, "no such finding")
        return _out(found)

    @router.post("/v1/findings/labels", response_model=LabelGroupOut, tags=["triage"])
    def label_group(body: LabelGroupIn) -> LabelGroupOut:
        """One label for several findings (a group of identical findings on the page): each
        id as in the single route; the ids no kept finding has are listed, not refused."""
        label = stored_label(body)
        done: list[str] = []
        missing: list[str] = []
        try:
            for finding_id in dict.fromkeys(i[:1024] for i in body.ids):
                found = set_one(finding_id, label)
                (done if found is not None else missing).append(
                    found.key if found is not None else finding_id
                )
        except StoreUnavailableError as exc:
            raise _unavailable(exc) from None
        return LabelGroupOut(labelled=done, missing=missing)

    return router
