"""The built-in findings page, rendered by headless Chromium (Playwright, system chromium)."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from groundwatch.api.findings import CASES_FILENAME, findings_router
from groundwatch.contract.case import EvalCase
from groundwatch.contract.record import Conflict
from groundwatch.sections.windows import FindingsSettings, WindowSettings
from groundwatch.settings import Settings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Finding
from groundwatch.state.windows import MemoryWindowStore
from groundwatch.suite.cases import load_cases
from tests.helpers_windows import obs, record
from tests.infra import free_port, wait_port

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.browser


def _finding(i: int, now: float) -> Finding:
    return Finding(
        trace_id=f"trace-{i}",
        ts=now - i,
        claim_index=0,
        claim=f"The contract renews in {2020 + i}. <script>alert(1)</script>",
        evidence="The contract renews on 1 May 2019.",
        context_index=0,
        context_id="doc-7",
        score=0.93,
        reason="number",
        metric_version="fake/v1",
        slices={"tenant": "acme" if i % 2 else "beta"},
        conflict=Conflict(kind="year", claim=str(2020 + i), evidence="2019"),
    )


@contextmanager
def _serving(app: FastAPI) -> Iterator[str]:
    """``app`` served by uvicorn on a free loopback port; yields the page URL, stops it after."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture
def page_url() -> Iterator[str]:
    ws = WindowSettings(slice_keys=["tenant"], min_samples=5)
    findings = MemoryFindingStore(FindingsSettings())
    windows = MemoryWindowStore(ws)
    now = windows.now()
    findings.add([_finding(i, now) for i in range(60)])
    windows.observe_evaluations(
        [(record(f"s{i}", supported=1), {"tenant": "tiny"}, now - 1) for i in range(2)]
    )
    windows.observe_ingest([obs(f"t{i}", now - 1, {"tenant": "acme"}) for i in range(10)])
    windows.observe_evaluations(
        [
            (record(f"t{i}", supported=3, contradicted=1), {"tenant": "acme"}, now - 1)
            for i in range(10)
        ]
    )
    app = FastAPI()
    app.include_router(findings_router(findings, windows, ws))
    with _serving(app) as url:
        yield url


def _launch(pw: Any) -> Any:
    return pw.chromium.launch(
        executable_path=CHROMIUM,
        args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )


def test_a_plain_get_shows_the_findings_first(page_url: str) -> None:
    with urllib.request.urlopen(page_url, timeout=30) as resp:
        html = resp.read().decode()
    assert html.index("id='findings'") < html.index("id='trend'") < html.index("id='windows'")
    assert html.count("<tr class='finding'") == 60  # 60 distinct claims: 60 groups of one
    assert "loading" not in html
    # newest first, escaped, the disagreeing value marked, reason and judge shown
    assert html.index("trace-0#0") < html.index("trace-1#0")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert(1)" not in html
    assert "<mark>2019</mark>" in html
    assert "<td class='reason'>number</td>" in html
    assert "fake/v1" in html
    # windows collapsed: the slice under min_samples is counted, not shown
    assert "tenant=tiny" not in html
    assert "window slices with fewer than 5 scored traces are not shown" in html
    assert "<circle class='contra point'" in html  # the trend: contradicted claims per trace


def test_page_filters_and_screenshots_in_chromium(page_url: str, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import expect, sync_playwright

    shots = Path(os.environ.get("GW_SCREENSHOT_DIR", str(tmp_path)))
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            for name, size in (("desktop", (1280, 800)), ("phone", (390, 844))):
                page = browser.new_page(viewport={"width": size[0], "height": size[1]})
                errors: list[str] = []
                page.on("pageerror", lambda exc, e=errors: e.append(str(exc)))
                page.on("dialog", lambda d, e=errors: e.append("dialog: " + d.message))
                page.goto(page_url)
                expect(page.locator("#findings tbody tr.finding")).to_have_count(60)
                assert page.locator("#total").inner_text() == "(60)"
                first = page.locator("#findings tbody tr.finding").first.inner_text()
                assert "trace-0#0" in first
                assert "<script>alert(1)</script>" in first  # shown as text, never executed
                page.screenshot(path=str(shots / f"page-{name}.png"))
                page.fill("input[name=slice]", "tenant:beta")
                page.click("#filters button[type=submit]")
                expect(page.locator("#total")).to_have_text("(30)")
                assert "tenant=beta" in page.locator("#findings tr.finding").first.inner_text()
                # the trend follows the filter: beta has findings but no scored window traces
                assert page.locator("#trend circle.point").count() == 0
                assert errors == []
                page.close()
        finally:
            browser.close()


def test_with_a_token_the_page_asks_for_it_and_the_script_fetches_findings(
    tmp_path: Path,
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import expect, sync_playwright

    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config
    from groundwatch.runtime import Runtime
    from tests.fakes import FakeJudge

    token = "page-token-0123456789abcdef"
    settings = Settings.model_validate(
        {"state": "memory", "redaction": {"mode": "off"}, "api": {"tokens": [token]}}
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    runtime.findings.add([_finding(0, time.time())])
    with _serving(create_app(runtime, app_config(settings))) as url:
        with urllib.request.urlopen(url, timeout=30) as resp:
            html = resp.read().decode()
        assert "needs a read token" in html
        assert "trace-0" not in html
        with sync_playwright() as pw:
            browser = _launch(pw)
            try:
                page = browser.new_page()
                page.goto(url)
                page.fill("#token", token)
                page.click("#apply")
                expect(page.locator("#findings tbody tr.finding")).to_have_count(1)
                expect(page.locator("#status")).to_contain_text("updated")
            finally:
                browser.close()


TOKEN = "page-token-0123456789abcdef"


@contextmanager
def _token_app(findings: list[Finding]) -> Iterator[str]:
    """The real app with a read token configured and ``findings`` stored; yields the page URL."""
    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config
    from groundwatch.runtime import Runtime
    from tests.fakes import FakeJudge

    settings = Settings.model_validate(
        {
            "state": "memory",
            "redaction": {"mode": "off"},
            "api": {"tokens": [TOKEN], "rate_limit_per_s": 0},
            "windows": {"slice_keys": ["tenant"]},
        }
    )
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    runtime.findings.add(findings)
    with _serving(create_app(runtime, app_config(settings))) as url:
        yield url


def _read_cases(path: Path) -> list[EvalCase]:
    lines = path.read_text("utf-8").splitlines()
    cases = [EvalCase.model_validate(json.loads(line)) for line in lines]
    loaded, errors = load_cases(path)  # what `suite run` reads
    assert errors == []
    assert [c.id for c in loaded] == [c.id for c in cases]
    return cases


def test_with_a_token_the_download_link_fetches_filtered_cases_with_the_token(
    tmp_path: Path,
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import expect, sync_playwright

    now = time.time()
    with _token_app([_finding(i, now) for i in range(4)]) as url, sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            # CSP violations and script errors show as console errors; failed requests are
            # checked by URL below (the browser's own /favicon.ico 404 is not the page's)
            page.on(
                "console",
                lambda msg: (
                    errors.append(msg.text)
                    if msg.type == "error" and not msg.text.startswith("Failed to load resource")
                    else None
                ),
            )
            page.on(
                "response",
                lambda r: (
                    errors.append(f"{r.status} {r.url}")
                    if r.status >= 400 and not r.url.endswith("/favicon.ico")
                    else None
                ),
            )
            page.goto(url)
            assert page.locator("#download-cases").count() == 0  # no findings without a token
            page.fill("#token", TOKEN)
            page.click("#apply")
            expect(page.locator("#findings tbody tr.finding")).to_have_count(4)
            # filter to one tenant with the page's own form: the page reloads with
            # ?slice=tenant:acme and the script fetches <main> again with the token
            page.fill("input[name=slice]", "tenant:acme")
            page.click("#filters button[type=submit]")
            expect(page.locator("#findings tbody tr.finding")).to_have_count(2)
            link = page.locator("#download-cases")
            expect(link).to_be_visible()
            expect(link).to_have_text("Download as eval cases (JSONL)")
            assert link.get_attribute("href") == "v1/findings/cases?slice=tenant%3Aacme"
            with page.expect_download(timeout=15_000) as info:
                link.click()
            download = info.value
            assert download.suggested_filename == CASES_FILENAME
            saved = tmp_path / download.suggested_filename
            download.save_as(saved)
            expect(page.locator("#status")).to_have_text(f"downloaded {CASES_FILENAME}")
            assert page.locator("#status").get_attribute("class") != "error"
            assert errors == []
        finally:
            browser.close()
    cases = _read_cases(saved)
    # newest first, one draft per trace, only tenant acme (trace-0 and trace-2 are beta)
    assert [c.id for c in cases] == ["finding-trace-1", "finding-trace-3"]
    for case in cases:
        assert case.needs_review is True
        assert case.slice == {"tenant": "acme"}
        assert case.origin is not None
        assert case.origin.contradicted[0].evidence == "The contract renews on 1 May 2019."


def test_the_download_link_shows_a_missing_or_wrong_token_in_status() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import expect, sync_playwright

    with _token_app([_finding(0, time.time())]) as url, sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            downloads: list[Any] = []
            # playwright cannot take a builtin method (list.append) as a handler
            page.on("download", lambda d: downloads.append(d))  # noqa: PLW0108
            page.goto(url)
            page.fill("#token", TOKEN)
            page.click("#apply")
            expect(page.locator("#findings tbody tr.finding")).to_have_count(1)
            status = page.locator("#status")
            expect(status).to_contain_text("updated")
            # the token is gone (another tab, cleared storage): 401
            page.evaluate("sessionStorage.removeItem('gw-token')")
            page.click("#download-cases")
            expect(status).to_have_text("download: HTTP 401 (token?)")
            assert status.get_attribute("class") == "error"
            # a wrong token: the refresh fails (page/main answers 401 for any bad token) and
            # keeps the findings shown; the download is refused with 403
            page.fill("#token", "not-the-token-0123456789")
            page.click("#apply")
            expect(status).to_have_text("page/main: HTTP 401 (token?)")
            page.click("#download-cases")
            expect(status).to_have_text("download: HTTP 403")
            assert page.url == url  # the script handled the click: no navigation
            assert downloads == []
        finally:
            browser.close()


def test_without_a_token_the_download_link_carries_the_page_filters(
    page_url: str, tmp_path: Path
) -> None:
    url = page_url + "?slice=tenant:beta&since_min=60"
    with urllib.request.urlopen(url, timeout=30) as resp:
        html = resp.read().decode()
    assert (
        "<a id='download-cases' href='v1/findings/cases?slice=tenant%3Abeta&amp;since_min=60'>"
        in html
    )
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(url)
            with page.expect_download(timeout=15_000) as info:
                page.click("#download-cases")
            saved = tmp_path / "cases.jsonl"
            info.value.save_as(saved)
        finally:
            browser.close()
    cases = _read_cases(saved)
    assert len(cases) == 30  # the 30 beta findings of the fixture, one trace each
    assert {c.slice["tenant"] for c in cases} == {"beta"}
    assert all(c.needs_review for c in cases)
