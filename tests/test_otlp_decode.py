"""OTLP/HTTP request decoding: protobuf and OTLP JSON give the same spans; bad bodies raise
OtlpDecodeError and nothing else."""

from __future__ import annotations

import contextlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundwatch.ingest.otlp_decode import OtlpDecodeError, decode_otlp_request, media_kind
from tests.otlp_support import json_body, protobuf_body, record_rag_spans


def test_protobuf_and_json_decode_to_the_same_spans() -> None:
    spans = record_rag_spans("openinference")
    from_pb = decode_otlp_request(protobuf_body(spans), "application/x-protobuf")
    from_json = decode_otlp_request(json_body(spans), "application/json; charset=utf-8")
    assert from_pb == from_json
    assert len(from_pb) == 3
    by_name = {s.name: s for s in from_pb}
    root = by_name["rag.request"]
    assert root.is_root
    assert len(root.trace_id) == 32
    assert len(root.span_id) == 16
    retrieve = by_name["retrieve"]
    assert retrieve.parent_span_id == root.span_id
    assert retrieve.attributes["retrieval.documents.0.document.score"] == pytest.approx(0.82)
    assert retrieve.resource["service.name"] == "toy-assistant"
    assert retrieve.scope_name == "toy"
    assert retrieve.end_unix_nano >= retrieve.start_unix_nano > 0


def test_hand_written_otlp_json_with_string_ints_arrays_and_events() -> None:
    body = {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "tenant.id", "value": {"stringValue": "acme"}}]
                },
                "scopeSpans": [
                    {
                        "scope": {"name": "hand"},
                        "spans": [
                            {
                                "traceId": "5B8EFFF798038103D269B633813FC60C",
                                "spanId": "eee19b7ec3c1b174",
                                "parentSpanId": "",
                                "name": "llm",
                                "kind": 3,
                                "startTimeUnixNano": "1544712660000000000",
                                "endTimeUnixNano": "1544712661000000000",
                                "attributes": [
                                    {"key": "n", "value": {"intValue": "42"}},
                                    {"key": "ok", "value": {"boolValue": True}},
                                    {
                                        "key": "arr",
                                        "value": {
                                            "arrayValue": {
                                                "values": [
                                                    {"stringValue": "a"},
                                                    {"doubleValue": 1.5},
                                                ]
                                            }
                                        },
                                    },
                                    {
                                        "key": "kv",
                                        "value": {
                                            "kvlistValue": {
                                                "values": [{"key": "x", "value": {"intValue": 1}}]
                                            }
                                        },
                                    },
                                ],
                                "events": [
                                    {
                                        "timeUnixNano": "1544712660500000000",
                                        "name": "gen_ai.choice",
                                        "attributes": [
                                            {"key": "content", "value": {"stringValue": "hi"}}
                                        ],
                                    }
                                ],
                                "status": {"code": 2, "message": "boom"},
                                "unknownField": {"ignored": True},
                            }
                        ],
                    }
                ],
            }
        ]
    }
    [span] = decode_otlp_request(json.dumps(body).encode(), "application/json")
    assert span.trace_id == "5b8efff798038103d269b633813fc60c"
    assert span.attributes == {"n": 42, "ok": True, "arr": ["a", 1.5], "kv": {"x": 1}}
    assert span.kind == 3
    assert span.status_code == 2
    assert span.start_unix_nano == 1544712660000000000
    assert span.events[0].name == "gen_ai.choice"
    assert span.events[0].attributes == {"content": "hi"}
    assert span.resource == {"tenant.id": "acme"}


def test_empty_request_is_no_spans() -> None:
    assert decode_otlp_request(b"", "application/x-protobuf") == []
    assert decode_otlp_request(b"{}", "application/json") == []


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"\x0a\x05abc", "application/x-protobuf", "bad_protobuf"),
        (b"not json", "application/json", "bad_json"),
        (b"\xff\xfe", "application/json", "bad_json"),
        (b"[1, 2]", "application/json", "bad_json"),
        (b'{"resourceSpans": 5}', "application/json", "bad_json"),
        (
            b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"zz"}]}]}]}',
            "application/json",
            "bad_id",
        ),
        (
            b'{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"abcd"}]}]}]}',
            "application/json",
            "bad_id",
        ),
        (b"[" * 5000 + b"]" * 5000, "application/json", "bad_json"),
        (b"{}", "text/plain", "unsupported_media_type"),
    ],
)
def test_bad_bodies_raise_otlp_decode_error(body: bytes, content_type: str, reason: str) -> None:
    with pytest.raises(OtlpDecodeError) as info:
        decode_otlp_request(body, content_type)
    assert info.value.reason == reason
    assert isinstance(info.value, ValueError)


def test_media_kind() -> None:
    assert media_kind("application/x-protobuf") == "protobuf"
    assert media_kind("Application/JSON; charset=utf-8") == "json"
    with pytest.raises(OtlpDecodeError):
        media_kind("")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.sampled_from(["application/x-protobuf", "application/json"]))
def test_arbitrary_bytes_never_raise_anything_but_decode_error(body: bytes, ctype: str) -> None:
    with contextlib.suppress(OtlpDecodeError):
        decode_otlp_request(body, ctype)


@settings(max_examples=100, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda c: (
            st.lists(c, max_size=3)
            | st.dictionaries(
                st.sampled_from(
                    [
                        "resourceSpans",
                        "scopeSpans",
                        "spans",
                        "traceId",
                        "attributes",
                        "key",
                        "value",
                        "name",
                    ]
                ),
                c,
                max_size=3,
            )
        ),
        max_leaves=20,
    )
)
def test_arbitrary_json_shapes_never_raise_anything_but_decode_error(obj: object) -> None:
    with contextlib.suppress(OtlpDecodeError):
        decode_otlp_request(json.dumps({"resourceSpans": [obj]}).encode(), "application/json")
