"""The traces users already emit: payloads exported by the real OpenLLMetry (LlamaIndex, LangChain
0.47 and 0.62), Langfuse SDK (3.15, 5.2) and OpenTelemetry GenAI (openai-v2 2.3 with content as
log records, 2.4 with content on spans) instrumentations, captured by tests/otel_payloads/capture.py,
are replayed over HTTP to a groundwatch app served by uvicorn on a loopback port, at the path the
library's exporter used (``/v1/traces``, ``/v1/logs``, Langfuse's ``/api/public/otel/v1/traces``),
as protobuf and as OTLP JSON.

The libraries conflict with each other's pins and with the dev environment, so they are not
installed here: the payloads were exported by them through their real OTLP exporters, and the
capture script (with its pinned requirements) regenerates them.

Each replay must give 5 of 5 RAG traces with question, passages and answer and the one
contradiction (the refund answer says 90 days, its passage 30); a replay whose passages (or
question) were taken out must be answered with ``partial_success``, counted by library and missing
part, and never counted as "answered without evidence".
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import httpx
import pytest
import uvicorn

from groundwatch.api.app import create_app
from groundwatch.cli.commands import app_config
from groundwatch.contract.record import Verdict
from groundwatch.contract.trace import RagTrace
from groundwatch.judges.base import JudgeError, TraceJudgement
from groundwatch.runtime import Runtime
from groundwatch.sections.connections import OtelSettings
from groundwatch.settings import Settings
from tests.fakes import FakeJudge
from tests.infra import free_port, wait_port
from tests.otel_replay import PAYLOADS, Encoding, Payload, Strip

TOKEN = "otel-libraries-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
REFUND = "How long is the refund window?"
WRONG = "The refund window is 90 days."
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _library(payload: str) -> str:
    """The ``source_library`` label of a payload (its file name starts with it)."""
    return payload.split("-", 1)[0]


def _numbers_contradict(claim: str, trace: RagTrace) -> Verdict:
    """Contradicted when the claim states a number that no passage has."""
    found = set(_NUMBER.findall(" ".join(c.text for c in trace.contexts)))
    return "contradicted" if set(_NUMBER.findall(claim)) - found else "supported"


class RecordingJudge(FakeJudge):
    def __init__(self) -> None:
        super().__init__(verdict_fn=_numbers_contradict)
        self.seen: dict[str, RagTrace] = {}

    def judge_batch(self, traces: Sequence[RagTrace]) -> list[TraceJudgement | JudgeError]:
        for trace in traces:
            self.seen[trace.trace_id] = trace
        return super().judge_batch(traces)


@dataclass
class Service:
    url: str
    runtime: Runtime
    judge: RecordingJudge

    def metric(self, name: str, **labels: str) -> float:
        return self.runtime.registry.get_sample_value(name, labels) or 0.0

    def replay(
        self, payload: Payload, encoding: Encoding, strip: Strip | None = None
    ) -> list[httpx.Response]:
        replies = []
        for request in payload.requests(encoding, strip):
            headers = {**AUTH, "Content-Type": request.content_type}
            replies.append(
                httpx.post(self.url + request.path, content=request.body, headers=headers)
            )
        return replies

    def wait_seen(self, trace_ids: list[str], timeout: float = 15.0) -> list[RagTrace]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(t in self.judge.seen for t in trace_ids):
                self.runtime.queue.join(timeout=5.0)
                return [self.judge.seen[t] for t in trace_ids]
            time.sleep(0.05)
        missing = [t for t in trace_ids if t not in self.judge.seen]
        raise AssertionError(f"{len(missing)} of {len(trace_ids)} traces never scored")

    def contradicted(self) -> list[tuple[str, str]]:
        page = self.runtime.findings.page(limit=100)
        return [(f.trace_id, f.claim) for f in page.items]

    def coverage(self) -> dict[str, dict[str, object]]:
        reply = httpx.get(f"{self.url}/v1/ingest/coverage", headers=AUTH)
        assert reply.status_code == 200
        libraries: dict[str, dict[str, object]] = reply.json()["libraries"]
        return libraries


@pytest.fixture
def service() -> Iterator[Service]:
    settings = Settings(
        api={"tokens": [TOKEN], "host": "127.0.0.1"},
        otel=OtelSettings(assembly_window_s=1.0),
        state="memory",
    )
    judge = RecordingJudge()
    runtime = Runtime.build(settings, judge=judge, with_kafka=False)
    port = free_port()
    config = uvicorn.Config(
        create_app(runtime, app_config(settings)), host="127.0.0.1", port=port, log_level="warning"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_port(port)
        yield Service(f"http://127.0.0.1:{port}", runtime, judge)
    finally:
        server.should_exit = True
        thread.join(timeout=20)
    assert not thread.is_alive()


def _partial(reply: httpx.Response) -> tuple[int, str]:
    """(rejected spans or log records, error message) of an OTLP/HTTP success response."""
    assert reply.status_code == 200, reply.text
    if reply.headers["content-type"].startswith("application/json"):
        partial = reply.json().get("partialSuccess", {})
        count = partial.get("rejectedSpans", partial.get("rejectedLogRecords", 0))
        return int(count), str(partial.get("errorMessage", ""))
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )

    message = ExportTraceServiceResponse.FromString(reply.content)
    return message.partial_success.rejected_spans, message.partial_success.error_message


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
@pytest.mark.parametrize("name", PAYLOADS)
def test_real_payloads_give_five_rag_traces_and_the_one_contradiction(
    service: Service, name: str, encoding: Encoding
) -> None:
    payload = Payload.load(name)
    replies = service.replay(payload, encoding)
    assert [_partial(r) for r in replies] == [(0, "")] * len(replies)
    assert len(payload.trace_ids) == 5
    traces = service.wait_seen(payload.trace_ids)
    assert [t.question for t in traces] == payload.questions
    for trace in traces:
        assert len(trace.contexts) == 2, trace.contexts
        assert all(c.text and c.rank for c in trace.contexts)
        assert trace.answer
    refund = traces[payload.questions.index(REFUND)]
    assert refund.contexts[0].text == "The refund window is 30 days."
    assert service.contradicted() == [(refund.trace_id, WRONG)]
    library = _library(name)
    assert (
        service.metric(
            "groundwatch_otlp_traces_read_total", source_library=library, completeness="complete"
        )
        == 5
    )
    assert service.metric("groundwatch_answered_without_evidence_total") == 0
    coverage = service.coverage()
    assert coverage[library]["traces"] == 5
    assert coverage[library]["complete_share"] == 1.0


def test_langfuse_default_export_path_is_served(service: Service) -> None:
    payload = Payload.load("langfuse-5")
    [request] = payload.requests("protobuf")
    assert request.path == "/api/public/otel/v1/traces"  # where the SDK sends, unchanged
    reply = httpx.post(
        service.url + request.path,
        content=request.body,
        headers={**AUTH, "Content-Type": request.content_type},
    )
    assert reply.status_code == 200
    assert reply.headers["content-type"] == "application/x-protobuf"
    service.wait_seen(payload.trace_ids)
    bad = httpx.post(
        service.url + request.path, content=b"{nope", headers={**AUTH, "Content-Type": "text/x"}
    )
    assert bad.status_code == 415
    assert bad.json()["code"] == 3  # a google.rpc.Status, as on /v1/traces


def _no_passages(name: str) -> Strip:
    """Take out every attribute the passages of this payload are read from."""
    if name.startswith("langfuse"):
        return lambda span, key: span == "retrieve" and key == "langfuse.observation.output"
    if name.startswith("genai"):
        return lambda span, key: key == "gen_ai.retrieval.documents"
    if name == "openllmetry-0.47-langchain":
        return lambda span, key: span == "RunnableLambda.task" and key == "traceloop.entity.input"
    if name == "openllmetry-0.62-langchain":  # the retriever's output, the next task's input

        def strip(span: str, key: str) -> bool:
            if span.endswith("KeywordRetriever"):
                return key.endswith("output")
            return span.endswith("RunnableLambda") and key.endswith("input")

        return strip
    return lambda span, key: span.startswith("VectorIndexRetriever") and key.endswith("output")


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
@pytest.mark.parametrize(
    "name",
    [
        "openllmetry-0.62-llamaindex",
        "openllmetry-0.62-langchain",
        "openllmetry-0.47-langchain",
        "langfuse-3",
        "genai-openai-v2-span",
    ],
)
def test_payload_without_passages_is_partial_success_counted_and_never_unsupported(
    service: Service, name: str, encoding: Encoding
) -> None:
    payload = Payload.load(name)
    replies = service.replay(payload, encoding, _no_passages(name))
    library = _library(name)
    rejected = [_partial(r) for r in replies if not r.url.path.endswith("/v1/logs")]
    assert sum(n for n, _ in rejected) == payload.span_count()
    assert all(f"no passages readable in this {library} trace" in m for _, m in rejected)
    assert (
        service.metric(
            "groundwatch_otlp_traces_missing_total", source_library=library, missing="passages"
        )
        == 5
    )
    assert (
        service.metric(
            "groundwatch_otlp_traces_read_total", source_library=library, completeness="half_read"
        )
        == 5
    )
    time.sleep(1.5)  # past the assembly window: nothing else comes out of these traces
    service.runtime.queue.join(timeout=5.0)
    assert service.judge.seen == {}
    assert service.metric("groundwatch_answered_without_evidence_total") == 0
    assert service.coverage()[library]["complete_share"] == 0.0


def test_payload_without_question_is_partial_success_and_counted(service: Service) -> None:
    payload = Payload.load("openllmetry-0.62-llamaindex")

    def no_question(_: str, key: str) -> bool:
        return key == "traceloop.entity.input"

    [reply] = service.replay(payload, "json", no_question)
    rejected, message = _partial(reply)
    assert rejected == payload.span_count()
    assert "no_question (openllmetry trace)" in message
    assert (
        service.metric(
            "groundwatch_otlp_traces_missing_total",
            source_library="openllmetry",
            missing="question",
        )
        == 5
    )
    assert (
        service.metric(
            "groundwatch_otlp_traces_read_total",
            source_library="openllmetry",
            completeness="dropped",
        )
        == 5
    )
    assert service.judge.seen == {}


def test_genai_content_as_logs_waits_for_the_logs_and_counts_them_missing_otherwise(
    service: Service,
) -> None:
    payload = Payload.load("genai-openai-v2-logs")
    traces_only = next(r for r in payload.requests("protobuf") if r.path == "/v1/traces")
    reply = httpx.post(
        service.url + traces_only.path,
        content=traces_only.body,
        headers={**AUTH, "Content-Type": traces_only.content_type},
    )
    assert _partial(reply) == (0, "")  # held for the log records, not finished half read
    assert service.metric("groundwatch_otlp_pending_traces") == 5
    traces = service.wait_seen(payload.trace_ids)  # the window ran out: read as far as it goes
    assert [t.answer for t in traces] == [None] * 5
    assert [len(t.contexts) for t in traces] == [2] * 5
    assert (
        service.metric(
            "groundwatch_otlp_traces_missing_total", source_library="genai", missing="answer"
        )
        == 5
    )
    assert service.metric("groundwatch_answered_without_evidence_total") == 0
