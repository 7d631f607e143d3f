"""The findings page for triage (issue 47), in headless Chromium against a real uvicorn server:
identical findings grouped with one label for the group, each trace's provenance with both
values marked, the judge version once, a verdict / label filter that works, slice filters with
commas and any case that the windows, drift and precision follow, a trend over time, labels
that come back whole after a reload, and the id the page shows being the one the API takes."""

from __future__ import annotations

import dataclasses
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from groundwatch.access import tenant_scope
from groundwatch.api.findings import findings_router
from groundwatch.contract.record import Conflict
from groundwatch.sections.windows import FindingsSettings, WindowSettings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Finding, FindingLabel, FindingPassage, FindingTrace
from groundwatch.state.windows import MemoryWindowStore
from tests.helpers_windows import record
from tests.test_page import CHROMIUM, _launch, _serving

pytestmark = pytest.mark.browser

VERSION = "verifier-c16+minilm-l6-int8+claims-v9+thresholds-0.97-0.5+head-2026-12-05+cascade-0.9"
GROUPS, REPEATS = 7, 5  # the 35 rows that were 7 distinct claim/evidence pairs


def _need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")


def _finding(k: int, j: int, now: float) -> Finding:
    tenant = "acme" if j % 2 == 0 else "globex"
    claim = f"The Pro plan costs {10 + k} dollars a month."
    return Finding(
        trace_id=f"demo-{k:02d}{j}",
        ts=now - 60 * (k * REPEATS + j),
        claim_index=0,
        claim=claim,
        evidence=f"The Pro plan costs {20 + k} dollars a month.",
        context_index=1,
        context_id=f"doc-{k}",
        score=0.98,
        reason=f"number mismatch: {10 + k} vs {20 + k}",
        metric_version=VERSION,
        slices={"tenant": tenant, "intent": "billing" if k < 4 else "shipping"},
        trace=FindingTrace(
            question=f"How much is the Pro plan ({k}/{j})?",
            answer=f"Thanks for asking. {claim} It renews monthly.",
            passages=(
                FindingPassage(0, "Plans overview.", id="doc-intro"),
                FindingPassage(1, f"Pricing. The Pro plan costs {20 + k} dollars a month.", "doc"),
            ),
        ),
        conflict=Conflict(kind="number", claim=f"{10 + k} dollars", evidence=f"{20 + k} dollars"),
        scope=tenant_scope(tenant),
    )


@dataclass
class Served:
    url: str
    findings: MemoryFindingStore
    windows: MemoryWindowStore


@pytest.fixture
def served() -> Iterator[Served]:
    ws = WindowSettings(slice_keys=["tenant", "intent"], min_samples=1)
    findings = MemoryFindingStore(FindingsSettings())
    windows = MemoryWindowStore(ws)
    now = windows.now()
    findings.add([_finding(k, j, now) for k in range(GROUPS) for j in range(REPEATS)])
    # windows: acme contradicts itself 2.5 h ago (2 claims a trace), a little half an hour ago
    items = [
        (record(f"w{i}", supported=1, contradicted=2), {"tenant": "acme"}, now - 9000)
        for i in range(4)
    ]
    items += [
        (record(f"x{i}", supported=2, contradicted=i % 2), {"tenant": "acme"}, now - 1800)
        for i in range(2)
    ]
    items += [(record(f"g{i}", supported=3), {"tenant": "globex"}, now - 1800) for i in range(3)]
    windows.observe_evaluations(items)
    app = FastAPI()
    app.include_router(findings_router(findings, windows, ws))
    with _serving(app) as url:
        yield Served(url, findings, windows)


def _post(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.load(resp)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def _html(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return str(resp.read().decode())


def _shots(tmp_path: Path) -> Path:
    return Path(os.environ.get("GW_SCREENSHOT_DIR", str(tmp_path)))


def test_identical_findings_are_one_row_with_one_label_that_survives_a_reload(
    served: Served, tmp_path: Path
) -> None:
    _need_chromium()
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(served.url)
            rows = page.locator("#findings tbody tr.finding")
            expect(rows).to_have_count(GROUPS)  # was 35 rows
            expect(page.locator("#total")).to_have_text(f"({GROUPS * REPEATS})")
            first = rows.first
            assert first.locator(".count").inner_text() == f"×{REPEATS}"
            assert "first " in first.locator("td.seen").inner_text()
            assert first.locator("td.slices").inner_text().split("\n") == [
                "intent=billing ×5",
                "tenant=acme ×3",
                "tenant=globex ×2",
            ]
            # the judge version once in full (on hover), short in the rows
            assert page.locator("#judge-version code").get_attribute("title") == VERSION
            assert page.locator("body").inner_text().count(VERSION) == 0
            cell = first.locator("td.judge code")
            assert cell.get_attribute("title") == VERSION
            assert len(cell.inner_text()) <= 24
            # one label for the whole group: wrong, supported, with a note
            label = first.locator("td.label")
            label.locator(".label-corrected").select_option("supported")
            label.locator(".label-note").fill("the passage is about the Max plan")
            label.locator(".label-btn[data-label='wrong']").click()
            expect(label.locator(".label-state")).to_have_text(f"wrong (supported) (all {REPEATS})")
            page.screenshot(path=str(_shots(tmp_path) / "findings-groups.png"), full_page=True)
            page.reload()
            label = page.locator("#findings tbody tr.finding").first.locator("td.label")
            expect(label.locator(".label-state")).to_have_text(f"wrong (supported) (all {REPEATS})")
            # every part of the label comes back: the corrected verdict reset before
            assert label.locator(".label-corrected").input_value() == "supported"
            assert label.locator(".label-note").input_value() == "the passage is about the Max plan"
            assert label.locator(".label-btn[data-label='wrong']").get_attribute(
                "aria-pressed"
            ) == ("true")
            assert errors == []
        finally:
            browser.close()
    group = [f for f in served.findings.labelled() if f.claim.endswith("10 dollars a month.")]
    assert len(group) == REPEATS
    assert {(f.label.label, f.label.corrected_verdict) for f in group if f.label} == {
        ("wrong", "supported")
    }


def test_a_group_expands_to_its_traces_with_both_values_marked_and_the_ids_the_api_takes(
    served: Served, tmp_path: Path
) -> None:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(served.url)
            row = page.locator("#findings tbody tr.finding").first
            assert row.locator("td.claim mark").all_inner_texts() == ["10 dollars"]
            assert row.locator("td.evidence mark").all_inner_texts() == ["20 dollars"]
            details = page.locator("#findings tr.group-traces details").first
            details.locator("summary").click()
            traces = details.locator("li.trace")
            assert traces.count() == REPEATS
            one = traces.first
            assert (
                one.locator(".question").inner_text() == "Question How much is the Pro plan (0/0)?"
            )
            assert one.locator(".answer").inner_text() == (
                "Answer Thanks for asking. The Pro plan costs 10 dollars a month. "
                "It renews monthly."
            )
            assert one.locator(".answer mark").all_inner_texts() == ["10 dollars"]
            assert one.locator(".passage .what").inner_text() == "passage rank 2, id doc-0"
            assert one.locator(".passage mark").all_inner_texts() == ["20 dollars"]
            shown_ids = details.locator("code.finding-id").all_inner_texts()
            page.screenshot(path=str(_shots(tmp_path) / "findings-traces.png"), full_page=True)
        finally:
            browser.close()
    api = json.loads(_html(served.url + "v1/findings?limit=500"))
    assert set(shown_ids) <= {item["id"] for item in api["items"]}
    assert shown_ids[0] == f"demo-000#0@{tenant_scope('acme')}"
    # labelling by the id shown on the page works; so does the short form the docs give
    full = urllib.request.quote(shown_ids[0], safe="")
    assert _post(served.url + f"v1/findings/{full}/label", {"label": "right"})[0] == 200
    status, body = _post(served.url + "v1/findings/demo-001%230/label", {"label": "unsure"})
    assert status == 200, body  # 404 before: the short id was refused
    assert body["id"] == f"demo-001#0@{tenant_scope('globex')}"
    status, body = _post(served.url + "v1/findings/demo-999%230/label", {"label": "right"})
    assert status == 404


def test_a_short_id_two_tenants_share_is_refused_with_the_full_ids() -> None:
    store = MemoryFindingStore(FindingsSettings())
    now = time.time()
    a, b = _finding(0, 0, now), _finding(0, 1, now)
    store.add([a, dataclasses.replace(a, scope=b.scope, slices=b.slices)])
    app = FastAPI()
    app.include_router(
        findings_router(store, MemoryWindowStore(WindowSettings()), WindowSettings())
    )
    with _serving(app) as url:
        status, body = _post(url + "v1/findings/demo-000%230/label", {"label": "right"})
    assert status == 409
    assert "full id" in body["detail"]
    assert a.key in body["detail"]


def test_the_verdict_filter_selects_by_label_state(served: Served) -> None:
    _need_chromium()
    from playwright.sync_api import expect, sync_playwright

    findings = served.findings.page(limit=100).items
    served.findings.set_label(findings[0].key, FindingLabel("wrong", 1.0, "not_found"))
    served.findings.set_label(findings[7].key, FindingLabel("right", 1.0))
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(served.url)
            select = page.locator("select[name=label]")
            assert select.is_enabled()  # was a disabled drop-down
            for state, total, groups in (
                ("wrong:not_found", 1, 1),
                ("right", 1, 1),
                ("unlabelled", GROUPS * REPEATS - 2, GROUPS),
                ("wrong:supported", 0, 0),
            ):
                select.select_option(state)
                page.click("#filters button[type=submit]")
                page.wait_for_load_state()
                expect(page.locator("#total")).to_have_text(f"({total})")
                expect(page.locator("#findings tbody tr.finding")).to_have_count(groups)
                assert page.locator("select[name=label]").input_value() == state
        finally:
            browser.close()


def _slice_rows(page: Any, table: str) -> set[str]:
    return {
        r.locator("td").nth(1 if table == "windows" else 0).inner_text()
        for r in page.locator(f"#{table} tbody tr").all()
        if r.locator("td").count() > 2
    }


def test_slice_filters_take_commas_and_any_case_and_the_windows_and_precision_follow(
    served: Served,
) -> None:
    _need_chromium()
    from playwright.sync_api import expect, sync_playwright

    # all tenants: 1 right of 3 decided (0.33); globex alone: 1 of 2 (0.5)
    by_tenant: dict[str, list[Finding]] = {}
    for f in served.findings.page(limit=100).items:
        by_tenant.setdefault(f.slices["tenant"], []).append(f)
    served.findings.set_label(by_tenant["globex"][0].key, FindingLabel("right", 1.0))
    served.findings.set_label(by_tenant["globex"][1].key, FindingLabel("wrong", 1.0))
    served.findings.set_label(by_tenant["acme"][0].key, FindingLabel("wrong", 1.0))
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(served.url)
            assert "0.33" in page.locator("#precision").inner_text()
            page.fill("input[name=slice]", "tenant=globex")
            page.click("#filters button[type=submit]")
            expect(page.locator("#total")).to_have_text("(14)")
            precision = page.locator("#precision").inner_text()
            assert "of tenant=globex: 0.50" in precision, precision
            assert _slice_rows(page, "windows") == {"tenant=globex"}
            assert _slice_rows(page, "drift") <= {"tenant=globex"}
            # commas (silently nothing before) and spaces both mean AND
            for typed in ("tenant=acme,intent=billing", "tenant=acme, intent=billing"):
                page.fill("input[name=slice]", typed)
                page.click("#filters button[type=submit]")
                expect(page.locator("#total")).to_have_text("(12)")
                assert page.locator("#filter-error").count() == 0
                assert _slice_rows(page, "windows") <= {"tenant=acme", "intent=billing"}
            # another case: matched to the known value, and said so
            page.fill("input[name=slice]", "tenant=ACME")
            page.click("#filters button[type=submit]")
            expect(page.locator("#total")).to_have_text("(21)")
            assert page.input_value("input[name=slice]") == "tenant=acme"
            expect(page.locator(".filter-note")).to_have_text(
                "tenant=ACME matched as tenant=acme (case ignored)"
            )
            # a value nobody has: no findings, and the page says which values exist
            page.fill("input[name=slice]", "tenant=initech")
            page.click("#filters button[type=submit]")
            expect(page.locator("#total")).to_have_text("(0)")
            expect(page.locator(".filter-note")).to_have_text(
                "no window or labelled finding has tenant=initech (known tenant: acme, globex)"
            )
        finally:
            browser.close()


def test_the_trend_is_contradicted_claims_per_trace_over_the_last_day(served: Served) -> None:
    html = _html(served.url)
    svg = html[html.index("<svg id='trend'") : html.index("</svg>")]
    values = [float(part.split("'")[0]) for part in svg.split("data-value='")[1:]]  # oldest first
    assert values == [2.0, 0.2]  # acme 2.5 h ago: 8 claims / 4 traces; 30 min ago: 1 / 5
    assert "-24h" in svg
    assert "now" in svg
    acme = _html(served.url + "?slice=tenant%3Aacme")
    svg = acme[acme.index("<svg id='trend'") : acme.index("</svg>")]
    assert [float(p.split("'")[0]) for p in svg.split("data-value='")[1:]] == [2.0, 0.5]
    assert "contradicted claims per scored trace, last day, tenant=acme" in acme


def test_the_docs_give_the_id_the_api_and_page_use() -> None:
    """docs/triage.md said ``trace_id#claim_index``; a finding of a tenant's trace is keyed
    ``trace_id#claim_index@scope``, and that is what the API returns and the page shows."""
    import re

    doc = (Path(__file__).resolve().parent.parent / "docs" / "triage.md").read_text("utf-8")
    assert "`trace_id#claim_index`, followed by `@scope`" in doc
    example = re.search(r"e\.g\. `([^`]+)`", doc)
    assert example is not None
    key = _finding(0, 0, time.time()).key
    shape = r"[\w-]+#\d+@[0-9a-f]{12}"
    assert re.fullmatch(shape, key)
    assert re.fullmatch(shape, example.group(1))
    assert "demo-0216%230%405bc1a08d28e4/label" in doc  # URL-encoded as the curl line sends it


def test_the_api_reads_comma_separated_slice_filters_as_the_page_does(served: Served) -> None:
    for query in ("slice=tenant:acme,intent:billing", "slice=tenant=acme,%20intent=billing"):
        body = json.loads(_html(served.url + f"v1/findings?limit=500&{query}"))
        assert body["total"] == 12, query  # was 0: one value "acme_intent_billing"
        assert {(i["slices"]["tenant"], i["slices"]["intent"]) for i in body["items"]} == {
            ("acme", "billing")
        }


def test_a_tenant_bound_callers_short_id_names_its_own_tenants_finding() -> None:
    from groundwatch.api import tenancy
    from groundwatch.api.findings import AmbiguousIdError, resolve_id

    store = MemoryFindingStore(FindingsSettings())
    a, b = _finding(0, 0, time.time()), _finding(0, 1, time.time())
    store.add([a, dataclasses.replace(a, scope=b.scope, slices=b.slices)])
    with pytest.raises(AmbiguousIdError):
        resolve_id(store, "demo-000#0", VERSION)
    token = tenancy._TENANT.set("globex")
    try:
        assert resolve_id(store, "demo-000#0", VERSION) == f"demo-000#0@{tenant_scope('globex')}"
        assert resolve_id(store, "demo-000#0", "another-judge") is None
    finally:
        tenancy._TENANT.reset(token)


def test_a_group_count_says_when_it_is_of_the_newest_findings_read() -> None:
    from groundwatch.api.page import PAGE_FINDINGS

    store = MemoryFindingStore(FindingsSettings())
    now = time.time()
    store.add(
        [dataclasses.replace(_finding(0, 0, now), trace_id=f"t{i}", ts=now - i) for i in range(600)]
    )
    app = FastAPI()
    app.include_router(
        findings_router(store, MemoryWindowStore(WindowSettings()), WindowSettings())
    )
    with _serving(app) as url:
        html = _html(url)
    assert html.count("<tr class='finding'") == 1
    assert f"<span class='count'>×{PAGE_FINDINGS}</span>" in html
    assert f"the counts are of these {PAGE_FINDINGS}, the newest of the 600" in html
    assert html.count("<li class='trace'>") == 20  # the rest: "and 480 more"
    assert "and 480 more" in html
