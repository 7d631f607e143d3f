"""``benchmarks/accuracy.py`` counts findings (the judge's claims called contradicted) against
the labelled claims matched to them: a judged sentence that holds a true and a contradicted
labelled claim is one right finding; a finding matched only to true claims is a false page."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

from groundwatch.contract.record import ClaimResult, EvaluationRecord
from tests.modules import load_script

ROOT = Path(__file__).resolve().parents[1]


def _accuracy() -> ModuleType:
    return load_script(ROOT / "benchmarks" / "accuracy.py")


def _record(trace_id: str, claims: list[tuple[str, str]]) -> EvaluationRecord:
    return EvaluationRecord(
        trace_id=trace_id,
        evaluated_at=datetime.now(UTC),
        metric_version="test",
        status="scored",
        faithfulness=0.5,
        claims=[ClaimResult(text=t, verdict=v, score=0.9) for t, v in claims],  # type: ignore[arg-type]
    )


def _row(trace_id: str, claims: list[tuple[str, str]]) -> dict[str, object]:
    return {
        "trace_id": trace_id,
        "question": "q",
        "contexts": ["c"],
        "answer": "a",
        "label": {"claims": [{"text": t, "verdict": v} for t, v in claims]},
    }


def test_a_sentence_holding_a_contradiction_is_a_right_finding_not_a_false_page() -> None:
    acc = _accuracy()
    rows = [
        _row(
            "t1",
            [
                ("The operating margin in 2023 was 11%.", "contradicted"),
                ("Operating profit in 2023 was 196 million pounds.", "supported"),
            ],
        ),
        _row("t2", [("Smoking is prohibited in all enclosed public places.", "supported")]),
    ]
    records = [
        _record(
            "t1",
            [
                (
                    "The operating margin in 2023 was 11%, on operating profit of 196 million pounds.",
                    "contradicted",
                )
            ],
        ),
        _record("t2", [("Smoking is prohibited in all enclosed public places.", "contradicted")]),
    ]
    report = acc.score_records(rows, records)
    # claim level: both true claims count as called contradicted
    assert report.confusion["supported"]["contradicted"] == 2
    # finding level: t1's sentence is a right finding, t2's a false page
    assert (report.findings_right, report.findings_false) == (1, 1)
    assert any("findings: 2 labelled, 1 right, 1 false" in line for line in report.lines())
