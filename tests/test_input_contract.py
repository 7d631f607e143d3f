"""What a user meets first, part 1 (issue 13): every limit on every path with one status and
reason, usable trace ids, counted citation warnings, text normalised before parsing, and one
error shape for every 4xx/5xx the API returns, documented in OpenAPI."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.trace import (
    RagTrace,
    TraceDecodeError,
    TraceLimits,
    decode_trace,
    validate_trace,
)
from groundwatch.runtime import Runtime
from groundwatch_consumers.decode import decode_fast
from tests.builders import build_settings
from tests.fakes import FakeJudge

ERROR_KEYS = {"error", "message", "errors"}


API: dict[str, Any] = {"max_body_bytes": 3_000_000, "max_batch": 5, "queue_size": 100}


@pytest.fixture
def client() -> Iterator[TestClient]:
    settings = build_settings(api=API)
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        yield c


def trace(**kw: Any) -> dict[str, Any]:
    t: dict[str, Any] = {
        "trace_id": "t-1",
        "question": "How long is the refund window?",
        "contexts": [{"id": "kb-1", "text": "Refunds within 30 days."}, "Another passage."],
        "answer": "Refunds are possible within 30 days.",
    }
    t.update(kw)
    return t


def big_trace() -> dict[str, Any]:
    # The trace from the issue: 1,140,306 bytes, every field under its own limit.
    passage = "x" * 19_000
    t = trace(contexts=[passage] * 60)
    assert len(json.dumps(t, separators=(",", ":")).encode()) > TraceLimits().max_bytes
    return t


def assert_error_shape(body: Any) -> None:
    assert set(body) == ERROR_KEYS, body
    assert isinstance(body["error"], str)
    assert body["error"]
    assert isinstance(body["message"], str)
    assert body["message"]
    for item in body["errors"]:
        assert set(item) == {"loc", "msg"}, item


# -- 1. every limit on every path --------------------------------------------------------------


def test_oversize_trace_is_rejected_on_every_path_with_the_same_reason(
    client: TestClient,
) -> None:
    t = big_trace()
    raw = json.dumps(t).encode()
    limits = TraceLimits()
    reasons = []
    paths: list[Callable[[], RagTrace]] = [
        lambda: decode_trace(raw, limits),  # Kafka, contract decoder
        lambda: decode_fast(raw, limits),  # Kafka, fast path
        lambda: validate_trace(t, limits),  # batch item, OTLP-assembled trace
    ]
    for decode in paths:
        with pytest.raises(TraceDecodeError) as exc:
            decode()
        reasons.append(exc.value.reason)
    assert reasons == ["oversize"] * 3

    r = client.post("/v1/evaluate", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 413, r.text
    assert r.json()["error"] == "oversize"
    assert_error_shape(r.json())

    r = client.post("/v1/rag-traces", json=[t, trace(trace_id="ok")])
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["accepted"] == 1
    assert body["rejected"] == 1
    assert body["errors"][0]["reason"] == "oversize"
    assert body["errors"][0]["status"] == 413


@pytest.mark.parametrize(
    ("trace_id", "why"),
    [
        ("   ", "visible"),
        ("\u3000\t", "visible"),
        ("abc\x00def", "U+0000"),
        ("abc\u200bdef", "U+200B"),
        ("line\nbreak", "U+000A"),
    ],
)
def test_trace_id_needs_a_visible_character_and_no_control_characters(
    client: TestClient, trace_id: str, why: str
) -> None:
    with pytest.raises(TraceDecodeError) as exc:
        validate_trace(trace(trace_id=trace_id), TraceLimits())
    assert exc.value.reason == "schema"
    assert why in exc.value.detail
    r = client.post("/v1/evaluate", json=trace(trace_id=trace_id))
    assert r.status_code == 422
    assert r.json()["errors"][0]["loc"] == "trace_id"


def test_unknown_citation_ids_are_a_counted_warning_not_a_silent_zero(
    client: TestClient,
) -> None:
    citations = [
        {"sentence": "Refunds are possible within 30 days.", "context_ids": ["kb-1", 1]},
        {"sentence": "Refunds are possible within 30 days.", "context_ids": ["kb-9", 7]},
    ]
    r = client.post("/v1/evaluate", json=trace(citations=citations))
    assert r.status_code == 200, r.text
    warnings = r.json()["citation_warnings"]
    assert warnings == [
        "citations.1.context_ids: 'kb-9' matches no passage",
        "citations.1.context_ids: '7' matches no passage",
    ]
    r = client.post("/v1/evaluate", json=trace(citations=citations[:1]))
    assert r.json()["citation_warnings"] == []
    r = client.post("/v1/evaluate?record=true", json=trace(citations=citations))
    metrics = client.get("/metrics").text
    assert "groundwatch_citation_warnings_total 2.0" in metrics


def test_text_is_normalised_before_any_parsing_on_every_path() -> None:
    t = trace(
        question="Ｗhat does it cost?",
        contexts=[{"id": "p", "text": "The plan costs $1\u200b25 a\u00admonth.\x07"}],
        answer="It costs $１２５\ufeff.",
        citations=[{"sentence": "It costs $1\u200b25.", "context_ids": ["p"]}],
    )
    raw = json.dumps(t).encode()
    for parsed in (
        validate_trace(t, TraceLimits()),
        decode_trace(raw, TraceLimits()),
        decode_fast(raw, TraceLimits()),
        RagTrace.model_validate(t),
    ):
        assert parsed.question == "What does it cost?"
        assert parsed.contexts[0].text == "The plan costs $125 amonth."
        assert parsed.answer == "It costs $125."
        assert parsed.citations is not None
        assert parsed.citations[0].sentence == "It costs $125."


def test_normalisation_keeps_line_structure_and_plain_text() -> None:
    text = "Line one.\n\tLine two: 30 days, café."
    assert RagTrace.model_validate(trace(answer=text)).answer == text


# -- 2. one error shape --------------------------------------------------------------------------


def _post(client: TestClient, path: str, body: bytes, content_type: str | None) -> Any:
    headers = {"content-type": content_type} if content_type else {}
    return client.post(path, content=body, headers=headers)


JSON = "application/json"


@pytest.mark.parametrize(
    ("path", "body", "content_type", "status", "code", "in_message"),
    [
        ("/v1/evaluate", b'{"trace_id": "a",\n  "question": }', JSON, 400, "not_json",
         "line 2 column 15"),
        ("/v1/rag-traces", b"[\n{]", JSON, 400, "not_json", "line 2 column 2"),
        ("/v1/evaluate", b'{"trace_id": "\xff"}', JSON, 400, "not_utf8", "byte 14"),
        ("/v1/evaluate", b"[" * 100_000 + b"]" * 100_000, JSON, 400, "not_json", "nested"),
        # Write routes take JSON only (issue 45: a cross-site form or text/plain POST is 415).
        ("/v1/evaluate", b"trace_id=a", None, 415, "unsupported_media_type",
         "content-type: application/json"),
        ("/v1/evaluate", b"trace_id=a", "application/x-www-form-urlencoded", 415,
         "unsupported_media_type", "application/x-www-form-urlencoded"),
        ("/v1/evaluate", b"[]", JSON, 422, "schema", "expected a JSON object"),
        ("/v1/evaluate", b'{"trace_id": "a"}', JSON, 422, "schema", "question"),
        ("/v1/rag-traces", b"{}", JSON, 422, "schema", "JSON array"),
        ("/v1/rag-traces", json.dumps([trace(trace_id=str(i)) for i in range(6)]).encode(),
         JSON, 413, "batch_too_large", "more than 5"),
        ("/v1/evaluate", b" " * 3_000_001, JSON, 413, "oversize", "MAX_BODY_BYTES"),
        ("/v1/findings?limit=0", b"", None, 422, "invalid_request", "limit"),
        ("/v1/findings?cursor=zz", b"", None, 400, "bad_request", "cursor"),
        ("/v1/nothing-here", b"", None, 404, "not_found", "Not Found"),
    ],
)  # fmt: skip
def test_every_class_of_bad_request_gets_the_one_error_shape(
    client: TestClient,
    path: str,
    body: bytes,
    content_type: str | None,
    status: int,
    code: str,
    in_message: str,
) -> None:
    if path.startswith("/v1/findings") or path == "/v1/nothing-here":
        r = client.get(path)
    else:
        r = _post(client, path, body, content_type)
    assert r.status_code == status, r.text
    assert_error_shape(r.json())
    assert r.json()["error"] == code
    assert in_message in r.json()["message"]


def test_method_not_allowed_and_auth_errors_have_the_shape() -> None:
    settings = build_settings(api={**API, "tokens": ["s3cret-token-0123456789"]})
    runtime = Runtime.build(settings, judge=FakeJudge(), with_kafka=False)
    with TestClient(create_app(runtime, app_config(settings))) as c:
        r = c.get("/v1/evaluate")
        assert r.status_code == 405
        assert_error_shape(r.json())
        for headers in ({}, {"authorization": "Bearer wrong"}):
            r = c.post("/v1/evaluate", json=trace(), headers=headers)
            assert r.status_code in (401, 403)
            assert_error_shape(r.json())


def test_json_body_without_content_type_is_refused_with_415(client: TestClient) -> None:
    # A browser's no-cors fetch of a Blob sends no content-type: refused since issue 45.
    r = client.post("/v1/evaluate", content=json.dumps(trace()).encode())
    assert r.status_code == 415, r.text
    assert r.json()["error"] == "unsupported_media_type"
    r = client.post(
        "/v1/evaluate", content=json.dumps(trace()).encode(), headers={"content-type": JSON}
    )
    assert r.status_code == 200, r.text


def test_openapi_documents_the_error_shape_and_the_trace_bodies(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert set(schemas["ErrorBody"]["properties"]) == ERROR_KEYS
    for path in ("/v1/evaluate", "/v1/rag-traces"):
        op = spec["paths"][path]["post"]
        for status in ("4XX", "5XX"):
            ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
            assert ref == "#/components/schemas/ErrorBody"
        ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.rsplit("/", 1)[1] in schemas
    assert "trace_id" in schemas["RagTrace"]["properties"]
    assert schemas["RagTraceBatch"]["items"]["$ref"] == "#/components/schemas/RagTrace"
