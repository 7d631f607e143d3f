"""``GET /v1/findings/cases``: the findings as a JSONL download of draft eval cases, through the
real app (memory store); the trace text a draft needs round-trips through every finding store
(memory, Redis, Redis Cluster), redacted like the claim and bounded."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.case import EvalCase
from groundwatch.contract.trace import RagTrace
from groundwatch.evaluation.processing import finding_trace
from groundwatch.evaluation.redaction import PiiRedactor
from groundwatch.runtime import Runtime
from groundwatch.settings import Settings
from groundwatch.state.findings import finding_from_dict, finding_to_dict
from groundwatch.state.stores import Finding, FindingPassage, FindingTrace
from tests.builders import build_settings
from tests.fakes import FakeJudge, make_trace
from tests.test_findings import FStore, make_findings  # noqa: F401 - the store fixture

TOKEN = "tok-cases-6f1d0c2b9e8a47d3"
METRICS_TOKEN = "metrics-cases-5e4d3c2b1a09"
EMAIL = "jane.doe@example.com"
PHONE = "+44 20 7946 0958"
PII = (EMAIL, PHONE, "jane.doe", "7946 0958")
BASE: dict[str, Any] = {
    "state": "memory",
    "api": {"tokens": [TOKEN], "metrics_token": METRICS_TOKEN, "rate_limit_per_s": 0},
    "redaction": {"mode": "mask"},
    "windows": {"slice_keys": ["tenant"]},
}
QUESTION = f"Can I reach support at {EMAIL}?"
ANSWER = f"Write to {EMAIL} today. Call {PHONE} now."
PASSAGE = f"Support: {EMAIL}, phone {PHONE}."


def _auth(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _contradicted(claim: str, trace: Any) -> str:
    return "contradicted"


@contextmanager
def _client(settings: Settings) -> Iterator[TestClient]:
    runtime = Runtime.build(settings, judge=FakeJudge(_contradicted), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as client:
        yield client


def _trace(trace_id: str, tenant: str, age_s: float = 0.0) -> dict[str, Any]:
    return make_trace(
        trace_id,
        question=QUESTION,
        answer=ANSWER,
        contexts=[{"id": "p1", "doc_id": "support", "text": PASSAGE}, "Another passage."],
        attributes={"tenant": tenant},
        timestamp=datetime.fromtimestamp(time.time() - age_s, UTC).isoformat(),
    )


def _post(client: TestClient, *traces: dict[str, Any]) -> None:
    for trace in traces:
        response = client.post("/v1/evaluate?record=true", json=trace, headers=_auth())
        assert response.status_code == 200, response.text
        assert response.json()["contradicted_claims"] == 2


def _cases(client: TestClient, **params: Any) -> list[EvalCase]:
    response = client.get("/v1/findings/cases", params=params, headers=_auth())
    assert response.status_code == 200, response.text
    return [EvalCase.model_validate_json(line) for line in response.text.splitlines()]


def test_download_is_draft_cases_redacted_filtered_and_bounded_by_limit() -> None:
    with _client(build_settings(BASE)) as client:
        _post(client, _trace("old-1", "acme", age_s=7200), _trace("new-2", "beta"))
        response = client.get("/v1/findings/cases", headers=_auth())
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        assert response.headers["content-disposition"] == (
            'attachment; filename="groundwatch-findings-cases.jsonl"'
        )
        for pii in PII:
            assert pii not in response.text
        cases = [EvalCase.model_validate_json(line) for line in response.text.splitlines()]
        # one case per trace (two contradicted claims each), newest first
        assert [c.id for c in cases] == ["finding-new-2", "finding-old-1"]
        case = cases[0]
        assert case.needs_review is True
        assert case.question == "Can I reach support at [EMAIL]?"
        assert case.slice == {"tenant": "beta"}
        assert [(e.doc_id, e.quote) for e in case.evidence] == [  # type: ignore[union-attr]
            ("support", "Support: [EMAIL], phone [PHONE]."),
            ("new-2#passage1", "Another passage."),
        ]
        assert case.origin is not None
        assert case.origin.trace_id == "new-2"
        assert case.origin.answer == "Write to [EMAIL] today. Call [PHONE] now."
        assert [c.claim for c in case.origin.contradicted] == [
            "Write to [EMAIL] today.",
            "Call [PHONE] now.",
        ]
        # the same filters as /v1/findings, a time filter and the limit
        assert [c.id for c in _cases(client, tenant="acme")] == ["finding-old-1"]
        assert [c.id for c in _cases(client, slice="tenant:beta")] == ["finding-new-2"]
        assert [c.id for c in _cases(client, since_min=60)] == ["finding-new-2"]
        assert [c.id for c in _cases(client, limit=1)] == ["finding-new-2"]
        assert _cases(client, tenant="nobody") == []
        bad = client.get("/v1/findings/cases?slice=nocolon", headers=_auth())
        assert bad.status_code == 422
        too_many = client.get("/v1/findings/cases?limit=1001", headers=_auth())
        assert too_many.status_code == 422
        # documented in the OpenAPI description as a JSONL download
        spec = client.get("/openapi.json").json()["paths"]["/v1/findings/cases"]["get"]
        assert "application/x-ndjson" in spec["responses"]["200"]["content"]
        assert {p["name"] for p in spec["parameters"]} >= {"limit", "since_min", "slice"}
        # the same auth as /v1/findings: a read token, not the metrics token
        assert client.get("/v1/findings/cases").status_code == 401
        assert client.get("/v1/findings/cases", headers=_auth(METRICS_TOKEN)).status_code == 403


def test_drop_text_mode_download_holds_no_trace_text() -> None:
    settings = build_settings(BASE, redaction={"mode": "drop_text"})
    with _client(settings) as client:
        _post(client, _trace("dropped-1", "acme"))
        response = client.get("/v1/findings/cases", headers=_auth())
        assert response.status_code == 200
        [case] = [EvalCase.model_validate_json(line) for line in response.text.splitlines()]
        # the case is there (an empty download would pass every "not in" below) ...
        assert case.id == "finding-dropped-1"
        assert case.question == "(question not recorded)"
        assert case.evidence == []
        assert case.origin is not None
        assert case.origin.answer is None
        assert [c.claim for c in case.origin.contradicted] == ["", ""]
        # ... and no trace text at all
        for text in ("Can I reach", "Write to", "Call", "Support:", "Another passage", *PII):
            assert text not in response.text


def test_kept_text_is_cut_after_redaction_to_the_configured_size() -> None:
    budget = 40
    settings = build_settings(BASE, findings={"case_text_chars": budget})
    with _client(settings) as client:
        _post(client, _trace("cut-1", "acme"))
        [case] = _cases(client)
        assert case.origin is not None
        kept = (
            len(case.question)
            + len(case.origin.answer or "")
            + sum(len(e.quote) for e in case.evidence)  # type: ignore[union-attr]
        )
        assert kept <= budget
        # the question (31 chars once redacted) first, then the answer up to the budget
        assert case.question == "Can I reach support at [EMAIL]?"
        assert case.origin.answer == "Write to "
        assert case.evidence == []
        # the budget falls inside the e-mail address of the raw question: cut before
        # redaction, "Can I reach support at jane.doe@example" would have been stored
        response = client.get("/v1/findings/cases", headers=_auth())
        for pii in PII:
            assert pii not in response.text
    with _client(build_settings(BASE, findings={"case_text_chars": 0})) as client:
        _post(client, _trace("none-1", "acme"))
        [case] = _cases(client)
        assert case.question == "(question not recorded)"
        assert case.evidence == []


def test_finding_trace_bounds_and_redacts() -> None:
    trace = RagTrace.model_validate(_trace("t", "acme"))
    redactor = PiiRedactor(mode="mask")
    full = finding_trace(trace, redactor, 10_000)
    assert full is not None
    assert full.truncated is False
    assert [p.text for p in full.passages] == [
        "Support: [EMAIL], phone [PHONE].",
        "Another passage.",
    ]
    assert [(p.index, p.id, p.doc_id) for p in full.passages] == [
        (0, "p1", "support"),
        (1, None, None),
    ]
    cut = finding_trace(trace, redactor, 80)
    assert cut is not None
    assert cut.truncated is True
    assert cut.chars == 80
    assert [p.index for p in cut.passages] == [0]
    assert finding_trace(trace, PiiRedactor(mode="drop_text"), 10_000) is None
    assert finding_trace(trace, redactor, 0) is None
    raw = finding_trace(trace, None, 10_000)  # redaction off: the text as sent
    assert raw is not None
    assert raw.question == QUESTION


def _finding(trace_id: str, claim_index: int, text: FindingTrace | None) -> Finding:
    return Finding(
        trace_id=trace_id,
        ts=100.0,
        claim_index=claim_index,
        claim="The fee is [EMAIL].",
        evidence="The fee is 5.",
        context_index=0,
        context_id="p1",
        score=0.9,
        reason="number",
        metric_version="fake/v1",
        slices={"tenant": "acme"},
        trace=text,
    )


TEXT = FindingTrace(
    question="What is the fee?",
    answer="The fee is 7.",
    passages=(FindingPassage(index=0, text="The fee is 5.", id="p1", doc_id="fees"),),
    truncated=True,
)


def test_trace_text_round_trips_through_every_finding_store(
    make_findings: Callable[[int], FStore],  # noqa: F811
) -> None:
    store = make_findings(100)
    assert store.add([_finding("a", 0, TEXT), _finding("b", 0, None)]) == 2
    by_id = {f.trace_id: f for f in store.page(limit=10).items}
    assert by_id["a"].trace == TEXT
    assert by_id["b"].trace is None


def test_a_finding_stored_before_trace_text_was_kept_still_reads() -> None:
    old = finding_to_dict(_finding("a", 0, None))
    del old["trace"]
    assert finding_from_dict(old).trace is None
    assert finding_from_dict(json.loads(json.dumps(finding_to_dict(_finding("a", 0, TEXT))))) == (
        _finding("a", 0, TEXT)
    )


@pytest.mark.parametrize("kept", [TEXT, None])
def test_draft_from_findings(kept: FindingTrace | None) -> None:
    from groundwatch.suite.findings_export import drafts_from_findings

    [case] = drafts_from_findings([_finding("a", 1, kept), _finding("a", 0, kept)])
    assert case.origin is not None
    assert len(case.origin.contradicted) == 2
    if kept is None:
        assert case.question == "(question not recorded)"
        assert case.evidence == []
    else:
        assert case.question == "What is the fee?"
        assert case.origin.answer == "The fee is 7."
        assert [(e.doc_id, e.quote) for e in case.evidence] == [("fees", "The fee is 5.")]  # type: ignore[union-attr]
