"""The smaller things a new user met (issue 33, item 6): the demo table says how many samples an
untested drift test needs and repeats no row, ``suite run`` progress is one line per update off
a terminal, the suite's bar chart has a key, and a *not found* reason names what the answer
invented."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path

import pytest

from groundwatch.cli.demo_alerts import format_table, table_rows
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import build_embedder
from groundwatch.observability.windows_collector import build_report
from groundwatch.sections.judging import EmbeddingSettings
from groundwatch.sections.windows import WindowSettings
from groundwatch.state.buckets import ALL
from groundwatch.state.windows import MemoryWindowStore
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.compare import compare_runs
from groundwatch.suite.html_report import render_html
from groundwatch.suite.runner import run_suite
from tests.builders import build_rag_trace
from tests.fakes import FakeJudge
from tests.helpers_windows import record
from tests.test_page import CHROMIUM, _launch
from tests.test_suite_reports import _runs

# --- the demo's before/after table --------------------------------------------------------------


def _demo_table() -> tuple[str, object]:
    clock = [1_800_000_000.0]
    windows = WindowSettings(
        min_samples=5, bucket_s=10, current_window_s=600, reference_window_s=2400
    )
    store = MemoryWindowStore(windows, clock=lambda: clock[0])
    now = clock[0]
    items = [
        (
            record(f"r{i}", supported=3, not_found=i % 3, contradicted=int(i % 10 == 0)),
            {},
            now - 1500 + i,
        )
        for i in range(60)
    ]
    # the bad deploy: a few traces only (too few for a test), one contradicted claim each
    items += [(record(f"c{i}", supported=1, contradicted=1), {}, now - 60) for i in range(8)]
    store.observe_evaluations(items)
    report = build_report(store, windows)
    reference, current = store.summaries_many([report.reference_range, (now - 600, now)])
    return format_table(table_rows(reference.get(ALL), current.get(ALL), report)), report


def test_the_demo_table_says_how_many_samples_an_untested_test_needs() -> None:
    table, report = _demo_table()
    assert "too few samples)" not in table  # before: "untested (too few samples)", no number
    drift = report.drift[ALL]  # type: ignore[attr-defined]
    test = drift.metrics["faithfulness"]
    assert test.q_value is None
    want = f"untested (needs {math.ceil(test.required)} samples, has {test.n_current:.0f})"
    line = next(row for row in table.splitlines() if "drift faithfulness" in row)
    assert want in line, table
    rate = drift.rates["contradicted_trace_share"]
    line = next(row for row in table.splitlines() if "drift contradicted_trace_share" in row)
    # a rare rate: the reference itself is too small for a rise to be tested at all
    assert rate.q_value is None
    assert math.isinf(rate.required)
    assert "untested (the reference's 60 samples are too few to ever test)" in line, table


def test_the_demo_table_repeats_no_row() -> None:
    table, _ = _demo_table()
    figures = {
        m.group(1): m.group(2)
        for m in re.finditer(r"^  (\S.*?)\s{2,}([\d.]+\s+[\d.]+)$", table, re.MULTILINE)
    }
    # one contradicted claim per contradicted answer: the share equals the per-answer rate,
    # and the table says so instead of printing the same two figures twice
    assert figures["contradicted claims / answer"] == "0.100       1.000", table
    assert "answers with a contradiction" not in figures, table
    assert re.search(r"answers with a contradiction\s+the same \(one claim each\)", table), table


# --- suite run progress ---------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _suite(progress: io.StringIO) -> None:
    cases = [EvalCase(id=f"c{i}", question=f"Question {i}?") for i in range(3)]
    traces: dict[str, RagTrace] = {
        c.id: build_rag_trace(c.id, question=c.question, answer="The answer is here.")
        for c in cases
    }
    run_suite(cases, traces, Evaluator(FakeJudge()), batch_size=1, progress=progress)


def test_suite_run_progress_is_one_line_per_update_in_a_log() -> None:
    log = io.StringIO()
    _suite(log)
    # before: "suite run: 1/3 casessuite run: 2/3 cases..." (carriage returns a log drops)
    assert log.getvalue() == "".join(f"suite run: {k}/3 cases\n" for k in (1, 2, 3))


def test_suite_run_progress_rewrites_one_line_on_a_terminal() -> None:
    tty = _Terminal()
    _suite(tty)
    assert tty.getvalue() == "".join(f"\rsuite run: {k}/3 cases" for k in (1, 2, 3)) + "\n"


# --- the suite's HTML bar chart -------------------------------------------------------------


@pytest.mark.browser
def test_the_suite_bar_chart_has_a_key_in_chromium(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    base, cand = _runs()
    path = tmp_path / "report.html"
    path.write_text(render_html(compare_runs(base, cand, resamples=50)), encoding="utf-8")
    with sync_playwright() as pw:
        browser = _launch(pw)
        try:
            page = browser.new_page()
            page.goto(path.as_uri())
            chart = page.locator("svg.diagnosis")
            key = chart.locator("g.legend")
            assert key.locator("text").all_text_contents() == ["baseline", "candidate"]
            swatches = [r.get_attribute("fill") for r in key.locator("rect").all()]
            bars = {
                run: chart.locator(f"rect.bar.{run}").first.get_attribute("fill")
                for run in ("base", "cand")
            }
            assert swatches == [bars["base"], bars["cand"]]
            # the key sits above the bars, not over them
            key_box, bar_box = key.bounding_box(), chart.locator("rect.bar").first.bounding_box()
            assert key_box is not None
            assert bar_box is not None
            assert key_box["y"] + key_box["height"] <= bar_box["y"]
        finally:
            browser.close()


# --- a not-found reason names the invented fact ---------------------------------------------


def test_a_not_found_reason_names_the_fact_the_answer_invented() -> None:
    judge = EmbeddedJudge(build_embedder(EmbeddingSettings()))
    judge.load()
    trace = build_rag_trace(
        "nf-1",
        question="What support does the Team plan include?",
        contexts=[
            "Rate limits — Team plan. Team plan keys are limited to 600 requests per minute.",
            "Support — Team plan. Team plan customers get email support within one business day.",
        ],
        answer="Every Team plan includes a dedicated account manager you can phone.",
    )
    [claim] = judge.judge_batch([trace])[0].claims  # type: ignore[union-attr]
    assert claim.verdict == "not_found"
    assert claim.reason is not None
    listed = claim.reason.removeprefix("not in the passages: ").split(", ")
    # before: "Every, includes, dedicated, account": the first four in claim order, no "phone"
    assert "phone" in listed
    # the words no passage has come first; the quantifier and the verb last
    assert listed[:4] == ["dedicated", "account", "manager", "phone"]
    assert listed[-2:] == ["Every", "includes"]
