"""Hostile input never stops the stream (issue 36, items 1-3).

Property tests (hypothesis) over mutated valid traces, on every decode path: the Kafka decoder
(``decode_fast``), the contract decoder, ``POST /v1/evaluate`` and ``POST /v1/rag-traces``.
Each input ends as a trace or as a rejection with a bounded reason (a 4xx on HTTP), never as
another exception or a 5xx. A trace that validates can be written: its record, result-topic
bytes, findings and case export are valid UTF-8 (the round trip). And ``/healthz`` fails when
the Kafka consumer thread is gone.

Bounded time: ``GROUNDWATCH_FUZZ_EXAMPLES`` examples per property (100 by default,
derandomised so CI runs are reproducible).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import EvaluationRecord
from groundwatch.contract.text import unencodable_path
from groundwatch.contract.trace import RagTrace, TraceDecodeError, TraceLimits, decode_trace
from groundwatch.ingest.otlp_decode import OtlpDecodeError, decode_otlp_request
from groundwatch.runtime import Runtime
from groundwatch_consumers.decode import decode_fast
from tests.builders import build_settings
from tests.fakes import FakeJudge

EXAMPLES = int(os.environ.get("GROUNDWATCH_FUZZ_EXAMPLES", "100"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
    derandomize="GROUNDWATCH_FUZZ_EXAMPLES" not in os.environ,
)
LIMITS = TraceLimits()
REASONS = {"not_utf8", "not_json", "schema", "oversize", "timestamp"}
HUGE = "__huge_int__"

# Any character, lone surrogates included (json.dumps writes them as \ud800 escapes).
any_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)
poison_value = st.one_of(
    any_text,
    st.just(HUGE),
    st.just("\ud800"),
    st.just("\udfff tail"),
    st.integers(),
    st.floats(),
    st.none(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(any_text, any_text, max_size=2),
)
#: Every place a string of a trace lives, extra fields of a passage included.
PATHS = [
    ("trace_id",),
    ("question",),
    ("answer",),
    ("contexts", 0, "text"),
    ("contexts", 0, "id"),
    ("contexts", 0, "doc_id"),
    ("contexts", 0, "source"),
    ("contexts", 0, "extra_field"),
    ("contexts", 1),
    ("attributes", "tenant"),
    ("attributes", "any key"),
    ("citations", 0, "sentence"),
    ("citations", 0, "context_ids", 0),
    ("timestamp",),
    ("extra_top_level",),
]


def base_trace(trace_id: str) -> dict[str, Any]:
    return {
        "trace_id": trace_id,
        "question": "How long is the refund window?",
        "contexts": [
            {"id": "kb-1", "doc_id": "d-1", "source": "kb", "text": "Refunds within 30 days."},
            "Shipping takes 5 days.",
        ],
        "answer": "Refunds are possible within 30 days. Shipping takes 9 days.",
        "citations": [
            {"sentence": "Refunds are possible within 30 days.", "context_ids": ["kb-1"]}
        ],
        "attributes": {"tenant": "acme"},
    }


def _set(obj: Any, path: Sequence[Any], value: Any) -> None:
    for part in path[:-1]:
        obj = obj[part]
    obj[path[-1]] = value


def encoded(obj: Any) -> bytes:
    """JSON bytes; the HUGE marker becomes a 5,000-digit integer literal (which Python's own
    ``json.dumps`` could not even write)."""
    raw = json.dumps(obj).encode()
    return raw.replace(f'"{HUGE}"'.encode(), b"7" * 5000)


@st.composite
def mutated_traces(draw: st.DrawFn) -> bytes:
    trace = base_trace(f"m-{draw(st.integers(0, 10**9))}")
    for path in draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=3)):
        _set(trace, path, draw(poison_value))
    raw = encoded(trace)
    if draw(st.booleans()):  # and sometimes damaged bytes, too
        pos = draw(st.integers(0, len(raw) - 1))
        raw = raw[:pos] + bytes([draw(st.integers(0, 255))]) + raw[pos + 1 :]
    return raw


def assert_writable(trace: RagTrace) -> None:
    """What validated can be written as UTF-8 everywhere it goes."""
    assert unencodable_path(trace.model_dump(mode="python")) is None
    trace.model_dump_json().encode("utf-8")


def outcome(fn: Any, raw: bytes) -> str:
    try:
        trace = fn(raw, LIMITS)
    except TraceDecodeError as exc:
        reason: str = exc.reason
    else:
        assert_writable(trace)
        return "trace"
    assert reason in REASONS
    return reason


@FUZZ
@given(raw=mutated_traces())
@example(raw=encoded({**base_trace("huge"), "n": HUGE}))
@example(raw=encoded(base_trace("s")).replace(b'"kb-1"', b'"\\ud800"'))
def test_kafka_and_contract_decoders_are_total_and_agree(raw: bytes) -> None:
    assert outcome(decode_fast, raw) == outcome(decode_trace, raw)


@FUZZ
@given(raw=st.binary(max_size=300))
def test_decoders_total_on_arbitrary_bytes(raw: bytes) -> None:
    assert outcome(decode_fast, raw) == outcome(decode_trace, raw)


def test_the_two_poison_messages_of_the_issue_are_rejected_with_reasons() -> None:
    huge = encoded({**base_trace("huge"), "n": HUGE})
    with pytest.raises(TraceDecodeError) as err:
        decode_fast(huge, LIMITS)
    assert err.value.reason == "not_json"
    assert "4300" in err.value.detail
    surrogate = encoded(base_trace("s")).replace(b'"kb-1"', b'"\\ud800"')
    with pytest.raises(TraceDecodeError) as err:
        decode_fast(surrogate, LIMITS)
    assert err.value.reason == "schema"
    assert "contexts.0.id" in err.value.detail


def test_otlp_json_with_a_huge_integer_is_a_decode_error() -> None:
    body = b'{"resourceSpans":[{"resource":{"attributes":[]},"n":' + b"7" * 5000 + b"}]}"
    with pytest.raises(OtlpDecodeError):
        decode_otlp_request(body, "application/json")


# -- HTTP paths and the round trip ------------------------------------------------------------


class EncodingSink:
    """Writes records exactly as the results topic does (``model_dump_json`` as UTF-8)."""

    def __init__(self) -> None:
        self.written: list[bytes] = []

    def write(self, records: Sequence[EvaluationRecord]) -> None:
        self.written += [r.model_dump_json().encode("utf-8") for r in records]

    def close(self) -> None:
        return None


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[TestClient, EncodingSink]]:
    sink = EncodingSink()
    cfg = build_settings(
        api={
            "max_body_bytes": 200_000,
            "queue_size": 10_000,
            "rate_limit_per_s": 1e6,
            "rate_limit_burst": 10**6,
        }
    )
    judge = FakeJudge(verdict_fn=lambda claim, _: "contradicted" if "9" in claim else "supported")
    runtime = Runtime.build(cfg, judge=judge, sinks=[sink], with_kafka=False)
    with TestClient(create_app(runtime, app_config(cfg))) as client:
        yield client, sink


def _utf8_json(body: bytes) -> Any:
    return json.loads(body.decode("utf-8"))  # raises if any byte is not UTF-8


@FUZZ
@given(raw=mutated_traces())
@example(raw=encoded({**base_trace("http-huge"), "n": HUGE}))
@example(raw=encoded(base_trace("http-s")).replace(b'"kb-1"', b'"\\ud800"'))
def test_http_paths_answer_4xx_or_a_writable_record(
    api: tuple[TestClient, EncodingSink], raw: bytes
) -> None:
    client, sink = api
    headers = {"content-type": "application/json"}
    response = client.post("/v1/evaluate", content=raw, headers=headers)
    assert response.status_code in (200, 400, 413, 422), response.text
    body = _utf8_json(response.content)
    if response.status_code == 200:
        assert body["status"] in ("scored", "unscored")
    else:
        assert body["error"] in REASONS
    batch = client.post("/v1/rag-traces", content=b"[" + raw + b"]", headers=headers)
    assert batch.status_code in (202, 400, 413, 422), batch.text
    _utf8_json(batch.content)
    listed = client.get("/v1/findings")
    assert listed.status_code == 200, listed.text
    _utf8_json(listed.content)
    cases = client.get("/v1/findings/cases")
    assert cases.status_code == 200, cases.text
    for line in cases.content.splitlines():  # JSON lines
        _utf8_json(line)
    for written in sink.written:
        written.decode("utf-8")


def test_round_trip_of_unusual_but_valid_text_keeps_every_field(
    api: tuple[TestClient, EncodingSink],
) -> None:
    """Valid non-ASCII text everywhere (emoji, RTL, combining marks, astral planes) is kept
    and written: the surrogate rule rejects only what cannot be encoded."""
    client, sink = api
    trace = base_trace("round-trip-\U0001f600")
    trace["contexts"][0]["id"] = "kb-\u05d0\U00010348"
    trace["attributes"]["tenant"] = "acme-\u00e9\u0301"
    trace["answer"] = "Refunds are possible within 30 days. Shipping takes 9 days \U0001f69a."
    response = client.post("/v1/evaluate", json=trace)
    assert response.status_code == 200, response.text
    assert response.json()["contradicted_claims"] == 1
    assert response.json()["contexts"][0]["id"] == "kb-\u05d0\U00010348"
    # The pipeline path: queue -> judge -> results sink, findings, export.
    accepted = client.post("/v1/rag-traces", json=[trace])
    assert accepted.status_code == 202, accepted.text
    deadline = time.monotonic() + 10
    while not any("round-trip-\U0001f600".encode() in w for w in sink.written):
        assert time.monotonic() < deadline, "the record never reached the results sink"
        time.sleep(0.05)
    written = next(w for w in sink.written if "round-trip-\U0001f600".encode() in w)
    assert json.loads(written.decode("utf-8"))["attributes"]["tenant"] == "acme-\u00e9\u0301"
    listed = client.get("/v1/findings").content.decode("utf-8")
    assert "Shipping takes 9 days" in listed
    cases = client.get("/v1/findings/cases").content.decode("utf-8")
    assert "Shipping takes 9 days" in cases


# -- a consumer thread that dies makes /healthz fail ------------------------------------------


class DyingConsumer:
    """Stands in for the Kafka consumer: joins, then its thread ends with a fatal error."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.die = threading.Event()

    def run(self) -> None:
        self.die.wait(10)
        if not self.stopped.is_set():
            raise RuntimeError("fatal: the consumer thread ended")

    def ready(self) -> bool:
        return not self.die.is_set()

    def stop(self) -> None:
        self.stopped.set()
        self.die.set()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_healthz_fails_when_the_consumer_thread_dies() -> None:
    cfg = build_settings()
    runtime = Runtime.build(cfg, judge=FakeJudge(), with_kafka=False)
    consumer = DyingConsumer()
    runtime.consumer = consumer
    with TestClient(create_app(runtime, app_config(cfg))) as client:
        alive = client.get("/healthz")
        assert alive.status_code == 200
        assert alive.json()["checks"]["kafka_consumer"] is True
        consumer.die.set()
        deadline = time.monotonic() + 5
        while client.get("/healthz").status_code == 200 and time.monotonic() < deadline:
            time.sleep(0.02)
        dead = client.get("/healthz")
        assert dead.status_code == 503
        assert dead.json() == {
            "status": "failing",
            "checks": {"evaluator": True, "kafka_consumer": False},
        }
