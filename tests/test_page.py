"""The built-in findings page, rendered by headless Chromium (Playwright, system chromium)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

from groundwatch.api.findings import findings_router
from groundwatch.settings import Settings, WindowSettings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Finding
from groundwatch.state.windows import MemoryWindowStore
from tests.helpers_windows import obs, record
from tests.infra import free_port, wait_port

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = pytest.mark.browser


@pytest.fixture
def page_url() -> Iterator[str]:
    settings = Settings(windows=WindowSettings(slice_keys=["tenant"], min_samples=5))
    findings = MemoryFindingStore(settings)
    windows = MemoryWindowStore(settings)
    now = windows.now()
    findings.add(
        [
            Finding(
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
            )
            for i in range(60)
        ]
    )
    windows.observe_ingest([obs(f"t{i}", now - 1, {"tenant": "acme"}) for i in range(10)])
    windows.observe_evaluations(
        [
            (record(f"t{i}", supported=3, contradicted=1), {"tenant": "acme"}, now - 1)
            for i in range(10)
        ]
    )
    app = FastAPI()
    app.include_router(findings_router(findings, windows, settings))
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


def test_page_renders_findings_and_window_means(page_url: str, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.on("dialog", lambda d: errors.append("dialog: " + d.message))
            page.goto(page_url)
            page.wait_for_selector("#findings tbody tr.finding")
            assert page.locator("#findings tbody tr.finding").count() == 50
            assert page.locator("#total").inner_text() == "(60)"
            first = page.locator("#findings tbody tr.finding").first.inner_text()
            assert "trace-0#0" in first
            assert "<script>alert(1)</script>" in first  # shown as text, never executed
            assert "1 May 2019" in first
            assert "fake/v1" in first
            page.click("#more")
            # (waits use locators: the page's CSP forbids the eval behind wait_for_function)
            expect(page.locator("#findings tbody tr.finding")).to_have_count(60)
            assert page.locator("#more").is_hidden()
            cell = page.locator(
                '#windows tr[data-window="5m"][data-slice="all=all"] td[data-metric="faithfulness"]'
            )
            assert cell.inner_text() == "0.750"
            # filter by slice
            page.fill("#slice", "tenant:beta")
            page.click("#apply")
            expect(page.locator("#total")).to_have_text("(30)")
            assert "tenant=beta" in page.locator("#findings tbody tr.finding").first.inner_text()
            page.screenshot(path=str(tmp_path / "page.png"))
            assert errors == []
        finally:
            browser.close()
