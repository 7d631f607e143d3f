"""HTTP API: contracts, error handling and the no-5xx promise (issue 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import EvaluationRecord
from groundwatch.runtime import Runtime
from tests.builders import build_settings
from tests.fakes import FakeJudge

ROOT = Path(__file__).resolve().parents[1]
RECORD_SCHEMA = json.loads((ROOT / "schemas" / "evaluation-record.v1.schema.json").read_text())


@pytest.fixture
def client() -> Iterator[TestClient]:
    settings = build_settings(api={"max_body_bytes": 200_000, "max_batch": 50, "queue_size": 100})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        yield c


def trace(**kw: Any) -> dict[str, Any]:
    t: dict[str, Any] = {
        "trace_id": "t-1",
        "question": "How long is the refund window?",
        "contexts": [
            {"id": "kb-1", "text": "Refunds within 30 days.", "score": 0.8},
            "Another passage.",
        ],
        "answer": "Refunds are possible within 30 days.",
        "attributes": {"intent": "billing", "tenant": "acme"},
    }
    t.update(kw)
    return t


def test_evaluate_returns_a_record_matching_the_committed_schema(client: TestClient) -> None:
    r = client.post("/v1/evaluate", json=trace())
    assert r.status_code == 200, r.text
    body = r.json()
    jsonschema.validate(body, RECORD_SCHEMA)
    record = EvaluationRecord.model_validate(body)
    assert record.status == "scored"
    assert record.metric_version == "fake/1"
    assert record.faithfulness == 1.0
    assert record.contexts[0].id == "kb-1"
    assert record.retrieval_top_score == 0.8


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": "q", "contexts": []}, "trace_id"),
        ({"trace_id": "x", "contexts": []}, "question"),
        ({"trace_id": "x", "question": "q"}, "contexts"),
        ({"trace_id": 5, "question": "q", "contexts": []}, "trace_id"),
        ({"trace_id": "x", "question": ["q"], "contexts": []}, "question"),
        ({"trace_id": "x", "question": "q", "contexts": "passage"}, "contexts"),
        ({"trace_id": "x", "question": "q", "contexts": [{"id": "1"}]}, "contexts.0"),
        (
            {"trace_id": "x", "question": "q", "contexts": [], "attributes": {"a": [1]}},
            "attributes.a",
        ),
        ({"trace_id": "", "question": "q", "contexts": []}, "trace_id"),
    ],
)
def test_wrong_types_and_missing_fields_are_422_naming_the_field(
    client: TestClient, body: dict[str, Any], field: str
) -> None:
    r = client.post("/v1/evaluate", json=body)
    assert r.status_code == 422, r.text
    fields = [e["loc"] for e in r.json()["errors"]]
    assert any(f.startswith(field) for f in fields), fields


def test_not_json_is_400_with_the_reason(client: TestClient) -> None:
    r = client.post(
        "/v1/evaluate", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    assert r.json()["error"] == "not_json"
    r = client.post(
        "/v1/rag-traces", content=b"\xff\xfe", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    assert r.json()["error"] == "not_utf8"


def test_huge_body_is_413(client: TestClient) -> None:
    big = trace(answer="x" * 300_000)
    r = client.post("/v1/evaluate", json=big)
    assert r.status_code == 413
    r = client.post("/v1/rag-traces", json=[trace(trace_id=f"t{i}") for i in range(51)])
    assert r.status_code == 413
    assert r.json()["error"] == "batch_too_large"


def test_field_over_limit_is_rejected_with_its_name(client: TestClient) -> None:
    settings = build_settings(limits={"max_passages": 2})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        r = c.post("/v1/evaluate", json=trace(contexts=["a", "b", "c"]))
        assert r.status_code == 413
        assert "contexts" in json.dumps(r.json())


@pytest.mark.parametrize(
    "text",
    [
        "Ünïcödé — ✓ 🚀",
        "שלום עולם",
        "zero\u200bwidth",
        "nul\x00byte",
        "\U0001f600" * 50,
        "a\u0301\u0301",
    ],
)
def test_odd_unicode_is_scored(client: TestClient, text: str) -> None:
    r = client.post("/v1/evaluate", json=trace(question=text, answer=text, contexts=[text]))
    assert r.status_code == 200, r.text


def test_lone_surrogate_is_422_not_500(client: TestClient) -> None:
    raw = b'{"trace_id": "s", "question": "\\ud800", "contexts": [], "answer": "a"}'
    r = client.post("/v1/evaluate", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 422


def test_empty_contexts_and_null_answer_give_nulls_with_reasons(client: TestClient) -> None:
    r = client.post("/v1/evaluate", json=trace(contexts=[], answer=None))
    assert r.status_code == 200
    body = r.json()
    assert body["faithfulness"] is None
    assert body["faithfulness_null_reason"] == "no_answer"
    assert body["context_precision"] is None
    assert body["first_relevant_rank"] is None
    assert body["answer_relevance"] is None
    assert "NaN" not in r.text


def test_batch_ingest_reports_per_item_reasons_and_duplicates(client: TestClient) -> None:
    items = [
        trace(trace_id="a"),
        {"trace_id": "b"},
        "not an object",
        trace(trace_id="a"),
        trace(trace_id="c"),
    ]
    r = client.post("/v1/rag-traces", json=items)
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["accepted"] == 2
    assert body["rejected"] == 3
    reasons = {e["index"]: e["reason"] for e in body["errors"]}
    assert reasons == {1: "schema", 2: "schema", 3: "duplicate_in_batch"}
    assert "question" in body["errors"][0]["detail"]
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert runtime.queue.join(10)
    metrics = client.get("/metrics").text
    assert 'groundwatch_traces_received_total{source="http"} 2.0' in metrics
    assert 'groundwatch_traces_evaluated_total{status="scored"} 2.0' in metrics
    assert 'groundwatch_traces_rejected_total{reason="schema",source="http"} 2.0' in metrics


def test_redelivered_trace_is_not_counted_twice(client: TestClient) -> None:
    for _ in range(3):
        assert client.post("/v1/rag-traces", json=[trace(trace_id="same")]).status_code == 202
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    assert runtime.queue.join(10)
    metrics = client.get("/metrics").text
    assert 'groundwatch_traces_received_total{source="http"} 1.0' in metrics
    assert 'groundwatch_traces_evaluated_total{status="scored"} 1.0' in metrics


def test_body_that_is_not_a_list_is_422(client: TestClient) -> None:
    r = client.post("/v1/rag-traces", json={"trace_id": "x"})
    assert r.status_code == 422


def test_health_ready_metrics_and_docs(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok", "checks": {"evaluator": True}}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["judge"] is True
    metrics = client.get("/metrics")
    assert metrics.status_code == 200
    assert 'groundwatch_judge_info{backend="fake",metric_version="fake/1"} 1.0' in metrics.text
    assert client.get("/openapi.json").status_code == 200
    assert client.get("/docs").status_code == 404  # only with GROUNDWATCH_API__DOCS=true


def test_queue_full_is_503_with_retry_after() -> None:
    settings = build_settings(api={"queue_size": 2})
    judge = FakeJudge(delay_s=0.5)
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        statuses = [
            c.post(
                "/v1/rag-traces", json=[trace(trace_id=f"q{i}-{j}") for j in range(2)]
            ).status_code
            for i in range(4)
        ]
        assert 503 in statuses
        r = c.post("/v1/rag-traces", json=[trace(trace_id=f"z{j}") for j in range(3)])
        assert r.status_code == 503
        assert r.headers["retry-after"]


def test_judge_failure_is_an_unscored_record_not_a_500() -> None:
    settings = build_settings()
    runtime = Runtime.build(settings, judge=FakeJudge(fail=True), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        r = c.post("/v1/evaluate", json=trace())
        assert r.status_code == 200
        assert r.json()["status"] == "unscored"
        assert r.json()["unscored_reason"] == "judge_error"
