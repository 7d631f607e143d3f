"""Suite reports (HTML in headless Chromium, Markdown), the compare CLI's gate exit code, label
hygiene, judge-calibration arithmetic and findings export."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from groundwatch.cli import main
from groundwatch.contract.record import ClaimResult, EvaluationRecord, Evidence
from groundwatch.contract.trace import RagTrace
from groundwatch.suite.calibration import cohen_kappa, report_from
from groundwatch.suite.cases import EvalCase, EvidenceQuote, EvidenceSpan, load_cases
from groundwatch.suite.compare import compare_runs
from groundwatch.suite.findings_export import drafts_from_records
from groundwatch.suite.gate import check_gate, parse_rule
from groundwatch.suite.html_report import render_html
from groundwatch.suite.hygiene import check_evidence
from groundwatch.suite.record import EvalRecord
from groundwatch.suite.report import render_markdown

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _runs() -> tuple[list[EvalRecord], list[EvalRecord]]:
    base, cand = [], []
    for i in range(60):
        intent = "billing" if i < 30 else "account"
        worse = intent == "billing" and i % 3 != 0
        common = {"case_id": f"c{i}", "question": "q", "slices": {"intent": intent}}
        base.append(
            EvalRecord(
                **common,
                metrics={"correct": 1.0, "vital_nugget_recall": 1.0, "hit@3": 1.0},
                passed=True,
                diagnosis="working",
                retrieved=["kb-1"],
            )
        )
        cand.append(
            EvalRecord(
                **common,
                metrics={
                    "correct": 0.0 if worse else 1.0,
                    "vital_nugget_recall": 0.0 if worse else 1.0,
                    "hit@3": 0.0 if worse else 1.0,
                },
                passed=not worse,
                diagnosis="retrieval_problem" if worse else "working",
                retrieved=["kb-9"] if worse else ["kb-1"],
            )
        )
    return base, cand


def _write(path: Path, records: list[EvalRecord]) -> str:
    path.write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    return str(path)


def test_compare_cli_gate_exit_codes_and_reports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = _runs()
    b = _write(tmp_path / "base.jsonl", base)
    c = _write(tmp_path / "cand.jsonl", cand)
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    gate = "vital_nugget_recall@intent=billing"
    rc = main(
        ["suite", "compare", b, c, "--gate", gate, "--markdown", str(md), "--html", str(html)]
    )
    assert rc == 1
    out = capsys.readouterr().out
    assert "FAIL    vital_nugget_recall@intent=billing" in out
    assert "flipped cases: 20" in out
    assert "## Gate: **FAILED**" in md.read_text()
    assert main(["suite", "compare", b, b, "--gate", gate]) == 0  # same run: nothing moved
    assert main(["suite", "compare", b, c, "--gate", "vital_nugget_recall@intent=account"]) == 0
    assert main(["suite", "compare", b, c, "--gate", "no_such_metric"]) == 2
    assert main(["suite", "compare", b, str(tmp_path / "absent.jsonl")]) == 2


def test_markdown_lists_rows_and_flips() -> None:
    base, cand = _runs()
    cmp = compare_runs(base, cand, resamples=200)
    md = render_markdown(cmp, metrics=["correct"])
    assert "| intent=billing | correct | 30 | 1.000 | 0.333 | -0.667 |" in md
    assert md.count("| `c") == 20
    assert "| retrieval_problem | 0 | 20 |" in md


@pytest.mark.browser
def test_html_report_renders_charts_in_chromium(tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium not installed")
    from playwright.sync_api import sync_playwright

    base, cand = _runs()
    base[0] = base[0].model_copy(update={"case_id": "<script>alert(1)</script>"})
    cand[0] = cand[0].model_copy(update={"case_id": "<script>alert(1)</script>"})
    cmp = compare_runs(base, cand, resamples=200)
    gate = check_gate(cmp, [parse_rule("vital_nugget_recall@intent=billing")])
    path = tmp_path / "report.html"
    path.write_text(render_html(cmp, gate), encoding="utf-8")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page()
            problems: list[str] = []
            requests: list[str] = []
            page.on("pageerror", lambda exc: problems.append(str(exc)))
            page.on("dialog", lambda d: problems.append("dialog: " + d.message))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(path.as_uri())
            assert requests == [path.as_uri()]  # nothing fetched: no CDN, no fonts, no images
            assert problems == []
            assert "Gate: FAILED" in page.locator("#gate").inner_text()
            forest = page.locator('svg.forest[data-metric="vital_nugget_recall"]')
            assert forest.count() == 1
            # all, intent=account, intent=billing: a whisker and a dot each
            assert forest.locator("line.whisker").count() == 3
            assert forest.locator("circle.delta").count() == 3
            red = forest.locator('circle.delta[fill="#b3261e"]')  # regressions drawn red
            assert red.count() == 2  # all cases and intent=billing; intent=account did not move
            assert "intent=billing" in red.nth(1).inner_html()
            assert "intent=account" in forest.locator('circle.delta[fill="#57606a"]').inner_html()
            box = forest.bounding_box()
            assert box is not None
            assert box["width"] > 300
            assert box["height"] > 50
            bars = page.locator("svg.diagnosis rect.bar")
            assert bars.count() == 4  # working and retrieval_problem, base and cand
            assert (
                page.locator("svg.diagnosis rect.bar.cand").nth(1).get_attribute("width") != "0.0"
            )
        finally:
            browser.close()


def test_hygiene_quarantines_vanished_evidence() -> None:
    corpus = {"refund": "Refunds are issued within 30 days of purchase.", "price": "Pro: $49."}
    cases = [
        EvalCase(
            id="ok",
            question="q",
            evidence=[EvidenceQuote(doc_id="refund", quote="within 30 days,")],
        ),
        EvalCase(id="gone", question="q", evidence=[EvidenceQuote(doc_id="old-doc", quote="x")]),
        EvalCase(
            id="edited", question="q", evidence=[EvidenceQuote(doc_id="price", quote="Pro: $59")]
        ),
        EvalCase(id="span", question="q", evidence=[EvidenceSpan(doc_id="price", start=0, end=99)]),
        EvalCase(
            id="drift",
            question="q",
            evidence=[
                EvidenceQuote(
                    doc_id="refund", quote="Refunds are issued within thirty days of purchase"
                )
            ],
        ),
    ]
    report = check_evidence(cases, corpus)
    assert [c.id for c in report.kept] == ["ok", "drift"]
    assert [c.id for c in report.quarantined] == ["gone", "edited", "span"]
    assert [p.problem for p in report.problems] == [
        "document_missing",
        "quote_missing",
        "span_out_of_range",
        "quote_drifted",
    ]


def test_check_evidence_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        json.dumps({"id": "a", "question": "q", "evidence": [{"doc_id": "d", "quote": "hello"}]})
        + "\n"
        + json.dumps({"id": "b", "question": "q", "evidence": [{"doc_id": "x", "quote": "hi"}]})
        + "\n",
        encoding="utf-8",
    )
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"doc_id": "d", "text": "Hello, world"}) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    assert main(["suite", "check-evidence", str(cases), str(corpus), "--quarantine", str(bad)]) == 1
    assert [c.id for c in load_cases(bad)[0]] == ["b"]
    assert "1 case(s) kept, 1 quarantined" in capsys.readouterr().out


def test_cohen_kappa_by_hand() -> None:
    # 2×2: [[20, 5], [10, 15]], n=50: p_o = 0.7; p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = 0.4
    assert cohen_kappa([[20, 5], [10, 15]]) == pytest.approx(0.4)
    assert cohen_kappa([[5, 0], [0, 5]]) == pytest.approx(1.0)
    assert cohen_kappa([[0, 0], [0, 0]]) is None
    truth = ["supported"] * 4 + ["contradicted"] * 2 + ["not_found"] * 2
    pred = [
        "supported",
        "supported",
        "supported",
        "not_found",
        "contradicted",
        "supported",
        "not_found",
        "not_found",
    ]
    report = report_from(truth, pred, "j")
    assert report.matrix == [[3, 0, 1], [1, 1, 0], [0, 0, 2]]
    assert report.precision["supported"] == pytest.approx(3 / 4)
    assert report.recall["contradicted"] == pytest.approx(1 / 2)
    assert report.precision["contradicted"] == 1.0
    # p_o = 6/8; p_e = (4·4 + 2·1 + 2·3)/64 = 24/64
    assert report.kappa == pytest.approx((6 / 8 - 24 / 64) / (1 - 24 / 64))


def test_findings_export_drafts_contradicted_traces(tmp_path: Path) -> None:
    trace = RagTrace(
        trace_id="t1",
        question="How much is Pro?",
        contexts=[{"text": "Pro costs $49 per month.", "doc_id": "price"}, "Other text."],
        answer="Pro costs $59 per month.",
        attributes={"intent": "billing"},
    )
    now = datetime.now(UTC)
    bad = EvaluationRecord(
        trace_id="t1",
        evaluated_at=now,
        metric_version="j",
        status="scored",
        claims=[
            ClaimResult(
                text="Pro costs $59 per month.",
                verdict="contradicted",
                score=0.9,
                evidence=Evidence(context_index=0, text="Pro costs $49 per month."),
            )
        ],
        contradicted_claims=1,
    )
    fine = bad.model_copy(update={"trace_id": "t2", "contradicted_claims": 0, "claims": []})
    ghost = bad.model_copy(update={"trace_id": "t3"})
    drafts, missing = drafts_from_records({"t1": trace}, [bad, fine, ghost])
    assert missing == ["t3"]
    (draft,) = drafts
    assert draft.needs_review
    assert draft.id == "finding-t1"
    assert draft.slice == {"intent": "billing"}
    assert [e.doc_id for e in draft.evidence] == ["price", "t1#passage1"]
    assert draft.origin is not None
    assert draft.origin.answer == "Pro costs $59 per month."
    assert draft.origin.contradicted[0].evidence == "Pro costs $49 per month."
    # a draft is a valid case: it round-trips through the loader
    path = tmp_path / "drafts.jsonl"
    path.write_text(draft.model_dump_json() + "\n", encoding="utf-8")
    assert load_cases(path)[0][0] == draft
