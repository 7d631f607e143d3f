"""``groundwatch suite run`` end to end with the real embedded judge on a few cases: bad lines
reported with line numbers and skipped, a missing trace recorded, judge-decided correctness and
nuggets, and the 2×2 separating a retrieval miss from a working case."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from groundwatch.cli import main
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.evaluator import Evaluator
from groundwatch.judges.embedded import EmbeddedJudge
from groundwatch.judges.embedding import build_embedder
from groundwatch.sections.judging import EmbeddingSettings
from groundwatch.suite.cases import EvalCase
from groundwatch.suite.runner import ProbeCache, load_records, run_suite

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


class _Counting(Evaluator):
    """Records every trace the judge is asked about."""

    def __init__(self, evaluator: Evaluator) -> None:
        super().__init__(evaluator.judge)
        self.seen: list[RagTrace] = []

    def evaluate_batch(self, traces: Sequence[RagTrace]) -> list[EvaluationRecord]:
        self.seen.extend(traces)
        return super().evaluate_batch(traces)

    def evaluate_claims_batch(self, traces: Sequence[RagTrace]) -> list[EvaluationRecord]:
        self.seen.extend(traces)
        return super().evaluate_claims_batch(traces)


@pytest.mark.slow
def test_probe_cache_judges_each_fact_once_and_changes_no_record() -> None:
    """A fact already checked against the same answer (same question) is not judged again,
    and the records are the same, field for field, as a run that judges every probe."""
    judge = EmbeddedJudge(build_embedder(EmbeddingSettings()))
    judge.load()
    base = [EvalCase.model_validate(c) for c in CASES[:2]]
    # "ok" twice more, and "missed" again with another reference answer. Each case's
    # reference answer is also its nugget: one fact per case, and a new one for missed-2.
    cases = [
        *base,
        base[0].model_copy(update={"id": "ok-2"}),
        base[0].model_copy(update={"id": "ok-3"}),
        base[1].model_copy(update={"id": "missed-2", "reference_answer": "Refunds take 30 days."}),
    ]
    by_question = {t["question"]: t for t in TRACES}
    traces = {
        c.id: RagTrace.model_validate({**by_question[c.question], "trace_id": c.id}) for c in cases
    }
    cached = _Counting(Evaluator(judge))
    records = run_suite(cases, traces, cached, batch_size=2)
    probes = [t for t in cached.seen if "#" in t.trace_id]
    facts = {(t.question, t.contexts[0].text, t.answer) for t in probes}
    assert len(probes) == len(facts) == 3
    assert sum(1 for t in cached.seen if "#" not in t.trace_id) == len(cases)
    plain = _Counting(Evaluator(judge))
    every = run_suite(cases, traces, plain, batch_size=2, probe_cache=ProbeCache(0))
    # without the cache only a batch's own repeats are judged once: [ok, missed] 2,
    # [ok-2, ok-3] 1, [missed-2] 2
    assert sum(1 for t in plain.seen if "#" in t.trace_id) == 5
    assert [r.model_dump() for r in records] == [r.model_dump() for r in every]
    assert [n.verdict for n in records[2].nuggets] == ["YES"]
    assert [n.verdict for n in records[4].nuggets] == ["NO"]


def test_probe_cache_keeps_only_scored_records_and_is_bounded() -> None:
    def record(status: str) -> EvaluationRecord:
        return EvaluationRecord.model_validate(
            {
                "trace_id": "t",
                "evaluated_at": "2026-01-01T00:00:00Z",
                "metric_version": "v",
                "status": status,
            }
        )

    cache = ProbeCache(2)
    cache.put("v", ("q", "a", "f1"), record("unscored"))
    assert cache.get("v", ("q", "a", "f1")) is None  # a judge error is never replayed
    for i in range(3):
        cache.put("v", ("q", "a", f"f{i}"), record("scored"))
    assert len(cache) == 2
    assert cache.get("v", ("q", "a", "f0")) is None  # least recently used, evicted
    assert cache.get("v", ("q", "a", "f2")) is not None
    assert cache.get("other-judge", ("q", "a", "f2")) is None  # keyed by judge version
