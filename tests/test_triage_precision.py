"""Live precision from triage labels (issue 35, step 2): the Wilson interval, the per-slice
estimate, the collector, the page's note and random sample, and a finding labelled in headless
Chromium changing ``groundwatch_judge_contradicted_precision`` in a real Prometheus."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from prometheus_client import CollectorRegistry, generate_latest

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.observability.precision_collector import (
    PrecisionCollector,
    precision_by_slice,
    wilson_interval,
)
from groundwatch.runtime import Runtime
from groundwatch.sections.windows import FindingsSettings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Finding, FindingLabel
from tests.builders import build_settings
from tests.fakes import FakeJudge
from tests.infra import _stop, free_port, wait_port
from tests.test_page import CHROMIUM, _launch, _serving

TOKEN = "precision-token-0123456789"
API = {"tokens": [TOKEN], "rate_limit_per_s": 0}
VERSION = FakeJudge().version


def _finding(i: int, now: float, tenant: str, version: str = VERSION) -> Finding:
    return Finding(
        trace_id=f"t{i}",
        ts=now - i,
        claim_index=0,
        claim=f"The fee is ${i}.",
        evidence="The fee is $0.",
        context_index=0,
        context_id=None,
        score=0.99,
        reason="value",
        metric_version=version,
        slices={"tenant": tenant},
    )


def test_wilson_interval_matches_the_closed_form() -> None:
    low, high = wilson_interval(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low, high = wilson_interval(10, 10)
    assert high == pytest.approx(1.0)
    assert round(low, 4) == 0.7225


def test_precision_counts_right_and_wrong_per_slice_of_this_judge_version_only() -> None:
    now = time.time()
    labelled = [
        _finding(0, now, "acme"),
        _finding(1, now, "acme"),
        _finding(2, now, "beta"),
        _finding(3, now, "beta"),
        _finding(4, now, "beta", version="old/1"),
    ]
    labels = ["right", "wrong", "right", "unsure", "wrong"]
    findings = [
        Finding(**{**f.__dict__, "label": FindingLabel(lab, now)})
        for f, lab in zip(labelled, labels, strict=True)
    ]
    est = precision_by_slice(findings, VERSION)
    assert (est[("all", "all")].right, est[("all", "all")].wrong) == (2, 1)
    assert est[("all", "all")].unsure == 1
    assert est[("tenant", "acme")].precision == 0.5
    assert est[("tenant", "beta")].precision == 1.0
    assert precision_by_slice(findings)[("all", "all")].wrong == 2  # every version


def test_the_collector_exports_precision_bounds_and_counts_and_nothing_without_labels() -> None:
    store = MemoryFindingStore(FindingsSettings())
    now = time.time()
    store.add([_finding(i, now, "acme") for i in range(3)])
    registry = CollectorRegistry()
    registry.register(PrecisionCollector(store, judge_version=lambda: VERSION))
    text = generate_latest(registry).decode()
    assert "groundwatch_judge_contradicted_precision{" not in text
    store.set_label("t0#0", FindingLabel("right", now))
    store.set_label("t1#0", FindingLabel("right", now))
    store.set_label("t2#0", FindingLabel("wrong", now))
    value = registry.get_sample_value
    all_ = {"slice_key": "all", "slice_value": "all"}
    assert value("groundwatch_judge_contradicted_precision", all_) == pytest.approx(2 / 3)
    lower = value("groundwatch_judge_contradicted_precision_bound", {**all_, "bound": "lower"})
    assert lower == pytest.approx(wilson_interval(2, 3)[0])
    acme = {"slice_key": "tenant", "slice_value": "acme", "label": "wrong"}
    assert value("groundwatch_judge_contradicted_labels", acme) == 1.0


def test_the_page_says_when_measured_precision_is_low_and_offers_a_random_sample() -> None:
    settings = build_settings(api=API, windows={"slice_keys": ["tenant"]})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    now = time.time()
    runtime.findings.add([_finding(i, now, "acme") for i in range(150)])
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(create_app(runtime, app_config(settings))) as client:
        html = client.get("/", headers=auth).text
        assert "not measured yet" in html
        assert "sample=random" in html
        for i in range(4):
            runtime.findings.set_label(f"t{i}#0", FindingLabel("wrong" if i else "right", now))
        html = client.get("/", headers=auth).text
        assert "low-precision" in html
        assert "0.25" in html
        # The newest view shows t0..t99; a random sample of 100 of 150 reaches older ones.
        older: set[str] = set()
        for _ in range(3):
            sampled = client.get("/?sample=random", headers=auth).text
            older |= {f"t{i}#0" for i in range(100, 150) if f"data-finding='t{i}#0'" in sampled}
        assert older
        assert "Show the newest findings" in sampled


def _query(prom: str, expr: str) -> list[dict[str, Any]]:
    url = f"{prom}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=5) as resp:  # loopback only
        result: list[dict[str, Any]] = json.loads(resp.read())["data"]["result"]
        return result


def _wait_value(prom: str, expr: str, want: float, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    got: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        got = _query(prom, expr)
        if got and abs(float(got[0]["value"][1]) - want) < 1e-6:
            return
        time.sleep(0.5)
    raise AssertionError(f"{expr}: wanted {want}, Prometheus has {got}")


def _wait_ready(prom: str, timeout: float = 30.0) -> None:
    """Prometheus answers 503 on its API until the TSDB is open: wait for /-/ready."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{prom}/-/ready", timeout=2):  # loopback only
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@pytest.fixture
def app_and_prometheus(tmp_path: Path) -> Iterator[tuple[str, str]]:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus not installed")
    settings = build_settings(api=API, windows={"slice_keys": ["tenant"]})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    now = time.time()
    runtime.findings.add([_finding(i, now, "acme" if i % 2 else "beta") for i in range(6)])
    with _serving(create_app(runtime, app_config(settings))) as url:
        app_port = urllib.parse.urlsplit(url).port
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "1s"},
            "scrape_configs": [
                {"job_name": "gw", "static_configs": [{"targets": [f"127.0.0.1:{app_port}"]}]}
            ],
        }
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        port = free_port()
        log = (tmp_path / "prometheus.log").open("wb")
        proc = subprocess.Popen(
            [
                binary,
                f"--config.file={tmp_path / 'prometheus.yml'}",
                f"--storage.tsdb.path={tmp_path / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_port(port, timeout=20)
            _wait_ready(f"http://127.0.0.1:{port}")
            yield url, f"http://127.0.0.1:{port}"
        finally:
            _stop(proc)
            log.close()


def _label_on_page(page: Any, key: str, label: str) -> None:
    cell = page.locator(f"td.label[data-finding='{key}']")
    cell.locator(f".label-btn[data-label='{label}']").click()
    page.wait_for_function(
        "([k, l]) => document.querySelector(`td.label[data-finding='${k}'] .label-state`)"
        ".textContent === l",
        arg=[key, label],
        timeout=15000,
    )


@pytest.mark.browser
@pytest.mark.prometheus
@pytest.mark.slow
def test_labelling_on_the_page_moves_the_precision_prometheus_scrapes(
    app_and_prometheus: tuple[str, str],
) -> None:
    if not shutil.which("chromium") and not shutil.which(CHROMIUM):
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    url, prom = app_and_prometheus
    precision = 'groundwatch_judge_contradicted_precision{slice_key="all"}'
    _wait_value(prom, 'groundwatch_judge_contradicted_labels{slice_key="all",label="right"}', 0)
    assert _query(prom, precision) == []  # no labels: absent, not 0
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(url)
            page.fill("#token", TOKEN)
            page.click("#apply")
            page.locator("td.label[data-finding='t0#0']").wait_for(timeout=15000)
            _label_on_page(page, "t0#0", "right")
            _label_on_page(page, "t1#0", "wrong")
            _wait_value(prom, precision, 0.5)
            beta = 'groundwatch_judge_contradicted_precision{slice_key="tenant",slice_value="beta"}'
            _wait_value(prom, beta, 1.0)
            _label_on_page(page, "t1#0", "right")  # re-labelled: replaces the wrong
            _wait_value(prom, precision, 1.0)
        finally:
            browser.close()
    lower = _query(prom, 'groundwatch_judge_contradicted_precision_bound{slice_key="all"}')
    assert {r["metric"]["bound"] for r in lower} == {"lower", "upper"}
    bound = next(float(r["value"][1]) for r in lower if r["metric"]["bound"] == "lower")
    assert bound == pytest.approx(wilson_interval(2, 2)[0])
