"""The findings page as a user meets it (issue 33), in headless Chromium: the slice filter in
the form the page shows (``tenant=acme``) and in the API's (``tenant:acme``), marks on the words
the judge named, drift rows that say why they are not decided, and the demo's windows kept
(frozen) after its replay."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI

from groundwatch.api.findings import findings_router
from groundwatch.api.page_render import highlight_disagreement
from groundwatch.contract.record import Conflict
from groundwatch.sections.windows import FindingsSettings, WindowSettings
from groundwatch.settings import Settings
from groundwatch.state.findings import MemoryFindingStore
from groundwatch.state.stores import Finding
from groundwatch.state.windows import MemoryWindowStore
from tests.helpers_windows import record
from tests.infra import free_port, wait_port
from tests.test_page import CHROMIUM, _launch, _serving

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parent.parent


def _need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")


def _finding(i: int, now: float) -> Finding:
    return Finding(
        trace_id=f"trace-{i}",
        ts=now - i,
        claim_index=0,
        claim=f"The contract renews in {2020 + i}.",
        evidence="The contract renews on 1 May 2019.",
        context_index=0,
        context_id="doc-7",
        score=0.9,
        reason="year mismatch",
        metric_version="fake/v1",
        slices={"tenant": "acme" if i % 2 else "beta"},
    )


@pytest.fixture
def filter_url() -> Iterator[str]:
    ws = WindowSettings(slice_keys=["tenant"], min_samples=5)
    findings = MemoryFindingStore(FindingsSettings())
    windows = MemoryWindowStore(ws)
    findings.add([_finding(i, windows.now()) for i in range(60)])
    app = FastAPI()
    app.include_router(findings_router(findings, windows, ws))
    with _serving(app) as url:
        yield url


def _filter(page: Any, text: str) -> None:
    page.fill("input[name=slice]", text)
    page.click("#filters button[type=submit]")
    page.wait_for_load_state()


def test_the_slice_filter_takes_key_equals_value_and_key_colon_value(filter_url: str) -> None:
    _need_chromium()
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(filter_url)
            expect(page.locator("#total")).to_have_text("(60)")
            # the form the page itself shows a finding's slice in: was silently ignored (60)
            _filter(page, "tenant=beta")
            expect(page.locator("#total")).to_have_text("(30)")
            slices = page.locator("#findings tr.finding td:nth-child(6)").all_inner_texts()
            assert set(slices) == {"tenant=beta"}
            assert page.input_value("input[name=slice]") == "tenant=beta"
            _filter(page, "tenant:acme")
            expect(page.locator("#total")).to_have_text("(30)")
            slices = page.locator("#findings tr.finding td:nth-child(6)").all_inner_texts()
            assert set(slices) == {"tenant=acme"}
            # neither form: the API's error, and no findings rather than all of them
            _filter(page, "tenant")
            expect(page.locator("#filter-error")).to_have_text(
                "slice filter 'tenant' must look like key=value or key:value"
            )
            expect(page.locator("#total")).to_have_text("(0)")
        finally:
            browser.close()
    # the API reads both forms the same way and refuses the same input with the same words
    for spec in ("tenant=beta", "tenant:beta"):
        with urllib.request.urlopen(filter_url + f"v1/findings?slice={spec}", timeout=30) as r:
            assert json.load(r)["total"] == 30
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(filter_url + "v1/findings?slice=tenant", timeout=30)
    assert refused.value.code == 422
    assert "must look like key=value or key:value" in refused.value.read().decode()


# --- marks: the words the judge named, from the real embedded judge ----------------------

#: (question, passage, answer, the words the page must mark in the evidence)
MARK_CASES = [
    (
        "Can I ship express to Alaska?",
        "Express shipping is not available to Alaska and Hawaii for orders under 5 kg.",
        "Express shipping is available to Alaska and Hawaii for orders under 5 kg.",
        ["not"],
    ),
    (
        "Is the onboarding call required?",
        "Since 2024, every new account must complete the onboarding call before activation.",
        "Since 2024, every new account may complete the onboarding call before activation.",
        ["must"],
    ),
    (
        "What is the baggage allowance?",
        "Economy passengers may check one bag of up to 23 kg.",
        "Economy passengers may check one bag of up to 32 kg.",
        ["23 kg"],
    ),
    (
        "Which carrier delivers parcels to Norway?",
        "Parcels to Norway are delivered by PostNord.",
        "Parcels to Norway are delivered by DHL.",
        ["PostNord"],
    ),
]


def test_marks_are_the_words_the_reason_names_not_guessed_numbers(tmp_path: Path) -> None:
    _need_chromium()
    from playwright.sync_api import expect, sync_playwright

    from groundwatch.api.app import create_app
    from groundwatch.cli.commands import app_config
    from groundwatch.runtime import Runtime

    # the rules judge: its reasons name the words (a negation, a modal) the page marks; the
    # default verifier judge calls neither of the first two cases contradicted (docs/verifier.md)
    settings = Settings.model_validate(
        {
            "state": "memory",
            "redaction": {"mode": "off"},
            "api": {"rate_limit_per_s": 0},
            "judge": {"backend": "embedded"},
        }
    )
    runtime = Runtime.build(settings, with_kafka=False)
    with _serving(create_app(runtime, app_config(settings))) as url:
        for k, (question, passage, answer, _) in enumerate(MARK_CASES):
            trace = {
                "trace_id": f"mark-{k}",
                "question": question,
                "contexts": [{"id": "p1", "text": passage}],
                "answer": answer,
            }
            req = urllib.request.Request(
                url + "v1/evaluate?record=true",
                data=json.dumps(trace).encode(),
                headers={"content-type": "application/json"},
            )
            with urllib.request.urlopen(req, timeout=120) as resp:
                assert json.load(resp)["contradicted_claims"] == 1, answer
        assert runtime.queue.join(60)
        with sync_playwright() as pw:
            browser = _launch(pw)
            try:
                page = browser.new_page()
                page.goto(url)
                rows = page.locator("#findings tbody tr.finding")
                expect(rows).to_have_count(len(MARK_CASES))
                marked: dict[str, list[str]] = {}
                for row in rows.all():
                    claim = row.locator("td.claim").inner_text()
                    marked[claim] = row.locator("td.evidence mark").all_inner_texts()
                page.screenshot(path=str(tmp_path / "marks.png"), full_page=True)
            finally:
                browser.close()
    # before: the negation marked "5", the may/must finding "2024"
    assert marked == {answer: words for _, _, answer, words in MARK_CASES}


def test_an_entity_conflict_marks_the_other_name_and_nothing_is_guessed() -> None:
    evidence = "France won the 2018 World Cup final in Moscow."
    entity = Conflict(kind="entity", claim="Germany", evidence="France")
    assert highlight_disagreement(evidence, entity) == (
        "<mark>France</mark> won the 2018 World Cup final in Moscow."
    )
    # no conflict data (an LLM judge's free-text reason, an old finding): nothing marked
    assert "<mark>" not in highlight_disagreement(evidence, None)
    # the words are matched whole and escaped
    assert highlight_disagreement(
        "Notably, it is <not> free.", Conflict(kind="negation", evidence="not")
    ) == ("Notably, it is &lt;<mark>not</mark>&gt; free.")


# --- drift rows -----------------------------------------------------------------------------


def test_drift_rows_show_samples_q_value_and_what_an_untested_slice_needs() -> None:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    clock = [1_800_000_000.0]
    ws = WindowSettings(
        slice_keys=["tenant"],
        min_samples=5,
        bucket_s=10,
        current_window_s=600,
        reference_window_s=2400,
    )
    windows = MemoryWindowStore(ws, clock=lambda: clock[0])
    findings = MemoryFindingStore(FindingsSettings())
    now = clock[0]
    items = []
    for i in range(60):  # reference: faithful answers, in both tenants
        tenant = "acme" if i % 2 else "tiny"
        items.append((record(f"r{i}", supported=3 + i % 2), {"tenant": tenant}, now - 1500 + i))
    for i in range(40):  # current: acme contradicts itself; tiny sends two traces only
        items.append((record(f"c{i}", supported=1, contradicted=2), {"tenant": "acme"}, now - 60))
    for i in range(2):
        items.append((record(f"t{i}", supported=0, contradicted=3), {"tenant": "tiny"}, now - 60))
    windows.observe_evaluations(items)
    app = FastAPI()
    app.include_router(findings_router(findings, windows, ws))
    with _serving(app) as url:
        with urllib.request.urlopen(url + "v1/windows", timeout=30) as resp:
            report = json.load(resp)
        with sync_playwright() as pw:
            browser = _launch(pw)
            try:
                page = browser.new_page()
                page.goto(url)
                header = page.locator("#drift thead th").all_inner_texts()
                rows = [
                    r.locator("td").all_inner_texts() for r in page.locator("#drift tbody tr").all()
                ]
            finally:
                browser.close()
    assert header == [
        "slice",
        "metric",
        "samples (current / reference)",
        "PSI",
        "Wasserstein",
        "threshold",
        "q-value",
        "decision",
    ]
    by_slice = {(r[0], r[1]): r for r in rows}
    drift = {d["slice_value"] or "all": d for d in report["drift"]}
    acme = by_slice[("tenant=acme", "faithfulness")]
    test = drift["acme"]["metrics"]["faithfulness"]
    assert acme[2] == f"{test['samples']['current']:.0f} / {test['samples']['reference']:.0f}"
    assert acme[6] == f"{test['q_value']:.4f}"
    assert acme[7] == "drift"
    tiny = by_slice[("tenant=tiny", "faithfulness")]
    needs = drift["tiny"]["metrics"]["faithfulness"]["required_samples"]
    assert tiny[2].startswith("2 / ")
    assert tiny[6] == "—"
    assert re.fullmatch(rf"underpowered: needs {int(-(-needs // 1))} \(has 2\)", tiny[7]), tiny
    assert all(r[7] in {"drift", "no drift"} or r[7].startswith("underpowered") for r in rows)


# --- the demo's windows after its replay ----------------------------------------------------


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.load(resp)


def test_after_the_replay_the_demo_keeps_its_last_windows_and_says_they_are_frozen() -> None:
    _need_chromium()
    from playwright.sync_api import sync_playwright

    port = free_port()
    proc = subprocess.Popen(
        [
            *(sys.executable, "-m", "groundwatch.cli", "demo", "--duration", "6"),
            *("--port", str(port), "--serve-forever"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "GROUNDWATCH_DEMO_PROMTOOL": "/nonexistent"},
    )
    try:
        assert proc.stderr is not None
        wait_port(port, timeout=120)
        for line in proc.stderr:  # the replay and its summary, then "still serving"
            if "still serving" in line:
                assert "windows frozen at" in line, line
                break
        else:
            pytest.fail(f"the demo ended early: rc {proc.wait(10)}")
        base = f"http://127.0.0.1:{port}/"
        first = _get(base + "v1/windows")
        # longer than the demo's current window (5 s): before, it had emptied by now
        time.sleep(8)
        later = _get(base + "v1/windows")
        assert later["frozen_at"] is not None
        assert later["now"] == first["now"] == later["frozen_at"]
        assert later["drift"] == first["drift"]
        assert later["drift"], "the bad deploy's drift is still there to see"
        with sync_playwright() as pw:
            browser = _launch(pw)
            try:
                page = browser.new_page()
                page.goto(base)
                frozen = page.locator("#frozen").inner_text()
                drift_text = page.locator("#drift").inner_text()
            finally:
                browser.close()
        assert frozen.startswith("Windows frozen at ")
        assert "No drift values yet" not in drift_text
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


# --- the conflict is data all the way: store round trip, redaction -------------------------


def test_the_conflict_survives_the_store_and_is_redacted_like_the_reason() -> None:
    from groundwatch.contract.record import ClaimResult, EvaluationRecord, Evidence
    from groundwatch.evaluation.processing import findings_from_record
    from groundwatch.evaluation.redaction import PiiRedactor
    from groundwatch.state.findings import finding_from_dict, finding_to_dict

    conflict = Conflict(kind="entity", claim="jane.doe@example.com", evidence="Support")
    claim = ClaimResult(
        text="Write to jane.doe@example.com for help.",
        verdict="contradicted",
        score=0.9,
        evidence=Evidence(context_index=0, context_id="p1", text="Support answers by phone."),
        reason="entity mismatch: jane.doe@example.com vs Support",
        conflict=conflict,
    )
    rec = record("conf-1").model_copy(update={"claims": [claim], "contradicted_claims": 1})
    assert isinstance(rec, EvaluationRecord)
    [plain] = findings_from_record(rec, {}, 1.0, None)
    assert plain.conflict == conflict
    stored = finding_from_dict(json.loads(json.dumps(finding_to_dict(plain))))
    assert stored.conflict == conflict  # what the Redis store keeps and reads back
    assert finding_from_dict({**finding_to_dict(plain), "conflict": None}).conflict is None
    [masked] = findings_from_record(rec, {}, 1.0, PiiRedactor(mode="mask"))
    assert masked.conflict is not None
    assert masked.conflict.claim == "[EMAIL]"
    assert masked.conflict.evidence == "Support"
