"""The findings page: ``GET /`` (rendered server-side), ``GET /page/main`` (the same ``<main>``
for the page's script) and the page's assets under ``/static/``.

Usage::

    app.include_router(page_router(findings, windows, settings.windows,
                                   authorize=guard.require_read_all_tenants,
                                   judge_version=lambda: runtime.judge.version))

The page holds no data without a read token: ``GET /`` renders the findings when
``authorize(request)`` passes (no token configured, or a valid bearer header), else the shell,
whose script asks for the token and fetches ``/page/main`` with it. What it shows for a filter
(:mod:`groundwatch.api.page_filters`): the findings of the slices, grouped
(:mod:`groundwatch.api.page_groups`), the precision of their labels, the trend
(:mod:`groundwatch.api.page_trend`), and the windows and drift rows of those slices.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from groundwatch.api.page_filters import (
    PageFilters,
    known_slice_values,
    only_slices,
    read_filters,
    resolve_values,
    unknown_values,
)
from groundwatch.api.page_groups import group_findings
from groundwatch.api.page_render import render_main
from groundwatch.api.page_trend import trend_points
from groundwatch.observability.precision_collector import (
    PrecisionEstimate,
    precision_by_slice,
    precision_from_counts,
)
from groundwatch.observability.windows_collector import build_report, report_to_json
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.bucket_reader import WindowReader, as_reader
from groundwatch.state.buckets import ALL
from groundwatch.state.stores import (
    Finding,
    FindingStore,
    LabelCounts,
    StoreUnavailableError,
    WindowStore,
)

__all__ = ["PAGE_FINDINGS", "PageAuth", "page_router"]

log = logging.getLogger(__name__)
_UNAVAILABLE = "store unavailable; retry"

_STATIC_DIR = Path(__file__).parent / "static"
_ASSETS = {
    "page.js": "text/javascript; charset=utf-8",
    "page.css": "text/css; charset=utf-8",
}
_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _static(name: str) -> str:
    # groundwatch is a namespace package: importlib.resources cannot read it when installed
    # editable, so read next to this module (package-data ships static/*).
    return (_STATIC_DIR / name).read_text("utf-8")


PageAuth = Callable[[Request], None]


def page_router(
    store: FindingStore | None = None,
    windows: WindowStore | WindowReader | None = None,
    window_settings: WindowSettings | None = None,
    *,
    authorize: PageAuth | None = None,
    judge_version: Callable[[], str] | None = None,
) -> APIRouter:
    """The page and its assets. With a store, ``GET /`` renders the findings server-side when
    ``authorize(request)`` passes (no token configured, or a valid bearer header); otherwise it
    serves the shell, whose script asks for the token and fetches ``/page/main`` with it.
    ``?sample=random`` shows a random sample of the findings (to label) instead of the newest;
    the measured precision shown counts the labels of ``judge_version()`` findings (all
    labels without it), like ``groundwatch_judge_contradicted_precision``."""
    router = APIRouter()

    def main_html(request: Request) -> str | None:
        if store is None or windows is None or window_settings is None:
            return None
        if authorize is not None:
            try:
                authorize(request)
            except HTTPException:
                return None
        try:
            filters = read_filters(request.query_params, window_settings.slice_keys)
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        sampled = request.query_params.get("sample") == "random"
        version = judge_version() if judge_version is not None else None
        try:
            reader = as_reader(windows)
            report = report_to_json(build_report(reader, window_settings))
            counts = store.label_counts()
            known = known_slice_values(report, counts)
            filters = resolve_values(filters, known)
            found, total = _page_findings(store, filters, sampled)
            if not found and not filters.error:
                filters = unknown_values(filters, known)
            estimate = _precision(store, counts, filters, version)
            one = next(iter(filters.slices.items())) if len(filters.slices) == 1 else ALL
            trend = trend_points(reader, window_settings, one)
        except StoreUnavailableError as exc:
            log.warning("state store unavailable: %s", exc)
            return f"<main id='main'><p class='error'>{_UNAVAILABLE}</p></main>"
        return render_main(
            group_findings(found),
            total,
            only_slices(report, filters.slices),
            filters,
            min_wasserstein=window_settings.drift_min_wasserstein,
            precision=estimate,
            sampled=sampled,
            trend=trend,
            judge_version=version or _one_version(found),
        )

    @router.get("/", include_in_schema=False)
    def page(request: Request) -> HTMLResponse:
        main = main_html(request)
        if main is None:
            main = (
                "<main id='main'><p id='need-token'>This page needs a read token: paste it "
                "above (kept in this tab only).</p></main>"
            )
        html = _static("page.html").replace("<!--MAIN-->", main)
        return HTMLResponse(html, headers=_SECURITY_HEADERS)

    @router.get("/page/main", include_in_schema=False)
    def page_main(request: Request) -> HTMLResponse:
        main = main_html(request)
        if main is None:
            raise HTTPException(401, "missing or invalid bearer token")
        return HTMLResponse(main, headers=_SECURITY_HEADERS)

    @router.get("/static/{name}", include_in_schema=False)
    def asset(name: str) -> Response:
        if name not in _ASSETS:
            raise HTTPException(404, "not found")
        return Response(_static(name), media_type=_ASSETS[name], headers=_SECURITY_HEADERS)

    return router


#: Findings the page reads per view (newest first, or a random sample), before grouping.
PAGE_FINDINGS = 500


def _one_version(found: list[Finding]) -> str | None:
    """The judge version of the findings shown, when they share one (a page without the
    running judge's version still names it once)."""
    versions = {f.metric_version for f in found}
    return versions.pop() if len(versions) == 1 else None


def _page_findings(
    store: FindingStore, filters: PageFilters, sampled: bool
) -> tuple[list[Finding], int]:
    """The findings the page shows and how many match: a refused filter shows its error and
    none, never every finding; the time and label-state filters apply after the store's
    slice filter, so with either the count is of those read."""
    if filters.error:
        return [], 0
    wanted = filters.slices or None
    if sampled:
        found = store.sample(100, slice_filter=wanted)
        total = len(found)
    else:
        page = store.page(limit=PAGE_FINDINGS, cursor=None, slice_filter=wanted)
        found, total = page.items, page.total
    since = time.time() - filters.since_min * 60 if filters.since_min else None
    if since is None and not filters.label:
        return found, total
    kept = [f for f in found if filters.keeps(f, since)]
    return kept, len(kept)


def _precision(
    store: FindingStore, counts: LabelCounts, filters: PageFilters, version: str | None
) -> PrecisionEstimate:
    """The measured precision of the filtered findings' labels (this judge version's): from
    the label counts for no filter or one slice, from the labelled findings for several."""
    if len(filters.slices) <= 1:
        key = next(iter(filters.slices.items()), ALL)
        return precision_from_counts(counts, version).get(key, PrecisionEstimate())
    wanted = filters.slices.items()
    mine = [f for f in store.labelled() if wanted <= f.slices.items()]
    return precision_by_slice(mine, version)[ALL]
