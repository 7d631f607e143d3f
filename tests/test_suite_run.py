"""``groundwatch suite run`` end to end with the real embedded judge on a few cases: bad lines
reported with line numbers and skipped, a missing trace recorded, judge-decided correctness and
nuggets, and the 2×2 separating a retrieval miss from a working case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundwatch.cli import main
from groundwatch.suite.runner import load_records

CASES = [
    {
        "id": "ok",
        "question": "How much does the Pro plan cost per month?",
        "slice": {"intent": "billing"},
        "reference_answer": "The Pro plan costs $49 per month.",
        "evidence": [{"doc_id": "plans", "quote": "The Pro plan costs $49 per month"}],
        "nuggets": [{"text": "The Pro plan costs $49 per month.", "vital": True}],
    },
    {
        "id": "missed",
        "question": "Within how many days are refunds issued?",
        "slice": {"intent": "billing"},
        "reference_answer": "Refunds are issued within 30 days of purchase.",
        "evidence": [{"doc_id": "refunds", "quote": "Refunds are issued within 30 days"}],
        "nuggets": [{"text": "Refunds are issued within 30 days of purchase.", "vital": True}],
    },
    {"id": "nope", "question": "Do you accept cryptocurrency?", "answerable": False},
    {"id": "no-trace", "question": "Is there an Android app?", "answerable": False},
]
TRACES = [
    {
        "trace_id": "ok",
        "question": CASES[0]["question"],
        "contexts": [
            {
                "id": "plans#0",
                "doc_id": "plans",
                "text": "The Pro plan costs $49 per month, billed monthly.",
            }
        ],
        "answer": "The Pro plan costs $49 per month.",
    },
    {
        "trace_id": "missed",
        "question": CASES[1]["question"],
        "contexts": [
            {
                "id": "sso#0",
                "doc_id": "sso",
                "text": "Single sign-on with SAML is available on the Team plan.",
            }
        ],
        "answer": "Single sign-on with SAML is available on the Team plan.",
    },
    {
        "trace_id": "nope",
        "question": CASES[2]["question"],
        "contexts": [],
        "answer": "I'm sorry, I don't have information about that.",
    },
]


@pytest.mark.slow
def test_suite_run_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = tmp_path / "cases.jsonl"
    lines = [json.dumps(c) for c in CASES]
    lines.insert(2, '{"id": "broken", "question": ""}')  # line 3: empty question
    cases.write_text("\n".join(lines) + "\n", encoding="utf-8")
    traces = tmp_path / "traces.jsonl"
    traces.write_text(
        "".join(json.dumps(t) + "\n" for t in TRACES) + "not json\n", encoding="utf-8"
    )
    out = tmp_path / "run.jsonl"
    rc = main(["suite", "run", str(cases), str(traces), "-o", str(out), "--config", '{"top_k": 1}'])
    assert rc == 0
    err = capsys.readouterr().err
    assert "cases.jsonl: line 3: schema: question" in err
    assert "traces.jsonl: line 4: not_json" in err
    records = {r.case_id: r for r in load_records(out)}
    assert list(records) == ["ok", "missed", "nope", "no-trace"]
    ok, missed, nope = records["ok"], records["missed"], records["nope"]
    assert ok.config == {"top_k": 1}
    assert ok.metrics["recall@1"] == 1.0
    assert ok.evidence_matches[0].kind == "quote"
    assert ok.metrics["correct"] == 1.0
    assert [n.verdict for n in ok.nuggets] == ["YES"]
    assert ok.diagnosis == "working"
    assert missed.metrics["hit@3"] == 0.0
    assert missed.metrics["correct"] == 0.0
    assert [n.verdict for n in missed.nuggets] == ["NO"]
    assert missed.diagnosis == "retrieval_problem"
    assert nope.metrics["false_answer"] == 0.0
    assert nope.diagnosis == "correct_refusal"
    assert nope.passed is True
    assert records["no-trace"].status == "missing_trace"
